// Correct: each warp computes 32 neighbouring elements of a row of P; for every k, lane 0
// fetches the row's element of M and hands it to the other lanes through shared memory. The
// first __syncwarp() orders lane 0's store before the others' reads, the second their reads
// before lane 0's next store.
// Expected: no errors.
#include "lab.h"

#define WARPS 4 // warps per block, 32 columns of one row of P each

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float m[WARPS];
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    int Row = blockIdx.y, Col = (blockIdx.x * WARPS + w) * 32 + lane;
    float sum = 0;
    for (int k = 0; k < Width; ++k) {
        if (lane == 0)
            m[w] = M[Row * Width + k];
        __syncwarp();
        if (Col < Width)
            sum += m[w] * N[k * Width + Col];
        __syncwarp();
    }
    if (Col < Width)
        P[Row * Width + Col] = sum;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    dim3 grid((Width + WARPS * 32 - 1) / (WARPS * 32), Width);
    MatrixMulKernel<<<grid, WARPS * 32>>>(M, N, P, Width);
}
