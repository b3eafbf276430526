// Correct: the reduction tail of warp_reduce_race.cu made safe for independent thread
// scheduling (sm_70 and later), as the CUDA C++ Programming Guide shows it: each step reads
// into a register, __syncwarp(), writes, __syncwarp(), so no lane reads a word before the lane
// that writes it has written it, nor overwrites one another lane has still to read.
// Expected: no errors.
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
        float v = part[tid] + part[tid + 32];
        for (int step = 16; step > 0; step /= 2) {
            __syncwarp();
            part[tid] = v;
            __syncwarp();
            v += part[tid + step];
        }
        if (tid == 0)
            P[Row * Width + Col] = v;
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    MatrixMulKernel<<<Width * Width, THREADS>>>(M, N, P, Width);
}
