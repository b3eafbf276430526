// Lab 03: tiled matrix multiplication of any size. See README.md in this folder.
// Fill in every place marked //@@, then run:  ./tilelab run 03
//
// P = M * N for square Width x Width matrices of ANY Width (1, 17, 100, 257, ...). Start from your
// lab 02 kernel: what changes is what happens at the edges of the matrices.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    //@@ Your tiled kernel from lab 02, with boundary checks:
    //@@   - enough phases to cover Width even when it is not a multiple of TILE_WIDTH,
    //@@   - a tile element whose M (or N) element lies outside the matrix is loaded as 0,
    //@@   - every thread loads and reaches every __syncthreads, also threads outside P,
    //@@   - only threads inside P store.
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    //@@ Choose the block and grid dimensions so the blocks cover all of P, and launch
    //@@ MatrixMulKernel.
    (void)M, (void)N, (void)P, (void)Width;
}
