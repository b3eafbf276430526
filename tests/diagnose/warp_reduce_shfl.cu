// Correct: one warp per element of P, its lanes' partial sums added up with shuffles, and a
// vote that skips warps past the end of P. Shuffles and votes exchange registers, not shared
// memory: nothing for the race check to see, and nothing it may report.
// Expected: no errors.
#include "lab.h"

#define WARPS 4 // warps per block, one element of P each
#define FULL 0xffffffffu

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    int lane = threadIdx.x % 32;
    int e = blockIdx.x * WARPS + threadIdx.x / 32; // the element of P of this warp
    int Row = e / Width, Col = e % Width;
    bool inside = e < Width * Width;
    if (!__any_sync(FULL, inside))
        return; // the whole warp: past the end of P
    float sum = 0;
    for (int k = lane; inside && k < Width; k += 32)
        sum += M[Row * Width + k] * N[k * Width + Col];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(FULL, sum, offset);
    unsigned first = __ballot_sync(FULL, lane == 0);
    if ((first >> lane & 1) && inside)
        P[Row * Width + Col] = sum;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    int elements = Width * Width;
    MatrixMulKernel<<<(elements + WARPS - 1) / WARPS, WARPS * 32>>>(M, N, P, Width);
}
