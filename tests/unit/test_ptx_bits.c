/* The PTX interpreter's bit instructions, one lane at a time: each expected value is worked out
 * by hand from the PTX ISA's definition (and checked against an H100 by the probe corpus). */
#include "ptx_test_kernel.h"

#include <criterion/criterion.h>

/* The low word of %r2 after `body`. */
static uint32_t r2(const char *body)
{
    char text[512];
    snprintf(text, sizeof text, "%s\nst.global.u32 [%%rd3], %%r2;", body);
    return one(text);
}

Test(ptx_bits, popc_clz_brev)
{
    cr_assert_eq(r2("popc.b32 %r2, 0xF0F0F0F1;"), 17u);
    cr_assert_eq(r2("mov.b64 %rd5, -1;\npopc.b64 %r2, %rd5;"), 64u);
    cr_assert_eq(r2("clz.b32 %r2, 0x00010000;"), 15u);
    cr_assert_eq(r2("clz.b32 %r2, 0;"), 32u, "no bit set: the width");
    cr_assert_eq(r2("mov.b64 %rd5, 1;\nclz.b64 %r2, %rd5;"), 63u);
    cr_assert_eq(r2("brev.b32 %r2, 1;"), 0x80000000u);
    cr_assert_eq(r2("brev.b32 %r2, 0x12345678;"), 0x1E6A2C48u);
}

Test(ptx_bits, bfind_signed_and_unsigned)
{
    cr_assert_eq(r2("bfind.u32 %r2, 0x00010000;"), 16u);
    cr_assert_eq(r2("bfind.u32 %r2, 0;"), 0xffffffffu, "no bit: all ones");
    cr_assert_eq(r2("bfind.s32 %r2, -1;"), 0xffffffffu, "-1 has no bit other than the sign");
    cr_assert_eq(r2("bfind.s32 %r2, 0xFFFF0000;"), 15u, "the top bit that differs from the sign");
    cr_assert_eq(r2("bfind.shiftamt.u32 %r2, 0x00010000;"), 15u, "the shift to the top");
}

Test(ptx_bits, bfe_extracts_and_extends)
{
    cr_assert_eq(r2("bfe.u32 %r2, 0x12345678, 8, 8;"), 0x56u);
    cr_assert_eq(r2("bfe.s32 %r2, 0x0000F000, 12, 4;"), 0xffffffffu, "field 1111: sign-extended");
    cr_assert_eq(r2("bfe.s32 %r2, 0x80000000, 28, 8;"), 0xfffffff8u,
                 "a field past the top takes the value's top bit as its sign");
    cr_assert_eq(r2("bfe.u32 %r2, 0x12345678, 8, 0;"), 0u, "no bits");
    cr_assert_eq(r2("bfe.u32 %r2, 0x12345678, 0x108, 0x104;"), 0x6u,
                 "position and length come from the low byte");
}

Test(ptx_bits, bfi_inserts)
{
    cr_assert_eq(r2("bfi.b32 %r2, 0xAB, 0x12345678, 8, 8;"), 0x1234AB78u);
    cr_assert_eq(r2("bfi.b32 %r2, 0xFF, 0x02345678, 28, 8;"), 0xF2345678u,
                 "bits past the top are dropped");
    cr_assert_eq(r2("bfi.b32 %r2, 0xFF, 0x12345678, 4, 0;"), 0x12345678u, "length 0: b");
}

Test(ptx_bits, prmt_selects_bytes)
{
    /* a = 0x33221100, b = 0x77665544: bytes 0..7 of b:a are 0x00, 0x11, ..., 0x77. */
    static const struct {
        const char *mode;
        uint32_t selector, want;
    } cases[] = {
        {"", 0x3210, 0x33221100u}, {"", 0x7654, 0x77665544u}, {"", 0x0123, 0x00112233u},
        {"", 0x4444, 0x44444444u}, {"", 0x000F, 0x00000000u}, {".f4e", 1, 0x44332211u},
        {".b4e", 0, 0x55667700u},  {".rc8", 2, 0x22222222u}, {".ecl", 1, 0x33221111u},
        {".ecr", 2, 0x22221100u},  {".rc16", 1, 0x33223322u},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[200];
        snprintf(body, sizeof body, "prmt.b32%s %%r2, 0x33221100, 0x77665544, %u;", cases[i].mode,
                 cases[i].selector);
        cr_assert_eq(r2(body), cases[i].want, "%s: %08x", body, r2(body));
    }
    cr_assert_eq(r2("prmt.b32 %r2, 0x00000080, 0, 0x8888;"), 0xffffffffu,
                 "selector bit 3 replicates the byte's sign");
}

