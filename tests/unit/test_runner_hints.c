/* Compiler messages for beginners: the edit distance, each hint, and the rewriting of nvcc's and
 * the host compiler's messages with the student's own line and a caret. */
#include "runner_hints.h"
#include "runner_messages.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(hints_distance, counts_edits_up_to_the_cap)
{
    cr_expect_eq(hints_distance("kitten", "sitting", 5), 3);
    cr_expect_eq(hints_distance("__syncthreads", "__syncthreads", 3), 0);
    cr_expect_eq(hints_distance("", "abc", 5), 3);
    cr_expect_eq(hints_distance("abc", "", 5), 3);
    cr_expect_eq(hints_distance("__synchthreads", "__syncthreads", 3), 1, "one insertion");
    cr_expect_eq(hints_distance("__syncThreads", "__syncthreads", 3), 1, "one substitution");
    cr_expect_eq(hints_distance("syncthreads", "__syncthreads", 3), 2, "two deletions");
    /* above the cap: cap + 1, however far */
    cr_expect_eq(hints_distance("abcdef", "uvwxyz", 2), 3);
    cr_expect_eq(hints_distance("a", "abcdefghij", 3), 4);
}

Test(hints_closest, syncthreads_misspelt_every_usual_way)
{
    const char *slips[] = {"__synchthreads", "__syncThreads", "syncthreads", "__syncthread",
                           "_syncthreads",   "__SYNCTHREADS", "syncThreads", "__sync_threads"};
    for (size_t i = 0; i < sizeof slips / sizeof *slips; i++) {
        const char *b = hints_closest_builtin(slips[i]);
        cr_expect(b && strcmp(b, "__syncthreads") == 0, "%s gave %s", slips[i], b ? b : "none");
    }
}

