// Microbenchmarks of the performance model's cost classes (docs/perfmodel.md, "What each
// instruction costs"): each kernel is lab 02's tiled product with one costly operation per
// multiply-add, next to the plain references, all at 2048^3.
//
// On a GPU it times each kernel as the harness does: a warm-up, then REPS runs, each after a
// write of twice the L2's size, timed with CUDA events; it checks each kernel's P against the
// reference's, and prints a TSV: kernel, median ms, min, max, runs. Built for the CPU backend
// (-cudart none, linked with libtilelab_cpurt.a and libtilelab_ptx.a, the kit's runtime stand-in)
// and run with --once under TILELAB_DIAGNOSE, it launches each kernel once so that `./tilelab
// predict` gives the model's time for each, in the same order. tools/perfmodel-costs.sh does both and joins them.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I harness perfmodel/calibration/cost_classes.cu -o cc
//   ./cc [--size N] [--reps R] [--list] [--once] [--only NAME,NAME...]
//
// The lab 02 files it times are the adversarial class's cost_* submissions and lab 02's
// reference, each included in a namespace of its own (their lab.h is not needed: its guard is
// set first); the classes that are no attack of their own are one kernel template below, the
// operation a functor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define TILELAB_LAB_H
namespace reference {
#include "../../solutions/02-tiled/solution.cu"
}
#define FILE_OF(name) STR(../../tests/adversarial/02-tiled/name/template.cu)
#define STR(x) #x
namespace cost_naive {
#include FILE_OF(cost_naive)
}
namespace cost_store_every_trip {
#include FILE_OF(cost_store_every_trip)
}
namespace cost_atomic_same_address {
#include FILE_OF(cost_atomic_same_address)
}
namespace cost_threadfence_system {
#include FILE_OF(cost_threadfence_system)
}
namespace cost_nanosleep {
#include FILE_OF(cost_nanosleep)
}
namespace cost_local_array {
#include FILE_OF(cost_local_array)
}
namespace cost_double_divide {
#include FILE_OF(cost_double_divide)
}

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(3);                                                                             \
        }                                                                                        \
    } while (0)

// ---- the other classes: lab 02's tiled loop, the operation after every multiply-add ---------
// An operation keeps what it computes in `s` (a float) or `q` (64 bits), written to scratch at
// the end so that the compiler keeps it; P stays the product.
#define TILE 16
struct state {
    float s;
    unsigned long long q;
    double d;
    float *scratch;
    int tid, phase;
    float part[16]; /* registers, unless an operation indexes it at run time */
};

template <class Op> __global__ void tiled_op(const float *M, const float *N, float *P, int W, float *scratch)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    __shared__ float shared_sink[TILE * TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    int tid = threadIdx.y * TILE + threadIdx.x;
    shared_sink[tid] = 0;
    state st = {1.0f, 1, 1.0 + (W < 0), scratch, r * W + c, 0, {}}; /* d: 1, not to the compiler */
    float acc = 0;
    for (int p = 0; p < W / TILE; p++) {
        st.phase = p;
        a[threadIdx.y][threadIdx.x] = M[r * W + p * TILE + threadIdx.x];
        b[threadIdx.y][threadIdx.x] = N[(p * TILE + threadIdx.y) * W + c];
        __syncthreads();
        for (int e = 0; e < TILE; e++) {
            float prod = a[threadIdx.y][e] * b[e][threadIdx.x];
            acc += prod;
            Op::step(st, prod, e, shared_sink);
        }
        __syncthreads();
    }
    P[r * W + c] = acc;
    float parts = 0;
    for (int i = 0; i < 16; i++)
        parts += st.part[i];
    scratch[st.tid] += st.s + (float)st.q + (float)st.d + shared_sink[tid] + parts;
}

