// Lab 01: basic matrix multiplication. See README.md in this folder.
// Fill in every place marked //@@, then run:  ./tilelab run 01
//
// P = M * N for square Width x Width matrices, one thread per element of P. The harness reads
// the dataset and calls matmul_on_device with host arrays, then checks P; it also times your
// kernel through launch_matmul.
#include "lab.h"

#define BLOCK_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    //@@ Compute the row and the column of the element of P this thread computes.
    //@@ If it is inside P, compute the dot product of that row of M and that column of N
    //@@ and store it in P.
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    //@@ Choose the block and grid dimensions (BLOCK_WIDTH x BLOCK_WIDTH threads a block, enough
    //@@ blocks to cover all of P) and launch MatrixMulKernel.
    (void)M, (void)N, (void)P, (void)Width;
}

void matmul_on_device(const float *hostM, const float *hostN, float *hostP, int j, int k, int l)
{
    int Width = k;
    //@@ 1. Allocate device memory for M, N and P (cudaMalloc).
    //@@ 2. Copy M and N from the host to the device (cudaMemcpy).
    //@@ 3. Call launch_matmul with the device pointers, then check the launch (cudaGetLastError).
    //@@ 4. Copy P from the device to the host.
    //@@ 5. Free the device memory (cudaFree).
    //@@ Wrap every CUDA call in TL_CUDA_CHECK(...): it reports the file, line and error, and ends
    //@@ the run, when a call fails.
    (void)hostM, (void)hostN, (void)hostP, (void)j, (void)l, (void)Width;
}
