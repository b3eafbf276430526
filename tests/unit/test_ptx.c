/* The PTX interpreter: instruction semantics, divergence, barriers and shared memory. Each test
 * is a small hand-written kernel; thread t of the grid writes out[t] through %rd3. */
#include "ptx_test_kernel.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Test(ptx_int, add_and_mul_wrap_around)
{
    cr_assert_eq(one("mov.u32 %r2, 2147483647;\nadd.s32 %r2, %r2, 1;\nst.global.u32 [%rd3], %r2;"),
                 0x80000000u);
    cr_assert_eq(one("mov.u32 %r2, 65536;\nmul.lo.u32 %r2, %r2, 65537;\nst.global.u32 [%rd3], %r2;"),
                 65536u);
    cr_assert_eq(one("mov.u32 %r2, 4294967295;\nmul.hi.u32 %r2, %r2, %r2;\nst.global.u32 [%rd3], %r2;"),
                 0xfffffffeu);
    cr_assert_eq(one("mov.u32 %r2, -3;\nmul.wide.s32 %rd5, %r2, 5;\ncvt.u32.u64 %r3, %rd5;\n"
                     "shr.u64 %rd6, %rd5, 32;\ncvt.u32.u64 %r4, %rd6;\nxor.b32 %r2, %r3, %r4;\n"
                     "st.global.u32 [%rd3], %r2;"),
                 (uint32_t)-15 ^ 0xffffffffu, "a 64-bit -15: the high word is all ones");
}

Test(ptx_int, shifts_of_the_width_or_more)
{
    cr_assert_eq(one("mov.u32 %r2, 1;\nshl.b32 %r2, %r2, 32;\nst.global.u32 [%rd3], %r2;"), 0u);
    cr_assert_eq(one("mov.u32 %r2, -1;\nshr.u32 %r2, %r2, 40;\nst.global.u32 [%rd3], %r2;"), 0u);
    cr_assert_eq(one("mov.u32 %r2, -8;\nshr.s32 %r2, %r2, 40;\nst.global.u32 [%rd3], %r2;"),
                 0xffffffffu, "arithmetic shift fills with the sign");
    cr_assert_eq(one("mov.u32 %r2, -8;\nshr.s32 %r2, %r2, 1;\nst.global.u32 [%rd3], %r2;"),
                 (uint32_t)-4);
}

Test(ptx_int, division_by_zero_and_overflow)
{
    cr_assert_eq(one("mov.u32 %r2, 7;\nmov.u32 %r4, 0;\ndiv.u32 %r2, %r2, %r4;\nst.global.u32 [%rd3], %r2;"),
                 0xffffffffu);
    cr_assert_eq(one("mov.u32 %r2, 7;\nmov.u32 %r4, 0;\nrem.u32 %r2, %r2, %r4;\nst.global.u32 [%rd3], %r2;"),
                 7u);
    cr_assert_eq(one("mov.u32 %r2, -2147483648;\ndiv.s32 %r2, %r2, -1;\nst.global.u32 [%rd3], %r2;"),
                 0x80000000u, "INT_MIN / -1 wraps instead of trapping");
    cr_assert_eq(one("mov.u32 %r2, -7;\ndiv.s32 %r2, %r2, 2;\nst.global.u32 [%rd3], %r2;"),
                 (uint32_t)-3, "truncates toward zero");
    cr_assert_eq(one("mov.u32 %r2, -7;\nrem.s32 %r2, %r2, 2;\nst.global.u32 [%rd3], %r2;"),
                 (uint32_t)-1);
}