struct fence_gpu {
    static __device__ void step(state &, float, int, float *) { __threadfence(); }
};
struct fence_cta {
    static __device__ void step(state &, float, int, float *) { __threadfence_block(); }
};
template <unsigned NS> struct sleep_ns {
    static __device__ void step(state &, float, int, float *) { __nanosleep(NS); }
};
struct div_f32 { // div.rn.f32, a dependent chain kept in the normal range (no slow path)
    static __device__ void step(state &st, float prod, int, float *) { st.s = st.s / (fabsf(prod) + 1.5f) + 1.0f; }
};
struct div_approx_f32 { // div.approx.f32 (__fdividef)
    static __device__ void step(state &st, float prod, int, float *) { st.s = __fdividef(st.s, fabsf(prod) + 1.5f); }
};
struct sqrt_f32 { // sqrt.rn.f32
    static __device__ void step(state &st, float prod, int, float *) { st.s += sqrtf(fabsf(prod)); }
};
struct sin_f32 { // sinf: range reduction and a polynomial, already expanded in the PTX
    static __device__ void step(state &st, float prod, int, float *) { st.s += sinf(prod); }
};
struct sin_approx_f32 { // __sinf: sin.approx.f32
    static __device__ void step(state &st, float prod, int, float *) { st.s += __sinf(prod); }
};
struct add_f64 { // cvt.f64.f32 and an fp64 add
    static __device__ void step(state &st, float prod, int, float *) { st.d += prod; }
};
struct cvt_f64 { // a round trip through double: two conversions and an fp64 multiply
    static __device__ void step(state &st, float prod, int, float *) { st.s += (float)((double)prod * st.d); }
};
struct div_u64 { // div.u64 by a value the compiler cannot see
    static __device__ void step(state &st, float prod, int e, float *)
    {
        st.q += ((unsigned long long)__float_as_uint(prod) << 24) / (unsigned long long)(e + 7 + st.tid);
    }
};
struct div_u32 { // div.u32 by a value the compiler cannot see
    static __device__ void step(state &st, float prod, int e, float *)
    {
        st.q += __float_as_uint(prod) / (unsigned)(e + 7 + st.tid);
    }
};
struct mul_u64 { // mul.lo.u64
    static __device__ void step(state &st, float prod, int, float *) { st.q = st.q * (__float_as_uint(prod) | 1ull); }
};
struct atomic_shared_same { // every lane of the block adds into one shared word
    static __device__ void step(state &, float prod, int, float *sink) { atomicAdd(&sink[0], prod); }
};
struct atomic_shared_distinct { // each thread its own shared word: no conflict
    static __device__ void step(state &, float prod, int, float *sink)
    {
        atomicAdd(&sink[threadIdx.y * TILE + threadIdx.x], prod);
    }
};
struct atomic_global_distinct { // each thread its own global word, a warp's words coalesced
    static __device__ void step(state &st, float prod, int, float *) { atomicAdd(&st.scratch[st.tid], prod); }
};
struct local_uniform { // a local array at an index the whole warp shares: one line a request
    static __device__ void step(state &st, float prod, int e, float *) { st.part[(st.phase + e) & 15] += prod; }
};
struct clock_spin { // waits 200 cycles by the SM's clock (a machine query: unsafe when graded)
    static __device__ void step(state &st, float, int e, float *)
    {
        if (e == 0) {
            long long t0 = clock64();
            while (clock64() - t0 < 200)
                st.q++;
        }
    }
};

// A student's pattern: the untiled kernel storing its running sum into P every trip.
__global__ void naive_store_each(const float *M, const float *N, float *P, int W)
{
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float s = 0;
    for (int e = 0; e < W; e++) {
        s += M[r * W + e] * N[e * W + c];
        P[r * W + c] = s;
    }
}

static void launch_naive_store(const float *M, const float *N, float *P, int, int k, int)
{
    naive_store_each<<<dim3(k / TILE, k / TILE), dim3(TILE, TILE)>>>(M, N, P, k);
}

