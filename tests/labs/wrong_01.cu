// Lab 01 with a classic indexing bug: N is read along a row instead of down a column
// (N[Col * Width + k] instead of N[k * Width + Col]). The harness must call it wrong and show
// the worst element.
#include "lab.h"

#define BLOCK_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    if (Row < Width && Col < Width) {
        float Pvalue = 0;
        for (int k = 0; k < Width; ++k)
            Pvalue += M[Row * Width + k] * N[Col * Width + k];
        P[Row * Width + Col] = Pvalue;
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}

void matmul_on_device(const float *hostM, const float *hostN, float *hostP, int j, int k, int l)
{
    size_t bytes = (size_t)k * k * sizeof(float);
    float *M_d, *N_d, *P_d;
    TL_CUDA_CHECK(cudaMalloc((void **)&M_d, bytes));
    TL_CUDA_CHECK(cudaMalloc((void **)&N_d, bytes));
    TL_CUDA_CHECK(cudaMalloc((void **)&P_d, bytes));
    TL_CUDA_CHECK(cudaMemcpy(M_d, hostM, bytes, cudaMemcpyHostToDevice));
    TL_CUDA_CHECK(cudaMemcpy(N_d, hostN, bytes, cudaMemcpyHostToDevice));
    launch_matmul(M_d, N_d, P_d, j, k, l);
    TL_CUDA_CHECK(cudaGetLastError());
    TL_CUDA_CHECK(cudaMemcpy(hostP, P_d, bytes, cudaMemcpyDeviceToHost));
    TL_CUDA_CHECK(cudaFree(M_d));
    TL_CUDA_CHECK(cudaFree(N_d));
    TL_CUDA_CHECK(cudaFree(P_d));
}
