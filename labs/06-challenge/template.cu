// Lab 06: the challenge. See README.md in this folder.
// P = M * N with M j x k, N k x l and P j x l, for any j, k, l, as fast as you can make it.
// Fill in every place marked //@@, then run:  ./tilelab run 06
// and, for what limits your kernel:          ./tilelab diagnose 06
//
// The contract is lab 04's; inside it you have a free hand: any number of kernels, any block
// shape, any tiles, registers and shared-memory layouts. Plain CUDA C only: no libraries, no
// tensor cores, no inline assembly, and every sum accumulated in float.
#include "lab.h"

//@@ Start from your lab 05 kernel: it is correct for every shape, and about a sixth of cuBLAS's
//@@ speed. Then take the handout's steps one at a time, running ./tilelab run 06 after each so
//@@ you know what each step bought: more outputs per thread, float4 loads, a conflict-free
//@@ shared layout, warptiling, double buffering.

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int j, int k, int l)
{
    //@@ Your kernel. Blocks on the right and bottom edges of P, and k that is not a whole number
    //@@ of phases, need the boundary checks of lab 03 (or a second kernel that has them).
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    //@@ Choose the block and grid dimensions so the blocks cover all of P (j rows, l columns),
    //@@ and launch your kernel (or kernels).
    (void)M, (void)N, (void)P, (void)j, (void)k, (void)l;
}
