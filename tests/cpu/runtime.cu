// Runtime calls beyond the labs': streams, pinned host memory, the 48 KiB limit on dynamic
// shared memory and cudaFuncSetAttribute, and the device's description. The CPU backend must
// print what an H100 prints (the device's name aside).
#include <cstdio>
#include <cuda_runtime.h>

#define THREADS 256

// Stages the input through dynamic shared memory of `words` floats (at least THREADS).
__global__ void staged(const float *in, float *out, int words)
{
    extern __shared__ float buf[];
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        buf[i] = 0.0f;
    __syncthreads();
    buf[threadIdx.x] = in[threadIdx.x] * 2.0f;
    __syncthreads();
    out[threadIdx.x] = buf[THREADS - 1 - threadIdx.x] + buf[words - 1];
}

static float sum(const float *v)
{
    float s = 0;
    for (int i = 0; i < THREADS; i++)
        s += v[i];
    return s;
}

int main()
{
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("device: %d.%d, %d SMs, warp %d, shared %zu/%zu per block, L2 %d MiB\n", p.major,
           p.minor, p.multiProcessorCount, p.warpSize, p.sharedMemPerBlock,
           p.sharedMemPerBlockOptin, p.l2CacheSize >> 20);

    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    cudaMallocHost(&h_in, THREADS * sizeof(float));
    cudaHostAlloc(&h_out, THREADS * sizeof(float), cudaHostAllocDefault);
    for (int i = 0; i < THREADS; i++)
        h_in[i] = (float)i;
    cudaMalloc(&d_in, THREADS * sizeof(float));
    cudaMalloc(&d_out, THREADS * sizeof(float));

    cudaStream_t s1, s2;
    cudaStreamCreate(&s1);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaMemcpyAsync(d_in, h_in, THREADS * sizeof(float), cudaMemcpyHostToDevice, s1);
    staged<<<1, THREADS, THREADS * sizeof(float), s1>>>(d_in, d_out, THREADS);
    cudaMemcpyAsync(h_out, d_out, THREADS * sizeof(float), cudaMemcpyDeviceToHost, s1);
    cudaError_t e = cudaStreamSynchronize(s1);
    printf("stream: %s, sum %.1f, query %s\n", cudaGetErrorName(e), sum(h_out),
           cudaGetErrorName(cudaStreamQuery(s2)));

    const int big = 64 * 1024 / sizeof(float);
    staged<<<1, THREADS, big * sizeof(float), s2>>>(d_in, d_out, big);
    printf("64 KiB without the attribute: %s\n", cudaGetErrorName(cudaGetLastError()));
    e = cudaFuncSetAttribute(staged, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)(big * sizeof(float)));
    staged<<<1, THREADS, big * sizeof(float), s2>>>(d_in, d_out, big);
    cudaError_t launched = cudaGetLastError();
    cudaMemcpyAsync(h_out, d_out, THREADS * sizeof(float), cudaMemcpyDeviceToHost, s2);
    cudaStreamSynchronize(s2);
    printf("64 KiB with it: set %s, launch %s, sum %.1f\n", cudaGetErrorName(e),
           cudaGetErrorName(launched), sum(h_out));
    printf("300000 bytes: %s\n",
           cudaGetErrorName(cudaFuncSetAttribute(
               staged, cudaFuncAttributeMaxDynamicSharedMemorySize, 300000)));
    cudaGetLastError();
    cudaFuncAttributes fa;
    cudaFuncGetAttributes(&fa, staged);
    printf("attributes: static %zu, max dynamic %d\n", fa.sharedSizeBytes,
           fa.maxDynamicSharedSizeBytes);

    printf("destroy: %s %s\n", cudaGetErrorName(cudaStreamDestroy(s1)),
           cudaGetErrorName(cudaStreamDestroy(s2)));
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
