// Asynchronous copies and mbarrier objects: __pipeline_memcpy_async with zero fill,
// cuda::memcpy_async into a cuda::barrier (4-byte copies and 16-byte bulk copies), a
// cuda::pipeline, inline cp.async with src-size below the copy's size and with ignore-src,
// commit and wait groups, mbarrier phases, parities, pending counts and arrive_drop, and the
// reserved shared memory that cooperative groups of several warps use. Every line printed
// follows from the PTX ISA's semantics whatever order the threads run in; the CPU backend must
// print what an H100 prints.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdint>
#include <cstdio>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// A cuda::barrier in __shared__ has a constructor that never runs there; init() sets it up.
#pragma nv_diag_suppress static_var_with_dynamic_init

#define THREADS 128
#define FLOATS 2048
#define BYTES 4096
#define WORDS_PER_COPY 4 // 16 bytes

// Thread t copies in[4t .. 4t+4) with its last 4 * (t % 4) bytes zero-filled.
__global__ void primitives(const float *in, float *out)
{
    __shared__ __align__(16) float sm[THREADS * WORDS_PER_COPY];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&sm[t * 4], &in[t * 4], 16, (t % 4) * 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int r = THREADS - 1 - t; // another thread's copy
    out[t] = sm[r * 4] + sm[r * 4 + 1] + sm[r * 4 + 2] + sm[r * 4 + 3];
}

// Two phases of one cuda::barrier: a 16-byte copy (bulk, counted in bytes) and a 4-byte one
// (cp.async, an arrival) per thread per phase, read by another thread after arrive_and_wait.
__global__ void with_barrier(const float *in, float *out)
{
    __shared__ __align__(16) float a[THREADS * WORDS_PER_COPY];
    __shared__ float b[THREADS];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    float acc = 0;
    for (int phase = 0; phase < 2; phase++) {
        cuda::memcpy_async(&a[t * 4], &in[phase * 512 + t * 4], cuda::aligned_size_t<16>(16),
                           bar);
        cuda::memcpy_async(&b[t], &in[1024 + phase * THREADS + t], cuda::aligned_size_t<4>(4),
                           bar);
        bar.arrive_and_wait();
        int r = THREADS - 1 - t;
        acc += a[r * 4] + a[r * 4 + 1] + a[r * 4 + 2] + a[r * 4 + 3] + b[r];
        __syncthreads(); // everyone has read before the next phase overwrites
    }
    out[t] = acc;
}

// A two-stage cuda::pipeline of one thread: four items, each copied ahead and then used.
__global__ void with_pipeline(const float *in, float *out)
{
    __shared__ float sm[2][THREADS];
    auto pipe = cuda::make_pipeline();
    int t = threadIdx.x;
    float acc = 0;
    for (int k = 0; k < 2; k++) {
        pipe.producer_acquire();
        cuda::memcpy_async(&sm[k][t], &in[k * THREADS + t], sizeof(float), pipe);
        pipe.producer_commit();
    }
    for (int k = 0; k < 4; k++) {
        pipe.consumer_wait();
        acc += sm[k % 2][t];
        pipe.consumer_release();
        if (k + 2 < 4) {
            pipe.producer_acquire();
            cuda::memcpy_async(&sm[k % 2][t], &in[(k + 2) * THREADS + t], sizeof(float), pipe);
            pipe.producer_commit();
        }
    }
    out[t] = acc;
}

// Inline cp.async: 16 bytes with src-size t % 17 (the rest zero), then 4 bytes with ignore-src
// set for odd threads, in two groups; wait_group 1 completes the first, wait_group 0 both.
__global__ void raw(const uint8_t *src, unsigned *out)
{
    __shared__ __align__(16) uint8_t bytes[THREADS * 16];
    __shared__ unsigned words[THREADS];
    int t = threadIdx.x;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&bytes[t * 16]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n"
                 "cp.async.commit_group;" ::"r"(dst), "l"(src + t * 16), "r"(t % 17));
    unsigned wdst = (unsigned)__cvta_generic_to_shared(&words[t]);
    asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %2, 0;\n"
                 "cp.async.ca.shared.global [%0], [%1], 4, p;\n}\n"
                 "cp.async.commit_group;" ::"r"(wdst), "l"(src + 2048 + t * 4), "r"(t % 2));
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    unsigned sum = 0;
    for (int k = 0; k < 16; k++)
        sum = sum * 31u + bytes[t * 16 + k];
    asm volatile("cp.async.wait_all;" ::: "memory");
    out[t] = sum;
    out[THREADS + t] = words[t];
}

__device__ unsigned mbar_arrive(uint64_t *bar, uint64_t *state, bool drop)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(bar), pending;
    uint64_t s;
    if (drop)
        asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(s) : "r"(a) : "memory");
    else
        asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(s) : "r"(a) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(s));
    *state = s;
    return pending;
}

__device__ bool mbar_done(uint64_t *bar, unsigned parity)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(bar), done;
    asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(a), "r"(parity) : "memory");
    return done;
}

__device__ void mbar_wait(uint64_t *bar, uint64_t state)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(bar), done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.shared.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(a), "l"(state) : "memory");
}

