// Right everywhere, but at 1024 and up every block outside the model's old sample (block
// n * total / 8) does its whole product four times over: fast where the model used to look,
// four times slower everywhere else.
// Must get: every dataset pass; timed, and no more performance points on the CPU backend than
// on a GPU (the sample is a secret draw, so it sees the slow blocks).
#include "lab.h"

#define TILE 16

__global__ void tiled(const float *M, const float *N, float *P, int W)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    int blocks = gridDim.x * gridDim.y, linear = blockIdx.y * gridDim.x + blockIdx.x;
    int reps = W >= 1024 && linear % (blocks / 8) != 0 ? 4 : 1;
    float acc = 0;
    for (int rep = 0; rep < reps; rep++) {
        acc = 0;
        for (int p = 0; p < (W + TILE - 1) / TILE; p++) {
            int mc = p * TILE + threadIdx.x, nr = p * TILE + threadIdx.y;
            a[threadIdx.y][threadIdx.x] = r < W && mc < W ? M[r * W + mc] : 0;
            b[threadIdx.y][threadIdx.x] = nr < W && c < W ? N[nr * W + c] : 0;
            __syncthreads();
            for (int e = 0; e < TILE; e++)
                acc += a[threadIdx.y][e] * b[e][threadIdx.x];
            __syncthreads();
        }
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
