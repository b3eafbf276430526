// Honest but slow: a tiled kernel that stores its running sum into P after every multiply-add
// (a real student's pattern). Each store is a global write the GPU's L1 passes through to L2.
// Must get: every dataset pass; performance points within the stated tolerance of a GPU's.
#include "lab.h"

#define TILE 16

__global__ void tiled_store_each(const float *M, const float *N, float *P, int W)
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
            if (r < W && c < W)
                P[r * W + c] = acc;
        }
        __syncthreads();
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled_store_each<<<dim3((k + TILE - 1) / TILE, (k + TILE - 1) / TILE), dim3(TILE, TILE)>>>(M, N, P, k);
}
