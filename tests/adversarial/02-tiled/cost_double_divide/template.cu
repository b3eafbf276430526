// A correct tiled kernel that sends every product through two dependent double-precision
// divisions (and multiplies it back): each division is a dozen fp64 instructions on a GPU, on a
// pipe half as wide as the fp32 one.
// Must get: every dataset pass; no more performance points on the CPU backend than a GPU gives.
#include "lab.h"

#define TILE 16

__global__ void tiled_divide(const float *M, const float *N, float *P, int W)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    double d1 = 3.0 + (threadIdx.x & 1), d2 = 5.0 + (threadIdx.y & 1), back = d1 * d2;
    float acc = 0;
    for (int p = 0; p < (W + TILE - 1) / TILE; p++) {
        int mc = p * TILE + threadIdx.x, nr = p * TILE + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = r < W && mc < W ? M[r * W + mc] : 0;
        b[threadIdx.y][threadIdx.x] = nr < W && c < W ? N[nr * W + c] : 0;
        __syncthreads();
        for (int e = 0; e < TILE; e++) {
            double prod = (double)a[threadIdx.y][e] * b[e][threadIdx.x];
            acc += (float)(prod / d1 / d2 * back);
        }
        __syncthreads();
    }
    if (r < W && c < W)
        P[r * W + c] = acc;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled_divide<<<dim3((k + TILE - 1) / TILE, (k + TILE - 1) / TILE), dim3(TILE, TILE)>>>(M, N, P, k);
}
