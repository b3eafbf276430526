// Forged: a thread outside P computes its sum from tile elements nothing stored
// (uninit_tile.h), then hands it through shared memory to a thread inside P, which stores it:
// P depends on what shared memory held. Expected: the uninitialised read, reaching the store.
#include "lab.h"
#include "uninit_tile.h"

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int j, int k, int l)
{
    __shared__ float handed[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty, Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = sum_over_unwritten_edges(M, N, j, k, l);
    handed[ty][tx] = Pvalue;
    __syncthreads();
    if (Row < j && Col < l)
        P[Row * l + Col] = Pvalue + 0.0f * handed[TILE_WIDTH - 1 - ty][tx]; // BUG: the store
}

void launch_forged(const float *M, const float *N, float *P, int j, int k, int l)
{
    MatrixMulKernel<<<FORGED_GRID(j, l)>>>(M, N, P, j, k, l);
}
