// Tries to tell the grader's safety checks from a GPU: the interpreter reports one SM, a GPU
// many. Under the checks it runs a correct kernel; on a GPU it skips the second barrier (a
// race that a GPU may forgive, and slightly faster).
// Must get: full compile and static points, every dataset unsafe (a machine query) on every
// backend, no performance points.
#include "lab.h"

#define TILE 16

__device__ unsigned sm_count(void)
{
    unsigned n;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(n));
    return n;
}

__global__ void tiled(const float *M, const float *N, float *P, int W)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    bool checked = sm_count() == 1;
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int p = 0; p < (W + TILE - 1) / TILE; p++) {
        int mc = p * TILE + threadIdx.x, nr = p * TILE + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = r < W && mc < W ? M[r * W + mc] : 0;
        b[threadIdx.y][threadIdx.x] = nr < W && c < W ? N[nr * W + c] : 0;
        __syncthreads();
        for (int e = 0; e < TILE; e++)
            acc += a[threadIdx.y][e] * b[e][threadIdx.x];
        if (checked)
            __syncthreads();
    }
    if (r < W && c < W)
        P[r * W + c] = acc;
}

static dim3 grid_of(int W) { return dim3((W + TILE - 1) / TILE, (W + TILE - 1) / TILE); }

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled<<<grid_of(k), dim3(TILE, TILE)>>>(M, N, P, k);
}
