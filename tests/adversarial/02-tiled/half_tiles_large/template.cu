// At 1024 and up it launches half the grid's rows of blocks: each block does its tile right,
// but the bottom half of P is never written, and the kernel takes half the time. The model
// used to accept a sample that wrote half of its blocks' share.
// Must get: every dataset pass; no performance points on any backend (every sampled block's
// share, over the whole grid, must cover P).
#include "lab.h"

#define TILE 16

__global__ void tiled(const float *M, const float *N, float *P, int W)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int p = 0; p < (W + TILE - 1) / TILE; p++) {
        int mc = p * TILE + threadIdx.x, nr = p * TILE + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = r < W && mc < W ? M[r * W + mc] : 0;
        b[threadIdx.y][threadIdx.x] = nr < W && c < W ? N[nr * W + c] : 0;
        __syncthreads();
        for (int e = 0; e < TILE; e++)
            acc += a[threadIdx.y][e] * b[e][threadIdx.x];
        __syncthreads();
    }
    if (r < W && c < W)
        P[r * W + c] = acc;
}

static dim3 grid_of(int W)
{
    int tiles = (W + TILE - 1) / TILE;
    return dim3(tiles, W >= 1024 ? tiles / 2 : tiles);
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled<<<grid_of(k), dim3(TILE, TILE)>>>(M, N, P, k);
}
