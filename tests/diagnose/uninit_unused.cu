// Correct: the tiled product of a public course's template (ECE408 MP3). A tile element past
// the edge of A or B is never stored, and threads outside C multiply such elements, but they
// never store their sum: every element of C is right on any GPU. No finding.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void matrixMultiplyShared(const float *A, const float *B, float *C, int numARows,
                                     int numAColumns, int numBRows, int numBColumns,
                                     int numCRows, int numCColumns)
{
    __shared__ float subA[TILE_WIDTH][TILE_WIDTH];
    __shared__ float subB[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE_WIDTH + ty;
    int col = blockIdx.x * TILE_WIDTH + tx;
    float c = 0;
    for (int q = 0; q < ceil(1.0 * numAColumns / TILE_WIDTH); ++q) {
        if ((q * TILE_WIDTH + tx < numAColumns) && (row < numARows))
            subA[ty][tx] = A[row * numAColumns + q * TILE_WIDTH + tx];
        if ((col < numCColumns) && (q * TILE_WIDTH + ty < numBRows))
            subB[ty][tx] = B[(q * TILE_WIDTH + ty) * numBColumns + col];
        __syncthreads();
        for (int i = 0; i < TILE_WIDTH; ++i) {
            if (q * TILE_WIDTH + i < numAColumns)
                c += subA[ty][i] * subB[i][tx];
        }
        __syncthreads();
    }
    if (row < numCRows && col < numCColumns)
        C[row * numCColumns + col] = c;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid((l + TILE_WIDTH - 1) / TILE_WIDTH, (j + TILE_WIDTH - 1) / TILE_WIDTH);
    matrixMultiplyShared<<<dimGrid, dimBlock>>>(M, N, P, j, k, k, l, j, l);
}
