// Example submission (eve): her lab 01 kernel, one thread per element reading M and N straight
// from global memory, with the boundary check it needs; no shared memory.
// Expected: builds; fails the static checks (no __shared__, no __syncthreads); passes every
// dataset; slower than the reference on an H100 (partial performance points).
#include "lab.h"

#define BLOCK 16

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
    dim3 block(BLOCK, BLOCK);
    dim3 grid((Width + BLOCK - 1) / BLOCK, (Width + BLOCK - 1) / BLOCK);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width);
}
