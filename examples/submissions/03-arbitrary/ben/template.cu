// Example submission (ben): each tile load checks only one of its two indices (the row of M,
// the column of N), so at the edge it reads past the end of a row of M and past the last row
// of N. The store is guarded, the grid rounded up.
// Run directly on a GPU it usually passes: what lies past the end of N is often zero, and the
// stray products add nothing. That is luck, not a correct kernel.
// Expected: builds, passes the static checks; every dataset unsafe (out-of-bounds global read,
// the load's line), on every backend; no performance points.
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
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        Ms[ty][tx] = Row < Width ? M[Row * Width + ph * TILE_WIDTH + tx] : 0;
        Ns[ty][tx] = Col < Width ? N[(ph * TILE_WIDTH + ty) * Width + Col] : 0;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Pvalue += Ms[ty][k] * Ns[k][tx];
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
