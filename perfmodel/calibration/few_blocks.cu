// The busy limits' check on an H100 (docs/perfmodel.md, "What is counted"): a course's
// thread-per-row and thread-per-column products (8 blocks of 256 threads at 2048^3, each thread
// a whole row or column of P) timed against lab 04's reference. On the CPU backend the model
// stops counting them once one block provably keeps its SM busy past the time at which they earn
// no speed points (12.9 ms against a predicted reference of 2.328 ms: grader_no_points_ms with
// lab 04's performance_zero of 0.2) and predicts them "slower than" it. Both must measure slower
// than that time here, and at or below 0.2x the reference's speed (no points on a GPU either).
//
//   nvcc -O3 -arch=sm_90 -I harness perfmodel/calibration/few_blocks.cu -o few_blocks && ./few_blocks
//
// It prints a TSV: kernel, blocks, threads per block, median ms, min, max, speed against the
// reference, and whether P matched the reference's. Each kernel: a warm-up, then REPS runs timed
// with CUDA events.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define TILELAB_LAB_H
namespace reference {
#include "../../solutions/04-rectangular/solution.cu"
}

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

enum { SIZE = 2048, REPS = 5, THREADS = 256 };

__global__ void per_row(const float *M, const float *N, float *P, int j, int k, int l)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < j)
        for (int col = 0; col < l; ++col) {
            float sum = 0;
            for (int i = 0; i < k; ++i)
                sum += M[row * k + i] * N[i * l + col];
            P[row * l + col] = sum;
        }
}

__global__ void per_column(const float *M, const float *N, float *P, int j, int k, int l)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col < l)
        for (int row = 0; row < j; ++row) {
            float sum = 0;
            for (int i = 0; i < k; ++i)
                sum += M[row * k + i] * N[i * l + col];
            P[row * l + col] = sum;
        }
}

static void launch_rows(const float *M, const float *N, float *P, int j, int k, int l)
{
    per_row<<<(j + THREADS - 1) / THREADS, THREADS>>>(M, N, P, j, k, l);
}

static void launch_columns(const float *M, const float *N, float *P, int j, int k, int l)
{
    per_column<<<(l + THREADS - 1) / THREADS, THREADS>>>(M, N, P, j, k, l);
}

typedef void (*launcher)(const float *, const float *, float *, int, int, int);

static float median_of(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main()
{
    const size_t n = (size_t)SIZE * SIZE;
    std::vector<float> hM(n), hN(n), ref(n), got(n);
    srand(1);
    for (size_t i = 0; i < n; i++) {
        hM[i] = (float)rand() / RAND_MAX - 0.5f;
        hN[i] = (float)rand() / RAND_MAX - 0.5f;
    }
    float *M, *N, *P;
    CHECK(cudaMalloc(&M, n * sizeof(float)));
    CHECK(cudaMalloc(&N, n * sizeof(float)));
    CHECK(cudaMalloc(&P, n * sizeof(float)));
    CHECK(cudaMemcpy(M, hM.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(N, hN.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    struct {
        const char *name;
        launcher launch;
        int blocks, threads;
    } kernels[] = {
        {"reference (lab 04)", reference::launch_matmul, (SIZE / 16) * (SIZE / 16), 256},
        {"thread per row", launch_rows, SIZE / THREADS, THREADS},
        {"thread per column", launch_columns, SIZE / THREADS, THREADS},
    };
    printf("kernel\tblocks\tthreads\tmedian_ms\tmin_ms\tmax_ms\tspeed_vs_reference\tmatches\n");
    float reference_ms = 0;
    for (const auto &kn : kernels) {
        kn.launch(M, N, P, SIZE, SIZE, SIZE);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms;
        for (int r = 0; r < REPS; r++) {
            CHECK(cudaEventRecord(start));
            kn.launch(M, N, P, SIZE, SIZE, SIZE);
            CHECK(cudaEventRecord(stop));
            CHECK(cudaEventSynchronize(stop));
            float t;
            CHECK(cudaEventElapsedTime(&t, start, stop));
            ms.push_back(t);
        }
        CHECK(cudaMemcpy(got.data(), P, n * sizeof(float), cudaMemcpyDeviceToHost));
        bool first = reference_ms == 0;
        if (first)
            ref = got;
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            worst = std::max(worst, (double)std::fabs(got[i] - ref[i]));
        float med = median_of(ms);
        if (first)
            reference_ms = med;
        printf("%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n", kn.name, kn.blocks, kn.threads, med,
               *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
               reference_ms / med, worst < 1e-2 ? "yes" : "NO");
    }
    CHECK(cudaFree(M));
    CHECK(cudaFree(N));
    CHECK(cudaFree(P));
    return 0;
}