Test(ptx_bits, shf_funnel_shifts)
{
    cr_assert_eq(r2("shf.l.wrap.b32 %r2, 0x89ABCDEF, 0x01234567, 4;"), 0x12345678u);
    cr_assert_eq(r2("shf.r.wrap.b32 %r2, 0x89ABCDEF, 0x01234567, 4;"), 0x789ABCDEu);
    cr_assert_eq(r2("shf.l.wrap.b32 %r2, 0x89ABCDEF, 0x01234567, 36;"), 0x12345678u,
                 ".wrap takes the amount modulo 32");
    cr_assert_eq(r2("shf.l.clamp.b32 %r2, 0x89ABCDEF, 0x01234567, 36;"), 0x89ABCDEFu,
                 ".clamp stops at 32: the low word moves up whole");
    cr_assert_eq(r2("shf.r.clamp.b32 %r2, 0x89ABCDEF, 0x01234567, 40;"), 0x01234567u);
    cr_assert_eq(r2("shf.l.wrap.b32 %r2, 0x89ABCDEF, 0x01234567, 0;"), 0x01234567u);
}

Test(ptx_bits, copysign_sad_mul24)
{
    cr_assert_eq(r2("copysign.f32 %f2, 0f80000000, 0f40000000;\nmov.b32 %r2, %f2;"), 0xC0000000u,
                 "2.0 with the sign of -0.0");
    cr_assert_eq(r2("copysign.f32 %f2, 0f3F800000, 0fFFC00001;\nmov.b32 %r2, %f2;"), 0x7FC00001u,
                 "a NaN's payload is kept");
    cr_assert_eq(r2("sad.s32 %r2, -3, 4, 10;"), 17u);
    cr_assert_eq(r2("sad.u32 %r2, 3, 5, 1;"), 3u);
    cr_assert_eq(r2("sad.u32 %r2, 0xFFFFFFFF, 0, 0;"), 0xffffffffu, "unsigned: no wrap to 1");
    cr_assert_eq(r2("mul24.lo.u32 %r2, 0x01000003, 5;"), 15u, "only the low 24 bits count");
    cr_assert_eq(r2("mul24.lo.s32 %r2, 0x00FFFFFF, 2;"), 0xfffffffeu, "24-bit -1 times 2");
    cr_assert_eq(r2("mul24.hi.u32 %r2, 0xFFFFFF, 0xFFFFFF;"), 0xFFFFFE00u,
                 "bits 47..16 of the 48-bit product");
    cr_assert_eq(r2("mad24.lo.u32 %r2, 3, 5, 100;"), 115u);
}

