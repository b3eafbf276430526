// Example submission (ana), in the shape many course submissions take: the kernel is written
// for rectangular matrices (numARows x numAColumns times numBRows x numBColumns), with the
// usual parameter names, and launch_matmul passes Width for every dimension.
// Expected: builds, passes the static checks and every dataset, about the reference's speed.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void matrixMultiplyShared(const float *A, const float *B, float *C, int numARows,
                                     int numAColumns, int numBRows, int numBColumns,
                                     int numCRows, int numCColumns)
{
    __shared__ float subTileA[TILE_WIDTH][TILE_WIDTH];
    __shared__ float subTileB[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Cvalue = 0;

    for (int m = 0; m < (numAColumns - 1) / TILE_WIDTH + 1; ++m) {
        if (Row < numARows && m * TILE_WIDTH + tx < numAColumns)
            subTileA[ty][tx] = A[Row * numAColumns + m * TILE_WIDTH + tx];
        else
            subTileA[ty][tx] = 0;
        if (Col < numBColumns && m * TILE_WIDTH + ty < numBRows)
            subTileB[ty][tx] = B[(m * TILE_WIDTH + ty) * numBColumns + Col];
        else
            subTileB[ty][tx] = 0;
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k)
            Cvalue += subTileA[ty][k] * subTileB[k][tx];
        __syncthreads();
    }
    if (Row < numCRows && Col < numCColumns)
        C[Row * numCColumns + Col] = Cvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    dim3 dimGrid((Width - 1) / TILE_WIDTH + 1, (Width - 1) / TILE_WIDTH + 1, 1);
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
    matrixMultiplyShared<<<dimGrid, dimBlock>>>(M, N, P, Width, Width, Width, Width, Width, Width);
}
