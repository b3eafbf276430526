/* plain_cuda (lab 06): tensor-core instructions in a submission's PTX, named by kernel and line;
 * inline assembly allowed only when the toolkit's headers wrote it: the student's own asm, line
 * control and a macro that could rewrite a toolkit header's asm each fail, honest programs that
 * use the toolkit's intrinsics pass; the directives are read as the preprocessor reads them; the
 * rubric key reads. */
#include <criterion/criterion.h>

#include "checks_source.h"
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

/* __pipeline_memcpy_async's three blocks, as the toolkit's cuda_pipeline_helpers.h writes them. */
static const char pipeline_ptx[] =
    ".visible .entry _Z4tilePKfPf(\n)\n{\n"
    "\t// begin inline asm\n\tcp.async.ca.shared.global [%r1], [%rd1], 16, 16;\n\t// end inline asm\n"
    "\t// begin inline asm\n\tcp.async.commit_group;\n\t// end inline asm\n"
    "\t// begin inline asm\n\tcp.async.wait_group 0;\n\t// end inline asm\n"
    "\tbar.sync \t0;\n}\n";

Test(plain_cuda_ptx, inline_assembly_is_counted_not_judged)
{
    char detail[400];
    int blocks = -1;
    cr_assert_eq(ptx_plain_cuda_findings(asm_ptx, &blocks, detail, sizeof detail), 0);
    cr_assert_eq(blocks, 1);
    cr_assert_eq(ptx_plain_cuda_findings(pipeline_ptx, &blocks, detail, sizeof detail), 0);
    cr_assert_eq(blocks, 3);
}

Test(plain_cuda_ptx, tensor_core_instructions_are_found_behind_a_guard)
{
    char detail[400];
    int blocks = -1;
    cr_assert_eq(ptx_plain_cuda_findings(wmma_ptx, &blocks, detail, sizeof detail), 2);
    cr_assert(strstr(detail, "a tensor-core instruction in MatrixMulKernel (PTX line 5: "
                             "wmma.load.a.sync") == detail, "%s", detail);
    cr_assert(strstr(detail, ", and more"), "%s", detail);
    cr_assert_eq(blocks, 0);
}

Test(plain_cuda_ptx, plain_fp32_code_passes)
{
    char detail[400];
    int blocks = -1;
    cr_assert_eq(ptx_plain_cuda_findings(plain_ptx, &blocks, detail, sizeof detail), 0);
    cr_assert_str_eq(detail, "no tensor-core instruction in the compiled PTX");
    cr_assert_eq(blocks, 0, "a comment that mentions inline asm is not nvcc's marker");
    cr_assert_eq(ptx_plain_cuda_findings("", &blocks, detail, sizeof detail), 0);
}

/* ---- the whole rule: the student's files, its preprocessed code, the PTX --------------------- */
TestSuite(plain_cuda, .init = scratch_init, .fini = scratch_fini);

/* A made-up toolkit header folder (the scratch folder) and the headers the build read: these use
 * `volatile`, `asm` and `N` (a template parameter), never `min`; a header the build did not read
 * uses `IDX`. */
static const char *toolkit(void)
{
    static const char helpers[] =
        "template <int N> __device__ void cp(void *d, const void *s)\n"
        "{ asm volatile (\"cp.async.ca.shared.global [%0], [%1], %2, %2;\" :: \"r\"(d), \"l\"(s), \"n\"(N)); }\n";
    scratch_write("cuda_pipeline_helpers.h", helpers, sizeof helpers - 1);
    scratch_write("cuda_pipeline.h", "#include \"cuda_pipeline_helpers.h\"\n", 35);
    scratch_write("warp_exchange.cuh", "#define IDX(i) (i)\n", 19);
    static char read[512];
    /* as the compiler names them, ".." and all */
    snprintf(read, sizeof read, "%s/../%s/cuda_pipeline.h\n%s/cuda_pipeline_helpers.h\n/usr/include/stdio.h\n",
             scratch_dir, strrchr(scratch_dir, '/') + 1, scratch_dir);
    return read;
}

