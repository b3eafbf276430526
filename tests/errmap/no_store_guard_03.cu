// Lab 03's reference with its store guard removed (the loads keep theirs): threads of the last
// column of blocks past column Width-1 store to P[Row * Width + Col], which is the next row's
// first columns; in the last row of blocks, past the end of P. Unsafe (out of bounds).
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < (Width + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        // Every thread loads, even one outside P: its tile elements feed its neighbours.
        if (Row < Width && ph * TILE_WIDTH + tx < Width)
            Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        else
            Mds[ty][tx] = 0;
        if (ph * TILE_WIDTH + ty < Width && Col < Width)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        else
            Nds[ty][tx] = 0;
        __syncthreads(); // reached by every thread of the block: never inside a boundary test

        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Mds[ty][i] * Nds[i][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((Width + TILE_WIDTH - 1) / TILE_WIDTH, (Width + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
