/* Checking a dataset folder: is output.raw the product A*B, under one of four rules?
 *
 * C is A*B recomputed in double, r = fl32(C) the float nearest it (what tilelab's generator
 * writes), e an expected value from output.raw, S = (|A||B|)ij, q half a unit in the last digit
 * the text file wrote for e (0 for a binary file):
 *
 *   exact  e and r have the same bits.
 *   libwb  libwb's comparison of e and r (tl_libwb_close): |e - r| <= 0.2 in float.
 *   libgputk  the labs repository's libgputk (tl_libgputk_close): |e - r| <= 0.2 + 1e-5 |r|,
 *          r in the place of a program's value.
 *   bound  |e - C| <= (gamma_{k+1} S + 2^-24 (1 + 2^-23) |e| + q + (k+1) 2^-126) (1 + 2^-40)
 *
 * The bound holds for a file whose values any fp32 computation of the product wrote, in any
 * summation order, rounded to any number of digits. With P the exact product, y the computed
 * float and t the decimal the file holds:
 *   - |y - P| <= gamma_k S + k 2^-126 (Higham's bound for any order, and the underflow floor of
 *     the kit's check);
 *   - |t - y| <= q: the writer rounded y to the digits it wrote;
 *   - |e - t| <= 2^-24 |t| + 2^-150: e is t rounded to the nearest float, and |t| <= |e| + |e - t|
 *     gives 2^-24 |t| <= 2^-24 (1 + 2^-23) |e| + 2^-173; the 2^-150 + 2^-173 fit in the floor's
 *     extra 2^-126;
 *   - |C - P| <= k 2^-53 1.01 S <= 2^-24 S for k up to the size limit (each product of two
 *     floats is exact in double; k - 1 double additions), and gamma_k + 2^-24 <= gamma_{k+1}.
 * The factor 1 + 2^-40 covers the rounding of the bound's own double arithmetic. So a value
 * written with two decimals passes when it is the fp32 result rounded to two decimals (0.123
 * written 0.12), and fails one unit further off (0.13). A file tilelab wrote has e = r, within
 * the bound whatever q.
 */
#include "datagen.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void join_path(char *out, size_t size, const char *dir, const char *name)
{
    const size_t len = strlen(dir);
    const bool slash = len > 0 && dir[len - 1] == '/';
    snprintf(out, size, "%s%s%s", dir, slash ? "" : "/", name);
}

/* The reader detects the format from the content; we look at the same magic to report it. */
static int detect_format(const char *path, tl_format *out, tl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tl_error_set(err, "cannot open %s: %s", path, strerror(errno));
    unsigned char head[TL_BINARY_MAGIC_BYTES];
    const size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    *out = got == sizeof head && memcmp(head, TL_BINARY_MAGIC, sizeof head) == 0
               ? TL_FORMAT_BINARY
               : TL_FORMAT_TEXT;
    return 0;
}

/* Smallest normal float32: the underflow floor of one fp32 operation (as the kit's check). */
#define FLT_NORMAL_MIN_D 0x1p-126
/* Float32's unit roundoff, and 1 + 2^-23: the rounding of the file's decimal to float. */
#define U32 0x1p-24
#define PARSE_FACTOR (1.0 + 0x1p-23)
/* Covers the rounding of the bound's own double arithmetic. */
#define BOUND_SLACK (1.0 + 0x1p-40)
/* Doubles from here up round to infinity as floats (FLT_MAX plus half its ulp). */
#define FLT_OVERFLOW_D 0x1.ffffffp127

/* The float nearest c, without converting an out-of-range double (undefined in C). */
static float nearest_float(double c)
{
    if (fabs(c) <= FLT_MAX)
        return (float)c;
    const float big = fabs(c) < FLT_OVERFLOW_D ? FLT_MAX : INFINITY;
    return c < 0 ? -big : big;
}

typedef struct element_rule {
    tl_tolerance rule;
    double gamma; /* gamma_{k+1} */
    double floor; /* (k+1) 2^-126 */
} element_rule;

/* One expected value e against the recomputed C (r = fl32(C), S = (|A||B|)ij, q the value's
 * quantum); *ratio gets the deviation relative to what the rule allows. */
static bool element_ok(const element_rule *er, float e, double c, float r, double s, double q,
                       double *ratio)
{
    switch (er->rule) {
    case TL_TOLERANCE_EXACT: {
        const bool same = memcmp(&e, &r, sizeof e) == 0;
        *ratio = same ? 0 : INFINITY;
        return same;
    }
    case TL_TOLERANCE_LIBWB:
        *ratio = fabs((double)e - (double)r) / TL_LIBWB_TOLERANCE;
        return tl_libwb_close(e, r);
    case TL_TOLERANCE_LIBGPUTK:
        *ratio = fabs((double)e - (double)r) /
                 (TL_LIBWB_TOLERANCE + TL_LIBGPUTK_RELATIVE * fabs((double)r));
        return tl_libgputk_close(e, r);
    case TL_TOLERANCE_BOUND:
    default: {
        const double allowed =
            (er->gamma * s + U32 * PARSE_FACTOR * fabs((double)e) + q + er->floor) * BOUND_SLACK;
        const double diff = fabs((double)e - c);
        *ratio = diff / allowed; /* NaN when q is (the file changed while read): not ok */
        return diff <= allowed;
    }
    }
}

