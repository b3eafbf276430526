// Passes the address of host memory to its kernel, which copies from it into P.
// Must get: crash on every dataset (a host pointer is not device memory).
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

static float host_answer[256 * 256];

__global__ void from_host(const float *src, float *P, int W)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < W * W)
        P[i] = src[i];
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)M, (void)N, (void)j, (void)l;
    from_host<<<(k * k + 255) / 256, 256>>>(host_answer, P, k);
    if (0)
        tiled<<<grid_of(k), dim3(TILE, TILE)>>>(M, N, P, k);
}
