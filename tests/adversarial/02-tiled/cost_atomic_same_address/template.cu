// A correct tiled kernel that also adds every product into one __device__ float with atomicAdd:
// every multiply-add of the whole grid updates the same address, which the GPU's L2 serialises.
// Must get: every dataset pass; no more performance points on the CPU backend than a GPU gives
// (a GPU times it at far below the reference: none).
#include "lab.h"

#define TILE 16
__device__ float sink;

__global__ void tiled_atomic(const float *M, const float *N, float *P, int W)
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
            float prod = a[threadIdx.y][e] * b[e][threadIdx.x];
            acc += prod;
            atomicAdd(&sink, prod);
        }
        __syncthreads();
    }
    if (r < W && c < W)
        P[r * W + c] = acc;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled_atomic<<<dim3((k + TILE - 1) / TILE, (k + TILE - 1) / TILE), dim3(TILE, TILE)>>>(M, N, P, k);
}