Test(ptx_float, nan_results_are_canonical_and_propagate)
{
    cr_assert_eq(one("mov.f32 %f1, 0f7FC00001;\nadd.f32 %f2, %f1, 0f3F800000;\nmov.b32 %r2, %f2;\n"
                     "st.global.u32 [%rd3], %r2;"),
                 0x7fffffffu);
    cr_assert_eq(one("mov.f32 %f1, 0f7F800000;\nmov.f32 %f3, 0f00000000;\nmul.rn.f32 %f2, %f1, %f3;\n"
                     "mov.b32 %r2, %f2;\nst.global.u32 [%rd3], %r2;"),
                 0x7fffffffu, "inf * 0 is NaN");
    cr_assert_eq(one("mov.f32 %f1, 0fFFC00000;\nmov.f32 %f3, 0f40000000;\nmin.f32 %f2, %f1, %f3;\n"
                     "mov.b32 %r2, %f2;\nst.global.u32 [%rd3], %r2;"),
                 f32_bits(2.0f), "min ignores one NaN");
    cr_assert_eq(one("mov.f32 %f1, 0fFFC00000;\nneg.f32 %f2, %f1;\nmov.b32 %r2, %f2;\n"
                     "st.global.u32 [%rd3], %r2;"),
                 0x7fc00000u, "neg flips only the sign bit");
}

Test(ptx_float, fma_rounds_once)
{
    /* a = 1 + 2^-12, a*a = 1 + 2^-11 + 2^-24: fma keeps the 2^-24, mul then add loses it. */
    const char *fused = "mov.f32 %f1, 0f3F800800;\nmov.f32 %f3, 0fBF800000;\n"
                        "fma.rn.f32 %f2, %f1, %f1, %f3;\nmov.b32 %r2, %f2;\nst.global.u32 [%rd3], %r2;";
    const char *split = "mov.f32 %f1, 0f3F800800;\nmov.f32 %f3, 0fBF800000;\n"
                        "mul.rn.f32 %f4, %f1, %f1;\nadd.rn.f32 %f2, %f4, %f3;\nmov.b32 %r2, %f2;\n"
                        "st.global.u32 [%rd3], %r2;";
    float a = 1.0f + 0x1p-12f;
    cr_assert_eq(one(fused), f32_bits(fmaf(a, a, -1.0f)));
    cr_assert_eq(one(split), f32_bits(0x1p-11f));
    cr_assert_neq(one(fused), one(split));
}

Test(ptx_cvt, rounding_modes_and_saturation)
{
    /* -2.7, 2.5, 1e10, NaN */
    cr_assert_eq(one("mov.f32 %f1, 0fC02CCCCD;\ncvt.rzi.s32.f32 %r2, %f1;\nst.global.u32 [%rd3], %r2;"), (uint32_t)-2);
    cr_assert_eq(one("mov.f32 %f1, 0fC02CCCCD;\ncvt.rmi.s32.f32 %r2, %f1;\nst.global.u32 [%rd3], %r2;"), (uint32_t)-3);
    cr_assert_eq(one("mov.f32 %f1, 0fC02CCCCD;\ncvt.rpi.s32.f32 %r2, %f1;\nst.global.u32 [%rd3], %r2;"), (uint32_t)-2);
    cr_assert_eq(one("mov.f32 %f1, 0f40200000;\ncvt.rni.s32.f32 %r2, %f1;\nst.global.u32 [%rd3], %r2;"), 2u,
                 "ties go to even");
    cr_assert_eq(one("mov.f32 %f1, 0f501502F9;\ncvt.rzi.s32.f32 %r2, %f1;\nst.global.u32 [%rd3], %r2;"),
                 0x7fffffffu, "saturates");
    cr_assert_eq(one("mov.f32 %f1, 0f7FC00000;\ncvt.rzi.s32.f32 %r2, %f1;\nst.global.u32 [%rd3], %r2;"), 0u);
    cr_assert_eq(one("mov.f32 %f1, 0fC0000000;\ncvt.rzi.u32.f32 %r2, %f1;\nst.global.u32 [%rd3], %r2;"), 0u,
                 "negative to unsigned saturates at 0");
    cr_assert_eq(one("mov.u32 %r4, 16777217;\ncvt.rn.f32.s32 %f1, %r4;\nmov.b32 %r2, %f1;\n"
                     "st.global.u32 [%rd3], %r2;"),
                 f32_bits(16777216.0f));
    cr_assert_eq(one("mov.u32 %r4, -5;\ncvt.s64.s32 %rd5, %r4;\nshr.u64 %rd5, %rd5, 32;\n"
                     "cvt.u32.u64 %r2, %rd5;\nst.global.u32 [%rd3], %r2;"),
                 0xffffffffu, "sign extension");
}

