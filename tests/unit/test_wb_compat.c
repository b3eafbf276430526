/* The libwb compatibility layer, through its C entry points (wb.h's libwb names are thin C++
 * wrappers over these; tests/libwb_style builds real libwb-style programs against them). */
#include "wb.h"

#include "captured.h"

#include <criterion/criterion.h>
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

Test(wb, solution_without_a_product_uses_libwbs_tolerance)
{
    /* A reduction's sum: 0.1 off on 1000 is 1e-4 relative, which libwb (0.2 absolute) passes. */
    char *argv[] = {"./vec", "-i", path_a, "-e", path_e, "-t", "vector"};
    wbArg_t a = tl_wb_arg_read(7, argv);
    float near[9];
    memcpy(near, AB, sizeof near);
    near[8] += 0.1f;
    cr_assert(tl_wb_solution(a, near, 3, 3));
    char *out = captured_stdout();
    cr_assert(strstr(out, "PASS: all 9 elements within libwb's tolerance"), "%s", out);
}

Test(wb, vector_type_never_uses_the_product_bound)
{
    /* Two inputs whose shapes form A*B: -t vector still compares element-wise. */
    char inputs[200];
    snprintf(inputs, sizeof inputs, "%s,%s", path_a, path_b);
    char *argv[] = {"./vec", "-i", inputs, "-e", path_e, "-t", "VECTOR"};
    wbArg_t a = tl_wb_arg_read(7, argv);
    float near[9];
    memcpy(near, AB, sizeof near);
    near[0] += 0.125f;
    cr_assert(tl_wb_solution(a, near, 3, 3), "within 0.2, the type named in any case");
}

Test(wb, unknown_type_exits_with_status_2, .exit_code = 2)
{
    char *argv[] = {"./prog", "-t", "text"};
    tl_wb_arg_read(3, argv);
}

/* Histogram bins [3, 0, 7, 1] as the expected output, next to the float files. */
static char path_bins[96];
static const int bins[] = {3, 0, 7, 1};

static wbArg_t integer_args(const char *type, const char *output)
{
    snprintf(path_bins, sizeof path_bins, "%s/bins.raw", folder);
    const float as_floats[] = {3, 0, 7, 1};
    write_matrix(path_bins, 4, 1, as_floats);
    char *argv[] = {"./histo", "-i", path_a, "-e", path_bins, "-t", (char *)type,
                    "-o", (char *)output, NULL};
    return tl_wb_arg_read(output ? 9 : 7, argv);
}

Test(wb, integral_vector_compares_ints_exactly)
{
    wbArg_t a = integer_args("integral_vector", NULL);
    cr_assert(tl_wb_solution(a, bins, 4, 1), "the ints themselves, not their bits read as floats");
    int off[] = {3, 0, 8, 1};
    cr_assert_not(tl_wb_solution(a, off, 4, 1));
    char *out = captured_stdout();
    unlink(path_bins);
    cr_assert(strstr(out, "PASS: all 4 integers equal"), "%s", out);
    cr_assert(strstr(out, "FAIL: 1 of 4 elements wrong"), "%s", out);
    cr_assert(strstr(out, "(row 2, col 0): got 8, expected 7"), "%s", out);
}

Test(wb, histogram_compares_bytes_exactly)
{
    wbArg_t a = integer_args("histogram", NULL);
    const unsigned char good[] = {3, 0, 7, 1}, bad[] = {3, 1, 7, 1};
    cr_assert(tl_wb_solution(a, good, 4, 1));
    cr_assert_not(tl_wb_solution(a, bad, 4, 1));
    unlink(path_bins);
}

Test(wb, integral_vector_refuses_an_expected_fraction, .exit_code = 2)
{
    char *argv[] = {"./histo", "-i", path_a, "-e", path_e, "-t", "integral_vector"};
    wbArg_t a = tl_wb_arg_read(7, argv);
    write_matrix(path_e, 3, 3, (const float[]){1, 2, 8, 3, 4.5f, 18, 5, 6, 28});
    tl_wb_solution(a, bins, 9, 1);
}

static char *file_text(const char *path)
{
    static char text[512];
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s was not written", path);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

Test(wb, output_argument_writes_the_result)
{
    char out_path[128];
    snprintf(out_path, sizeof out_path, "%s/result.raw", folder);
    wbArg_t a = integer_args("integral_vector", out_path);
    int off[] = {3, 0, 8, 1};
    cr_assert_not(tl_wb_solution(a, off, 4, 1));
    cr_assert_str_eq(file_text(out_path), "4 1\n3\n0\n8\n1\n", "written even when wrong");
    unlink(out_path);
    unlink(path_bins);

    char inputs[200];
    snprintf(inputs, sizeof inputs, "%s,%s", path_a, path_b);
    char *argv[] = {"./mm", "-i", inputs, "-e", path_e, "-o", out_path, "-t", "matrix"};
    a = tl_wb_arg_read(9, argv);
    cr_assert(tl_wb_solution(a, AB, 3, 3));
    cr_assert_str_eq(file_text(out_path), "3 3\n1 2 8\n3 4 18\n5 6 28\n");
    unlink(out_path);
}

/* Log lines go to a memory stream from a fresh wbArg_read on, with TILELAB_LOG set to `env`
 * (NULL: unset); end_log returns them. */
static char *log_text;
static size_t log_len;
static FILE *log_stream;

static void start_log(const char *env)
{
    log_stream = open_memstream(&log_text, &log_len);
    cr_assert_not_null(log_stream);
    tl_log_set_stream(log_stream);
    if (env)
        setenv("TILELAB_LOG", env, 1);
    else
        unsetenv("TILELAB_LOG");
    char *argv[] = {"./prog"};
    tl_wb_arg_read(1, argv);
}

static char *end_log(void)
{
    tl_log_set_stream(NULL);
    fclose(log_stream);
    return log_text;
}

Test(wb, log_shows_trace_as_libwb_does)
{
    start_log(NULL);
    tl_wb_log(wbLogLevel_TRACE, "The dimensions of A are 3 x 2");
    cr_assert_str_eq(end_log(), "[trace] The dimensions of A are 3 x 2\n");
    free(log_text);
}

Test(wb, log_level_from_the_environment_still_wins)
{
    start_log("info");
    tl_wb_log(wbLogLevel_TRACE, "hidden");
    tl_wb_log(wbLogLevel_INFO, "shown");
    cr_assert_str_eq(end_log(), "[info] shown\n");
    free(log_text);
}
