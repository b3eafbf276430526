// Lab 02: tiled matrix multiplication. See README.md in this folder.
// Fill in every place marked //@@, then run:  ./tilelab run 02
//
// P = M * N for square Width x Width matrices, Width a multiple of TILE_WIDTH. The harness has
// already put M and N on the device; it calls launch_matmul, checks P and times the kernel.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    //@@ Declare two TILE_WIDTH x TILE_WIDTH tiles in shared memory, one for M and one for N.
    //@@ Compute the row and the column of the element of P this thread computes.
    //@@ Loop over the phases (Width / TILE_WIDTH of them). In each phase:
    //@@   - each thread loads one element of the M tile and one of the N tile,
    //@@   - wait until the whole block has loaded (__syncthreads),
    //@@   - add this phase's TILE_WIDTH products to the running sum,
    //@@   - wait until the whole block is done with the tiles before the next phase loads.
    //@@ Store the sum in P.
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    //@@ Choose the block and grid dimensions (one TILE_WIDTH x TILE_WIDTH block per tile of P)
    //@@ and launch MatrixMulKernel.
    (void)M, (void)N, (void)P, (void)Width;
}
