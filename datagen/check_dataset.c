/* Checking a dataset folder: is output.raw really A*B rounded to float?
 *
 * The allowed difference between the file's value e and the recomputed double value C is
 *
 *     |e - C| <= 2^-24 |C| + k 2^-52 S 1.01 + 2^-149,    S = (|A| |B|)_ij
 *
 * because e should be the exact product P rounded once to float, and C is P computed in double:
 *   - rounding to nearest float: |e - P| <= 2^-24 |P| (relative half-ulp of float), plus at most
 *     half the smallest subnormal, 2^-150, when P is that small;
 *   - the double computation: each product of two floats is exact in double, and the k - 1
 *     additions give |C - P| <= gamma_k S with gamma_k = k u / (1 - k u), u = 2^-53 (Higham).
 * With |P| <= |C| + gamma_k S, the sum is 2^-24 |C| + (1 + 2^-24) gamma_k S + 2^-150, and
 * k 2^-52 S 1.01 is twice gamma_k S and more, so the bound holds with room to spare for any k up
 * to the size limit, while still catching a value one float ulp off (2^-24 |C| is half an ulp).
 */
#include "datagen.h"

#include <errno.h>
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

int tl_dataset_check_dir(const char *dir, tl_dataset_check *res, int threads, tl_error *err)
{
    const double t0 = tl_clock_now();
    char pa[4096], pb[4096], pc[4096];
    join_path(pa, sizeof pa, dir, "input0.raw");
    join_path(pb, sizeof pb, dir, "input1.raw");
    join_path(pc, sizeof pc, dir, "output.raw");

    tl_dataset_check r;
    memset(&r, 0, sizeof r);
    tl_matrix A = {0}, B = {0}, E = {0};
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

    /* Recomputed in bands of rows to bound the memory; the per-element order of tl_gemm_f64
     * makes the result the same as one call. */
    int band = (int)((((int64_t)1) << 21) / n);
    if (band < 64)
        band = 64;
    if (band > m)
        band = m;
    c = malloc((size_t)band * (size_t)n * sizeof *c);
    s = malloc((size_t)band * (size_t)n * sizeof *s);
    if (!c || !s) {
        tl_error_set(err, "out of memory checking a %dx%dx%d dataset in %s", m, k, n, dir);
        goto done;
    }
    const double per_s = (double)k * 0x1p-52 * 1.01;
    for (int r0 = 0; r0 < m; r0 += band) {
        const int rows = m - r0 < band ? m - r0 : band;
        tl_gemm_f64(rows, k, n, A.data + (size_t)r0 * k, B.data, c, s, threads);
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < n; j++) {
                const size_t at = (size_t)i * n + j;
                const double e = E.data[(size_t)(r0 + i) * n + j];
                const double allowed = 0x1p-24 * fabs(c[at]) + per_s * s[at] + 0x1p-149;
                const double ratio = fabs(e - c[at]) / allowed;
                if (ratio > r.max_error_ratio || isnan(ratio))
                    r.max_error_ratio = isnan(ratio) ? INFINITY : ratio;
                if (!(ratio <= 1.0)) {
                    if (r.bad == 0)
                        snprintf(r.detail, sizeof r.detail,
                                 "row %d col %d: expected file has %.9g, recomputed %.17g",
                                 r0 + i, j, e, c[at]);
                    r.bad++;
                }
            }
        }
    }
    r.ok = r.bad == 0;
    rc = 0;
done:
    free(c);
    free(s);
    tl_matrix_free(&A);
    tl_matrix_free(&B);
    tl_matrix_free(&E);
    r.seconds = tl_clock_now() - t0;
    if (res)
        *res = r;
    return rc;
}
