#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Unit roundoff of float32 (round to nearest). */
#define U32 0x1p-24
/* Smallest normal float32: an upper bound on the absolute error of one operation whose result
 * underflows, also when the GPU flushes subnormals to zero (-ftz). */
#define FLT_NORMAL_MIN 0x1p-126

double tl_gamma(int64_t k)
{
    double ku = (double)k * U32;
    if (ku >= 1.0)
        return INFINITY;
    return ku / (1.0 - ku);
}

static void report_reset(tl_check_report *rep)
{
    memset(rep, 0, sizeof *rep);
}

/* Records one element that failed its bound. `ratio` orders the worst (NaN/Inf count as
 * infinitely wrong, so the first of them stays the worst). */
static void note_bad(tl_check_report *rep, int row, int col, double got, double expected,
                     double bound, double ratio, double *worst_ratio)
{
    tl_mismatch mm = {row, col, got, expected, bound};
    rep->bad++;
    if (rep->nfirst < TL_CHECK_FIRST_N)
        rep->first[rep->nfirst++] = mm;
    if (!rep->has_worst || ratio > *worst_ratio) {
        rep->has_worst = true;
        rep->worst = mm;
        *worst_ratio = ratio;
    }
}

/* A result of rows x cols (`has_data`: its values exist) against the expected shape. */
static bool shape_differs(const tl_matrix *expected, int rows, int cols, bool has_data,
                          tl_check_report *rep)
{
    rep->got_rows = rows;
    rep->got_cols = cols;
    rep->expected_rows = expected->rows;
    rep->expected_cols = expected->cols;
    if (rows == expected->rows && cols == expected->cols && has_data)
        return false;
    rep->shape_mismatch = true;
    rep->pass = false;
    return true;
}

static bool shapes_differ(const tl_matrix *expected, const tl_matrix *got, tl_check_report *rep)
{
    return shape_differs(expected, got->rows, got->cols, got->data != NULL, rep);
}

/* The rule for one element: |got - expected| <= bound, NaN and Inf never within (their ratio
 * is infinite, so the first of them stays the worst). */
static bool within(float got, float expected, double bound, double *ratio)
{
    if (!isfinite(got)) {
        *ratio = INFINITY;
        return false;
    }
    double diff = fabs((double)got - (double)expected);
    *ratio = bound > 0 ? diff / bound : (diff > 0 ? INFINITY : 0);
    return diff <= bound;
}

/* libwb's rule for one element; the ratio is against its 0.2. */
static bool libwb_within(float got, float expected, double bound, double *ratio)
{
    bool ok = tl_libwb_close(expected, got);
    *ratio = isfinite(got) ? fabs((double)got - (double)expected) / bound : INFINITY;
    return ok;
}

/* Compares every element against its own bound; bounds come from bound_of(i) and the verdict
 * from element_ok, so the rules share the bookkeeping. */
typedef double (*bound_fn)(const void *ctx, int64_t index, float expected);
typedef bool (*element_fn)(float got, float expected, double bound, double *ratio);

static void compare_all(const tl_matrix *expected, const tl_matrix *got, bound_fn bound_of,
                        element_fn element_ok, const void *ctx, tl_check_report *rep)
{
    double worst_ratio = 0;
    int64_t count = (int64_t)expected->rows * expected->cols;
    for (int64_t i = 0; i < count; i++) {
        float g = got->data[i], e = expected->data[i];
        double bound = bound_of(ctx, i, e), ratio;
        int row = (int)(i / expected->cols), col = (int)(i % expected->cols);
        bool ok = element_ok(g, e, bound, &ratio);
        if (!isfinite(g))
            rep->nonfinite++;
        if (ratio > rep->max_error_ratio)
            rep->max_error_ratio = ratio;
        if (!ok)
            note_bad(rep, row, col, g, e, bound, ratio, &worst_ratio);
    }
    rep->checked = count;
    rep->pass = rep->bad == 0;
}

typedef struct product_bound {
    const double *abs_product; /* (|A||B|)ij */
    double gamma;
    double floor;
} product_bound;

static double product_bound_of(const void *ctx, int64_t index, float expected)
{
    (void)expected;
    const product_bound *pb = ctx;
    /* The factor 1 + 2^-40 covers the rounding of |A||B| itself, computed in double. */
    return pb->gamma * pb->abs_product[index] * (1.0 + 0x1p-40) + pb->floor;
}

/* Higham's gamma_{k+1} and the underflow floor of a length-k dot product (product_policy says
 * why k+1). */
static product_bound product_bound_make(const double *abs_product, int64_t k)
{
    return (product_bound){abs_product, tl_gamma(k + 1), (double)(k + 1) * FLT_NORMAL_MIN};
}

