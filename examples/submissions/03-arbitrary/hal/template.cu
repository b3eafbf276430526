// Example submission (hal): correct and tiled, but with the thread indices swapped: Row comes
// from threadIdx.x and Col from threadIdx.y. Each warp then reads a column of M's tile (32
// different rows, one sector each), stores a column of P, and indexes the shared tiles so that
// its threads share banks.
// Expected: builds, passes the static checks and every dataset; clearly slower than the
// reference on an H100 (few or no performance points). On the CPU backend its emulated time
// would look as good as any; the performance model sees the uncoalesced accesses.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tr = threadIdx.x, tc = threadIdx.y; // row and column inside the tile
    int Row = blockIdx.y * TILE_WIDTH + tr;
    int Col = blockIdx.x * TILE_WIDTH + tc;
    float Pvalue = 0;
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        int mCol = ph * TILE_WIDTH + tc, nRow = ph * TILE_WIDTH + tr;
        Mds[tr][tc] = (Row < Width && mCol < Width) ? M[Row * Width + mCol] : 0.0f;
        Nds[tr][tc] = (nRow < Width && Col < Width) ? N[nRow * Width + Col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Mds[tr][k] * Nds[k][tc];
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
    dim3 grid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width);
}
