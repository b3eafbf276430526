// Example submission (erin): a tiled kernel with the grid rounded up to whole tiles but no
// boundary checks on the loads, the phase count or the store.
// Expected: builds, passes the static checks and the shipped datasets (multiples of 32); on a
// size that is not a multiple of 16 (a hidden dataset of 100, say) the edge blocks read and
// write past the matrices: a wrong result or an illegal-address crash.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Ms[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Ns[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float Pvalue = 0;
    int numPhases = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int ph = 0; ph < numPhases; ++ph) {
        Ms[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Ns[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();
        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Ms[ty][i] * Ns[i][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    // round up so every element gets a thread, whatever the size
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
