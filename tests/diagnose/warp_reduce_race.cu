// Broken on purpose: the pre-Volta "warp-synchronous" reduction tail. The last warp adds up
// the block's 64 partial sums through shared memory with no __syncwarp() between its steps,
// trusting its lanes to run in lockstep (volatile only keeps the values out of registers).
// Since sm_70 the lanes of a warp are scheduled independently: each step may read a word
// another lane has not written yet. Right on every run here, a race all the same.
// Expected: a shared-memory race between lanes of warp 0, naming two steps of the tail.
#include "lab.h"

#define THREADS 64 // one block per element of P: each thread adds up every 64th product

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float part[THREADS];
    int tid = threadIdx.x;
    int Row = blockIdx.x / Width, Col = blockIdx.x % Width;
    float sum = 0;
    for (int k = tid; k < Width; k += THREADS)
        sum += M[Row * Width + k] * N[k * Width + Col];
    part[tid] = sum;
    __syncthreads();
    if (tid < 32) {
        volatile float *v = part;
        v[tid] += v[tid + 32]; // BUG: lane tid + 16 writes v[tid + 16] here...
        v[tid] += v[tid + 16]; // BUG2: ...which lane tid reads next, with nothing between
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0)
        P[Row * Width + Col] = part[0];
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    MatrixMulKernel<<<Width * Width, THREADS>>>(M, N, P, Width);
}
