/* The checks' messages and the access figures under diagnosis: how an allocation is named,
 * and how much of what a warp fetches it uses. */
#include "ptx_test_kernel.h"

/* Runs the test kernel over out[0..n) with one device allocation: the first `bytes` bytes of
 * out, so an access beyond them is out of bounds. */
static int launch_checked(const char *body, unsigned block, uint32_t *out, uint64_t bytes, int id,
                          const char *name, ptx_diag *diag, ptx_error *err)
{
    char *text = kernel_text("", body);
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), err);
    free(text);
    if (!m)
        return -2;
    ptx_region region = {(uint64_t)(uintptr_t)out, bytes, NULL, id, name};
    void *arg = out;
    void *args[] = {&arg};
    ptx_env env = {&region, 1, diag, 1, 0};
    int rc = ptx_launch_env(ptx_module_entry(m, "k"), (ptx_dim3){1, 1, 1}, (ptx_dim3){block, 1, 1},
                            args, 0, &env, NULL, err);
    ptx_module_free(m);
    return rc;
}

/* One thread reads the word just past the allocation. */
static const char read_past[] = "ld.global.u32 %r2, [%rd1+16];\nst.global.u32 [%rd1], %r2;";

Test(ptx_diag, a_program_allocation_is_named_by_its_order)
{
    static const struct { int id; const char *words; } cases[] = {
        {1, "the 1st cudaMalloc'd buffer (16 bytes)"},   {2, "the 2nd cudaMalloc'd buffer"},
        {3, "the 3rd cudaMalloc'd buffer"},              {4, "the 4th cudaMalloc'd buffer"},
        {11, "the 11th cudaMalloc'd buffer"},            {12, "the 12th cudaMalloc'd buffer"},
        {13, "the 13th cudaMalloc'd buffer"},            {21, "the 21st cudaMalloc'd buffer"},
        {22, "the 22nd cudaMalloc'd buffer"},            {112, "the 112th cudaMalloc'd buffer"},
    };
    static uint32_t out[8];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ptx_error err;
        cr_assert_neq(launch_checked(read_past, 1, out, 16, cases[i].id, NULL, NULL, &err), 0);
        cr_assert(strstr(err.msg, "4 byte(s) past the end of ") != NULL, "%s", err.msg);
        cr_assert(strstr(err.msg, cases[i].words) != NULL, "id %d: %s", cases[i].id, err.msg);
        cr_assert(strstr(err.msg, "allocation #") == NULL, "%s", err.msg);
    }
}

Test(ptx_diag, an_owned_allocation_is_named_by_its_owner)
{
    static uint32_t out[8];
    ptx_error err;
    cr_assert_neq(launch_checked(read_past, 1, out, 16, 3, "M (2x2 floats, 16 bytes)", NULL, &err),
                  0);
    cr_assert(strstr(err.msg, "4 byte(s) past the end of M (2x2 floats, 16 bytes) (in k,") != NULL,
              "%s", err.msg);
}
