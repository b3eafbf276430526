// Example submission (frank): the kernel never finishes. He loads the tile of M with a strided
// loop and steps by threadIdx.x where he meant blockDim.x, so for the threads with
// threadIdx.x == 0 the loop variable never changes and the loop never ends; the rest of the
// block then waits for them at the barrier.
// Expected: builds, passes the static checks, and every dataset is stopped by the grader's
// timeout (no dataset or performance points).
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        // load the row of the M tile, striding so it also works with smaller blocks
        int c = tx;
        while (c < TILE_WIDTH) {
            Mds[ty][c] = M[Row * Width + ph * TILE_WIDTH + c];
            c += tx;
        }
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();

        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Mds[ty][i] * Nds[i][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