static int judge(const char *ptx, const char *own, const char *const *names,
                 const char *const *texts, int n, char *detail, size_t size)
{
    plain_cuda_input in = {ptx, own, names, texts, n, toolkit(), scratch_dir};
    return plain_cuda_findings(&in, detail, size);
}

/* The honest lab 06 file: the toolkit's pipeline functions, its macros after the includes. */
static const char honest[] =
    "#include \"lab.h\"\n#include <cuda_pipeline.h>\n"
    "#define BM 128\n#define IDX(r, c) ((r) * BM + (c))\n#define min(a, b) ((a) < (b) ? (a) : (b))\n"
    "__global__ void tile(const float *a, float *b) { /* __pipeline_memcpy_async ... */ }\n";
static const char honest_own[] =
    "# 3 \"template.cu\"\n\n\n\n__global__ void tile(const float *a, float *b) {\n"
    "  __pipeline_memcpy_async(s, a, 16);\n  __pipeline_commit();\n}\n";

Test(plain_cuda, the_toolkits_inline_assembly_passes)
{
    const char *names[] = {"template.cu"}, *texts[] = {honest};
    char detail[700];
    cr_assert_eq(judge(pipeline_ptx, honest_own, names, texts, 1, detail, sizeof detail), 0, "%s", detail);
    cr_assert(strstr(detail, "the 3 inline-assembly blocks in the PTX come from the toolkit's"), "%s", detail);
    cr_assert_eq(judge(plain_ptx, honest_own, names, texts, 1, detail, sizeof detail), 0, "%s", detail);
    cr_assert_str_eq(detail, "no tensor-core instruction and no inline assembly");
}

Test(plain_cuda, the_students_own_asm_fails_by_file_and_line)
{
    /* jay: an asm() fma; and the same keyword made by token pasting, which only the
     * preprocessed code shows. */
    static const char jay_own[] =
        "# 2 \"template.cu\"\nstatic __device__ float f(float a)\n{\n"
        "    float d; asm(\"fma.rn.f32 %0, %1, %1, %1;\" : \"=f\"(d) : \"f\"(a)); return d;\n}\n"
        "# 9 \"kernels/extra.h\"\nvoid g() { __asm__ __volatile__(\"\"); }\n";
    const char *names[] = {"template.cu"}, *texts[] = {"#include \"lab.h\"\n"};
    char detail[700];
    cr_assert_eq(judge(asm_ptx, jay_own, names, texts, 1, detail, sizeof detail), 1);
    cr_assert_str_eq(detail, "inline assembly (asm) in the submission's code, template.cu:4");
    cr_assert_eq(judge(asm_ptx, strstr(jay_own, "# 9"), names, texts, 1, detail, sizeof detail), 1);
    cr_assert_str_eq(detail, "inline assembly (asm) in the submission's code, kernels/extra.h:9");
    /* The words in a string, a comment or a longer name are not asm statements. */
    static const char words[] = "# 1 \"template.cu\"\nconst char *s = \"asm\"; int asm_count, my__asm__;\n";
    cr_assert_eq(judge(asm_ptx, words, names, texts, 1, detail, sizeof detail), 0, "%s", detail);
    /* Unreadable preprocessed code is a finding, not a pass. */
    cr_assert_eq(judge(asm_ptx, NULL, names, texts, 1, detail, sizeof detail), 1);
}

Test(plain_cuda, tensor_cores_fail_even_from_the_toolkits_headers)
{
    const char *names[] = {"template.cu"}, *texts[] = {honest};
    char detail[700];
    cr_assert_eq(judge(wmma_ptx, honest_own, names, texts, 1, detail, sizeof detail), 2);
    cr_assert(strstr(detail, "a tensor-core instruction in MatrixMulKernel"), "%s", detail);
}