Test(ptx_divergence, nested_if_else)
{
    /* even lanes: 10 + (t < 16 ? 1 : 2); odd lanes: 20. */
    const char *body =
        "and.b32 %r7, %r0, 1;\nsetp.ne.s32 %p1, %r7, 0;\n@%p1 bra ODD;\n"
        "setp.lt.u32 %p2, %r0, 16;\n@%p2 bra LOW;\nmov.u32 %r2, 12;\nbra.uni JOIN;\n"
        "LOW:\nmov.u32 %r2, 11;\nJOIN:\nbra.uni END;\n"
        "ODD:\nmov.u32 %r2, 20;\nEND:\nst.global.u32 [%rd3], %r2;";
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(run_kernel("", body, 1, 64, out, &err), 0, "%s", err.msg);
    for (uint32_t t = 0; t < 64; t++)
        cr_assert_eq(out[t], t % 2 ? 20u : t < 16 ? 11u : 12u, "thread %u", t);
}

Test(ptx_divergence, loops_with_per_lane_trip_counts)
{
    const char *body = "mov.u32 %r2, 0;\nmov.u32 %r8, 0;\n"
                       "LOOP:\nsetp.ge.u32 %p1, %r8, %r0;\n@%p1 bra DONE;\n"
                       "add.s32 %r2, %r2, %r8;\nadd.s32 %r8, %r8, 1;\nbra.uni LOOP;\n"
                       "DONE:\nst.global.u32 [%rd3], %r2;";
    uint32_t out[40];
    ptx_error err;
    cr_assert_eq(run_kernel("", body, 1, 40, out, &err), 0, "%s", err.msg);
    for (uint32_t t = 0; t < 40; t++)
        cr_assert_eq(out[t], t * (t - 1) / 2 * (t > 0), "thread %u", t);
}

Test(ptx_divergence, early_return_leaves_the_rest_running)
{
    const char *body = "rem.u32 %r7, %r0, 3;\nsetp.eq.u32 %p1, %r7, 0;\n@%p1 ret;\n"
                       "mul.lo.u32 %r2, %r0, 7;\nst.global.u32 [%rd3], %r2;";
    uint32_t out[50];
    ptx_error err;
    cr_assert_eq(run_kernel("", body, 1, 50, out, &err), 0, "%s", err.msg);
    for (uint32_t t = 0; t < 50; t++)
        cr_assert_eq(out[t], t % 3 ? 7 * t : 0xababababu, "thread %u", t);
}

Test(ptx_barrier, makes_other_warps_writes_visible)
{
    /* 96 threads (3 warps): shared[t] = t; bar.sync; out[t] = shared[95 - t]. */
    const char *decls = ".shared .align 4 .b8 buf[384];\n";
    const char *body = "mov.u32 %r9, buf;\nshl.b32 %r10, %r0, 2;\nadd.s32 %r11, %r9, %r10;\n"
                       "st.shared.u32 [%r11], %r0;\nbar.sync 0;\n"
                       "mov.u32 %r12, 95;\nsub.s32 %r12, %r12, %r0;\nshl.b32 %r12, %r12, 2;\n"
                       "add.s32 %r12, %r9, %r12;\nld.shared.u32 %r2, [%r12];\nst.global.u32 [%rd3], %r2;";
    uint32_t out[96];
    ptx_error err;
    cr_assert_eq(run_kernel(decls, body, 1, 96, out, &err), 0, "%s", err.msg);
    for (uint32_t t = 0; t < 96; t++)
        cr_assert_eq(out[t], 95 - t, "thread %u", t);
}

