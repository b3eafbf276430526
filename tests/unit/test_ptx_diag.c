/* The checks' messages and the access figures under diagnosis: how an allocation is named,
 * and how much of what a warp fetches it uses. */
#include "ptx_test_kernel.h"

/* The test kernel around `body`. */
static ptx_module *module_of(const char *body)
{
    char *text = kernel_text("", body);
    ptx_error err;
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_not_null(m, "%s", err.msg);
    return m;
}

/* Runs m's kernel, one block, over out with one device allocation: the first `bytes` bytes of
 * out, so an access beyond them is out of bounds. A diagnosis refers to m: m outlives it. */
static int launch_checked(const ptx_module *m, unsigned block, uint32_t *out, uint64_t bytes,
                          int id, const char *name, ptx_diag *diag, ptx_error *err)
{
    ptx_region region = {(uint64_t)(uintptr_t)out, bytes, NULL, id, name, NULL};
    void *arg = out;
    void *args[] = {&arg};
    ptx_env env = {.regions = &region, .nregions = 1, .diag = diag, .threads = 1};
    return ptx_launch_env(ptx_module_entry(m, "k"), (ptx_dim3){1, 1, 1}, (ptx_dim3){block, 1, 1},
                          args, 0, &env, NULL, err);
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
    ptx_module *m = module_of(read_past);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ptx_error err;
        cr_assert_neq(launch_checked(m, 1, out, 16, cases[i].id, NULL, NULL, &err), 0);
        cr_assert(strstr(err.msg, "4 byte(s) past the end of ") != NULL, "%s", err.msg);
        cr_assert(strstr(err.msg, cases[i].words) != NULL, "id %d: %s", cases[i].id, err.msg);
        cr_assert(strstr(err.msg, "allocation #") == NULL, "%s", err.msg);
    }
    ptx_module_free(m);
}

Test(ptx_diag, an_owned_allocation_is_named_by_its_owner)
{
    static uint32_t out[8];
    ptx_error err;
    ptx_module *m = module_of(read_past);
    cr_assert_neq(launch_checked(m, 1, out, 16, 3, "M (2x2 floats, 16 bytes)", NULL, &err), 0);
    ptx_module_free(m);
    cr_assert(strstr(err.msg, "4 byte(s) past the end of M (2x2 floats, 16 bytes) (in k,") != NULL,
              "%s", err.msg);
}

/* The diagnosis as JSON (malloc'd); d, then the module it refers to, are freed. */
static char *json_of(ptx_diag *d, ptx_module *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    ptx_diag_write_json(d, f);
    fclose(f);
    ptx_diag_free(d);
    ptx_module_free(m);
    return text;
}

/* The diagnosis of one launch of `body` by one warp, as JSON (malloc'd). */
static char *diagnosis_of(const char *body, uint32_t *out, uint64_t bytes)
{
    ptx_diag *d = ptx_diag_new();
    cr_assert_not_null(d);
    ptx_module *m = module_of(body);
    ptx_error err;
    cr_assert_eq(launch_checked(m, 32, out, bytes, 1, NULL, d, &err), 0, "%s", err.msg);
    return json_of(d, m);
}

Test(ptx_diag, a_broadcast_uses_each_word_once)
{
    /* Every lane reads out[0] (one word, one sector), then stores its own word. */
    static _Alignas(128) uint32_t out[32];
    char *json = diagnosis_of("ld.global.u32 %r2, [%rd1];\nst.global.u32 [%rd3], %r2;", out,
                              sizeof out);
    cr_assert(strstr(json, "\"op\": \"load\", \"space\": \"global\", \"executions\": 1, "
                           "\"sectors\": 1, \"bytes\": 128, \"used_bytes\": 4, "
                           "\"needed_sectors\": 1") != NULL, "%s", json);
    cr_assert(strstr(json, "\"op\": \"store\", \"space\": \"global\", \"executions\": 1, "
                           "\"sectors\": 4, \"bytes\": 128, \"used_bytes\": 128, "
                           "\"needed_sectors\": 4") != NULL, "%s", json);
    free(json);
}

Test(ptx_diag, lanes_reading_the_same_word_in_pairs_share_it)
{
    /* Lane t reads out[t / 2]: 16 distinct words, 64 bytes in 2 sectors. */
    static _Alignas(128) uint32_t out[32];
    char *json = diagnosis_of("shr.u32 %r2, %r0, 1;\nmul.wide.u32 %rd4, %r2, 4;\n"
                              "add.s64 %rd5, %rd1, %rd4;\nld.global.u32 %r3, [%rd5];\n"
                              "st.global.u32 [%rd3], %r3;",
                              out, sizeof out);
    cr_assert(strstr(json, "\"sectors\": 2, \"bytes\": 128, \"used_bytes\": 64, "
                           "\"needed_sectors\": 2") != NULL, "%s", json);
    free(json);
}

Test(ptx_diag, the_baselines_launches_are_kept_apart)
{
    /* The same kernel, once as the submission's call and once as the baseline's: two sets of
     * figures, the second marked, and the traffic of each call on its own. */
    static _Alignas(128) uint32_t out[32];
    ptx_diag *d = ptx_diag_new();
    cr_assert_not_null(d);
    ptx_error err;
    ptx_module *m = module_of("ld.global.u32 %r2, [%rd3];\nst.global.u32 [%rd3], %r2;");
    cr_assert_eq(launch_checked(m, 32, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    ptx_diag_set_baseline(d, true);
    cr_assert_eq(launch_checked(m, 32, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    cr_assert_eq(launch_checked(m, 32, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    char *json = json_of(d, m);
    cr_assert(strstr(json, "\"baseline\": false, \"op\": \"load\", \"space\": \"global\", "
                           "\"executions\": 1,") != NULL, "%s", json);
    cr_assert(strstr(json, "\"baseline\": true, \"op\": \"load\", \"space\": \"global\", "
                           "\"executions\": 2,") != NULL, "%s", json);
    cr_assert(strstr(json, "\"traffic\": {\"flops\": 0, \"fmas\": 0, \"global_load_bytes\": 128, "
                           "\"global_store_bytes\": 128,") != NULL, "%s", json);
    cr_assert(strstr(json, "\"baseline_traffic\": {\"flops\": 0, \"fmas\": 0, "
                           "\"global_load_bytes\": 256, \"global_store_bytes\": 256,") != NULL,
              "%s", json);
    free(json);
}
