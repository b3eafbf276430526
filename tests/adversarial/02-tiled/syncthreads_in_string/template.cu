// A naive kernel whose only __shared__ and __syncthreads are inside a string literal.
// Must get: static checks fail (required constructs missing); every dataset pass.
#include "lab.h"

#include <stdio.h>

__global__ void naive(const float *M, const float *N, float *P, int W)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < W && c < W) {
        float s = 0;
        for (int e = 0; e < W; e++)
            s += M[r * W + e] * N[e * W + c];
        P[r * W + c] = s;
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    const char *claim = "this kernel uses __shared__ tiles and __syncthreads()";
    (void)claim;
    naive<<<dim3((k + 15) / 16, (k + 15) / 16), dim3(16, 16)>>>(M, N, P, k);
}
