/* plain_cuda (lab 06): tensor-core instructions and inline assembly found in a submission's PTX,
 * named by kind, kernel and line; plain fp32 code passes; the rubric key reads. */
#include <criterion/criterion.h>

#include "grader.h"
#include "scratch.h"

#include <string.h>

/* What nvcc 13 writes for an asm() statement and for wmma::mma_sync (sm_90, abridged). */
static const char asm_ptx[] =
    ".version 9.0\n.target sm_90\n"
    ".visible .entry _Z5fusedPf(\n\t.param .u64 _Z5fusedPf_param_0\n)\n{\n"
    "\tld.global.f32 \t%f1, [%rd1];\n"
    "\t// begin inline asm\n\tfma.rn.f32 %f4, %f1, %f2, %f3;\n\t// end inline asm\n"
    "\tst.global.f32 \t[%rd1+12], %f4;\n\tret;\n}\n";

static const char wmma_ptx[] =
    ".visible .entry _Z15MatrixMulKernelPKfS0_Pfiii(\n)\n{\n"
    "\tfma.rn.f32 \t%f2, %f1, %f1, %f1;\n"
    "\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 \t{%r2, %r3}, [%rd6], %r1;\n"
    "\t@%p1 wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%f2}, {%r2}, {%r10}, {%f1};\n"
    "}\n";

/* Names that contain the opcodes without being them, and fp32 FMA everywhere. */
static const char plain_ptx[] =
    ".visible .entry _Z4mmaKPf(\n)\n{\n"
    "\t// the loop below is not inline asm\n"
    "\tfma.rn.f32 \t%f5, %f1, %f2, %f5;\n\tld.shared.v4.f32 \t{%f1, %f2, %f3, %f4}, [%r1];\n"
    "\tmov.u32 \t%r_mma, %r1;\n\tbra.uni \t$L__mma_loop;\n}\n";

Test(plain_cuda, inline_assembly_is_named_with_its_kernel_and_line)
{
    char detail[400];
    cr_assert_eq(ptx_plain_cuda_findings(asm_ptx, detail, sizeof detail), 1);
    cr_assert_str_eq(detail, "inline assembly (asm) in fused (PTX line 8)");
}

Test(plain_cuda, tensor_core_instructions_are_found_behind_a_guard)
{
    char detail[400];
    cr_assert_eq(ptx_plain_cuda_findings(wmma_ptx, detail, sizeof detail), 2);
    cr_assert(strstr(detail, "a tensor-core instruction in MatrixMulKernel (PTX line 5: "
                             "wmma.load.a.sync") == detail, "%s", detail);
    cr_assert(strstr(detail, ", and more"), "%s", detail);
}

Test(plain_cuda, plain_fp32_code_passes)
{
    char detail[400];
    cr_assert_eq(ptx_plain_cuda_findings(plain_ptx, detail, sizeof detail), 0);
    cr_assert_str_eq(detail, "none in the compiled PTX");
    cr_assert_eq(ptx_plain_cuda_findings("", detail, sizeof detail), 0);
}

TestSuite(plain_cuda_key, .init = scratch_init, .fini = scratch_fini);

Test(plain_cuda_key, read_from_the_rubric_and_off_by_default)
{
    rubric r;
    tl_error err = {""};
    const char *on = scratch_write("on.rubric", "plain_cuda = yes\n", 17);
    cr_assert_eq(rubric_read(on, &r, &err), 0, "%s", err.msg);
    cr_assert(r.plain_cuda);
    const char *off = scratch_write("off.rubric", "compile = 10\n", 13);
    cr_assert_eq(rubric_read(off, &r, &err), 0, "%s", err.msg);
    cr_assert(!r.plain_cuda);
    const char *bad = scratch_write("bad.rubric", "\nplain_cuda = maybe\n", 20);
    cr_assert_neq(rubric_read(bad, &r, &err), 0);
    cr_assert(strstr(err.msg, "bad.rubric:2") && strstr(err.msg, "yes or no"), "%s", err.msg);
}
