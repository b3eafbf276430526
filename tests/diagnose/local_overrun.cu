// Broken on purpose: a per-thread array of 4 is indexed up to 4.
// Expected: a local array overrun.
#include "lab.h"

#define BLOCK_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    // Which element of P this thread owns: blocks tile P, threads tile a block.
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;

    // The grid is rounded up to whole blocks, so some threads fall outside P.
    if (Row < Width && Col < Width) {
        float partial[4] = {0, 0, 0, 0};
        for (int k = 0; k < Width; ++k)
            partial[(k + threadIdx.x) % 5] += M[Row * Width + k] * N[k * Width + Col]; // BUG: index 4 of 4
        P[Row * Width + Col] = partial[0] + partial[1] + partial[2] + partial[3];
    }
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    dim3 dimBlock(BLOCK_WIDTH, BLOCK_WIDTH);
    dim3 dimGrid((Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH, (Width + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}

void matmul_on_device(const float *hostM, const float *hostN, float *hostP, int j, int k, int l)
{
    int Width = k;
    size_t bytes = (size_t)Width * Width * sizeof(float);
    float *M_d, *N_d, *P_d;

    // 1. Device memory for M, N and P.
    TL_CUDA_CHECK(cudaMalloc((void **)&M_d, bytes));
    TL_CUDA_CHECK(cudaMalloc((void **)&N_d, bytes));
    TL_CUDA_CHECK(cudaMalloc((void **)&P_d, bytes));

    // 2. The inputs, host to device.
    TL_CUDA_CHECK(cudaMemcpy(M_d, hostM, bytes, cudaMemcpyHostToDevice));
    TL_CUDA_CHECK(cudaMemcpy(N_d, hostN, bytes, cudaMemcpyHostToDevice));

    // 3. The kernel. A bad launch configuration shows up in cudaGetLastError.
    launch_matmul(M_d, N_d, P_d, j, k, l);
    TL_CUDA_CHECK(cudaGetLastError());

    // 4. The result, device to host (cudaMemcpy waits for the kernel to finish).
    TL_CUDA_CHECK(cudaMemcpy(hostP, P_d, bytes, cudaMemcpyDeviceToHost));

    // 5. Give the device memory back.
    TL_CUDA_CHECK(cudaFree(M_d));
    TL_CUDA_CHECK(cudaFree(N_d));
    TL_CUDA_CHECK(cudaFree(P_d));
}
