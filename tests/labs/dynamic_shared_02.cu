// Lab 02 with the tile size chosen at run time: both tiles live in one dynamic shared buffer,
// sized by the launch's third argument. The handout's "dynamic shared memory" section shows
// this file; the test suite runs it on every lab 02 dataset, so the example stays correct.
#include "lab.h"

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    extern __shared__ float tiles[];  // 2 * tile * tile floats: the size comes from the launch
    int tile = blockDim.x;            // the block is tile x tile threads
    float *Mds = tiles;               // the first tile * tile floats
    float *Nds = tiles + tile * tile; // the next tile * tile floats

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * tile + ty;
    int Col = blockIdx.x * tile + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < Width / tile; ++ph) {
        Mds[ty * tile + tx] = M[Row * Width + ph * tile + tx];   // Mds[ty][tx]
        Nds[ty * tile + tx] = N[(ph * tile + ty) * Width + Col]; // Nds[ty][tx]
        __syncthreads();
        for (int i = 0; i < tile; ++i)
            Pvalue += Mds[ty * tile + i] * Nds[i * tile + tx];   // Mds[ty][i] * Nds[i][tx]
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    // Small matrices get more, smaller blocks, so that more SMs have work. Both tiles divide
    // every size of lab 02 (multiples of 32).
    int tile = Width >= 128 ? 32 : 16;
    size_t bytes = 2 * (size_t)tile * tile * sizeof(float); // Mds and Nds
    dim3 dimBlock(tile, tile);
    dim3 dimGrid(Width / tile, Width / tile);
    MatrixMulKernel<<<dimGrid, dimBlock, bytes>>>(M, N, P, Width);
}
