// Lab 04: tiled rectangular matrix multiplication. See README.md in this folder.
// Fill in every place marked //@@, then run:  ./tilelab run 04
//
// P = M * N with M j x k, N k x l and P j x l. Start from your lab 03 kernel: every Width there
// stands for one of j, k or l here.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int j, int k, int l)
{
    //@@ Your lab 03 kernel with each Width replaced by the dimension it stands for:
    //@@   - rows of M and of P: j; the shared dimension (columns of M, rows of N): k;
    //@@     columns of N and of P: l,
    //@@   - the row length in each index expression (M is k wide, N and P are l wide),
    //@@   - the number of phases and the boundary tests of both loads and of the store.
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    //@@ Choose the block and grid dimensions so the blocks cover all of P (j rows, l columns),
    //@@ and launch MatrixMulKernel.
    (void)M, (void)N, (void)P, (void)j, (void)k, (void)l;
}