template <class Op> static void launch_op(const float *M, const float *N, float *P, int, int k, int, float *scratch)
{
    tiled_op<Op><<<dim3(k / TILE, k / TILE), dim3(TILE, TILE)>>>(M, N, P, k, scratch);
}

typedef void (*lab_launch)(const float *, const float *, float *, int, int, int);
typedef void (*op_launch)(const float *, const float *, float *, int, int, int, float *);

struct kernel {
    const char *name;
    lab_launch lab;  // a lab 02 file's launch_matmul, or
    op_launch op;    // one of the template's instances
    const char *what;
};

static const kernel kernels[] = {
    {"reference", reference::launch_matmul, nullptr, "lab 02's tiled reference"},
    {"cost_naive", cost_naive::launch_matmul, nullptr, "untiled (lab 01's kernel)"},
    {"cost_store_every_trip", cost_store_every_trip::launch_matmul, nullptr, "tiled, P stored every multiply-add"},
    {"naive_store_every_trip", launch_naive_store, nullptr, "untiled, P stored every multiply-add"},
    {"cost_threadfence_system", cost_threadfence_system::launch_matmul, nullptr, "__threadfence_system()"},
    {"cost_nanosleep", cost_nanosleep::launch_matmul, nullptr, "__nanosleep(100)"},
    {"cost_local_array", cost_local_array::launch_matmul, nullptr, "a local array indexed by lane"},
    {"cost_double_divide", cost_double_divide::launch_matmul, nullptr, "two dependent double divisions"},
    {"fence_gpu", nullptr, launch_op<fence_gpu>, "__threadfence()"},
    {"fence_cta", nullptr, launch_op<fence_cta>, "__threadfence_block()"},
    {"nanosleep_0", nullptr, launch_op<sleep_ns<0>>, "__nanosleep(0)"},
    {"nanosleep_1000", nullptr, launch_op<sleep_ns<1000>>, "__nanosleep(1000)"},
    {"div_f32", nullptr, launch_op<div_f32>, "div.rn.f32, dependent"},
    {"div_approx_f32", nullptr, launch_op<div_approx_f32>, "__fdividef, dependent"},
    {"sqrt_f32", nullptr, launch_op<sqrt_f32>, "sqrtf"},
    {"sin_f32", nullptr, launch_op<sin_f32>, "sinf"},
    {"sin_approx_f32", nullptr, launch_op<sin_approx_f32>, "__sinf"},
    {"add_f64", nullptr, launch_op<add_f64>, "a double accumulator"},
    {"cvt_f64", nullptr, launch_op<cvt_f64>, "float to double and back"},
    {"div_u64", nullptr, launch_op<div_u64>, "64-bit unsigned division"},
    {"div_u32", nullptr, launch_op<div_u32>, "32-bit unsigned division"},
    {"mul_u64", nullptr, launch_op<mul_u64>, "64-bit multiply, dependent"},
    {"atomic_shared_same", nullptr, launch_op<atomic_shared_same>, "shared atomicAdd, one address per block"},
    {"atomic_shared_distinct", nullptr, launch_op<atomic_shared_distinct>, "shared atomicAdd, one address per thread"},
    {"atomic_global_distinct", nullptr, launch_op<atomic_global_distinct>, "global atomicAdd, one address per thread"},
    {"local_uniform", nullptr, launch_op<local_uniform>, "a local array at a warp-uniform index"},
    {"clock_spin", nullptr, launch_op<clock_spin>, "a 200-cycle clock64() wait per tile"},
    {"cost_atomic_same_address", cost_atomic_same_address::launch_matmul, nullptr, "atomicAdd to one address (last: the slowest)"},
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

// Whether NAME is in the comma-separated list (every name when there is none).
static bool chosen(const char *list, const char *name)
{
    if (!list)
        return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return true;
        p += len + (end != nullptr);
    }
    return false;
}

