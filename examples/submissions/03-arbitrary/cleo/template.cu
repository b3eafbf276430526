// Example submission (cleo): the whole phase loop, barriers included, sits inside
// `if (Row < Width && Col < Width)`, so threads outside P skip the __syncthreads() their block
// waits at, and never load the tile elements their neighbours need.
// Expected: builds, passes the static checks; every dataset unsafe (a __syncthreads() not every
// thread of the block reaches, its line), on every backend; no performance points.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
            int mc = ph * TILE_WIDTH + tx, nr = ph * TILE_WIDTH + ty;
            Mds[ty][tx] = mc < Width ? M[Row * Width + mc] : 0;
            Nds[ty][tx] = nr < Width ? N[nr * Width + Col] : 0;
            __syncthreads();
            for (int k = 0; k < TILE_WIDTH; ++k)
                Pvalue += Mds[ty][k] * Nds[k][tx];
            __syncthreads();
        }
        P[Row * Width + Col] = Pvalue;
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width);
}
