// Lab 06, step 2: 2D block tiling (from step 1).
// Step 1 reuses each element of N it reads for 8 FMAs but each element of M for only one. Here
// each thread computes an 8x8 square of P: per step of the inner loop it reads 8 elements of M
// and 8 of N into registers and makes their 64 products, 4 FMAs per shared load instead of
// about 1. The block's tile grows to 128x128 (BK = 8), so each element loaded from global
// memory serves 128 outputs instead of 64; its 256 threads each load 4 elements of each strip.
#include "lab.h"

#define BM 128                         /* rows of P per block */
#define BN 128                         /* columns of P per block */
#define BK 8                           /* the width of the strips of M and N in shared memory */
#define TM 8                           /* rows of P per thread */
#define TN 8                           /* columns of P per thread */
#define THREADS (BM * BN / (TM * TN))  /* 256 */
#define A_LOADS (BM * BK / THREADS)    /* elements of the M strip each thread loads: 4 */
#define B_LOADS (BK * BN / THREADS)    /* and of the N strip: 4 */

// Interior blocks (wholly inside P, k a multiple of BK) load and store without bounds checks;
// the others check each element and load zeros past the edges, and their threads whose
// outputs all lie outside P skip the arithmetic (on a thin P, most).
__global__ void __launch_bounds__(THREADS)
    MatmulBlocktile2D(const float *M, const float *N, float *P, int j, int k, int l)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    int tid = threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int trow = tid / (BN / TN), tcol = tid % (BN / TN); /* rows trow*TM.., columns tcol*TN.. */
    bool interior = row0 + BM <= j && col0 + BN <= l && k % BK == 0;
    bool active = interior || (row0 + trow * TM < j && col0 + tcol * TN < l);

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jj = 0; jj < TN; ++jj)
            acc[i][jj] = 0.0f;
    float am[TM], bn[TN];

    for (int kt = 0; kt < k; kt += BK) {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            int idx = tid + i * THREADS, r = idx / BK, c = idx % BK;
            int gr = row0 + r, gc = kt + c;
            As[r][c] = interior || (gr < j && gc < k) ? M[(size_t)gr * k + gc] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            int idx = tid + i * THREADS, r = idx / BN, c = idx % BN;
            int gr = kt + r, gc = col0 + c;
            Bs[r][c] = interior || (gr < k && gc < l) ? N[(size_t)gr * l + gc] : 0.0f;
        }
        __syncthreads();

        if (active) {
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
                for (int i = 0; i < TM; ++i)
                    am[i] = As[trow * TM + i][kk];
#pragma unroll
                for (int jj = 0; jj < TN; ++jj)
                    bn[jj] = Bs[kk][tcol * TN + jj];
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int jj = 0; jj < TN; ++jj)
                        acc[i][jj] = fmaf(am[i], bn[jj], acc[i][jj]);
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = row0 + trow * TM + i;
#pragma unroll
        for (int jj = 0; jj < TN; ++jj) {
            int col = col0 + tcol * TN + jj;
            if (interior || (row < j && col < l))
                P[(size_t)row * l + col] = acc[i][jj];
        }
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    dim3 grid((l + BN - 1) / BN, (j + BM - 1) / BM);
    MatmulBlocktile2D<<<grid, THREADS>>>(M, N, P, j, k, l);
}