Test(plain_cuda, line_control_fails_when_the_ptx_has_inline_assembly)
{
    /* Each would make the student's lines the toolkit's in the preprocessed code. */
    static const char *const forged[] = {
        "int a;\n#line 190 \"/usr/local/cuda/include/cuda_pipeline_helpers.h\"\n",
        "int a;\n# 190 \"/usr/local/cuda/include/cuda_pipeline_helpers.h\" 1 3\n",
        "int a;\n  %: line 190\n",
        "int a;\n#/* a comment\n spanning lines */ line 190 \"x.h\"\n",
        "int a;\n#li\\\nne 190 \"x.h\"\n",
        "int a;\r#line 190 \"x.h\"\n",
        "int a;\nconst char *s = R\"x(\n# 190 \"/usr/local/cuda/include/cuda_pipeline_helpers.h\"\n)x\";\n",
    };
    static const int lines[] = {2, 2, 2, 2, 2, 2, 3};
    char detail[700], want[64];
    for (size_t i = 0; i < sizeof forged / sizeof *forged; i++) {
        const char *names[] = {"template.cu"}, *texts[] = {forged[i]};
        cr_assert_eq(judge(pipeline_ptx, honest_own, names, texts, 1, detail, sizeof detail), 1,
                     "case %zu: %s", i, detail);
        snprintf(want, sizeof want, "template.cu:%d: ", lines[i]);
        cr_assert(strstr(detail, want) == detail, "case %zu: %s", i, detail);
    }
    /* Without inline assembly in the PTX there is nothing to hide: no finding. */
    const char *names[] = {"template.cu"}, *texts[] = {forged[0]};
    cr_assert_eq(judge(plain_ptx, honest_own, names, texts, 1, detail, sizeof detail), 0, "%s", detail);
}

Test(plain_cuda, text_that_only_looks_like_line_control_passes)
{
    static const char text[] =
        "/*\n# 1 step one\n#line in a comment\n*/\n// #line 5\n"
        "const char *s = \"\\n# 190 \\\"x.h\\\"\";\nint x = 1; /*\n*/ # define Y 2\n"
        "const char *r = R\"(\n  steps: 1, 2\n)\";\n";
    const char *names[] = {"template.cu"}, *texts[] = {text};
    char detail[700];
    cr_assert_eq(judge(pipeline_ptx, honest_own, names, texts, 1, detail, sizeof detail), 0, "%s", detail);
}

Test(plain_cuda, a_macro_that_could_rewrite_the_toolkits_asm_fails)
{
    /* `asm volatile (...)` in the toolkit's header becomes the student's instruction. */
    static const char before[] =
        "#define volatile(...) (\"mul.lo.u32 %0, %0, 3;\" : \"+r\"(evil))\n"
        "__device__ unsigned evil;\n#include <cuda_pipeline.h>\n#undef volatile\n";
    const char *names[] = {"template.cu"}, *texts[] = {before};
    char detail[700];
    cr_assert_eq(judge(pipeline_ptx, honest_own, names, texts, 1, detail, sizeof detail), 1);
    cr_assert(strstr(detail, "template.cu:1: #define volatile is in force at the #include "
                             "<cuda_pipeline.h> of template.cu:3") == detail, "%s", detail);
    /* An #undef of the toolkit's own include guard, to read its header again. */
    static const char guard[] = "#include <cuda_pipeline.h>\n#undef asm\n#include <cuda_pipeline.h>\n";
    texts[0] = guard;
    cr_assert_eq(judge(pipeline_ptx, honest_own, names, texts, 1, detail, sizeof detail), 1);
    cr_assert(strstr(detail, "template.cu:2: #undef asm"), "%s", detail);
    /* In a header of the submission's, included before the toolkit's. */
    static const char main_text[] = "#include \"sub/evil.h\"\n#include \"lab.h\"\n";
    static const char evil_h[] = "#pragma once\n#define asm(...) __asm__(\"\")\n";
    const char *names2[] = {"template.cu", "sub/evil.h"}, *texts2[] = {main_text, evil_h};
    cr_assert_eq(judge(pipeline_ptx, honest_own, names2, texts2, 2, detail, sizeof detail), 1);
    cr_assert(strstr(detail, "sub/evil.h:2: #define asm is in force at the #include \"lab.h\" of "
                             "template.cu:2") == detail, "%s", detail);
}

