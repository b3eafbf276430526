// Computes P on the host: copies M and N back, multiplies in a C loop, copies P over.
// Must get: refused on every dataset (host memory that is not an input never reaches the device).
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

static dim3 grid_of(int W) { return dim3((W + TILE - 1) / TILE, (W + TILE - 1) / TILE); }

#include <stdlib.h>

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    size_t n = (size_t)k * k;
    float *hm = (float *)malloc(n * 4), *hn = (float *)malloc(n * 4), *hp = (float *)malloc(n * 4);
    cudaMemcpy(hm, M, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(hn, N, n * 4, cudaMemcpyDeviceToHost);
    for (int r = 0; r < k; r++)
        for (int c = 0; c < k; c++) {
            float s = 0;
            for (int e = 0; e < k; e++)
                s += hm[r * k + e] * hn[e * k + c];
            hp[r * k + c] = s;
        }
    cudaMemcpy(P, hp, n * 4, cudaMemcpyHostToDevice);
    free(hm), free(hn), free(hp);
    if (0)
        tiled<<<grid_of(k), dim3(TILE, TILE)>>>(M, N, P, k);
}
