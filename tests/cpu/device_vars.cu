// Module variables on the CPU backend: a __device__ counter kernels add to, a __constant__ table
// the host fills with cudaMemcpyToSymbol, an initialised __device__ array, and the symbol API.
// The test checks this program's output.
#include <cstdio>
#include <cuda_runtime.h>

__device__ int counter;
__constant__ float scale[4];
__device__ int primes[4] = {2, 3, 5, 7};

__global__ void use(float *out)
{
    atomicAdd(&counter, 1);
    out[threadIdx.x] = scale[threadIdx.x % 4] * primes[threadIdx.x % 4];
}

int main()
{
    float table[4] = {1.0f, 10.0f, 100.0f, 1000.0f}, h[8];
    float *d = nullptr;
    cudaMalloc(&d, sizeof h);
    cudaError_t e = cudaMemcpyToSymbol(scale, table, sizeof table);
    use<<<2, 8>>>(d);
    int count = -1;
    cudaError_t f = cudaMemcpyFromSymbol(&count, counter, sizeof count);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int *where = nullptr;
    size_t size = 0;
    cudaGetSymbolAddress((void **)&where, primes);
    cudaGetSymbolSize(&size, primes);
    printf("to symbol: %s; from symbol: %s; counter %d\n", cudaGetErrorName(e), cudaGetErrorName(f),
           count);
    printf("out: %g %g %g %g %g\n", h[0], h[1], h[2], h[3], h[4]);
    printf("primes: %zu bytes at %s\n", size, where ? "an address" : "nowhere");
    return 0;
}
