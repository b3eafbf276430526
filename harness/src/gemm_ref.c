/* Reference products in double precision: C = A*B and S = |A|*|B| from float inputs.
 *
 * Why not a BLAS dgemm: its summation order depends on the CPU kernel it picks, the blocking
 * and the thread count, so the same inputs can give different last bits on different machines
 * or runs. Expected outputs are shipped as files and compared across machines, so every element
 * here is one fixed sequence of operations: start from 0.0, add A[i][p]*B[p][j] for
 * p = 0, 1, ..., k-1 in that order. Blocking and threading only change *when* each addition
 * happens, never which additions or their order, so the bits cannot change.
 *
 * Each product of two floats is exact in double (24 + 24 significant bits fit in 53), so only
 * the additions round. The build is ISO C11, where GCC does not contract a*b+c into an FMA; an
 * FMA would give the same bits anyway because the product is exact, but we keep the plain
 * multiply-then-add so the code means what it says on any compiler.
 */
#include "harness.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A block of B, converted to double, is KC x NC: 128 x 256 doubles = 256 KiB, half of a
 * 512 KiB L2, so it stays there while every row of the thread's band sweeps over it. A row
 * segment of C (and of S) is NC doubles = 2 KiB and stays in L1 across the block's k. */
enum { KC = 128, NC = 256 };

/* Below this many multiply-adds, starting threads costs more than it saves. */
#define TL_GEMM_MIN_PARALLEL_WORK (((int64_t)1) << 18)

typedef struct gemm_job {
    int k, n;
    const float *A, *B;
    double *C, *S;
    int r0, r1; /* rows [r0, r1) of C and S */
} gemm_job;

/* c[j] (and s[j]) += a[p] * b[p*ldb + j] for p = 0 .. kc-1 in order. Four p per sweep of j cut
 * the loads and stores of c by four; the additions for each j stay in ascending p, so this is
 * the same arithmetic as one p at a time. The loop over j is what vectorizes; AVX2 without FMA
 * performs the very same IEEE operations as SSE2, lane by lane, so the clones agree bit for bit. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
static void block_kernel(int kc, int nc, int ldb, const float *a, const double *restrict b,
                         double *restrict c, double *restrict s)
{
    int p = 0;
    for (; p + 4 <= kc; p += 4) {
        const double a0 = a[p], a1 = a[p + 1], a2 = a[p + 2], a3 = a[p + 3];
        const double *restrict b0 = b + (size_t)p * ldb;
        const double *restrict b1 = b0 + ldb;
        const double *restrict b2 = b1 + ldb;
        const double *restrict b3 = b2 + ldb;
        if (c && s) {
            const double x0 = fabs(a0), x1 = fabs(a1), x2 = fabs(a2), x3 = fabs(a3);
            for (int j = 0; j < nc; j++) {
                double t = c[j], u = s[j];
                t += a0 * b0[j];
                u += x0 * fabs(b0[j]);
                t += a1 * b1[j];
                u += x1 * fabs(b1[j]);
                t += a2 * b2[j];
                u += x2 * fabs(b2[j]);
                t += a3 * b3[j];
                u += x3 * fabs(b3[j]);
                c[j] = t;
                s[j] = u;
            }
        } else if (c) {
            for (int j = 0; j < nc; j++) {
                double t = c[j];
                t += a0 * b0[j];
                t += a1 * b1[j];
                t += a2 * b2[j];
                t += a3 * b3[j];
                c[j] = t;
            }
        } else {
            const double x0 = fabs(a0), x1 = fabs(a1), x2 = fabs(a2), x3 = fabs(a3);
            for (int j = 0; j < nc; j++) {
                double u = s[j];
                u += x0 * fabs(b0[j]);
                u += x1 * fabs(b1[j]);
                u += x2 * fabs(b2[j]);
                u += x3 * fabs(b3[j]);
                s[j] = u;
            }
        }
    }
    for (; p < kc; p++) {
        const double a0 = a[p], x0 = fabs(a0);
        const double *restrict b0 = b + (size_t)p * ldb;
        if (c)
            for (int j = 0; j < nc; j++)
                c[j] += a0 * b0[j];
        if (s)
            for (int j = 0; j < nc; j++)
                s[j] += x0 * fabs(b0[j]);
    }
}

/* Used only when the block buffer cannot be allocated: the definition itself, one element at a
 * time, with the same order of additions as the blocked path. */
