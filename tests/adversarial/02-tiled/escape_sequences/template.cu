// Prints terminal escape sequences, a spreadsheet formula and invalid UTF-8 from the host and from
// the kernel, around a correct kernel.
// Must get: every dataset pass; no escape byte or formula cell in any output, valid UTF-8 JSON.
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

#include <stdio.h>

__global__ void noisy(float *P, int W)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        printf("\x1b[2J\x1b]8;;http://example.com\x07click\x1b]8;;\x07 \xff\xfe\n");
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    printf("\x1b[31m=HYPERLINK(\"http://example.com\",\"grade\")\r\xc0\xaf\n");
    noisy<<<1, 32>>>(P, k);
    tiled<<<grid_of(k), dim3(TILE, TILE)>>>(M, N, P, k);
}