// Phase 0: everyone arrives. Phase 1: odd threads leave for good (arrive_drop). Phase 2: the
// even threads alone complete it. out: pending counts, then parities seen after each phase.
__global__ void phases(unsigned *out)
{
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    if (t == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(
                         (unsigned)__cvta_generic_to_shared(&bar)), "r"(blockDim.x) : "memory");
    __syncthreads();
    uint64_t s;
    out[t] = mbar_arrive(&bar, &s, false);
    mbar_wait(&bar, s);
    unsigned seen = mbar_done(&bar, 0) | mbar_done(&bar, 1) << 1;
    mbar_arrive(&bar, &s, t % 2);
    if (t % 2 == 0) {
        mbar_wait(&bar, s);
        seen |= (mbar_done(&bar, 0) | mbar_done(&bar, 1) << 1) << 2;
        out[THREADS + t] = mbar_arrive(&bar, &s, false);
        mbar_wait(&bar, s);
        seen |= (mbar_done(&bar, 0) | mbar_done(&bar, 1) << 1) << 4;
    }
    out[2 * THREADS + t] = seen;
}

// Where the reserved shared memory is, against the kernel's 400 bytes of its own, and a
// reduction over tiles of 64 threads, which keeps its barriers there.
__global__ void reserved(unsigned *out)
{
    __shared__ int own[100];
    int t = threadIdx.x;
    if (t < 100)
        own[t] = t;
    cg::thread_block block = cg::this_thread_block();
    block.sync();
    auto tile = cg::tiled_partition<64>(block);
    int sum = cg::reduce(tile, t, cg::plus<int>());
    block.sync();
    out[t] = sum + (t < 100 ? own[t] - t : 0);
    if (t == 0) {
        unsigned v[5];
        asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(v[0]));
        asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(v[1]));
        asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(v[2]));
        asm volatile("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(v[3]));
        asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(v[4]));
        for (int i = 0; i < 5; i++)
            out[THREADS + i] = v[i];
    }
}

static double total(const float *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

int main()
{
    float h_in[FLOATS], h_out[THREADS];
    for (int i = 0; i < FLOATS; i++)
        h_in[i] = (float)(i + 1);
    uint8_t h_bytes[BYTES];
    for (int i = 0; i < BYTES; i++)
        h_bytes[i] = (uint8_t)(i * 7 + 3);
    float *d_in, *d_out;
    uint8_t *d_bytes;
    unsigned *d_u, h_u[3 * THREADS];
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMalloc(&d_bytes, sizeof h_bytes);
    cudaMalloc(&d_u, sizeof h_u);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    cudaMemcpy(d_bytes, h_bytes, sizeof h_bytes, cudaMemcpyHostToDevice);

    primitives<<<1, THREADS>>>(d_in, d_out);
    cudaError_t e = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("pipeline primitives: %s, sum %.0f, thread 0 %.0f, thread 1 %.0f\n",
           cudaGetErrorName(e), total(h_out, THREADS), h_out[0], h_out[1]);

    with_barrier<<<1, THREADS>>>(d_in, d_out);
    e = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("cuda::barrier: %s, sum %.0f, thread 0 %.0f\n", cudaGetErrorName(e),
           total(h_out, THREADS), h_out[0]);

    with_pipeline<<<1, THREADS>>>(d_in, d_out);
    e = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("cuda::pipeline: %s, sum %.0f, thread 5 %.0f\n", cudaGetErrorName(e),
           total(h_out, THREADS), h_out[5]);

    raw<<<1, THREADS>>>(d_bytes, d_u);
    e = cudaMemcpy(h_u, d_u, 2 * THREADS * sizeof(unsigned), cudaMemcpyDeviceToHost);
    unsigned long long zfill = 0, ignored = 0;
    for (int t = 0; t < THREADS; t++) {
        zfill += h_u[t];
        ignored += h_u[THREADS + t];
    }
    printf("cp.async: %s, src-size sum %llu, thread 16 %u, ignore-src sum %llu, thread 1 %u\n",
           cudaGetErrorName(e), zfill, h_u[16], ignored, h_u[THREADS + 1]);

    phases<<<1, THREADS>>>(d_u);
    e = cudaMemcpy(h_u, d_u, sizeof h_u, cudaMemcpyDeviceToHost);
    unsigned long long pending0 = 0, pending2 = 0;
    unsigned even_seen = h_u[2 * THREADS], odd_seen = h_u[2 * THREADS + 1];
    bool same = true;
    for (int t = 0; t < THREADS; t++) {
        pending0 += h_u[t];
        if (t % 2 == 0)
            pending2 += h_u[THREADS + t];
        same &= h_u[2 * THREADS + t] == (t % 2 ? odd_seen : even_seen);
    }
    printf("mbarrier: %s, pending counts %llu then %llu, parities seen %#x (even), %#x (odd), "
           "%s\n", cudaGetErrorName(e), pending0, pending2, even_seen, odd_seen,
           same ? "alike" : "differ");

    reserved<<<1, THREADS>>>(d_u);
    e = cudaMemcpy(h_u, d_u, (THREADS + 5) * sizeof(unsigned), cudaMemcpyDeviceToHost);
    printf("tiles of 64: %s, sums %u %u\n", cudaGetErrorName(e), h_u[0], h_u[64]);
    unsigned *r = h_u + THREADS;
    printf("reserved shared memory: begin %u, end +%u, cap +%u, offsets +%u +%u\n", r[0],
           r[1] - r[0], r[2] - r[0], r[3] - r[0], r[4] - r[0]);
    return 0;
}
