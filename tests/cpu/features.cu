// CUDA features beyond the labs that ordinary student code uses, run on the CPU backend:
// printf, dynamic shared memory (extern __shared__), atomicAdd, and a clear error for an
// out-of-bounds shared access. The test checks this program's output.
#include <cstdio>
#include <cuda_runtime.h>

extern __shared__ float dynamic_tile[];

__global__ void features(float *out, int n)
{
    dynamic_tile[threadIdx.x] = threadIdx.x * 2.0f;
    __syncthreads();
    if (threadIdx.x < 2)
        printf("thread %d of %d: %.1f %s %ld\n", threadIdx.x, n, dynamic_tile[threadIdx.x], "ok",
               (long)-5);
    out[threadIdx.x + 1] = dynamic_tile[blockDim.x - 1 - threadIdx.x];
    atomicAdd(&out[0], 1.0f);
}

int main()
{
    float *d = nullptr, h[65];
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0, sizeof(float));
    features<<<1, 64, 64 * sizeof(float)>>>(d, 64);
    cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("copy: %s; atomic sum %g; reversed %g %g\n", cudaGetErrorName(e), h[0], h[1], h[64]);
    // Too little dynamic shared memory for 64 threads: the CPU backend stops the kernel.
    features<<<1, 64, 16>>>(d, 64);
    printf("small tile: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaFree(d);
    return 0;
}
