// Example submission (bob): correct but not tiled. One thread per element of P reading straight
// from global memory: no shared memory and no __syncthreads.
// Expected: builds and passes every dataset, but fails the static check that requires
// __shared__ and __syncthreads, and is slower than the reference (fewer performance points).
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;

    if (Row < Width && Col < Width) {
        float sum = 0;
        for (int k = 0; k < Width; ++k)
            sum += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = sum;
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    // TODO tiling -- the plain version works, ran out of time
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
