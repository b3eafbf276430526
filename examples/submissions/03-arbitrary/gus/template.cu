// Example submission (gus): a correct tiled kernel body, but the grid is Width / TILE_WIDTH
// blocks each way, rounded down: the last partial tile of P is never computed (and at Width < 16
// the grid is empty, an invalid launch).
// Expected: builds, passes the static checks; every shipped dataset wrong (their sizes are not
// multiples of 16), the same on every backend; no performance points.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tx, nRow = ph * TILE_WIDTH + ty;
        Mds[ty][tx] = (Row < Width && mCol < Width) ? M[Row * Width + mCol] : 0.0f;
        Nds[ty][tx] = (nRow < Width && Col < Width) ? N[nRow * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    if (Row < Width && Col < Width)
        P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width);
}
