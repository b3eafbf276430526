/* tl_check_answer: a program's answer against the expected output, by libwb's -t type and a
 * tolerance. wbSolution and the grader both check through it, so they cannot disagree. */
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Integers are read through float32, which holds every whole number below 2^24 exactly. */
#define EXACT_INT_LIMIT 16777216.0f

static const char *const type_names[] = {"matrix", "vector", "integral_vector", "histogram",
                                         "image"};
#define NTYPES (sizeof type_names / sizeof type_names[0])

int tl_answer_type_parse(const char *name, tl_answer_type *out)
{
    for (size_t i = 0; name && i < NTYPES; i++) {
        if (strcasecmp(name, type_names[i]) == 0) {
            *out = (tl_answer_type)i;
            return 0;
        }
    }
    return -1;
}

const char *tl_answer_type_name(tl_answer_type type)
{
    return (size_t)type < NTYPES ? type_names[type] : "?";
}

const char *tl_answer_type_list(void)
{
    return "matrix, vector, integral_vector, histogram, image";
}

tl_import_kind tl_answer_import_kind(tl_answer_type type)
{
    switch (type) {
    case TL_ANSWER_INTEGRAL_VECTOR:
    case TL_ANSWER_HISTOGRAM: return TL_IMPORT_INTEGER;
    case TL_ANSWER_IMAGE: return TL_IMPORT_IMAGE;
    default: return TL_IMPORT_REAL;
    }
}

/* An integer type's expected values must be whole numbers that float32 holds exactly. */
static int require_integers(const char *path, const tl_matrix *expected, tl_answer_type type,
                            tl_error *err)
{
    int64_t count = (int64_t)expected->rows * expected->cols;
    for (int64_t i = 0; i < count; i++) {
        float v = expected->data[i];
        if (v != floorf(v) || fabsf(v) >= EXACT_INT_LIMIT)
            return tl_error_set(err, "%.160s: value %lld is %.9g; type %s expects whole numbers "
                                     "below 2^24 in magnitude (read exactly through float32)",
                                path, (long long)i + 1, (double)v, tl_answer_type_name(type));
    }
    return 0;
}

static int check_integers(const tl_answer_spec *spec, const tl_import *got,
                          const tl_matrix *expected, const char *path, tl_check_report *rep,
                          tl_error *err)
{
    if (require_integers(path, expected, spec->type, err))
        return -1;
    size_t count = got->data ? (size_t)got->rows * (size_t)got->cols : 0;
    int64_t *wide = malloc((count ? count : 1) * sizeof *wide);
    if (!wide)
        return tl_error_set(err, "out of memory for %zu integers", count);
    for (size_t i = 0; i < count; i++)
        wide[i] = ((const int *)got->data)[i];
    tl_check_integers(expected, got->data ? wide : NULL, got->rows, got->cols, rep);
    free(wide);
    return 0;
}

static int check_floats(const tl_answer_spec *spec, const tl_import *got,
                        const tl_matrix *expected, tl_check_report *rep, tl_error *err)
{
    tl_matrix g = {got->rows, got->cols, got->data};
    const tl_matrix *A = spec->A, *B = spec->B;
    if (spec->tolerance == TL_TOLERANCE_EXACT) {
        tl_check_identical(expected, &g, rep);
    } else if (spec->tolerance == TL_TOLERANCE_BOUND && A && B && A->cols == B->rows &&
               expected->rows == A->rows && expected->cols == B->cols) {
        return tl_check_product(A, B, expected, &g, rep, err);
    } else if (spec->tolerance == TL_TOLERANCE_LIBGPUTK) {
        tl_check_libgputk(expected, &g, rep);
    } else {
        tl_check_libwb(expected, &g, rep);
    }
    return 0;
}

int tl_check_answer(const tl_answer_spec *spec, const tl_import *got, const char *expected_path,
                    tl_check_report *rep, tl_error *err)
{
    memset(rep, 0, sizeof *rep);
    if ((size_t)spec->type >= NTYPES)
        return tl_error_set(err, "unknown answer type %d (expected one of: %s)", (int)spec->type,
                            tl_answer_type_list());
    if (!expected_path)
        return tl_error_set(err, "no expected output file was given");
    bool image = spec->type == TL_ANSWER_IMAGE;
    tl_import expected;
    if (tl_import_file(expected_path, image ? TL_IMPORT_IMAGE : TL_IMPORT_REAL, &expected, err))
        return -1;
    int rc = 0;
    tl_matrix e = {expected.rows, expected.cols, expected.data};
    if (image)
        tl_check_image(&expected, got, spec->tolerance, rep);
    else if (tl_answer_import_kind(spec->type) == TL_IMPORT_INTEGER)
        rc = check_integers(spec, got, &e, expected_path, rep, err);
    else
        rc = check_floats(spec, got, &e, rep, err);
    tl_import_free(&expected);
    return rc;
}
