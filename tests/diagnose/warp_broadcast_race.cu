// Broken on purpose: warp_broadcast_syncwarp.cu without its __syncwarp()s. Lane 0 stores the
// row's element of M for the other lanes, which read it at once; and it stores the next one
// while they may still be reading this one. Right in lockstep, a race since sm_70.
// Expected: a shared-memory race between lane 0's store and another lane's read, and the loop
// coming back to the store with no __syncwarp() after the read.
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
            m[w] = M[Row * Width + k]; // BUG: lane 0 stores...
        if (Col < Width)
            sum += m[w] * N[k * Width + Col]; // BUG2: ...and the others read, nothing between
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
