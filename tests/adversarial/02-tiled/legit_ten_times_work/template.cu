// Legitimate: a correct tiled kernel that does ten times the work it needs, reading and
// multiplying every pair of elements ten times (volatile reads of the tiles, so the compiler
// keeps every one). Slow, and honest: the CPU backend's instruction limit, a backstop against
// endless loops, must not stop it, and on a GPU a CPU-side limit never decides its verdict.
// Must get: full compile and static points, every dataset pass, performance timed (low).
#include "lab.h"

#define TILE 16
#define REPEATS 10 /* how often each product is computed */

__global__ void tiled(const float *M, const float *N, float *P, int W, int repeats)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    volatile float(*va)[TILE] = a, (*vb)[TILE] = b;
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int p = 0; p < (W + TILE - 1) / TILE; p++) {
        int mc = p * TILE + threadIdx.x, nr = p * TILE + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = r < W && mc < W ? M[r * W + mc] : 0;
        b[threadIdx.y][threadIdx.x] = nr < W && c < W ? N[nr * W + c] : 0;
        __syncthreads();
        for (int e = 0; e < TILE; e++) {
            float product = 0;
            for (int i = 0; i < repeats; i++)
                product = va[threadIdx.y][e] * vb[e][threadIdx.x];
            acc += product;
        }
        __syncthreads();
    }
    if (r < W && c < W)
        P[r * W + c] = acc;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    dim3 grid((k + TILE - 1) / TILE, (k + TILE - 1) / TILE);
    tiled<<<grid, dim3(TILE, TILE)>>>(M, N, P, k, REPEATS);
}