Test(ptx_bits, testp_classifies)
{
    static const struct {
        const char *test;
        uint32_t bits, want;
    } cases[] = {
        {"finite", 0x7F800000u, 0}, {"finite", 0x3F800000u, 1},  {"infinite", 0xFF800000u, 1},
        {"number", 0x7FC00000u, 0}, {"notanumber", 0x7FC00000u, 1}, {"subnormal", 1u, 1},
        {"normal", 1u, 0},          {"normal", 0x3F800000u, 1},  {"subnormal", 0x00800000u, 0},
        {"normal", 0u, 1},          {"subnormal", 0x80000000u, 0}, /* zero is normal on an H100 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[200];
        snprintf(body, sizeof body, "mov.b32 %%f1, 0x%08X;\ntestp.%s.f32 %%p1, %%f1;\n"
                 "selp.u32 %%r2, 1, 0, %%p1;", cases[i].bits, cases[i].test);
        cr_assert_eq(r2(body), cases[i].want, "%s", body);
    }
}

Test(ptx_bits, setp_with_a_boolean_and_two_results)
{
    cr_assert_eq(r2("setp.eq.s32 %p3, 0, 0;\nsetp.lt.and.s32 %p1|%p2, 1, 2, %p3;\n"
                    "selp.u32 %r3, 2, 0, %p1;\nselp.u32 %r4, 1, 0, %p2;\nor.b32 %r2, %r3, %r4;"),
                 2u, "p = (1<2) and true, q = !(1<2) and true");
    cr_assert_eq(r2("setp.eq.s32 %p3, 0, 0;\nsetp.lt.or.s32 %p1|%p2, 2, 1, !%p3;\n"
                    "selp.u32 %r3, 2, 0, %p1;\nselp.u32 %r4, 1, 0, %p2;\nor.b32 %r2, %r3, %r4;"),
                 1u, "!%p3 is false: p = false, q = true");
    cr_assert_eq(r2("setp.ne.s32 %p3, 0, 0;\nsetp.lt.xor.s32 %p1, 1, 2, %p3;\n"
                    "selp.u32 %r2, 1, 0, %p1;"), 1u);
}

Test(ptx_bits, lane_masks_and_clocks)
{
    uint32_t out[32];
    ptx_error err;
    cr_assert_eq(run_kernel("", "mov.u32 %r2, %lanemask_lt;\nst.global.u32 [%rd3], %r2;", 1, 32,
                            out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[5], 0x1fu);
    cr_assert_eq(run_kernel("", "mov.u32 %r2, %lanemask_ge;\nst.global.u32 [%rd3], %r2;", 1, 32,
                            out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[31], 0x80000000u);
    cr_assert_eq(out[0], 0xffffffffu);
    cr_assert_eq(r2("mov.u64 %rd5, %clock64;\nadd.u32 %r3, %r3, 1;\nmov.u64 %rd6, %clock64;\n"
                    "sub.u64 %rd7, %rd6, %rd5;\ncvt.u32.u64 %r2, %rd7;\n"
                    "setp.gt.u32 %p1, %r2, 0;\nselp.u32 %r2, 1, 0, %p1;"),
                 1u, "the clock goes up between two reads");
}

Test(ptx_bits, trap_stops_the_kernel_and_fences_are_accepted)
{
    uint32_t out[1];
    ptx_error err;
    cr_assert_eq(r2("membar.gl;\nfence.acq_rel.gpu;\nmov.u32 %r2, 7;"), 7u);
    cr_assert_neq(run_kernel("", "trap;", 1, 1, out, &err), 0);
    cr_assert(strstr(err.msg, "trap") != NULL, "%s", err.msg);
}

Test(ptx_bits, wrong_operand_counts_are_refused_with_the_line)
{
    ptx_error err;
    char *text = kernel_text("", "bfe.u32 %r2, %r3, 4;");
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_null(m);
    cr_assert(strstr(err.msg, "takes 4 operands") != NULL, "%s", err.msg);
    text = kernel_text("", "add.u32 _, %r3, 4;");
    m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_null(m, "a sink as an add's destination");
}

Test(ptx_bits, carry_chains_add_subtract_and_multiply_wide)
{
    /* (1:0xffffffff) + (0:1) = (2:0): the carry moves into the high word. */
    cr_assert_eq(r2("add.cc.u32 %r3, 0xFFFFFFFF, 1;\naddc.u32 %r2, 1, 0;"), 2u);
    cr_assert_eq(r2("add.cc.u32 %r2, 0xFFFFFFFF, 1;"), 0u);
    /* (5:0) - (0:1) = (4:0xffffffff): a borrow. */
    cr_assert_eq(r2("sub.cc.u32 %r3, 0, 1;\nsubc.u32 %r2, 5, 0;"), 4u);
    cr_assert_eq(r2("sub.cc.u32 %r3, 7, 1;\nsubc.u32 %r2, 5, 0;"), 5u, "no borrow");
    /* 0xffffffff * 0xffffffff = 0xfffffffe00000001; + 0xffffffff in the low word carries. */
    cr_assert_eq(r2("mad.lo.cc.u32 %r3, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF;\n"
                    "madc.hi.u32 %r2, 0xFFFFFFFF, 0xFFFFFFFF, 0;"), 0xffffffffu);
    cr_assert_eq(r2("addc.cc.u32 %r3, 0xFFFFFFFF, 0xFFFFFFFF;\naddc.u32 %r2, 0, 0;"), 1u,
                 "a carry out of addc.cc");
}
