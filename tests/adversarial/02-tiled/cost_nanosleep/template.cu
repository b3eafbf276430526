// A correct tiled kernel that sleeps 100 ns (__nanosleep) after every multiply-add: a GPU parks
// the warp for about that long; the interpreter does not wait at all.
// Must get: every dataset pass; no more performance points on the CPU backend than a GPU gives.
#include "lab.h"

#define TILE 16

__global__ void tiled_sleepy(const float *M, const float *N, float *P, int W)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int p = 0; p < (W + TILE - 1) / TILE; p++) {
        int mc = p * TILE + threadIdx.x, nr = p * TILE + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = r < W && mc < W ? M[r * W + mc] : 0;
        b[threadIdx.y][threadIdx.x] = nr < W && c < W ? N[nr * W + c] : 0;
        __syncthreads();
        for (int e = 0; e < TILE; e++) {
            acc += a[threadIdx.y][e] * b[e][threadIdx.x];
            __nanosleep(100);
        }
        __syncthreads();
    }
    if (r < W && c < W)
        P[r * W + c] = acc;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled_sleepy<<<dim3((k + TILE - 1) / TILE, (k + TILE - 1) / TILE), dim3(TILE, TILE)>>>(M, N, P, k);
}
