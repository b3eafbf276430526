/* wbSolution and wbExport: the check of a libwb program's answer, by the type given with -t,
 * and the files it writes (-o, wbExport). */
#include "harness_atomic.h"
#include "wb_session.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The -t types of libwb's wbSolution that tilelab compares. libwb also knows "image" (a
 * wbImage_t, which tilelab does not provide) and "text". */
static const wb_type types[] = {
    {"matrix", WB_DATA_FLOAT, true},
    {"vector", WB_DATA_FLOAT, false},
    {"integral_vector", WB_DATA_INT, false},
    {"histogram", WB_DATA_BYTE, false},
};
#define NTYPES (sizeof types / sizeof types[0])
/* Integers are read through float32, which holds every whole number below 2^24 exactly. */
#define EXACT_INT_LIMIT 16777216.0f

const wb_type *wb_type_find(const char *name)
{
    if (!name)
        return &types[0];
    for (size_t i = 0; i < NTYPES; i++)
        if (strcasecmp(name, types[i].name) == 0)
            return &types[i];
    return NULL;
}

const char *wb_type_list(void)
{
    return "matrix, vector, integral_vector, histogram";
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
    snprintf(out, size, "%s", expected_file);
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(out, size, ".");
}

/* An integer type's expected values must be whole numbers that float32 holds exactly. */
static void require_integers(const char *file, const tl_matrix *expected, const char *type)
{
    int64_t count = (int64_t)expected->rows * expected->cols;
    for (int64_t i = 0; i < count; i++) {
        float v = expected->data[i];
        if (v != floorf(v) || fabsf(v) >= EXACT_INT_LIMIT) {
            char msg[384];
            snprintf(msg, sizeof msg,
                     "%.160s: value %lld is %.9g; type %s expects whole numbers below 2^24 in "
                     "magnitude (read exactly through float32)",
                     file, (long long)i + 1, (double)v, type);
            wb_die_bad_input(msg);
        }
    }
}

/* A float result: the error bound when the type allows it and the two inputs form a product
 * with the expected output's shape; libwb's own tolerance otherwise. */
static void check_floats(wbArg_t args, const wb_type *type, const tl_matrix *expected,
                         const tl_matrix *got, tl_run_report *report)
{
    tl_matrix A = {0, 0, NULL}, B = {0, 0, NULL};
    bool product = false;
    if (type->product && args.inputCount == 2) {
        wb_read_or_die(args.inputFiles[0], "input", &A);
        wb_read_or_die(args.inputFiles[1], "input", &B);
        product = A.cols == B.rows && expected->rows == A.rows && expected->cols == B.cols;
    }
    tl_error err;
    if (product) {
        report->m = A.rows;
        report->k = A.cols;
        report->n = B.cols;
        if (tl_check_product(&A, &B, expected, got, &report->check, &err) != 0)
            wb_die_bad_input(err.msg);
    } else {
        tl_check_libwb(expected, got, &report->check);
    }
    tl_matrix_free(&A);
    tl_matrix_free(&B);
}

/* Ints handed over as floats (no -t) read as subnormals: an int below 2^23 has the bits of one.
 * True when every value is 0 or subnormal, some are not 0, and the expected ones are whole. */
static bool looks_like_ints(const tl_matrix *got, const tl_matrix *expected)
{
    if (got->rows != expected->rows || got->cols != expected->cols || !got->data)
        return false;
    int64_t count = (int64_t)got->rows * got->cols, nonzero = 0;
    for (int64_t i = 0; i < count; i++) {
        float g = got->data[i], e = expected->data[i];
        if (fpclassify(g) != FP_ZERO && fpclassify(g) != FP_SUBNORMAL)
            return false;
        if (e != floorf(e))
            return false;
        nonzero += g != 0;
    }
    return nonzero > 0;
}

bool tl_wb_solution(wbArg_t args, const void *data, int rows, int cols)
{
    const wb_type *type = wb_type_find(args.type);
    if (!type) /* wbArg_read refuses these; a hand-made wbArg_t may still hold one */
        wb_die_bad_input("wbSolution: unknown -t type");
    tl_run_report report;
    tl_run_report_init(&report, wb_session_program());
    report.phases = *wb_session_phases();
    tl_device_name(report.device, sizeof report.device);

    tl_matrix expected;
    wb_read_or_die(args.expectedOutput, "expected output (-e)", &expected);
    dataset_of(args.expectedOutput, report.dataset, sizeof report.dataset);

    bool ints_as_floats = false;
    if (type->data == WB_DATA_FLOAT) {
        tl_matrix got = {rows, cols, (float *)(uintptr_t)data};
        check_floats(args, type, &expected, &got, &report);
        ints_as_floats = !report.check.pass && looks_like_ints(&got, &expected);
        if (args.outputFile)
            tl_wb_export(args.outputFile, data, rows, cols);
    } else {
        require_integers(args.expectedOutput, &expected, type->name);
        bool usable = data && rows > 0 && cols > 0 && (int64_t)rows * cols <= TL_MAX_ELEMENTS;
        int64_t *values = usable ? widen(data, type->data, rows, cols) : NULL;
        tl_check_integers(&expected, values, rows, cols, &report.check);
        if (args.outputFile)
            export_ints_or_die(args.outputFile, values, rows, cols);
        free(values);
    }
    report.checked = true;
    tl_matrix_free(&expected);

    if (args.json) {
        char *json = tl_run_report_json(&report);
        if (json)
            puts(json);
        free(json);
    } else {
        tl_run_report_print(stdout, &report);
        if (ints_as_floats)
            printf("   hint: these values look like integers read as floats: give the type with "
                   "-t integral_vector (int) or -t histogram (unsigned char)\n");
    }
    fflush(stdout);
    return report.check.pass;
}
