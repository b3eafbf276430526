// Lab 06, step 3: vectorized loads (from step 2).
// Step 2 spends many of its instructions on loads of one float each: 8 global loads per thread
// per strip and 16 shared loads per step of the inner loop. Here global loads are float4 (one
// of M and one of N per thread per strip), and the M strip is stored transposed, As[BK][BM],
// so that a thread's 8 elements of M for one kk lie side by side like its 8 elements of N in
// Bs[BK][BN]: each fragment is two float4 shared loads instead of 8 scalar ones. A float4 needs
// 16-byte alignment, so the fast path also asks that k and l be multiples of 4.
#include "lab.h"

#define BM 128                         /* rows of P per block */
#define BN 128                         /* columns of P per block */
#define BK 8                           /* the width of the strips of M and N in shared memory */
#define TM 8                           /* rows of P per thread */
#define TN 8                           /* columns of P per thread */
#define THREADS (BM * BN / (TM * TN))  /* 256; each loads one float4 of each strip */
#define VEC 4                          /* floats per float4 */
#define ALIGN_MASK 15                  /* a float4's address is a multiple of 16 */

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

// Interior blocks (wholly inside P, k a multiple of BK, rows of M, N and P 16-byte aligned)
// use float4 loads without bounds checks; the others load with checks and zeros past the edges,
// and their threads whose outputs all lie outside P skip the arithmetic.
__global__ void __launch_bounds__(THREADS)
    MatmulVectorized(const float *M, const float *N, float *P, int j, int k, int l)
{
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];

    int tid = threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    int trow = tid / (BN / TN), tcol = tid % (BN / TN); /* rows trow*TM.., columns tcol*TN.. */
    int arow = tid / (BK / VEC), acol = (tid % (BK / VEC)) * VEC; /* its float4 of M's strip */
    int brow = tid / (BN / VEC), bcol = (tid % (BN / VEC)) * VEC; /* and of N's */
    bool misaligned = ((unsigned long long)M | (unsigned long long)N | (unsigned long long)P) &
                      ALIGN_MASK;
    bool interior = row0 + BM <= j && col0 + BN <= l && k % BK == 0 && l % VEC == 0 &&
                    !misaligned;
    bool active = interior || (row0 + trow * TM < j && col0 + tcol * TN < l);

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jj = 0; jj < TN; ++jj)
            acc[i][jj] = 0.0f;
    float am[TM], bn[TN];

    for (int kt = 0; kt < k; kt += BK) {
        float4 ra, rb;
        if (interior) {
            ra = *(const float4 *)&M[(size_t)(row0 + arow) * k + kt + acol];
            rb = *(const float4 *)&N[(size_t)(kt + brow) * l + col0 + bcol];
        } else {
            ra = load4_checked(M, row0 + arow, j, kt + acol, k);
            rb = load4_checked(N, kt + brow, k, col0 + bcol, l);
        }
        As[acol + 0][arow] = ra.x;
        As[acol + 1][arow] = ra.y;
        As[acol + 2][arow] = ra.z;
        As[acol + 3][arow] = ra.w;
        *(float4 *)&Bs[brow][bcol] = rb;
        __syncthreads();

        if (active) {
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
                for (int i = 0; i < TM; i += VEC) {
                    float4 a = *(const float4 *)&As[kk][trow * TM + i];
                    am[i] = a.x, am[i + 1] = a.y, am[i + 2] = a.z, am[i + 3] = a.w;
                }
#pragma unroll
                for (int jj = 0; jj < TN; jj += VEC) {
                    float4 b = *(const float4 *)&Bs[kk][tcol * TN + jj];
                    bn[jj] = b.x, bn[jj + 1] = b.y, bn[jj + 2] = b.z, bn[jj + 3] = b.w;
                }
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
    MatmulVectorized<<<grid, THREADS>>>(M, N, P, j, k, l);
}
