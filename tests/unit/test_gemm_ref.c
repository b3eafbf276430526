/* tl_gemm_f64: the double-precision reference product. What matters is the exact order of the
 * additions (k ascending from 0.0), because that is what makes expected outputs reproducible;
 * so most tests demand bit equality, not closeness. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* A fixed little generator so the tests see the same inputs everywhere. */
static uint64_t rng_state;

static uint32_t rng_next(void)
{
    rng_state = rng_state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (uint32_t)(rng_state >> 32);
}

/* Values of widely varying magnitude and both signs, so that a different summation order would
 * almost surely change some rounding. */
static float *random_matrix(int rows, int cols)
{
    float *m = malloc((size_t)rows * cols * sizeof *m);
    cr_assert_not_null(m);
    for (size_t i = 0; i < (size_t)rows * cols; i++) {
        const float mant = (float)((int32_t)(rng_next() >> 8) - (1 << 23)) * 0x1p-23f;
        const int exp2 = (int)(rng_next() % 41) - 20;
        m[i] = ldexpf(mant, exp2);
    }
    return m;
}

/* The contract, written as plainly as possible. */
static void naive_f64(int m, int k, int n, const float *A, const float *B, double *C, double *S)
{
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            double t = 0.0, u = 0.0;
            for (int p = 0; p < k; p++) {
                t += (double)A[(size_t)i * k + p] * (double)B[(size_t)p * n + j];
                u += fabs((double)A[(size_t)i * k + p]) * fabs((double)B[(size_t)p * n + j]);
            }
            C[(size_t)i * n + j] = t;
            S[(size_t)i * n + j] = u;
        }
    }
}

static void naive_ld(int m, int k, int n, const float *A, const float *B, long double *C)
{
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            long double t = 0.0L;
            for (int p = 0; p < k; p++)
                t += (long double)A[(size_t)i * k + p] * (long double)B[(size_t)p * n + j];
            C[(size_t)i * n + j] = t;
        }
    }
}

/* Compares tl_gemm_f64 with the naive loops: bit-identical to the double one, and within the
 * double computation's error bound of the more accurate long double one. */
static void check_shape(int m, int k, int n, int threads)
{
    rng_state = (uint64_t)(m * 1000003 + k * 1009 + n);
    float *A = random_matrix(m, k), *B = random_matrix(k, n);
    const size_t mn = (size_t)m * n;
    double *C = malloc(mn * sizeof *C), *S = malloc(mn * sizeof *S);
    double *Cr = malloc(mn * sizeof *Cr), *Sr = malloc(mn * sizeof *Sr);
    long double *Cl = malloc(mn * sizeof *Cl);
    cr_assert(C && S && Cr && Sr && Cl);

    tl_gemm_f64(m, k, n, A, B, C, S, threads);
    naive_f64(m, k, n, A, B, Cr, Sr);
    naive_ld(m, k, n, A, B, Cl);
    const double gamma = k * 0x1p-53 / (1.0 - k * 0x1p-53);
    for (size_t i = 0; i < mn; i++) {
        cr_assert(memcmp(&C[i], &Cr[i], sizeof(double)) == 0,
                  "%dx%dx%d element %zu: got %a, k-ascending loop gives %a", m, k, n, i, C[i],
                  Cr[i]);
        cr_assert(memcmp(&S[i], &Sr[i], sizeof(double)) == 0,
                  "%dx%dx%d S element %zu: got %a, expected %a", m, k, n, i, S[i], Sr[i]);
        const long double diff = fabsl((long double)C[i] - Cl[i]);
        cr_assert(diff <= (long double)(gamma * S[i]) * 1.0001L,
                  "%dx%dx%d element %zu: %.17g is %Lg from the long double sum (bound %g)", m, k,
                  n, i, C[i], diff, gamma * S[i]);
    }
    free(A);
    free(B);
    free(C);
    free(S);
    free(Cr);
    free(Sr);
    free(Cl);
}

Test(gemm_ref, one_by_one_by_one)
{
    const float a = 3.0f, b = -0.5f;
    double c = 99.0, s = 99.0;
    tl_gemm_f64(1, 1, 1, &a, &b, &c, &s, 1);
    cr_assert_eq(c, -1.5);
    cr_assert_eq(s, 1.5);
    check_shape(1, 1, 1, 1);
}

Test(gemm_ref, k_equal_one)
{
    check_shape(64, 1, 64, 2);
}

Test(gemm_ref, single_row_of_A)
{
    check_shape(1, 100, 37, 2);
}

Test(gemm_ref, single_column_of_B)
{
    check_shape(37, 100, 1, 2);
}

Test(gemm_ref, odd_shape_37x61x53)
{
    check_shape(37, 61, 53, 3);
}

/* k and n past one block of each (128 and 256) and not multiples of 4, so block edges and the
 * remainder loop are all exercised. */
Test(gemm_ref, shape_crossing_block_edges)
{
    check_shape(23, 261, 517, 2);
}

/* 1 + 2^60 - 2^60 is 0 in k-ascending order and 1 in most other orders; the large terms sit
 * on either side of a k-block edge. */