Test(hints_closest, other_builtins_and_nothing_for_the_rest)
{
    struct { const char *slip, *want; } cases[] = {
        {"blockdim", "blockDim"},     {"threadIDx", "threadIdx"},
        {"gridDimm", "gridDim"},      {"cudaMallloc", "cudaMalloc"},
        {"cudamemcpy", "cudaMemcpy"}, {"cudaMemcpyHostToDev", "cudaMemcpyHostToDevice"},
        {"__shared", "__shared__"},   {"__globl__", "__global__"},
        {"cudaFre", "cudaFree"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *b = hints_closest_builtin(cases[i].slip);
        cr_expect(b && strcmp(b, cases[i].want) == 0, "%s gave %s", cases[i].slip, b ? b : "none");
    }
    /* a student's own names, and a built-in itself, are nobody's slip */
    const char *none[] = {"Width", "dimGrid", "Mds", "Pvalue", "tx", "threadIdx", "cudaMalloc"};
    for (size_t i = 0; i < sizeof none / sizeof *none; i++)
        cr_expect_null(hints_closest_builtin(none[i]), "%s", none[i]);
}

Test(hints_for, undefined_identifier_gets_did_you_mean)
{
    char out[HINTS_TEXT_MAX];
    cr_assert(hints_for("identifier \"__synchthreads\" is undefined", "    __synchthreads();", 4,
                        out, sizeof out));
    cr_expect(strncmp(out, "did you mean __syncthreads?", 27) == 0, "%s", out);
    cr_expect(!hints_for("identifier \"Width2\" is undefined", "int x = Width2;", 8, out,
                         sizeof out));
}

Test(hints_for, vector_used_as_a_number)
{
    char out[HINTS_TEXT_MAX];
    const char *msg = "no operator \"*\" matches these operands\n"
                      "            operand types are: const uint3 * int";
    cr_assert(hints_for(msg, "int Col = blockIdx * 16 + threadIdx.x;", 19, out, sizeof out));
    cr_expect_str_eq(out, "blockIdx is not a number but three (x, y, z): write blockIdx.x "
                          "(or .y, .z)");
    cr_assert(hints_for("no suitable conversion function from \"const dim3\" to \"float\" exists",
                        "float f = blockDim ;", 10, out, sizeof out));
    cr_expect(strncmp(out, "blockDim is not", 15) == 0, "%s", out);
    /* every one has its component: the error is about something else */
    cr_expect(!hints_for(msg, "int Col = blockIdx.x * s + threadIdx.x;", 21, out, sizeof out));
    cr_expect(!hints_for(msg, NULL, -1, out, sizeof out));
}

Test(hints_for, kernel_without_launch_configuration)
{
    char out[HINTS_TEXT_MAX];
    const char *msg = "a __global__ function call must be configured";
    cr_assert(hints_for(msg, "    MatrixMulKernel(M, N, P, k);", 4, out, sizeof out));
    cr_expect_str_eq(out, "a kernel is launched with its grid and block sizes: "
                          "MatrixMulKernel<<<grid, block>>>(...);");
    /* without the caret, the name before the '(' */
    cr_assert(hints_for(msg, "  x = 1; MyKernel (M);", -1, out, sizeof out));
    cr_expect(strstr(out, "MyKernel<<<grid, block>>>") != NULL, "%s", out);
    cr_assert(hints_for(msg, NULL, -1, out, sizeof out));
    cr_expect(strstr(out, "kernel<<<grid, block>>>") != NULL, "%s", out);
}

Test(hints_for, device_function_in_host_code_and_sync_without_call)
{
    char out[HINTS_TEXT_MAX];
    cr_assert(hints_for("calling a __device__ function(\"__syncthreads\") from a __host__ "
                        "function(\"launch_matmul\") is not allowed", "  __syncthreads();", 2,
                        out, sizeof out));
    cr_expect(strncmp(out, "__syncthreads runs on the GPU only", 34) == 0, "%s", out);
    cr_assert(hints_for("expression has no effect", "    __syncthreads;", 4, out, sizeof out));
    cr_expect_str_eq(out, "__syncthreads is a function: call it, __syncthreads();");
    cr_expect(!hints_for("expression has no effect", "    x;", 4, out, sizeof out));
}

/* ---- messages_annotate ---------------------------------------------------------------- */

static const char *const student_file =
    "#include \"lab.h\"\n"
    "#define TILE_WIDTH 16\n"
    "#define IDX (threadIdx * 2)\n"
    "__global__ void k(float *P)\n"
    "{\n"
    "\tP[0] = TILE_WIDTH *\tblockdim.x; // \x1b[2J\r\n"
    "    int i = IDX;\n"
    "}\n";

static char *read_student(const char *name, size_t *len, void *ctx)
{
    (void)ctx;
    if (strcmp(name, "k.cu") != 0)
        return NULL;
    *len = strlen(student_file);
    return strdup(student_file);
}

static char *annotated(const char *messages)
{
    char *out = messages_annotate(messages, read_student, NULL);
    cr_assert_not_null(out);
    return out;
}

Test(messages_annotate, the_line_as_written_with_caret_and_hint)
{
    /* nvcc's copy: the macro expanded, the blanks squeezed, the caret on its own columns */
    char *out = annotated("k.cu(6): error: identifier \"blockdim\" is undefined\n"
                          "   P[0] = 16 * blockdim.x;\n"
                          "               ^\n"
                          "\n"
                          "1 error detected in the compilation of \"k.cu\".\n");
    cr_expect_str_eq(out, "k.cu(6): error: identifier \"blockdim\" is undefined\n"
                          "    6 |         P[0] = TILE_WIDTH *     blockdim.x; // \\x1b[2J\n"
                          "      |                                 ^\n"
                          "      = hint: did you mean blockDim? (the block's size in threads: "
                          "blockDim.x, .y, .z)\n"
                          "\n"
                          "1 error detected in the compilation of \"k.cu\".\n");
    free(out);
}

Test(messages_annotate, caret_inside_a_macro_goes_to_its_name)
{
    char *out = annotated("k.cu(7): error: no operator \"*\" matches these operands\n"
                          "            operand types are: const uint3 * int\n"
                          "      int i = (threadIdx * 2);\n"
                          "                         ^");
    cr_expect_str_eq(out, "k.cu(7): error: no operator \"*\" matches these operands\n"
                          "            operand types are: const uint3 * int\n"
                          "    7 |     int i = IDX;\n"
                          "      |             ^",
                     "the text ends as the compiler's did, without a line break: %s", out);
    free(out);
}

Test(messages_annotate, host_compiler_column_counts_tabs)
{
    char *out = annotated("k.cu:6:33: error: something\n"
                          "    6 | \tP[0] = TILE_WIDTH *\tblockdim.x;\n"
                          "      |  ^~~~\n"
                          "compilation terminated.\n");
    cr_expect_str_eq(out, "k.cu:6:33: error: something\n"
                          "    6 |         P[0] = TILE_WIDTH *     blockdim.x; // \\x1b[2J\n"
                          "      |                                 ^\n"
                          "compilation terminated.\n");
    free(out);
}

Test(messages_annotate, other_files_and_unrelated_lines_are_left_alone)
{
    const char *theirs = "cuda/include/x.h(3): error: something\n"
                         "    int y = 0;\n"
                         "        ^\n"
                         "At end of source: error: expected a \";\"\n";
    char *out = annotated(theirs);
    cr_expect_str_eq(out, theirs);
    free(out);
    /* a #line directive numbered the lines otherwise: no token in common with line 2 */
    const char *renumbered = "k.cu(2): error: identifier \"__syncthread\" is undefined\n"
                             "    __syncthread();\n"
                             "    ^\n";
    out = annotated(renumbered);
    cr_expect(strncmp(out, renumbered, strlen(renumbered)) == 0, "%s", out);
    cr_expect(strstr(out, "did you mean __syncthreads?") != NULL, "%s", out);
    free(out);
}

Test(messages_for_student, reads_only_the_submissions_files)
{
    char dir[] = "/tmp/tilelab-hints-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/k.cu", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(student_file, f);
    fclose(f);
    char *text = strdup("k.cu(7): error: e\n  int i = 1;\n  ^\n"
                        "../k.cu(7): error: e\n  int i = 1;\n  ^\n");
    messages_for_student(&text, "k.cu", "/nonexistent/out", dir);
    cr_expect_str_eq(text, "k.cu(7): error: e\n    7 |     int i = IDX;\n      |     ^\n"
                           "../k.cu(7): error: e\n  int i = 1;\n  ^\n");
    free(text);
    remove(path);
    rmdir(dir);
}
