/* wbSolution and wbExport: the check of a libwb program's answer, by the type given with -t,
 * and the files it writes (-o, wbExport). */
#include "harness_atomic.h"
#include "wb_session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* libwb's -t types, as wbSolution reads the data of each. libwb also knows "text", which
 * tilelab does not compare. */
static const wb_type types[] = {
    {TL_ANSWER_MATRIX, WB_DATA_FLOAT, TL_TOLERANCE_BOUND},
    {TL_ANSWER_VECTOR, WB_DATA_FLOAT, TL_TOLERANCE_LIBWB},
    {TL_ANSWER_INTEGRAL_VECTOR, WB_DATA_INT, TL_TOLERANCE_EXACT},
    {TL_ANSWER_HISTOGRAM, WB_DATA_BYTE, TL_TOLERANCE_EXACT},
    {TL_ANSWER_IMAGE, WB_DATA_IMAGE, TL_TOLERANCE_LIBWB},
};
#define NTYPES (sizeof types / sizeof types[0])

const wb_type *wb_type_find(const char *name)
{
    tl_answer_type answer = TL_ANSWER_MATRIX;
    if (name && tl_answer_type_parse(name, &answer) != 0)
        return NULL;
    for (size_t i = 0; i < NTYPES; i++)
        if (types[i].answer == answer)
            return &types[i];
    return NULL;
}

/* ---- writing ---------------------------------------------------------------------------- */

typedef struct int_table {
    const int64_t *values;
    int rows, cols;
} int_table;

/* libwb text with whole numbers: "rows cols", then one matrix row per line. */
static int write_ints(FILE *f, const void *ctx)
{
    const int_table *t = ctx;
    if (fprintf(f, "%d %d\n", t->rows, t->cols) < 0)
        return -1;
    for (int i = 0; i < t->rows; i++)
        for (int j = 0; j < t->cols; j++)
            if (fprintf(f, j + 1 < t->cols ? "%lld " : "%lld\n",
                        (long long)t->values[(size_t)i * t->cols + j]) < 0)
                return -1;
    return 0;
}

static void check_shape_or_die(const char *file, int rows, int cols)
{
    if (!file)
        wb_die_bad_input("wbExport: no output file name");
    if (rows <= 0 || cols <= 0 || (int64_t)rows * cols > TL_MAX_ELEMENTS) {
        char msg[256];
        snprintf(msg, sizeof msg, "%.160s: cannot write a %d x %d result", file, rows, cols);
        wb_die_bad_input(msg);
    }
}

static void export_ints_or_die(const char *file, const int64_t *values, int rows, int cols)
{
    check_shape_or_die(file, rows, cols);
    tl_error err;
    int_table t = {values, rows, cols};
    if (harness_write_atomic(file, file, write_ints, &t, &err) != 0)
        wb_die_bad_input(err.msg);
}

void tl_wb_export(const char *file, const float *data, int rows, int cols)
{
    tl_error err;
    /* tl_matrix_write only reads the data; the cast drops const for the struct's field. */
    tl_matrix m = {rows, cols, (float *)(uintptr_t)data};
    check_shape_or_die(file, rows, cols);
    if (tl_matrix_write(file, &m, TL_FORMAT_TEXT, &err) != 0)
        wb_die_bad_input(err.msg);
}

/* An int or unsigned char result as int64 values (malloc'd), for the exact check and export. */
static int64_t *widen(const void *data, wb_data kind, int rows, int cols)
{
    size_t count = (size_t)rows * (size_t)cols;
    int64_t *out = malloc((count ? count : 1) * sizeof *out);
    if (!out)
        wb_die_bad_input("out of memory for an integer result");
    for (size_t i = 0; i < count; i++)
        out[i] = kind == WB_DATA_BYTE ? ((const unsigned char *)data)[i] : ((const int *)data)[i];
    return out;
}

void tl_wb_export_int(const char *file, const int *data, int rows, int cols)
{
    check_shape_or_die(file, rows, cols);
    int64_t *values = widen(data, WB_DATA_INT, rows, cols);
    export_ints_or_die(file, values, rows, cols);
    free(values);
}

void tl_wb_export_uchar(const char *file, const unsigned char *data, int rows, int cols)
{
    check_shape_or_die(file, rows, cols);
    int64_t *values = widen(data, WB_DATA_BYTE, rows, cols);
    export_ints_or_die(file, values, rows, cols);
    free(values);
}

/* ---- the check --------------------------------------------------------------------------- */

static void dataset_of(const char *expected_file, char *out, size_t size)
{
    snprintf(out, size, "%s", expected_file ? expected_file : "");
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(out, size, ".");
}

