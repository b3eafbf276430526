// Forged: only threads outside P multiply the tile elements nothing stored (uninit_tile.h), but
// such a thread turns its sum into an index of P and stores there: where P is written depends
// on what shared memory held. Expected: the uninitialised read, reaching an address.
#include "lab.h"
#include "uninit_tile.h"

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int j, int k, int l)
{
    int Row = blockIdx.y * TILE_WIDTH + threadIdx.y, Col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    float Pvalue = sum_over_unwritten_edges(M, N, j, k, l);
    if (Row < j && Col < l)
        P[Row * l + Col] = Pvalue;
    else if (Row >= j && Col < l) // any float gives an index inside P
        P[(__float_as_uint(Pvalue) & 0x7fffffffu) % (unsigned)(j * l)] = 0; // BUG: the address
}

void launch_forged(const float *M, const float *N, float *P, int j, int k, int l)
{
    MatrixMulKernel<<<FORGED_GRID(j, l)>>>(M, N, P, j, k, l);
}
