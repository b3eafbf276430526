// Lab 05: shared-memory bank conflicts. See README.md in this folder.
// Fill in every place marked //@@, then run:  ./tilelab run 05
//
// MatrixMulKernelTransposed below is lab 04's kernel with TILE_WIDTH 32 and its tile of N stored
// transposed (Nds[tx][ty]). It is correct, but slow: every warp's access to Nds is a 32-way bank
// conflict. The harness runs it too (launch_matmul_baseline), so each run shows its time and
// yours side by side, and with ncu installed, the bank conflicts of both.
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

// Your kernel: the same computation, without the bank conflicts.
__global__ void MatrixMulKernelPadded(const float *M, const float *N, float *P, int j, int k, int l)
{
    //@@ Copy the body of MatrixMulKernelTransposed here, keep the transposed indexing
    //@@ (Nds[tx][ty] and Nds[tx][i]), and change only the declaration of Nds so that the 32
    //@@ threads of a warp reach 32 different banks. (How many floats long must a row of Nds be?)
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
