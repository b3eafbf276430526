// Device functions the compiler keeps as calls (__noinline__): recursion, a local array per
// call, a struct returned by value, a function with no result, and assert() — which must print
// CUDA's message for each failing thread and fail the launch with cudaErrorAssert.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

struct Pair {
    float a, b;
};

__device__ __noinline__ long long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

// Each level keeps its own local array: a recursive call must not overwrite its caller's.
__device__ __noinline__ int unwind(int n, int *trail)
{
    int local[3] = {n, 2 * n, 3 * n};
    trail[n] = local[n % 3];
    int below = n == 0 ? 0 : unwind(n - 1, trail);
    return below + local[0] - n + 1;
}

__device__ __noinline__ Pair make_pair(float x) { return Pair{x, 2 * x}; }

__device__ __noinline__ void bump(int *p) { *p += 1; }

__global__ void calls(long long *out, int *trail)
{
    int i = threadIdx.x;
    out[i] = fib(i % 12);
    out[32 + i] = unwind(i % 7, trail + 8 * i);
    Pair p = make_pair((float)i);
    int extra = (int)p.b;
    bump(&extra);
    out[64 + i] = extra;
}

__global__ void checked(int limit) { assert(threadIdx.x < limit); }

int main()
{
    long long *out = nullptr;
    int *trail = nullptr;
    cudaMalloc(&out, 96 * sizeof(long long));
    cudaMalloc(&trail, 32 * 8 * sizeof(int));
    cudaMemset(trail, 0, 32 * 8 * sizeof(int));
    calls<<<1, 32>>>(out, trail);
    long long h[96];
    int t[32 * 8];
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(t, trail, sizeof t, cudaMemcpyDeviceToHost);
    printf("fib:");
    for (int i = 0; i < 12; i++)
        printf(" %lld", h[i]);
    printf("\nunwind:");
    for (int i = 32; i < 39; i++)
        printf(" %lld", h[i]);
    printf("\ntrail of thread 6:");
    for (int i = 0; i < 7; i++)
        printf(" %d", t[6 * 8 + i]);
    printf("\npair and bump: %lld %lld\n", h[64 + 3], h[64 + 31]);
    fflush(stdout);
    checked<<<1, 8>>>(6);
    cudaError_t e = cudaDeviceSynchronize();
    printf("assert: %s\n", cudaGetErrorName(e));
    return 0;
}
