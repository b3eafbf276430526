/* The libwb compatibility layer, through its C entry points (wb.h's libwb names are thin C++
 * wrappers over these; tests/libwb_style builds real libwb-style programs against them). */
#include "wb.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char folder[] = "/tmp/tilelab-wb-XXXXXX";
static char path_a[96], path_b[96], path_e[96];

static void write_matrix(const char *path, int rows, int cols, const float *values)
{
    tl_matrix m;
    tl_error err;
    cr_assert_eq(tl_matrix_alloc(&m, rows, cols, &err), 0);
    memcpy(m.data, values, sizeof(float) * (size_t)rows * (size_t)cols);
    cr_assert_eq(tl_matrix_write(path, &m, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    tl_matrix_free(&m);
}

/* A = [1 2; 3 4; 5 6] (3x2), B = [1 0 2; 0 1 3] (2x3), A*B = [1 2 8; 3 4 18; 5 6 28]. */
static const float A[] = {1, 2, 3, 4, 5, 6};
static const float B[] = {1, 0, 2, 0, 1, 3};
static const float AB[] = {1, 2, 8, 3, 4, 18, 5, 6, 28};

static void setup(void)
{
    cr_assert_not_null(mkdtemp(folder));
    snprintf(path_a, sizeof path_a, "%s/input0.raw", folder);
    snprintf(path_b, sizeof path_b, "%s/input1.raw", folder);
    snprintf(path_e, sizeof path_e, "%s/output.raw", folder);
    write_matrix(path_a, 3, 2, A);
    write_matrix(path_b, 2, 3, B);
    write_matrix(path_e, 3, 3, AB);
    cr_redirect_stdout();
}

static void teardown(void)
{
    unlink(path_a);
    unlink(path_b);
    unlink(path_e);
    rmdir(folder);
    tl_wb_reset();
}

static wbArg_t args_for(bool json)
{
    char inputs[200];
    snprintf(inputs, sizeof inputs, "%s,%s", path_a, path_b);
    char *argv[] = {"./mm", "-i", inputs, "-e", path_e, "-t", "matrix", json ? "--json" : NULL,
                    NULL};
    return tl_wb_arg_read(json ? 8 : 7, argv);
}

static char *captured_stdout(void)
{
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    return text;
}

TestSuite(wb, .init = setup, .fini = teardown);

Test(wb, arg_read_parses_libwb_options)
{
    char *argv[] = {"./bin/prog", "-i", "x.raw,y.raw,z.raw", "-o", "o.raw", "-e",
                    "e.raw",      "-t", "vector",            "--json"};
    wbArg_t a = tl_wb_arg_read(10, argv);
    cr_assert_eq(a.inputCount, 3);
    cr_assert_str_eq(tl_wb_arg_input(a, 0), "x.raw");
    cr_assert_str_eq(tl_wb_arg_input(a, 2), "z.raw");
    cr_assert_null(tl_wb_arg_input(a, 3), "past the last input");
    cr_assert_null(tl_wb_arg_input(a, -1));
    cr_assert_str_eq(a.outputFile, "o.raw");
    cr_assert_str_eq(a.expectedOutput, "e.raw");
    cr_assert_str_eq(a.type, "vector");
    cr_assert(a.json);
}

Test(wb, unknown_option_exits_with_status_2, .exit_code = 2)
{
    char *argv[] = {"./prog", "-x", "1"};
    tl_wb_arg_read(3, argv);
}

Test(wb, option_without_value_exits_with_status_2, .exit_code = 2)
{
    char *argv[] = {"./prog", "-i"};
    tl_wb_arg_read(2, argv);
}

Test(wb, import_real_and_integer)
{
    int rows = 0, cols = 0;
    float *f = tl_wb_import(path_a, &rows, &cols, "Real");
    cr_assert_eq(rows, 3);
    cr_assert_eq(cols, 2);
    cr_assert_arr_eq(f, A, sizeof A);
    free(f);
    int *ints = tl_wb_import(path_b, &rows, &cols, "Integer");
    cr_assert_eq(rows, 2);
    cr_assert_eq(ints[5], 3);
    free(ints);
}

Test(wb, import_of_a_missing_file_exits_with_status_2, .exit_code = 2)
{
    int rows, cols;
    tl_wb_import("/nonexistent/input0.raw", &rows, &cols, "Real");
}

Test(wb, import_without_a_file_name_exits_with_status_2, .exit_code = 2)
{
    int rows, cols;
    tl_wb_import(NULL, &rows, &cols, "Real");
}

Test(wb, solution_accepts_the_right_product)
{
    wbArg_t a = args_for(false);
    cr_assert(tl_wb_solution(a, AB, 3, 3));
    char *out = captured_stdout();
    cr_assert(strstr(out, "PASS: all 9 elements"), "%s", out);
    cr_assert(strstr(out, "(3 x 2 x 3)"), "the product's shape is reported: %s", out);
}

Test(wb, solution_reports_a_wrong_product_in_json)
{
    wbArg_t a = args_for(true);
    float wrong[9];
    memcpy(wrong, AB, sizeof wrong);
    wrong[4] = 4.5f;
    tl_wb_time_start(wbTimerKind_Compute, "Performing CUDA computation");
    tl_wb_time_stop(wbTimerKind_Compute, "Performing CUDA computation");
    cr_assert_not(tl_wb_solution(a, wrong, 3, 3));
    char *out = captured_stdout();
    cr_assert(strstr(out, "\"verdict\":\t\"wrong\""), "%s", out);
    cr_assert(strstr(out, "\"bad\":\t1"), "%s", out);
    cr_assert(strstr(out, "\"kind\":\t\"Compute\""), "timers reach the report: %s", out);
}

Test(wb, solution_with_the_wrong_shape_fails)
{
    wbArg_t a = args_for(false);
    cr_assert_not(tl_wb_solution(a, AB, 9, 1));
    char *out = captured_stdout();
    cr_assert(strstr(out, "output is 9 x 1, expected 3 x 3"), "%s", out);
}

Test(wb, solution_without_two_inputs_compares_element_wise)
{
    char *argv[] = {"./vec", "-i", path_a, "-e", path_e};
    wbArg_t a = tl_wb_arg_read(5, argv);
    cr_assert(tl_wb_solution(a, AB, 3, 3));
    char *out = captured_stdout();
    cr_assert(strstr(out, "PASS"), "%s", out);
}
