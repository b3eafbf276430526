// Example submission (judy): calls cuBLAS instead of her own kernel. Her tiled kernel is still in
// the file, unused; launch_matmul calls cublasSgemm with the usual row-major trick (ask for
// P^T = N^T * M^T in column-major terms, i.e. swap the operands).
// Expected: the static check for forbidden libraries fails (cuBLAS). Student programs are not
// linked with cuBLAS, so the build fails at link time (undefined cublasCreate_v2 and
// cublasSgemm_v2): no compile, dataset or performance points.
#include "lab.h"

#include <cublas_v2.h>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();
        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Mds[ty][i] * Nds[i][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    static cublasHandle_t handle = NULL;
    if (!handle)
        cublasCreate(&handle);

    const float alpha = 1.0f, beta = 0.0f;
    // cuBLAS is column-major: a row-major j x l P is a column-major l x j P^T = N^T * M^T,
    // and a row-major N (k x l) / M (j x k) are column-major N^T (l x k) / M^T (k x j).
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, l, j, k, &alpha, N, l, M, k, &beta, P, l);
}
