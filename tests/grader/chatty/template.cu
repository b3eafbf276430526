// A correct submission that prints far more than the grader keeps (1 MiB on stdout and stderr),
// for the test that captured output is capped.
#include "lab.h"
#include <cstdio>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    int Row = blockIdx.y * blockDim.y + threadIdx.y, Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float sum = 0;
        for (int k = 0; k < Width; ++k)
            sum += M[Row * Width + k] * N[k * Width + Col];
        P[Row * Width + Col] = sum;
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    for (int i = 0; i < 16384; ++i) {
        printf("%063d\n", i);
        fprintf(stderr, "%063d\n", i);
    }
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid((k + TILE_WIDTH - 1) / TILE_WIDTH, (k + TILE_WIDTH - 1) / TILE_WIDTH);
    MatrixMulKernel<<<grid, block>>>(M, N, P, k);
}
