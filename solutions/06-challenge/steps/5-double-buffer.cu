// Lab 06, step 5: double buffering (from step 4).
// Step 4 waits twice per strip: at the barrier after the loads, while the global loads it just
// issued arrive, and at the barrier after the math, before it may overwrite the strips. Here
// shared memory holds two stages, As[2][BK][BM] and Bs[2][BK][BN]: the next strip's global
// loads are issued into registers before the math on this one, so their latency hides behind
// 512 FMAs, and stored into the other stage after it. The stage being read is never the one
// being written, so one __syncthreads per strip is enough.
#include "lab.h"

#define BM 128                         /* rows of P per block */
#define BN 128                         /* columns of P per block */
#define BK 8                           /* the width of the strips of M and N in shared memory */
#define TM 8                           /* rows of P per thread */
#define TN 8                           /* columns of P per thread */
#define THREADS (BM * BN / (TM * TN))  /* 256; each loads one float4 of each strip */
#define VEC 4                          /* floats per float4: the side of a thread's pieces */
#define STAGES 2                       /* strips in shared memory: one read, one written */
#define ALIGN_MASK 15                  /* a float4's address is a multiple of 16 */
#define PIECES_M (TM / VEC)            /* a thread's pieces down the block's tile: 2 */
#define PIECES_N (TN / VEC)            /* and across: 2 */
#define STRIDE_M (BM / PIECES_M)       /* rows between a thread's pieces: 64 */
#define STRIDE_N (BN / PIECES_N)       /* columns between them: 64 */

// Four elements of a row of M or N, from column c on, zeros past `cols` columns or when the
// row itself lies outside the matrix: the edge blocks' load.
__device__ float4 load4_checked(const float *A, int row, int rows, int c, int cols)
{
    float v[VEC];
#pragma unroll
    for (int q = 0; q < VEC; ++q)
        v[q] = row < rows && c + q < cols ? A[(size_t)row * cols + c + q] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

// The float4s of the strips at column kt of M and row kt of N this thread loads: plain float4
// loads in an interior block, checked ones in the others.
__device__ void load_strips(const float *M, const float *N, int j, int k, int l, int row0,
                            int col0, int kt, int arow, int acol, int brow, int bcol,
                            bool interior, float4 *ra, float4 *rb)
{
    if (interior) {
        *ra = *(const float4 *)&M[(size_t)(row0 + arow) * k + kt + acol];
        *rb = *(const float4 *)&N[(size_t)(kt + brow) * l + col0 + bcol];
    } else {
        *ra = load4_checked(M, row0 + arow, j, kt + acol, k);
        *rb = load4_checked(N, kt + brow, k, col0 + bcol, l);
    }
}

// Those float4s into one stage: M's transposed, N's as it is.
__device__ void store_strips(float (*As)[BM], float (*Bs)[BN], int arow, int acol, int brow,
                             int bcol, float4 ra, float4 rb)
{
    As[acol + 0][arow] = ra.x;
    As[acol + 1][arow] = ra.y;
    As[acol + 2][arow] = ra.z;
    As[acol + 3][arow] = ra.w;
    *(float4 *)&Bs[brow][bcol] = rb;
}

// Interior blocks (wholly inside P, k a multiple of BK, rows of M, N and P 16-byte aligned)
// load and store with float4 and no bounds checks; the others load with checks and zeros past
// the edges, store element by element, and their threads whose outputs all lie outside P skip
// the arithmetic.
__global__ void __launch_bounds__(THREADS)
    MatmulDoubleBuffer(const float *M, const float *N, float *P, int j, int k, int l)
{
    __shared__ __align__(16) float As[STAGES][BK][BM];
    __shared__ __align__(16) float Bs[STAGES][BK][BN];

    int tid = threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    /* this thread's pieces: rows trow*VEC + i*STRIDE_M.., columns tcol*VEC + jj*STRIDE_N.. */
    int trow = tid / (BN / TN), tcol = tid % (BN / TN);
    int arow = tid / (BK / VEC), acol = (tid % (BK / VEC)) * VEC; /* its float4 of M's strip */
    int brow = tid / (BN / VEC), bcol = (tid % (BN / VEC)) * VEC; /* and of N's */
    bool misaligned = ((unsigned long long)M | (unsigned long long)N | (unsigned long long)P) &
                      ALIGN_MASK;
    bool interior = row0 + BM <= j && col0 + BN <= l && k % BK == 0 && l % VEC == 0 &&
                    !misaligned;
    bool active = interior || (row0 + trow * VEC < j && col0 + tcol * VEC < l);

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jj = 0; jj < TN; ++jj)
            acc[i][jj] = 0.0f;
    float am[TM], bn[TN];

    /* The first strip, loaded and stored before the loop; each trip loads the next. */
    float4 ra, rb;
    load_strips(M, N, j, k, l, row0, col0, 0, arow, acol, brow, bcol, interior, &ra, &rb);
    store_strips(As[0], Bs[0], arow, acol, brow, bcol, ra, rb);
    __syncthreads();

    int strips = (k + BK - 1) / BK;
    for (int t = 0; t < strips; ++t) {
        int s = t % STAGES;
        /* The last trip loads its own strip again instead of skipping the load: a load under
         * `if (t + 1 < strips)` is moved by the compiler down to the stores that use it, after
         * the math, and the overlap is lost. */
        int next = t + 1 < strips ? t + 1 : t;
        load_strips(M, N, j, k, l, row0, col0, next * BK, arow, acol, brow, bcol, interior, &ra,
                    &rb);

        if (active) {
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
                for (int i = 0; i < PIECES_M; ++i) {
                    float4 a = *(const float4 *)&As[s][kk][trow * VEC + i * STRIDE_M];
                    am[i * VEC + 0] = a.x, am[i * VEC + 1] = a.y;
                    am[i * VEC + 2] = a.z, am[i * VEC + 3] = a.w;
                }
#pragma unroll
                for (int jj = 0; jj < PIECES_N; ++jj) {
                    float4 b = *(const float4 *)&Bs[s][kk][tcol * VEC + jj * STRIDE_N];
                    bn[jj * VEC + 0] = b.x, bn[jj * VEC + 1] = b.y;
                    bn[jj * VEC + 2] = b.z, bn[jj * VEC + 3] = b.w;
                }
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int jj = 0; jj < TN; ++jj)
                        acc[i][jj] = fmaf(am[i], bn[jj], acc[i][jj]);
            }
        }

        store_strips(As[s ^ 1], Bs[s ^ 1], arow, acol, brow, bcol, ra, rb);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = row0 + trow * VEC + (i / VEC) * STRIDE_M + i % VEC;
#pragma unroll
        for (int jj = 0; jj < TN; jj += VEC) {
            int col = col0 + tcol * VEC + (jj / VEC) * STRIDE_N;
            if (interior) {
                *(float4 *)&P[(size_t)row * l + col] =
                    make_float4(acc[i][jj], acc[i][jj + 1], acc[i][jj + 2], acc[i][jj + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < VEC; ++q)
                    if (row < j && col + q < l)
                        P[(size_t)row * l + col + q] = acc[i][jj + q];
            }
        }
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    dim3 grid((l + BN - 1) / BN, (j + BM - 1) / BM);
    MatmulDoubleBuffer<<<grid, THREADS>>>(M, N, P, j, k, l);
}
