// Lab 06, step 1: 1D block tiling (from step 0, lab 05's padded 32x32 tiled kernel).
// Step 0 makes two shared-memory loads for every FMA, so shared memory, not arithmetic, bounds
// it. Here each thread computes TM = 8 elements of one column of P: the element of N it reads
// from shared memory serves 8 FMAs, one shared load per FMA plus one per 8, and the loop's
// bookkeeping is paid once for 8 outputs. A block makes a 64x64 tile of P from BK = 8-wide
// strips of M and N; its 512 threads each load one element of each strip per step.
#include "lab.h"

#define BM 64                    /* rows of P per block */
#define BN 64                    /* columns of P per block */
#define BK 8                     /* the width of the strips of M and N in shared memory */
#define TM 8                     /* rows of P per thread */
#define THREADS (BM * BN / TM)   /* 512: one thread per TM x 1 piece of the block's tile */

// A block lies wholly inside P and k is a multiple of BK ("interior"): its loads and stores
// need no bounds checks. Every other block checks each element and loads zeros past the edges,
// and its threads whose outputs all lie outside P skip the arithmetic (on a thin P, most).
__global__ void __launch_bounds__(THREADS)
    MatmulBlocktile1D(const float *M, const float *N, float *P, int j, int k, int l)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    int tid = threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int trow = tid / BN, tcol = tid % BN; /* this thread's rows trow*TM.. and column tcol */
    int arow = tid / BK, acol = tid % BK; /* the element of the M strip it loads */
    int brow = tid / BN, bcol = tid % BN; /* and of the N strip */
    bool interior = row0 + BM <= j && col0 + BN <= l && k % BK == 0;
    bool active = interior || (row0 + trow * TM < j && col0 + tcol < l);

    float acc[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i)
        acc[i] = 0.0f;

    for (int kt = 0; kt < k; kt += BK) {
        int ar = row0 + arow, ac = kt + acol, br = kt + brow, bc = col0 + bcol;
        if (interior) {
            As[arow][acol] = M[(size_t)ar * k + ac];
            Bs[brow][bcol] = N[(size_t)br * l + bc];
        } else {
            As[arow][acol] = ar < j && ac < k ? M[(size_t)ar * k + ac] : 0.0f;
            Bs[brow][bcol] = br < k && bc < l ? N[(size_t)br * l + bc] : 0.0f;
        }
        __syncthreads();

        if (active) {
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                float b = Bs[kk][tcol];
#pragma unroll
                for (int i = 0; i < TM; ++i)
                    acc[i] = fmaf(As[trow * TM + i][kk], b, acc[i]);
            }
        }
        __syncthreads();
    }

    int col = col0 + tcol;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int row = row0 + trow * TM + i;
        if (interior || (row < j && col < l))
            P[(size_t)row * l + col] = acc[i];
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    dim3 grid((l + BN - 1) / BN, (j + BM - 1) / BM);
    MatmulBlocktile1D<<<grid, THREADS>>>(M, N, P, j, k, l);
}
