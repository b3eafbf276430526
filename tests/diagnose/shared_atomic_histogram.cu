// Correct: one warp per element of P, its products added into a 4-bin histogram in shared
// memory (bin k % 4) with atomicAdd, which many lanes hit at once, then the bins summed.
// Atomics on one word do not race with each other; the __syncwarp()s order the bins' clearing
// before the adds and the adds before lane 0 reads them.
// Expected: no errors.
#include "lab.h"

#define WARPS 4 // warps per block, one element of P each
#define BINS 4

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float bins[WARPS][BINS];
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    int e = blockIdx.x * WARPS + w; // the element of P of this warp
    int Row = e / Width, Col = e % Width;
    if (lane < BINS)
        bins[w][lane] = 0;
    __syncwarp();
    for (int k = lane; e < Width * Width && k < Width; k += 32)
        atomicAdd(&bins[w][k % BINS], M[Row * Width + k] * N[k * Width + Col]);
    __syncwarp();
    if (lane == 0 && e < Width * Width)
        P[Row * Width + Col] = bins[w][0] + bins[w][1] + bins[w][2] + bins[w][3];
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    int elements = Width * Width;
    MatrixMulKernel<<<(elements + WARPS - 1) / WARPS, WARPS * 32>>>(M, N, P, Width);
}