/* The shape rule shared by tl_check_product and tl_product_ref_init. */
static int product_shapes(const tl_matrix *A, const tl_matrix *B, const tl_matrix *expected,
                          tl_error *err)
{
    if (A->cols != B->rows)
        return tl_error_set(err, "inputs do not form a product: A is %d x %d, B is %d x %d",
                            A->rows, A->cols, B->rows, B->cols);
    if (expected->rows != A->rows || expected->cols != B->cols)
        return tl_error_set(err,
                            "expected output is %d x %d but A (%d x %d) times B (%d x %d) is "
                            "%d x %d",
                            expected->rows, expected->cols, A->rows, A->cols, B->rows, B->cols,
                            A->rows, B->cols);
    return 0;
}

/* Higham: any fp32 summation order of a length-k dot product is within gamma_k |x|.|y| of the
 * exact value; the expected file holds the exact value rounded once more (u |exact| <=
 * u |x|.|y|), and gamma_k + u <= gamma_{k+1}. */
static void product_policy(int64_t k, tl_check_report *rep)
{
    snprintf(rep->policy, sizeof rep->policy,
             "|got-expected| <= gamma_%lld*(|A||B|)ij + %lld*2^-126",
             (long long)(k + 1), (long long)(k + 1));
}

static void compare_product(const tl_matrix *expected, const double *abs_product, int64_t k,
                            const tl_matrix *got, tl_check_report *rep)
{
    product_policy(k, rep);
    if (shapes_differ(expected, got, rep))
        return;
    product_bound pb = product_bound_make(abs_product, k);
    compare_all(expected, got, product_bound_of, within, &pb, rep);
}

int tl_check_product(const tl_matrix *A, const tl_matrix *B, const tl_matrix *expected,
                     const tl_matrix *got, tl_check_report *rep, tl_error *err)
{
    report_reset(rep);
    if (product_shapes(A, B, expected, err) != 0)
        return -1;
    product_policy(A->cols, rep);
    if (shapes_differ(expected, got, rep))
        return 0;
    size_t count = (size_t)expected->rows * (size_t)expected->cols;
    double *abs_product = malloc(count * sizeof *abs_product);
    if (!abs_product)
        return tl_error_set(err, "out of memory computing the error bound (%zu elements)", count);
    tl_gemm_f64(A->rows, A->cols, B->cols, A->data, B->data, NULL, abs_product, 0);
    compare_product(expected, abs_product, A->cols, got, rep);
    free(abs_product);
    return 0;
}

int tl_product_ref_init(tl_product_ref *ref, const tl_matrix *A, const tl_matrix *B,
                        const tl_matrix *expected, int threads, tl_error *err)
{
    memset(ref, 0, sizeof *ref);
    if (A->cols != B->rows)
        return tl_error_set(err, "inputs do not form a product: A is %d x %d, B is %d x %d",
                            A->rows, A->cols, B->rows, B->cols);
    if (expected && product_shapes(A, B, expected, err) != 0)
        return -1;
    if (tl_matrix_alloc(&ref->expected, A->rows, B->cols, err) != 0)
        return -1;
    size_t count = (size_t)A->rows * (size_t)B->cols;
    ref->abs_product = malloc(count * sizeof *ref->abs_product);
    double *exact = expected ? NULL : malloc(count * sizeof *exact);
    if (!ref->abs_product || (!expected && !exact)) {
        free(exact);
        tl_product_ref_free(ref);
        return tl_error_set(err, "out of memory for the reference product (%zu elements)", count);
    }
    tl_gemm_f64(A->rows, A->cols, B->cols, A->data, B->data, exact, ref->abs_product, threads);
    for (size_t i = 0; i < count; i++)
        ref->expected.data[i] = expected ? expected->data[i] : (float)exact[i];
    free(exact);
    ref->k = A->cols;
    return 0;
}

void tl_product_ref_check(const tl_product_ref *ref, const tl_matrix *got, tl_check_report *rep)
{
    report_reset(rep);
    compare_product(&ref->expected, ref->abs_product, ref->k, got, rep);
}

bool tl_product_ref_element_ok(const tl_product_ref *ref, const tl_matrix *got, int64_t index,
                               double *bound)
{
    product_bound pb = product_bound_make(ref->abs_product, ref->k);
    float e = ref->expected.data[index];
    double b = product_bound_of(&pb, index, e), ratio;
    if (bound)
        *bound = b;
    return within(got->data[index], e, b, &ratio);
}

