// Lab 02 with the classic slips of a first tiled kernel, for the test that each compiler error
// shows the line as written here (TILE_WIDTH, not 16), a caret under the place nvcc means and a
// hint: slips_02.expected holds the lines expected.
#include "lab.h"

#define TILE_WIDTH 16
#define SYNC __syncthread()

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float tileA[TILE_WIDTH][TILE_WIDTH], tileB[TILE_WIDTH][TILE_WIDTH];
    int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
    int col = blockIdx * TILE_WIDTH + threadIdx.x;
    float acc = 0;
    for (int t = 0; t * TILE_WIDTH < Width; t++) {
        tileA[threadIdx.y][threadIdx.x] = M[row * Width + t * TILE_WIDTH + threadIdx.x];
        tileB[threadIdx.y][threadIdx.x] = N[(t * TILE_WIDTH + threadIdx.y) * Width + col];
        __synchthreads();
        for (int i = 0; i < TILE_WIDTH; i++)
            acc += tileA[threadIdx.y][i] * tileB[i][threadIdx.x];
        SYNC;
    }
    P[row * Width + col] = acc * TILE_WIDTH / blockdim.x;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    dim3 block(TILE_WIDTH, TILE_WIDTH), grid(k / TILE_WIDTH, k / TILE_WIDTH);
    MatrixMulKernel(M, N, P, k);
}