static void launch(const kernel &k, const float *M, const float *N, float *P, int n, float *scratch)
{
    if (k.lab)
        k.lab(M, N, P, n, n, n);
    else
        k.op(M, N, P, n, n, n, scratch);
    CHECK(cudaGetLastError());
}

// The largest difference from the reference, against the largest |P| (a loose check: the
// kernels sum in other orders; it only tells a kernel that computes something else).
static double deviation(const std::vector<float> &got, const std::vector<float> &want)
{
    double worst = 0, scale = 1e-30;
    for (size_t i = 0; i < got.size(); i++) {
        worst = std::max(worst, (double)std::fabs(got[i] - want[i]));
        scale = std::max(scale, (double)std::fabs(want[i]));
    }
    return std::isfinite(worst) ? worst / scale : INFINITY;
}

int main(int argc, char **argv)
{
    int n = 2048, reps = 10;
    bool once = false;
    const char *only = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--once")) {
            once = true;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--list")) {
            for (const kernel &k : kernels)
                printf("%s\t%s\n", k.name, k.what);
            return 0;
        } else {
            fprintf(stderr, "usage: %s [--size N] [--reps R] [--once] [--only NAME,...] [--list]\n", argv[0]);
            return 2;
        }
    }
    if (n < TILE || n % TILE || reps < 1) {
        fprintf(stderr, "cost_classes: --size must be a multiple of %d, --reps at least 1\n", TILE);
        return 2;
    }
    size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    std::vector<float> host(elems), want(elems), got(elems);
    uint32_t seed = 12345;
    for (float &v : host) {
        seed = seed * 1664525u + 1013904223u;
        v = (float)(seed >> 8) / (float)(1u << 24) * 2 - 1;
    }
    float *M, *N, *P, *scratch;
    CHECK(cudaMalloc(&M, bytes));
    CHECK(cudaMalloc(&N, bytes));
    CHECK(cudaMalloc(&P, bytes));
    CHECK(cudaMalloc(&scratch, bytes));
    CHECK(cudaMemcpy(M, host.data(), bytes, cudaMemcpyHostToDevice));
    std::reverse(host.begin(), host.end());
    CHECK(cudaMemcpy(N, host.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(scratch, 0, bytes));
    if (once) { // the CPU backend's counts: each kernel once, in order
        for (const kernel &k : kernels)
            if (chosen(only, k.name)) {
                launch(k, M, N, P, n, scratch);
                CHECK(cudaDeviceSynchronize());
            }
        return 0;
    }
    int l2 = 0;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
    void *flush;
    CHECK(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    char device[256] = "?";
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(device, sizeof device, "%s", prop.name);
    printf("# %s, %dx%dx%d, median of %d runs after a warm-up, L2 (%d MiB) flushed before each\n",
           device, n, n, n, reps, l2 >> 20);
    printf("kernel\tms\tmin_ms\tmax_ms\truns\tdeviation\n");
    launch(kernels[0], M, N, P, n, scratch);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(want.data(), P, bytes, cudaMemcpyDeviceToHost));
    for (const kernel &k : kernels) {
        if (!chosen(only, k.name))
            continue;
        CHECK(cudaMemset(P, 0xff, bytes));
        launch(k, M, N, P, n, scratch); // the warm-up, and the run checked
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(got.data(), P, bytes, cudaMemcpyDeviceToHost));
        double dev = deviation(got, want);
        std::vector<float> ms;
        for (int r = 0; r < reps; r++) {
            CHECK(cudaMemset(flush, r & 0xff, flush_bytes));
            CHECK(cudaEventRecord(start));
            launch(k, M, N, P, n, scratch);
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, start, stop));
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        double median = reps % 2 ? ms[reps / 2] : (ms[reps / 2 - 1] + ms[reps / 2]) / 2;
        printf("%s\t%.4f\t%.4f\t%.4f\t%d\t%.1e\n", k.name, median, ms.front(), ms.back(), reps, dev);
        fflush(stdout);
    }
    return 0;
}
