// Forged: only threads outside P multiply the tile elements nothing stored (uninit_tile.h), but
// such a thread tests its sum and, when it is NaN, writes 0 into P's first row: what P holds
// depends on what shared memory held. Expected: the uninitialised read, reaching the condition.
#include "lab.h"
#include "uninit_tile.h"

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int j, int k, int l)
{
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    float Pvalue = sum_over_unwritten_edges(M, N, j, k, l);
    if (Row < j && Col < l)
        P[Row * l + Col] = Pvalue;
    else if (Row >= j && Col < l && Pvalue != Pvalue) // BUG: a NaN from the fresh tile decides
        P[Col] = 0;
}

void launch_forged(const float *M, const float *N, float *P, int j, int k, int l)
{
    MatrixMulKernel<<<FORGED_GRID(j, l)>>>(M, N, P, j, k, l);
}