Test(ptx_shared, is_private_to_each_block_and_starts_poisoned)
{
    /* Block 0 writes 42 to buf[0] before reading it; block 1 reads it first: it must not see 42. */
    const char *decls = ".shared .align 4 .b8 buf[4];\n";
    const char *body = "mov.u32 %r9, buf;\nsetp.ne.u32 %p1, %r5, 0;\n@%p1 bra READ;\n"
                       "mov.u32 %r13, 42;\nst.shared.u32 [%r9], %r13;\n"
                       "READ:\nld.shared.u32 %r2, [%r9];\nst.global.u32 [%rd3], %r2;";
    uint32_t out[2];
    ptx_error err;
    cr_assert_eq(run_kernel(decls, body, 2, 1, out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[0], 42u);
    cr_assert_eq(out[1], 0xffffffffu, "block 1 sees the poison fill, not block 0's value");
}

Test(ptx_errors, shared_access_out_of_bounds_names_the_line)
{
    const char *decls = ".shared .align 4 .b8 buf[16];\n";
    const char *body = ".loc 1 27 3\nmov.u32 %r9, buf;\nld.shared.u32 %r2, [%r9+16];\n"
                       "st.global.u32 [%rd3], %r2;";
    uint32_t out[1];
    ptx_error err;
    cr_assert_eq(run_kernel(decls, body, 1, 1, out, &err), -1);
    cr_assert(strstr(err.msg, ":27: out-of-bounds shared access: shared memory byte 16 of 16"), "%s", err.msg);
}

Test(ptx_errors, unsupported_instruction_is_named_with_its_line)
{
    uint32_t out[1];
    ptx_error err;
    /* The module still parses; launching the kernel is refused, naming the instruction. */
    cr_assert_eq(run_kernel("", "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tex, {%r0}];", 1, 1, out, &err), -1);
    cr_assert(strstr(err.msg, "test.ptx:"), "%s", err.msg);
    cr_assert(strstr(err.msg, "the instruction \"tex.1d.v4.f32.s32\" is not supported by the CPU "
                              "backend"), "%s", err.msg);
}

/* An instruction the interpreter lacks costs nothing until its kernel is launched, and then the
 * refusal names the .cu line. */
Test(ptx_errors, unsupported_instruction_only_stops_its_own_kernel)
{
    static const char text[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n.file 1 \"mine.cu\"\n"
        ".visible .entry never(.param .u64 out)\n{\n.reg .b32 %r<4>;\n"
        ".loc 1 42 5\ntex.1d.v4.f32.s32 {%r1, %r2, %r3, %r0}, [tex, {%r0}];\nret;\n}\n"
        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\nmov.u32 %r1, 77;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
    ptx_error err;
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    cr_assert_not_null(m, "%s", err.msg);
    uint32_t out = 0;
    void *arg = &out;
    void *args[] = {&arg};
    cr_assert_eq(ptx_launch(ptx_module_entry(m, "k"), (ptx_dim3){1, 1, 1}, (ptx_dim3){1, 1, 1}, args,
                            0, NULL, &err), 0, "%s", err.msg);
    cr_expect_eq(out, 77u);
    cr_assert_eq(ptx_launch(ptx_module_entry(m, "never"), (ptx_dim3){1, 1, 1}, (ptx_dim3){1, 1, 1},
                            args, 0, NULL, &err), -1);
    cr_expect(strstr(err.msg, "mine.cu:42: the instruction \"tex.1d.v4.f32.s32\""), "%s", err.msg);
    ptx_module_free(m);
}

Test(ptx_errors, invalid_launch_configuration)
{
    uint32_t *out = malloc(4 * 2048);
    ptx_error err;
    cr_assert_eq(run_kernel("", "st.global.u32 [%rd3], %r0;", 1, 1025, out, &err), -1);
    cr_assert(strstr(err.msg, "invalid launch configuration"), "%s", err.msg);
    free(out);
}

Test(ptx_stats, counts_thread_instructions)
{
    char *text = kernel_text("", "mov.u32 %r2, 1;\nst.global.u32 [%rd3], %r2;");
    ptx_error err;
    ptx_module *m = ptx_module_parse("t.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_not_null(m, "%s", err.msg);
    uint32_t out[64];
    void *arg = out;
    void *args[] = {&arg};
    ptx_stats st = {0, 0};
    cr_assert_eq(ptx_launch(ptx_module_entry(m, "k"), (ptx_dim3){2, 1, 1}, (ptx_dim3){32, 1, 1}, args,
                            0, &st, &err), 0);
    /* 9 instructions (7 of the prologue, mov, st) plus ret, for 64 threads in 2 warps. */
    cr_assert_eq(st.thread_instructions, 64u * 10u);
    cr_assert_eq(st.warp_instructions, 2u * 10u);
    ptx_module_free(m);
}

Test(ptx_atomic, shared_and_global_adds_from_every_thread)
{
    /* Every thread adds its index to a shared counter and 1 to out[0]; thread 0 stores the
     * shared total, after a barrier, into out[1]. */
    const char *decls = ".shared .align 4 .b8 total[4];\n";
    const char *body = "mov.u32 %r9, total;\nsetp.ne.u32 %p1, %r0, 0;\n@%p1 bra ADD;\n"
                       "mov.u32 %r13, 0;\nst.shared.u32 [%r9], %r13;\n"
                       "ADD:\nbar.sync 0;\natom.shared.add.u32 %r14, [%r9], %r0;\n"
                       "red.global.add.u32 [%rd1], 1;\nbar.sync 0;\n@%p1 ret;\n"
                       "ld.shared.u32 %r2, [%r9];\nst.global.u32 [%rd1+4], %r2;";
    uint32_t out[100];
    ptx_error err;
    char *text = kernel_text(decls, body);
    ptx_module *m = ptx_module_parse("t.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_not_null(m, "%s", err.msg);
    memset(out, 0, sizeof out);
    void *arg = out;
    void *args[] = {&arg};
    cr_assert_eq(ptx_launch(ptx_module_entry(m, "k"), (ptx_dim3){1, 1, 1}, (ptx_dim3){100, 1, 1},
                            args, 0, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(out[0], 100u);
    cr_assert_eq(out[1], 99u * 100u / 2u);
    ptx_module_free(m);
}

/* Vector moves split a wide register into parts and join parts into one: libdevice's double
 * exp and log take their argument apart this way. */
Test(ptx_mov, vector_moves_split_and_join)
{
    cr_assert_eq(one("mov.f64 %fd1, 0d3FF8000000000001;\nmov.b64 {%r4, %r5}, %fd1;\n"
                     "st.global.u32 [%rd3], %r5;"),
                 0x3ff80000u, "the high word of 1.5 + ulp");
    cr_assert_eq(one("mov.f64 %fd1, 0d3FF8000000000001;\nmov.b64 {%r4, %r5}, %fd1;\n"
                     "st.global.u32 [%rd3], %r4;"),
                 1u, "the low word");
    cr_assert_eq(one("mov.u32 %r6, 7;\nmov.u32 %r7, 9;\nmov.b64 %rd5, {%r6, %r7};\n"
                     "shr.u64 %rd6, %rd5, 32;\ncvt.u32.u64 %r2, %rd6;\nst.global.u32 [%rd3], %r2;"),
                 9u, "the second part is the high word");
    uint32_t out[1];
    ptx_error err;
    int rc = run_kernel(".reg .b16 %rs<4>;\n",
                        "mov.u32 %r8, 0x12345678;\nmov.b32 {%rs1, %rs2}, %r8;\n"
                        "mov.b32 %r9, {%rs2, %rs1};\nst.global.u32 [%rd3], %r9;",
                        1, 1, out, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(out[0], 0x56781234u, "16-bit halves swapped");
}

/* Rounding modifiers change the result, each as the PTX ISA defines it. */
Test(ptx_float, rounding_modifiers_are_honoured)
{
    static const struct {
        const char *body;
        uint32_t want;
    } cases[] = {
        {"add.rp.f32 %f3, %f1, 0f33000000;", 0x3f800001u}, /* 1 + 2^-25 up */
        {"add.rn.f32 %f3, %f1, 0f33000000;", 0x3f800000u},
        {"add.rz.f32 %f3, %f1, 0f33C00000;", 0x3f800000u}, /* 1 + 0.75 ulp toward zero */
        {"add.f32 %f3, %f1, 0f33C00000;", 0x3f800001u},
        {"sub.rm.f32 %f3, 0f00000000, %f1;\nsub.rm.f32 %f3, %f3, 0f33000000;", 0xbf800001u},
        {"fma.rp.f32 %f3, %f1, %f1, 0f33000000;", 0x3f800001u},
        {"mul.rp.f32 %f3, 0f3F800001, 0f3F7FFFFF;", 0x3f800001u},
        {"mul.rn.f32 %f3, 0f3F800001, 0f3F7FFFFF;", 0x3f800000u},
        {"div.rz.f32 %f3, %f1, 0f40400000;", 0x3eaaaaaau},
        {"div.rn.f32 %f3, %f1, 0f40400000;", 0x3eaaaaabu},
        {"sqrt.rp.f32 %f3, 0f40000000;", 0x3fb504f4u},
        {"sqrt.rn.f32 %f3, 0f40000000;", 0x3fb504f3u},
        {"rcp.rz.f32 %f3, 0f40400000;", 0x3eaaaaaau},
        {"mov.u32 %r7, 16777217;\ncvt.rp.f32.s32 %f3, %r7;", 0x4b800001u},
        {"mov.u32 %r7, 16777217;\ncvt.rn.f32.s32 %f3, %r7;", 0x4b800000u},
        {"mov.f64 %fd1, 0d3FB999999999999A;\ncvt.rz.f32.f64 %f3, %fd1;", 0x3dccccccu},
        {"mov.f64 %fd1, 0d3FB999999999999A;\ncvt.rn.f32.f64 %f3, %fd1;", 0x3dcccccdu},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, "mov.f32 %%f1, 0f3F800000;\n%s\nmov.b32 %%r2, %%f3;\n"
                 "st.global.u32 [%%rd3], %%r2;", cases[i].body);
        cr_expect_eq(one(body), cases[i].want, "case %zu: %s", i, cases[i].body);
    }
    /* Doubles: 1 + 2^-60 rounded up is 1 + ulp. */
    cr_expect_eq(one("mov.f64 %fd1, 0d3FF0000000000000;\nadd.rp.f64 %fd2, %fd1, 0d3C30000000000000;\n"
                     "mov.b64 %rd5, %fd2;\ncvt.u32.u64 %r2, %rd5;\nst.global.u32 [%rd3], %r2;"),
                 1u);
}

/* A device function kept as a call: arguments in, the result out, its own registers. */
Test(ptx_call, a_function_gets_arguments_and_returns_a_result)
{
    static const char text[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)\n{\n"
        ".reg .b32 %r<3>;\nld.param.u32 %r1, [twice_param_0];\nadd.s32 %r2, %r1, %r1;\n"
        "mov.u32 %r1, 0;\nst.param.b32 [func_retval0+0], %r2;\nret;\n}\n"
        ".extern .func missing(.param .b32 missing_param_0);\n"
        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\nmov.u32 %r1, 21;\n"
        "{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n.param .b32 retval0;\n"
        "call.uni (retval0), twice, (param0);\nld.param.b32 %r2, [retval0+0];\n}\n"
        "st.global.u32 [%rd1], %r2;\nst.global.u32 [%rd1+4], %r1;\nret;\n}\n"
        ".visible .entry bad()\n{\n.reg .b32 %r<2>;\n"
        "{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n"
        "call.uni missing, (param0);\n}\nret;\n}\n";
    ptx_error err;
    ptx_module *m = ptx_module_parse("t.ptx", text, strlen(text), &err);
    cr_assert_not_null(m, "%s", err.msg);
    uint32_t out[2] = {0, 0};
    void *arg = out;
    void *args[] = {&arg};
    cr_assert_eq(ptx_launch(ptx_module_entry(m, "k"), (ptx_dim3){1, 1, 1}, (ptx_dim3){1, 1, 1},
                            args, 0, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(out[0], 42u);
    cr_assert_eq(out[1], 21u, "the caller's register is its own");
    cr_assert_neq(ptx_launch(ptx_module_entry(m, "bad"), (ptx_dim3){1, 1, 1},
                             (ptx_dim3){1, 1, 1}, NULL, 0, NULL, &err), 0);
    cr_assert(strstr(err.msg, "missing, which this file does not define") != NULL, "%s", err.msg);
    ptx_module_free(m);
}

/* What real modules hold: several extern .shared arrays (one per kernel), "::" in qualifiers,
 * and special registers the interpreter lacks (only the kernels using them are refused). */
Test(ptx_module, several_dynamic_arrays_qualifiers_and_unknown_special_registers)
{
    static const char text[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".extern .shared .align 16 .b8 sa[];\n.extern .shared .align 16 .b8 sb[];\n"
        ".visible .entry ka(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\nmov.u32 %r1, sa;\nmov.u32 %r2, sb;\nsub.u32 %r3, %r2, %r1;\n"
        "st.global.u32 [%rd1], %r3;\nret;\n}\n"
        ".visible .entry kb()\n{\n.reg .b32 %r<2>;\n"
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], "
        "[%rd1, {%r1}], [%r1];\n"
        "ret;\n}\n"
        ".visible .entry kc()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, %envreg3;\nret;\n}\n";
    ptx_error err;
    ptx_module *m = ptx_module_parse("t.ptx", text, strlen(text), &err);
    cr_assert_not_null(m, "%s", err.msg);
    uint32_t out[1] = {7};
    void *arg = out;
    void *args[] = {&arg};
    cr_assert_eq(ptx_launch(ptx_module_entry(m, "ka"), (ptx_dim3){1, 1, 1}, (ptx_dim3){1, 1, 1},
                            args, 16, NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(out[0], 0u, "both names are the launch's dynamic shared memory");
    cr_assert_neq(ptx_launch(ptx_module_entry(m, "kb"), (ptx_dim3){1, 1, 1}, (ptx_dim3){1, 1, 1},
                             NULL, 0, NULL, &err), 0);
    cr_assert(strstr(err.msg, "cp.async.bulk.tensor") != NULL, "%s", err.msg);
    cr_assert_neq(ptx_launch(ptx_module_entry(m, "kc"), (ptx_dim3){1, 1, 1}, (ptx_dim3){1, 1, 1},
                             NULL, 0, NULL, &err), 0);
    cr_assert(strstr(err.msg, "%envreg3") != NULL, "%s", err.msg);
    ptx_module_free(m);
}

/* A double NaN made by an operation is 0xfff8000000000000 on an H100 (a float one 0x7fffffff). */
Test(ptx_float, double_nan_results_are_the_gpus)
{
    cr_assert_eq(one("mov.f64 %fd1, 0dBFF0000000000000;\nsqrt.rn.f64 %fd2, %fd1;\n"
                     "mov.b64 {%r2, %r3}, %fd2;\nst.global.u32 [%rd3], %r3;"),
                 0xfff80000u, "sqrt(-1): the high word");
    cr_assert_eq(one("mov.f64 %fd1, 0d7FF0000000000000;\nsub.f64 %fd2, %fd1, %fd1;\n"
                     "mov.b64 {%r2, %r3}, %fd2;\nst.global.u32 [%rd3], %r3;"),
                 0xfff80000u, "inf - inf");
}