void tl_product_ref_free(tl_product_ref *ref)
{
    tl_matrix_free(&ref->expected);
    free(ref->abs_product);
    ref->abs_product = NULL;
}

static double libwb_bound_of(const void *ctx, int64_t index, float expected)
{
    (void)ctx;
    (void)index;
    (void)expected;
    return TL_LIBWB_TOLERANCE;
}

void tl_check_libwb(const tl_matrix *expected, const tl_matrix *got, tl_check_report *rep)
{
    report_reset(rep);
    rep->kind = TL_CHECK_LIBWB;
    snprintf(rep->policy, sizeof rep->policy,
             "libwb: |got-expected| <= 0.2 in float, < 0.2 where either is 0");
    if (shapes_differ(expected, got, rep))
        return;
    compare_all(expected, got, libwb_bound_of, libwb_within, NULL, rep);
}

/* libgputk's rule for one element; the ratio is against its bound for the value got. */
static bool libgputk_within(float got, float expected, double bound, double *ratio)
{
    (void)bound;
    double allowed = TL_LIBWB_TOLERANCE + TL_LIBGPUTK_RELATIVE * fabs((double)got);
    *ratio = isfinite(got) ? fabs((double)got - (double)expected) / allowed : INFINITY;
    return tl_libgputk_close(expected, got);
}

/* The bound a report shows: the share of the expected value (the value got's differs from it
 * by 1e-5 of their difference). */
static double libgputk_bound_of(const void *ctx, int64_t index, float expected)
{
    (void)ctx;
    (void)index;
    return TL_LIBWB_TOLERANCE + TL_LIBGPUTK_RELATIVE * fabsf(expected);
}

void tl_check_libgputk(const tl_matrix *expected, const tl_matrix *got, tl_check_report *rep)
{
    report_reset(rep);
    rep->kind = TL_CHECK_LIBGPUTK;
    snprintf(rep->policy, sizeof rep->policy,
             "libgputk: |got-expected| <= 0.2 + 1e-5 |expected| in float");
    if (shapes_differ(expected, got, rep))
        return;
    compare_all(expected, got, libgputk_bound_of, libgputk_within, NULL, rep);
}

void tl_check_integers(const tl_matrix *expected, const int64_t *got, int rows, int cols,
                       tl_check_report *rep)
{
    report_reset(rep);
    rep->kind = TL_CHECK_EXACT;
    snprintf(rep->policy, sizeof rep->policy, "integers: got == expected");
    if (shape_differs(expected, rows, cols, got != NULL, rep))
        return;
    double worst_ratio = 0;
    int64_t count = (int64_t)rows * cols;
    for (int64_t i = 0; i < count; i++) {
        /* Whole numbers below 2^24 convert exactly. */
        int64_t e = (int64_t)expected->data[i];
        if (got[i] != e) {
            double diff = fabs((double)got[i] - (double)e);
            note_bad(rep, (int)(i / cols), (int)(i % cols), (double)got[i], (double)e, 0, diff,
                     &worst_ratio);
            if (diff > rep->max_error_ratio)
                rep->max_error_ratio = diff;
        }
    }
    rep->checked = count;
    rep->pass = rep->bad == 0;
}

static double no_bound(const void *ctx, int64_t index, float expected)
{
    (void)ctx;
    (void)index;
    (void)expected;
    return 0;
}

void tl_check_identical(const tl_matrix *expected, const tl_matrix *got, tl_check_report *rep)
{
    report_reset(rep);
    rep->kind = TL_CHECK_IDENTICAL;
    snprintf(rep->policy, sizeof rep->policy, "exact: got == expected");
    if (shapes_differ(expected, got, rep))
        return;
    compare_all(expected, got, no_bound, within, NULL, rep);
}