Test(plain_cuda, honest_macros_pass)
{
    /* Defined before the includes but never used by the toolkit's headers the build read (IDX,
     * min), or a plain value
     * (N, a name the toolkit uses), or undone before the include, or a header's include guard. */
    static const char text[] =
        "#define IDX(r, c) ((r) * 64 + (c))\n#define min(a, b) ((a) < (b) ? (a) : (b))\n"
        "#define N 1024\n#define asm_count 3\n#define volatile(...) x\n#undef volatile\n"
        "#include \"kernel.h\"\n#include <cuda_pipeline.h>\n#define asm(...) after_the_includes\n";
    static const char kernel_h[] = "#ifndef KERNEL_H\n#define KERNEL_H\n#define TILE 16\n#endif\n";
    const char *names[] = {"template.cu", "kernel.h"}, *texts[] = {text, kernel_h};
    char detail[700];
    cr_assert_eq(judge(pipeline_ptx, honest_own, names, texts, 2, detail, sizeof detail), 0, "%s", detail);
    /* Which headers the build read unknown: any such macro may matter. */
    plain_cuda_input in = {pipeline_ptx, honest_own, names, texts, 2, NULL, scratch_dir};
    cr_assert_eq(plain_cuda_findings(&in, detail, sizeof detail), 1);
    cr_assert(strstr(detail, "template.cu:1: #define IDX"), "%s", detail);
}

/* ---- the directives, as the preprocessor reads them ------------------------------------------- */
Test(source_directives, kinds_lines_names_and_plain_values)
{
    static const char text[] =
        "#include <cuda_pipeline.h>\n  #  include \"k.h\" // x\n#include HEADER\n"
        "#define A 16\n#define B (A * 2)\n#define F(x) x\n#define E\n#undef A\n"
        "#define S \"/* not a comment\"\n#define L 1 /* a comment\n spanning lines */\n"
        "#line 40\n";
    source_directive *d = NULL;
    int n = source_directives(text, &d);
    cr_assert_eq(n, 11);
    cr_assert(d[0].kind == SOURCE_INCLUDE && d[0].line == 1);
    cr_assert_str_eq(d[0].name, "<cuda_pipeline.h>");
    cr_assert_str_eq(d[1].name, "\"k.h\"");
    cr_assert_str_eq(d[2].name, "");
    cr_assert(d[3].kind == SOURCE_DEFINE && d[3].plain && !strcmp(d[3].name, "A"));
    cr_assert(!d[4].plain && !strcmp(d[4].name, "B"));
    cr_assert(!d[5].plain, "a function-like macro writes code");
    cr_assert(d[6].plain, "an empty macro writes nothing");
    cr_assert(d[7].kind == SOURCE_UNDEF && d[7].line == 8);
    cr_assert(!d[8].plain && d[8].line == 9);
    cr_assert(d[9].plain && d[9].line == 10, "the comment is a blank");
    cr_assert(d[10].kind == SOURCE_LINE_CONTROL && d[10].line == 12, "line %d", d[10].line);
    free(d);
    cr_assert_eq(source_directives("int x = 1'000; // '\n#define Q 1\n", &d), 1,
                 "a digit separator does not open a character literal");
    cr_assert_eq(d[0].line, 2);
    free(d);
}

/* ---- the rubric key ---------------------------------------------------------------------------- */
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
