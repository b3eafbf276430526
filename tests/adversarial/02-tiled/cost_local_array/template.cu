// A correct tiled kernel that accumulates into a per-thread array indexed by the lane: the index
// is not known at compile time, so the array lives in local memory, and each lane's element sits
// in a different 128-byte line (local memory is interleaved by thread), so every access of the
// warp is 32 separate L1 requests.
// Must get: every dataset pass; no more performance points on the CPU backend than a GPU gives.
#include "lab.h"

#define TILE 16
#define PARTS 16

__global__ void tiled_local(const float *M, const float *N, float *P, int W)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float part[PARTS];
    for (int i = 0; i < PARTS; i++)
        part[i] = 0;
    for (int p = 0; p < (W + TILE - 1) / TILE; p++) {
        int mc = p * TILE + threadIdx.x, nr = p * TILE + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = r < W && mc < W ? M[r * W + mc] : 0;
        b[threadIdx.y][threadIdx.x] = nr < W && c < W ? N[nr * W + c] : 0;
        __syncthreads();
        for (int e = 0; e < TILE; e++)
            part[(threadIdx.x + e) % PARTS] += a[threadIdx.y][e] * b[e][threadIdx.x];
        __syncthreads();
    }
    float acc = 0;
    for (int i = 0; i < PARTS; i++)
        acc += part[i];
    if (r < W && c < W)
        P[r * W + c] = acc;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled_local<<<dim3((k + TILE - 1) / TILE, (k + TILE - 1) / TILE), dim3(TILE, TILE)>>>(M, N, P, k);
}