static void rows_unblocked(const gemm_job *jb)
{
    const int k = jb->k, n = jb->n;
    for (int i = jb->r0; i < jb->r1; i++) {
        const float *a = jb->A + (size_t)i * k;
        for (int j = 0; j < n; j++) {
            double t = 0.0, u = 0.0;
            for (int p = 0; p < k; p++) {
                const double x = a[p], y = jb->B[(size_t)p * n + j];
                t += x * y;
                u += fabs(x) * fabs(y);
            }
            if (jb->C)
                jb->C[(size_t)i * n + j] = t;
            if (jb->S)
                jb->S[(size_t)i * n + j] = u;
        }
    }
}

static void rows_blocked(const gemm_job *jb)
{
    const int k = jb->k, n = jb->n;
    const size_t rows = (size_t)(jb->r1 - jb->r0);
    if (rows == 0)
        return;
    if (jb->C)
        memset(jb->C + (size_t)jb->r0 * n, 0, rows * (size_t)n * sizeof(double));
    if (jb->S)
        memset(jb->S + (size_t)jb->r0 * n, 0, rows * (size_t)n * sizeof(double));
    if (k == 0)
        return;

    double *bd = malloc((size_t)KC * NC * sizeof(double));
    if (!bd) {
        rows_unblocked(jb);
        return;
    }
    for (int j0 = 0; j0 < n; j0 += NC) {
        const int nc = n - j0 < NC ? n - j0 : NC;
        /* k blocks in ascending order: together with the kernel's ascending p this keeps every
         * element's additions in ascending k. */
        for (int k0 = 0; k0 < k; k0 += KC) {
            const int kc = k - k0 < KC ? k - k0 : KC;
            for (int p = 0; p < kc; p++) {
                const float *src = jb->B + (size_t)(k0 + p) * n + j0;
                double *dst = bd + (size_t)p * nc;
                for (int j = 0; j < nc; j++)
                    dst[j] = src[j];
            }
            for (int i = jb->r0; i < jb->r1; i++) {
                const size_t off = (size_t)i * n + j0;
                block_kernel(kc, nc, nc, jb->A + (size_t)i * k + k0, bd,
                             jb->C ? jb->C + off : NULL, jb->S ? jb->S + off : NULL);
            }
        }
    }
    free(bd);
}

static void *gemm_thread(void *arg)
{
    rows_blocked(arg);
    return NULL;
}

void tl_gemm_f64(int m, int k, int n, const float *A, const float *B, double *C, double *S,
                 int threads)
{
    if (m <= 0 || n <= 0 || k < 0 || (!C && !S))
        return;
    if (threads <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online > 0 ? (online > 1024 ? 1024 : (int)online) : 1;
    }
    if (threads > m)
        threads = m;
    if ((int64_t)m * k * n < TL_GEMM_MIN_PARALLEL_WORK)
        threads = 1;

    gemm_job *jobs = threads > 1 ? malloc((size_t)threads * sizeof *jobs) : NULL;
    pthread_t *tids = threads > 1 ? malloc((size_t)threads * sizeof *tids) : NULL;
    if (!jobs || !tids)
        threads = 1;
    if (threads == 1) {
        free(jobs);
        free(tids);
        gemm_job one = {k, n, A, B, C, S, 0, m};
        rows_blocked(&one);
        return;
    }

    /* Contiguous bands of rows, sizes differing by at most one. */
    for (int t = 0; t < threads; t++) {
        jobs[t] = (gemm_job){k, n, A, B, C, S, (int)((int64_t)m * t / threads),
                             (int)((int64_t)m * (t + 1) / threads)};
    }
    /* The calling thread takes band 0; a band whose thread cannot start is done here too. */
    bool *started = calloc((size_t)threads, sizeof *started);
    for (int t = 1; t < threads; t++) {
        if (started && pthread_create(&tids[t], NULL, gemm_thread, &jobs[t]) == 0)
            started[t] = true;
    }
    rows_blocked(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started && started[t])
            pthread_join(tids[t], NULL);
        else
            rows_blocked(&jobs[t]);
    }
    free(started);
    free(jobs);
    free(tids);
}
