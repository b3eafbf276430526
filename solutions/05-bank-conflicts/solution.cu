// Lab 05 (shared-memory bank conflicts), reference solution.
// The rectangular tiled kernel of lab 04 with TILE_WIDTH 32, keeping its tile of N transposed
// (Nds[tx][ty] instead of Nds[ty][tx]). Shared memory has 32 banks of 4-byte words and word w
// lives in bank w % 32. A warp is one row of the block (ty fixed, tx = 0..31), so in the
// unpadded tile its 32 threads touch words tx * 32 + c: all in bank c, a 32-way conflict, on
// every store and every load of the inner loop. One spare column makes the row length 33, so
// the same accesses hit words tx * 33 + c, in 32 different banks.
#include "lab.h"

#define TILE_WIDTH 32

// The starting point: correct, but every warp's access to Nds is a 32-way bank conflict.
__global__ void MatrixMulKernelTransposed(const float *M, const float *N, float *P, int j, int k,
                                          int l)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        if (Row < j && ph * TILE_WIDTH + tx < k)
            Mds[ty][tx] = M[Row * k + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0;
        if (ph * TILE_WIDTH + ty < k && Col < l)
            Nds[tx][ty] = N[(ph * TILE_WIDTH + ty) * l + Col];
        else
            Nds[tx][ty] = 0;
        __syncthreads();

        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Mds[ty][i] * Nds[tx][i];
        __syncthreads();
    }
    if (Row < j && Col < l)
        P[Row * l + Col] = Pvalue;
}

// The fix: the same kernel with one column of padding in the transposed tile.
__global__ void MatrixMulKernelPadded(const float *M, const float *N, float *P, int j, int k, int l)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH + 1];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        if (Row < j && ph * TILE_WIDTH + tx < k)
            Mds[ty][tx] = M[Row * k + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0;
        if (ph * TILE_WIDTH + ty < k && Col < l)
            Nds[tx][ty] = N[(ph * TILE_WIDTH + ty) * l + Col];
        else
            Nds[tx][ty] = 0;
        __syncthreads();

        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Mds[ty][i] * Nds[tx][i];
        __syncthreads();
    }
    if (Row < j && Col < l)
        P[Row * l + Col] = Pvalue;
}

static dim3 grid_for(int j, int l)
{
    return dim3((l + TILE_WIDTH - 1) / TILE_WIDTH, (j + TILE_WIDTH - 1) / TILE_WIDTH);
}

void launch_matmul_baseline(const float *M, const float *N, float *P, int j, int k, int l)
{
    MatrixMulKernelTransposed<<<grid_for(j, l), dim3(TILE_WIDTH, TILE_WIDTH)>>>(M, N, P, j, k, l);
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    MatrixMulKernelPadded<<<grid_for(j, l), dim3(TILE_WIDTH, TILE_WIDTH)>>>(M, N, P, j, k, l);
}
