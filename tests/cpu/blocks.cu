// Blocks of one launch that wait for each other: a "last block done" reduction, a flag one
// block sets and another spins on (in both orders of block ids), a lock, and a barrier of the
// whole grid made of atomics. On a GPU they finish because the blocks are resident together;
// the CPU backend must finish them too, however many host threads it has, and print what an
// H100 prints.
//   blocks            the kernels above
//   blocks deadlock   then blocks that wait for a flag nobody sets: a GPU hangs, the CPU
//                     backend reports it (not for a GPU)
//   blocks overfull   a grid barrier over more blocks than an H100 holds at once: the same
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define REDUCE_BLOCKS 16
#define REDUCE_THREADS 128
#define GRID_BLOCKS 8
#define GRID_THREADS 64
#define GRID_ROUNDS 3
#define HANDOFF_THREADS 96

__device__ unsigned retired; // blocks of the reduction that are done

// Each block sums its part; the last block to finish (its atomicInc returns gridDim.x - 1)
// adds the blocks' sums, which __threadfence() made visible before the count went up.
__global__ void last_block_sum(const int *in, int *partial, int *total)
{
    __shared__ int sum[REDUCE_THREADS];
    __shared__ bool last;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sum[threadIdx.x] = in[i];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            sum[threadIdx.x] += sum[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = sum[0];
        __threadfence();
        last = atomicInc(&retired, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int t = 0;
        for (int b = 0; b < gridDim.x; b++)
            t += ((volatile int *)partial)[b];
        *total = t;
        retired = 0;
    }
}

// Two blocks: `waiter` spins (every thread of it, sleeping longer each time up to a limit)
// until the other block has written data and then the flag; it then copies the data, reversed.
__global__ void handoff(int *flag, int *data, int *out, int waiter)
{
    if (blockIdx.x != waiter) {
        data[threadIdx.x] = 1000 * (1 - waiter) + threadIdx.x;
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0)
            atomicExch(flag, 1);
        return;
    }
    unsigned ns = 8;
    while (*(volatile int *)flag == 0) {
        __nanosleep(ns);
        if (ns < 1024)
            ns *= 2;
    }
    out[threadIdx.x] = ((volatile int *)data)[blockDim.x - 1 - threadIdx.x];
}

// Every block's thread 0 takes a lock with atomicCAS (a failing one writes nothing), bumps a
// plain counter inside, and lets the lock go.
__global__ void locked_count(int *lock, int *count)
{
    if (threadIdx.x != 0)
        return;
    while (atomicCAS(lock, 0, 1) != 0)
        ;
    __threadfence();
    *(volatile int *)count = *(volatile int *)count + 1;
    __threadfence();
    atomicExch(lock, 0);
}

// A barrier of the whole grid: thread 0 counts its block in and spins until every block of
// this round has; the block's other threads wait at __syncthreads().
__device__ void grid_sync(unsigned *arrived, unsigned round)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(arrived, 1);
        while (*(volatile unsigned *)arrived < round * gridDim.x)
            ;
    }
    __syncthreads();
}

// Rounds of a ring: each block takes its left neighbour's values of the last round, which
// only the grid barrier makes safe to read.
__global__ void ring(int *buf, unsigned *arrived)
{
    int n = blockDim.x * gridDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[i] = i;
    for (int r = 0; r < GRID_ROUNDS; r++) {
        grid_sync(arrived, 2 * r + 1);
        int left = (i - (int)blockDim.x + n) % n;
        int v = ((volatile int *)buf)[left] * 2 + r;
        grid_sync(arrived, 2 * r + 2);
        buf[i] = v;
    }
}

// Every block waits for a flag of its own that no block sets.
__global__ void wait_forever(int *flags)
{
    while (((volatile int *)flags)[blockIdx.x] == 0)
        ;
}

static int *device_ints(const int *host, int n)
{
    int *d = nullptr;
    cudaMalloc(&d, n * sizeof(int));
    if (host)
        cudaMemcpy(d, host, n * sizeof(int), cudaMemcpyHostToDevice);
    else
        cudaMemset(d, 0, n * sizeof(int));
    return d;
}

static void reduce()
{
    const int n = REDUCE_BLOCKS * REDUCE_THREADS;
    static int h[n];
    long want = 0;
    for (int i = 0; i < n; i++) {
        h[i] = i % 97 - 40;
        want += h[i];
    }
    int *in = device_ints(h, n), *partial = device_ints(nullptr, REDUCE_BLOCKS);
    int *total = device_ints(nullptr, 1);
    int got[2];
    for (int rep = 0; rep < 2; rep++) {
        last_block_sum<<<REDUCE_BLOCKS, REDUCE_THREADS>>>(in, partial, total);
        cudaMemcpy(&got[rep], total, sizeof(int), cudaMemcpyDeviceToHost);
    }
    printf("last block done: sum %d and %d (expected %ld), %s\n", got[0], got[1], want,
           cudaGetErrorName(cudaGetLastError()));
    cudaFree(in);
    cudaFree(partial);
    cudaFree(total);
}

static void hand_off(int waiter)
{
    int *flag = device_ints(nullptr, 1), *data = device_ints(nullptr, HANDOFF_THREADS);
    int *out = device_ints(nullptr, HANDOFF_THREADS);
    handoff<<<2, HANDOFF_THREADS>>>(flag, data, out, waiter);
    static int h[HANDOFF_THREADS];
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    printf("block %d waits for block %d: out[0] %d, out[%d] %d, %s\n", waiter, 1 - waiter, h[0],
           HANDOFF_THREADS - 1, h[HANDOFF_THREADS - 1], cudaGetErrorName(cudaGetLastError()));
    cudaFree(flag);
    cudaFree(data);
    cudaFree(out);
}

static void lock()
{
    int *lk = device_ints(nullptr, 1), *count = device_ints(nullptr, 1);
    locked_count<<<GRID_BLOCKS, 32>>>(lk, count);
    int h = 0;
    cudaMemcpy(&h, count, sizeof h, cudaMemcpyDeviceToHost);
    printf("lock: count %d of %d blocks, %s\n", h, GRID_BLOCKS,
           cudaGetErrorName(cudaGetLastError()));
    cudaFree(lk);
    cudaFree(count);
}

static void grid_barrier()
{
    const int n = GRID_BLOCKS * GRID_THREADS;
    int *buf = device_ints(nullptr, n);
    unsigned *arrived = (unsigned *)device_ints(nullptr, 1);
    ring<<<GRID_BLOCKS, GRID_THREADS>>>(buf, arrived);
    static int h[n];
    cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost);
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += h[i];
    printf("grid barrier of %d blocks: buf[0] %d, buf[%d] %d, sum %ld, %s\n", GRID_BLOCKS, h[0],
           n - 1, h[n - 1], sum, cudaGetErrorName(cudaGetLastError()));
    cudaFree(buf);
    cudaFree(arrived);
}

int main(int argc, char **argv)
{
    reduce();
    hand_off(1);
    hand_off(0);
    lock();
    grid_barrier();
    if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
        int *flags = device_ints(nullptr, 4);
        wait_forever<<<4, 64>>>(flags);
        printf("deadlock: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    }
    if (argc > 1 && strcmp(argv[1], "overfull") == 0) {
        // An H100 holds 2 blocks of 1024 threads per SM, 264 in all: the 300th never starts.
        const int blocks = 300;
        int *buf = device_ints(nullptr, blocks * 1024);
        unsigned *arrived = (unsigned *)device_ints(nullptr, 1);
        ring<<<blocks, 1024>>>(buf, arrived);
        printf("overfull: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    }
    return 0;
}