Test(gemm_ref, adds_in_ascending_k)
{
    enum { K = 200 };
    float a[K], b[K];
    for (int p = 0; p < K; p++) {
        a[p] = 1.0f;
        b[p] = 0.0f;
    }
    b[0] = 1.0f;
    b[127] = 0x1p60f;
    b[128] = -0x1p60f;
    double c = -1.0;
    tl_gemm_f64(1, K, 1, a, b, &c, NULL, 1);
    cr_assert_eq(c, 0.0, "expected 0 from k-ascending order, got %a", c);

    /* Reversed, the 1 comes last and survives. */
    b[0] = 0.0f;
    b[K - 1] = 1.0f;
    tl_gemm_f64(1, K, 1, a, b, &c, NULL, 1);
    cr_assert_eq(c, 1.0, "expected 1, got %a", c);
}

Test(gemm_ref, bit_identical_for_any_thread_count)
{
    const int m = 131, k = 300, n = 277;
    rng_state = 42;
    float *A = random_matrix(m, k), *B = random_matrix(k, n);
    const size_t mn = (size_t)m * n;
    double *C1 = malloc(mn * sizeof *C1), *S1 = malloc(mn * sizeof *S1);
    double *C = malloc(mn * sizeof *C), *S = malloc(mn * sizeof *S);
    cr_assert(C1 && S1 && C && S);
    tl_gemm_f64(m, k, n, A, B, C1, S1, 1);
    const int counts[] = {2, 3, 7, 0, 200};
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        memset(C, 0xff, mn * sizeof *C);
        memset(S, 0xff, mn * sizeof *S);
        tl_gemm_f64(m, k, n, A, B, C, S, counts[t]);
        cr_assert(memcmp(C, C1, mn * sizeof *C) == 0, "C differs with %d threads", counts[t]);
        cr_assert(memcmp(S, S1, mn * sizeof *S) == 0, "S differs with %d threads", counts[t]);
    }
    free(A);
    free(B);
    free(C1);
    free(S1);
    free(C);
    free(S);
}

/* Asking for C only or S only gives the same bits as asking for both, and leaves the other
 * untouched (it is NULL). */
Test(gemm_ref, c_only_and_s_only_match_both)
{
    const int m = 45, k = 133, n = 70;
    rng_state = 7;
    float *A = random_matrix(m, k), *B = random_matrix(k, n);
    const size_t mn = (size_t)m * n;
    double *C = malloc(mn * sizeof *C), *S = malloc(mn * sizeof *S);
    double *C2 = malloc(mn * sizeof *C2), *S2 = malloc(mn * sizeof *S2);
    cr_assert(C && S && C2 && S2);
    tl_gemm_f64(m, k, n, A, B, C, S, 2);
    tl_gemm_f64(m, k, n, A, B, C2, NULL, 2);
    tl_gemm_f64(m, k, n, A, B, NULL, S2, 2);
    cr_assert(memcmp(C, C2, mn * sizeof *C) == 0);
    cr_assert(memcmp(S, S2, mn * sizeof *S) == 0);
    free(A);
    free(B);
    free(C);
    free(S);
    free(C2);
    free(S2);
}

Test(gemm_ref, s_is_abs_product_and_bounds_c)
{
    const int m = 30, k = 77, n = 41;
    rng_state = 99;
    float *A = random_matrix(m, k), *B = random_matrix(k, n);
    float *Aa = malloc((size_t)m * k * sizeof *Aa), *Ba = malloc((size_t)k * n * sizeof *Ba);
    const size_t mn = (size_t)m * n;
    double *C = malloc(mn * sizeof *C), *S = malloc(mn * sizeof *S), *P = malloc(mn * sizeof *P);
    cr_assert(Aa && Ba && C && S && P);
    for (size_t i = 0; i < (size_t)m * k; i++)
        Aa[i] = fabsf(A[i]);
    for (size_t i = 0; i < (size_t)k * n; i++)
        Ba[i] = fabsf(B[i]);
    tl_gemm_f64(m, k, n, A, B, C, S, 2);
    tl_gemm_f64(m, k, n, Aa, Ba, P, NULL, 2);
    int strictly = 0;
    for (size_t i = 0; i < mn; i++) {
        cr_assert(memcmp(&S[i], &P[i], sizeof(double)) == 0, "S[%zu] = %a, |A||B| = %a", i,
                  S[i], P[i]);
        cr_assert(S[i] >= fabs(C[i]), "S[%zu] = %g < |C| = %g", i, S[i], fabs(C[i]));
        strictly += S[i] > fabs(C[i]);
    }
    /* With mixed signs S must be larger almost everywhere; equal S and C would mean the signs
     * were dropped from C. */
    cr_assert_gt(strictly, (int)(mn / 2));
    free(A);
    free(B);
    free(Aa);
    free(Ba);
    free(C);
    free(S);
    free(P);
}

/* Every output element is written, whatever the buffer held before. */
Test(gemm_ref, overwrites_previous_contents)
{
    const int m = 9, k = 6, n = 300;
    rng_state = 5;
    float *A = random_matrix(m, k), *B = random_matrix(k, n);
    const size_t mn = (size_t)m * n;
    double *C = malloc(mn * sizeof *C), *C2 = malloc(mn * sizeof *C2);
    cr_assert(C && C2);
    for (size_t i = 0; i < mn; i++)
        C[i] = 12345.0;
    memset(C2, 0, mn * sizeof *C2);
    tl_gemm_f64(m, k, n, A, B, C, NULL, 1);
    tl_gemm_f64(m, k, n, A, B, C2, NULL, 1);
    cr_assert(memcmp(C, C2, mn * sizeof *C) == 0);
    free(A);
    free(B);
    free(C);
    free(C2);
}