/* libwb's clamp for the comparison of images of up to 3 channels; NaN stays NaN, so it fails. */
static float clamp_unit(float v)
{
    return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

static bool image_within(float got, float expected, double bound, double *ratio)
{
    return libwb_within(isfinite(got) ? clamp_unit(got) : got, clamp_unit(expected), bound,
                        ratio);
}

static bool image_identical(float got, float expected, double bound, double *ratio)
{
    return within(isfinite(got) ? clamp_unit(got) : got, clamp_unit(expected), bound, ratio);
}

void tl_check_image(const tl_import *expected, const tl_import *got, tl_tolerance rule,
                    tl_check_report *rep)
{
    report_reset(rep);
    bool exact = rule == TL_TOLERANCE_EXACT, clamp = expected->channels <= 3;
    rep->kind = exact ? TL_CHECK_IDENTICAL : TL_CHECK_IMAGE;
    snprintf(rep->policy, sizeof rep->policy, "%s%s", clamp ? "values clamped to [0,1], then " : "",
             exact ? "got == expected"
                   : "libwb: |got-expected| <= 0.2 in float, < 0.2 where either is 0");
    rep->got_channels = got->channels;
    rep->expected_channels = expected->channels;
    /* A row of pixels is a row of width * channels values: mismatches land on the pixel's row
     * and its column * channels + channel. */
    tl_matrix e = {expected->rows, expected->cols * expected->channels, expected->data};
    tl_matrix g = {got->rows, got->cols * got->channels, got->data};
    bool differs = shapes_differ(&e, &g, rep) || got->cols != expected->cols ||
                   got->channels != expected->channels;
    rep->got_cols = got->cols;
    rep->expected_cols = expected->cols;
    if (differs) {
        rep->shape_mismatch = true;
        rep->pass = false;
        return;
    }
    element_fn rule_of = exact ? (clamp ? image_identical : within)
                               : (clamp ? image_within : libwb_within);
    compare_all(&e, &g, exact ? no_bound : libwb_bound_of, rule_of, NULL, rep);
}

static void print_mismatch(FILE *out, const char *label, const tl_mismatch *m, int channels)
{
    fprintf(out, "%s(row %d, col %d", label, m->row, m->col);
    if (channels > 0)
        fprintf(out, ": pixel x %d, channel %d", m->col / channels, m->col % channels);
    fprintf(out, "): got %.9g, expected %.9g, |diff| %.3g > bound %.3g\n", m->got, m->expected,
            fabs(m->got - m->expected), m->bound);
}

const char *tl_check_rule_text(tl_check_kind kind)
{
    switch (kind) {
    case TL_CHECK_LIBWB: return "within libwb's tolerance";
    case TL_CHECK_LIBGPUTK: return "within libgputk's tolerance";
    case TL_CHECK_IMAGE: return "within libwb's image tolerance";
    case TL_CHECK_EXACT:
    case TL_CHECK_IDENTICAL: return "equal to the expected ones";
    default: return "within the fp32 error bound";
    }
}

void tl_check_pass_text(const tl_check_report *rep, char *out, size_t size)
{
    if (rep->kind == TL_CHECK_EXACT)
        snprintf(out, size, "all %lld integers equal the expected ones", (long long)rep->checked);
    else
        snprintf(out, size, "all %lld elements %s", (long long)rep->checked,
                 tl_check_rule_text(rep->kind));
}

void tl_check_report_print(FILE *out, const tl_check_report *rep)
{
    if (rep->shape_mismatch && rep->expected_channels > 0) {
        fprintf(out, "FAIL: image is %d x %d with %d channel%s (width x height), expected %d x %d "
                     "with %d\n", rep->got_cols, rep->got_rows, rep->got_channels,
                rep->got_channels == 1 ? "" : "s", rep->expected_cols, rep->expected_rows,
                rep->expected_channels);
        return;
    }
    if (rep->shape_mismatch) {
        fprintf(out, "FAIL: output is %d x %d, expected %d x %d\n", rep->got_rows, rep->got_cols,
                rep->expected_rows, rep->expected_cols);
        return;
    }
    if (rep->pass) {
        char text[160];
        tl_check_pass_text(rep, text, sizeof text);
        fprintf(out, "PASS: %s", text);
        if (rep->kind != TL_CHECK_EXACT && rep->kind != TL_CHECK_IDENTICAL)
            fprintf(out, " (largest error %.3g of its bound)", rep->max_error_ratio);
        fputc('\n', out);
        return;
    }
    fprintf(out, "FAIL: %lld of %lld elements wrong", (long long)rep->bad,
            (long long)rep->checked);
    if (rep->nonfinite)
        fprintf(out, " (%lld NaN/Inf)", (long long)rep->nonfinite);
    fputc('\n', out);
    if (rep->has_worst)
        print_mismatch(out, "  worst ", &rep->worst, rep->expected_channels);
    for (int i = 0; i < rep->nfirst; i++)
        print_mismatch(out, i == 0 ? "  first " : "        ", &rep->first[i],
                       rep->expected_channels);
    fprintf(out, "  rule: %s\n", rep->policy);
}

const char *tl_check_report_hint(const tl_check_report *c)
{
    if (!c->pass && !c->shape_mismatch && c->nonfinite == c->checked)
        return "no element of P was written (all still hold the NaN fill): is the kernel "
               "implemented and launched, and does it store P?";
    if (!c->pass && c->nonfinite > 0)
        return "some elements of P were never written (NaN fill): check the grid covers P and "
               "the store guard";
    return NULL;
}

uint64_t tl_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
