// Honest: lab 01's untiled kernel (one thread per element of P, a row of M times a column of N
// read straight from global memory) handed in for lab 02. No __shared__ tiles, so lab 02's
// static check fails; it is timed all the same.
// Must get: static 0; every dataset pass; performance points within the stated tolerance of a GPU's
// (a GPU times it at about 0.66x the tiled reference).
#include "lab.h"

#define BLOCK 16

__global__ void untiled(const float *M, const float *N, float *P, int W)
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
    untiled<<<dim3((k + BLOCK - 1) / BLOCK, (k + BLOCK - 1) / BLOCK), dim3(BLOCK, BLOCK)>>>(M, N, P, k);
}
