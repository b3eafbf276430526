// Example submission (alice): a correct tiled kernel, written in her own words. Beyond what the
// lab asks, she guards every load and the store and rounds the grid up, so it is also correct
// when Width is not a multiple of TILE_WIDTH.
// Expected: builds, passes the static checks and every dataset (shipped and hidden, whatever the
// size), and runs about as fast as the reference solution (full or nearly full performance
// points).
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    // one tile of M and one tile of N, shared by the whole block
    __shared__ float tileM[TILE_WIDTH][TILE_WIDTH];
    __shared__ float tileN[TILE_WIDTH][TILE_WIDTH];

    int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
    int col = blockIdx.x * TILE_WIDTH + threadIdx.x;

    float acc = 0.0f;
    int phases = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    for (int p = 0; p < phases; p++) {
        // every thread brings in one element of each tile (0 past the edge of the matrix)
        int mCol = p * TILE_WIDTH + threadIdx.x;
        int nRow = p * TILE_WIDTH + threadIdx.y;
        tileM[threadIdx.y][threadIdx.x] = (row < Width && mCol < Width) ? M[row * Width + mCol] : 0.0f;
        tileN[threadIdx.y][threadIdx.x] = (nRow < Width && col < Width) ? N[nRow * Width + col] : 0.0f;
        __syncthreads();

        for (int e = 0; e < TILE_WIDTH; e++)
            acc += tileM[threadIdx.y][e] * tileN[e][threadIdx.x];
        __syncthreads();
    }
    if (row < Width && col < Width)
        P[row * Width + col] = acc;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // square: j == k == l
    int Width = k;
    int tiles = (Width + TILE_WIDTH - 1) / TILE_WIDTH;
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid(tiles, tiles);
    MatrixMulKernel<<<grid, block>>>(M, N, P, Width);
}