void wb_report_init(wbArg_t args, tl_run_report *report)
{
    if (!args.expectedOutput)
        wb_die_bad_input("no expected output (-e) file was given on the command line");
    tl_run_report_init(report, wb_session_program());
    report->phases = *wb_session_phases();
    tl_device_name(report->device, sizeof report->device);
    dataset_of(args.expectedOutput, report->dataset, sizeof report->dataset);
}

bool wb_print_verdict(wbArg_t args, const tl_run_report *report, const char *hint)
{
    if (args.json) {
        char *json = tl_run_report_json(report);
        if (json)
            puts(json);
        free(json);
    } else {
        tl_run_report_print(stdout, report);
        if (hint)
            printf("   hint: %s\n", hint);
    }
    fflush(stdout);
    return report->check.pass;
}

/* Ints handed over as floats (no -t) read as subnormals: an int below 2^23 has the bits of one.
 * True when every value is 0 or subnormal, some are not 0, and the expected ones are whole. */
static bool looks_like_ints(const tl_matrix *got, const char *expected_file)
{
    tl_import expected;
    tl_error err;
    if (tl_import_file(expected_file, TL_IMPORT_REAL, &expected, &err) != 0)
        return false;
    bool ints = got->rows == expected.rows && got->cols == expected.cols && got->data;
    int64_t count = ints ? (int64_t)got->rows * got->cols : 0, nonzero = 0;
    for (int64_t i = 0; i < count && ints; i++) {
        float g = got->data[i], e = ((const float *)expected.data)[i];
        ints = (fpclassify(g) == FP_ZERO || fpclassify(g) == FP_SUBNORMAL) && e == floorf(e);
        nonzero += g != 0;
    }
    tl_import_free(&expected);
    return ints && nonzero > 0;
}

/* The answer as tl_check_answer takes it: floats and ints as they are, bytes widened to int. */
static tl_import answer_of(const wb_type *type, const void *data, int rows, int cols,
                           int **widened)
{
    *widened = NULL;
    bool usable = data && rows > 0 && cols > 0 && (int64_t)rows * cols <= TL_MAX_ELEMENTS;
    size_t count = usable ? (size_t)rows * (size_t)cols : 0;
    tl_import got = {usable ? (void *)(uintptr_t)data : NULL, count * sizeof(float), rows, cols, 1};
    if (type->data == WB_DATA_BYTE && usable) {
        *widened = malloc(count * sizeof **widened);
        if (!*widened)
            wb_die_bad_input("out of memory for an integer result");
        for (size_t i = 0; i < count; i++)
            (*widened)[i] = ((const unsigned char *)data)[i];
        got.data = *widened;
    }
    return got;
}

bool tl_wb_solution(wbArg_t args, const void *data, int rows, int cols)
{
    const wb_type *type = wb_type_find(args.type);
    if (!type) /* wbArg_read refuses these; a hand-made wbArg_t may still hold one */
        wb_die_bad_input("wbSolution: unknown -t type");
    /* libwb's wbSolution takes an image's pointer as the data of -t image. */
    if (type->data == WB_DATA_IMAGE)
        return tl_wb_solution_image(args, (wbImage_t)(uintptr_t)data);
    tl_run_report report;
    wb_report_init(args, &report);

    tl_matrix A = {0, 0, NULL}, B = {0, 0, NULL};
    if (type->tolerance == TL_TOLERANCE_BOUND && args.inputCount == 2) {
        wb_read_or_die(args.inputFiles[0], "input", &A);
        wb_read_or_die(args.inputFiles[1], "input", &B);
    }
    int *widened;
    tl_import got = answer_of(type, data, rows, cols, &widened);
    tl_answer_spec spec = {type->answer, type->tolerance, A.data ? &A : NULL, B.data ? &B : NULL};
    tl_error err;
    if (tl_check_answer(&spec, &got, args.expectedOutput, &report.check, &err) != 0)
        wb_die_bad_input(err.msg);
    report.checked = true;
    if (report.check.kind == TL_CHECK_BOUND) {
        report.m = A.rows;
        report.k = A.cols;
        report.n = B.cols;
    }
    tl_matrix_free(&A);
    tl_matrix_free(&B);

    if (args.outputFile && type->data == WB_DATA_FLOAT)
        tl_wb_export(args.outputFile, data, rows, cols);
    else if (args.outputFile)
        tl_wb_export_int(args.outputFile, got.data, rows, cols);
    free(widened);

    tl_matrix as_floats = {rows, cols, (float *)(uintptr_t)data};
    bool ints_as_floats = type->data == WB_DATA_FLOAT && !report.check.pass &&
                          looks_like_ints(&as_floats, args.expectedOutput);
    return wb_print_verdict(args, &report,
                            ints_as_floats ? "these values look like integers read as floats: "
                                             "give the type with -t integral_vector (int) or -t "
                                             "histogram (unsigned char)"
                                           : NULL);
}
