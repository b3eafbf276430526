/* Helpers for the PTX interpreter's tests: a small kernel around a body of instructions,
 * launched on the interpreter. Thread t of the grid writes out[t] through %rd3. */
#ifndef TILELAB_TESTS_PTX_TEST_KERNEL_H
#define TILELAB_TESTS_PTX_TEST_KERNEL_H

#include "ptx.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prologue: %r1 = global thread index, %rd3 = &out[%r1], %r0 = %tid.x. */
static const char head[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    ".reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n.reg .f32 %f<20>;\n.reg .f64 %fd<10>;\n.reg .pred %p<10>;\n"
    "ld.param.u64 %rd1, [out];\n"
    "mov.u32 %r0, %tid.x;\nmov.u32 %r5, %ctaid.x;\nmov.u32 %r6, %ntid.x;\n"
    "mad.lo.s32 %r1, %r5, %r6, %r0;\n"
    "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n";

static inline char *kernel_text(const char *extra_decls, const char *body)
{
    size_t n = strlen(head) + strlen(extra_decls) + strlen(body) + 32;
    char *text = malloc(n);
    snprintf(text, n, "%s%s%s\nret;\n}\n", head, extra_decls, body);
    return text;
}

/* Runs the kernel; out is filled with 0xAB bytes first so unwritten elements show. */
static inline int run_kernel(const char *decls, const char *body, unsigned grid, unsigned block,
                      uint32_t *out, ptx_error *err)
{
    char *text = kernel_text(decls, body);
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), err);
    free(text);
    if (!m)
        return -2;
    const ptx_entry *e = ptx_module_entry(m, "k");
    cr_assert_not_null(e);
    memset(out, 0xab, sizeof(uint32_t) * grid * block);
    void *arg = out;
    void *args[] = {&arg};
    int rc = ptx_launch(e, (ptx_dim3){grid, 1, 1}, (ptx_dim3){block, 1, 1}, args, 0, NULL, err);
    ptx_module_free(m);
    return rc;
}

static inline uint32_t one(const char *body)
{
    uint32_t out[1];
    ptx_error err;
    int rc = run_kernel("", body, 1, 1, out, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    return out[0];
}

static inline uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

#endif /* TILELAB_TESTS_PTX_TEST_KERNEL_H */