typedef struct band_input {
    const tl_matrix *E;
    int r0, rows, n;
    const double *c, *s;
    tl_quanta *quanta;
    element_rule er;
} band_input;

/* Checks the rows [r0, r0 + rows) of the expected output, in row-major (file) order. */
static void check_band(const band_input *b, tl_dataset_check *r)
{
    for (int i = 0; i < b->rows; i++) {
        for (int j = 0; j < b->n; j++) {
            const size_t at = (size_t)i * b->n + j;
            const int row = b->r0 + i;
            const float e = b->E->data[(size_t)row * b->n + j];
            const float rounded = nearest_float(b->c[at]);
            const double q = b->quanta ? tl_quanta_next(b->quanta) : 0;
            double ratio;
            const bool ok = element_ok(&b->er, e, b->c[at], rounded, b->s ? b->s[at] : 0, q,
                                       &ratio);
            if (ratio > r->max_error_ratio || isnan(ratio))
                r->max_error_ratio = isnan(ratio) ? INFINITY : ratio;
            const uint64_t ulps = tl_ulps_between(e, rounded);
            if (ulps > r->max_ulps) {
                r->max_ulps = ulps;
                r->max_ulps_row = row;
                r->max_ulps_col = j;
            }
            if (!ok) {
                if (r->bad == 0)
                    snprintf(r->detail, sizeof r->detail,
                             "row %d col %d: expected file has %.9g, recomputed %.17g (%llu ulps)",
                             row, j, (double)e, b->c[at], (unsigned long long)ulps);
                r->bad++;
            }
        }
    }
}

int tl_dataset_check_dir(const char *dir, tl_tolerance rule, tl_dataset_check *res, int threads,
                         tl_error *err)
{
    const double t0 = tl_clock_now();
    char pa[4096], pb[4096], pc[4096];
    join_path(pa, sizeof pa, dir, "input0.raw");
    join_path(pb, sizeof pb, dir, "input1.raw");
    join_path(pc, sizeof pc, dir, "output.raw");

    tl_dataset_check r;
    memset(&r, 0, sizeof r);
    r.rule = rule;
    tl_matrix A = {0}, B = {0}, E = {0};
    tl_quanta quanta = {0};
    double *c = NULL, *s = NULL;
    int rc = -1;
    if (tl_matrix_read(pa, &A, err) != 0 || tl_matrix_read(pb, &B, err) != 0 ||
        tl_matrix_read(pc, &E, err) != 0 || detect_format(pa, &r.format, err) != 0)
        goto done;
    if (A.cols != B.rows) {
        tl_error_set(err, "%s is %dx%d but %s is %dx%d: A's columns must equal B's rows", pa,
                     A.rows, A.cols, pb, B.rows, B.cols);
        goto done;
    }
    if (E.rows != A.rows || E.cols != B.cols) {
        tl_error_set(err, "%s is %dx%d but the product of %s (%dx%d) and %s (%dx%d) is %dx%d", pc,
                     E.rows, E.cols, pa, A.rows, A.cols, pb, B.rows, B.cols, A.rows, B.cols);
        goto done;
    }
    const int m = A.rows, k = A.cols, n = B.cols;
    r.size = (tl_size){m, k, n};
    const bool bound = rule == TL_TOLERANCE_BOUND;
    if (bound && tl_quanta_open(&quanta, pc, err) != 0)
        goto done;

    /* Recomputed in bands of rows to bound the memory; the per-element order of tl_gemm_f64
     * makes the result the same as one call. */
    int band = (int)((((int64_t)1) << 21) / n);
    if (band < 64)
        band = 64;
    if (band > m)
        band = m;
    c = malloc((size_t)band * (size_t)n * sizeof *c);
    s = bound ? malloc((size_t)band * (size_t)n * sizeof *s) : NULL;
    if (!c || (bound && !s)) {
        tl_error_set(err, "out of memory checking a %dx%dx%d dataset in %s", m, k, n, dir);
        goto done;
    }
    band_input b = {&E, 0, 0, n, c, s, bound ? &quanta : NULL,
                    {rule, tl_gamma((int64_t)k + 1), ((double)k + 1) * FLT_NORMAL_MIN_D}};
    for (b.r0 = 0; b.r0 < m; b.r0 += band) {
        b.rows = m - b.r0 < band ? m - b.r0 : band;
        tl_gemm_f64(b.rows, k, n, A.data + (size_t)b.r0 * k, B.data, c, s, threads);
        check_band(&b, &r);
    }
    r.ok = r.bad == 0;
    rc = 0;
done:
    free(c);
    free(s);
    tl_quanta_close(&quanta);
    tl_matrix_free(&A);
    tl_matrix_free(&B);
    tl_matrix_free(&E);
    r.seconds = tl_clock_now() - t0;
    if (res)
        *res = r;
    return rc;
}
