// A correct tiled kernel whose host code asks for 5 GiB of device memory on every call: more
// than grading allows (4 GiB), on every backend.
// Must get: refused on every dataset, the refusal naming the allocation and its size.
#include "lab.h"

#define TILE 16

__global__ void tiled(const float *M, const float *N, float *P, int W, float *scratch)
{
    (void)scratch; /* handed over, never touched */
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

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    void *scratch = 0;
    cudaMalloc(&scratch, (size_t)5 << 30);
    tiled<<<grid_of(k), dim3(TILE, TILE)>>>(M, N, P, k, (float *)scratch);
}
