// A correct tiled kernel whose threads then hand their results to their neighbour lane
// (threadIdx.x ^ 1) through shared memory, with no __syncwarp() between the store and the load:
// the pre-Volta "warp-synchronous" idiom. It counts on a warp's lanes running in lockstep,
// which since sm_70 they need not: a race (compute-sanitizer's racecheck reports it), right in
// lockstep and right by luck on a GPU.
// Must get: full compile and static points, every dataset unsafe on every backend (the safety
// checks find the race between lanes of one warp), no performance points.
#include "lab.h"

#define TILE 16

__global__ void tiled(const float *M, const float *N, float *P, int W)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE], handed[TILE][TILE];
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
    // Each thread stores the neighbour's element of P: the lanes swap results in pairs.
    int mate = threadIdx.x ^ 1, cm = blockIdx.x * TILE + mate;
    handed[threadIdx.y][threadIdx.x] = acc;
    float theirs = handed[threadIdx.y][mate]; // no __syncwarp() since the mate's store
    if (r < W && cm < W)
        P[r * W + cm] = theirs;
}

static dim3 grid_of(int W) { return dim3((W + TILE - 1) / TILE, (W + TILE - 1) / TILE); }

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    tiled<<<grid_of(k), dim3(TILE, TILE)>>>(M, N, P, k);
}
