// Runs the twelve kernels of siboehm/SGEMM_CUDA (src/kernels/*.cuh) with the launch configurations
// its src/runner.cu uses, on shapes that are multiples of each kernel's tiles, and prints a
// digest of C for each. Built with -I<corpus>/SGEMM_CUDA/src; runner.cu itself is not compiled
// (it needs cuBLAS), so the launches are restated here.
#include "corpus_digest.h"

#include <algorithm>

#include "kernels.cuh"

namespace {

const char *const kProject = "SGEMM_CUDA";
const float kAlpha = 1.25f, kBeta = -0.75f; // both terms of C = alpha*A*B + beta*C matter

struct shape {
    int M, N, K;
};

// Shapes every kernel takes (M a multiple of 128, N of 256, K of 16); the kernels with smaller
// tiles also get 64^3, which selects the 64x64 variant of kernel 5. The 64x64 variants of
// kernels 6 to 8 are wrong in the original: 7 indexes its B tile as if it were 128 wide (out of
// bounds), and 6 and 8 load only half of each A tile with their 64 threads, then read the
// other half uninitialised (tilelab diagnose names lines 66 and 69), so a GPU's result depends
// on what shared memory held before.
const shape kLarge[] = {{256, 256, 256}, {128, 256, 64}, {384, 512, 256}};
const shape kSmall = {64, 64, 64};
// Only kernels 1 and 2 check bounds, so only they get a shape that is no tile multiple.
const shape kRagged = {100, 75, 33};

using launcher = void (*)(int M, int N, int K, float alpha, float *A, float *B, float beta,
                          float *C);

void gemm(const char *kernel, shape s, launcher launch)
{
    std::vector<float> a = corpus_floats((size_t)s.M * s.K, 1);
    std::vector<float> b = corpus_floats((size_t)s.K * s.N, 2);
    std::vector<float> c = corpus_floats((size_t)s.M * s.N, 3);
    corpus_buf A(a.size() * sizeof(float)), B(b.size() * sizeof(float));
    corpus_buf C(c.size() * sizeof(float));
    A.upload(a.data());
    B.upload(b.data());
    C.upload(c.data());
    if (corpus_ready())
        launch(s.M, s.N, s.K, kAlpha, A.as<float>(), B.as<float>(), kBeta, C.as<float>());
    std::string config =
        "M" + std::to_string(s.M) + "N" + std::to_string(s.N) + "K" + std::to_string(s.K);
    corpus_report(kProject, kernel, config, corpus_finish_launch(), {{"C", &C}});
}

// Kernels 5-8 pick their block tile from the shape as runner.cu does.
template <template <int, int, int, int, int> class K>
void launch_2d(int M, int N, int Kd, float alpha, float *A, float *B, float beta, float *C)
{
    const int BK = 8, TM = 8, TN = 8;
    if (M >= 128 && N >= 128) {
        dim3 grid(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), block((128 * 128) / (TM * TN));
        K<128, 128, BK, TM, TN>::launch(grid, block, M, N, Kd, alpha, A, B, beta, C);
    } else {
        dim3 grid(CEIL_DIV(N, 64), CEIL_DIV(M, 64)), block((64 * 64) / (TM * TN));
        K<64, 64, BK, TM, TN>::launch(grid, block, M, N, Kd, alpha, A, B, beta, C);
    }
}

// A kernel template of kernels 5-8 as a class template, so that launch_2d can instantiate it.
#define CORPUS_2D(NAME, KERNEL) \
    template <int BM, int BN, int BK, int TM, int TN> struct NAME { \
        static void launch(dim3 g, dim3 b, int M, int N, int K, float al, float *A, float *B, \
                           float be, float *C) \
        { \
            KERNEL<BM, BN, BK, TM, TN><<<g, b>>>(M, N, K, al, A, B, be, C); \
        } \
    };
CORPUS_2D(k5, sgemm2DBlocktiling)
CORPUS_2D(k6, sgemmVectorize)
CORPUS_2D(k7, sgemmResolveBankConflicts)
CORPUS_2D(k8, sgemmResolveBankExtraCol)

void launch1(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(M, 32), CEIL_DIV(N, 32)), block(32, 32);
    sgemm_naive<<<grid, block>>>(M, N, K, al, A, B, be, C);
}

void launch2(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(M, 32), CEIL_DIV(N, 32)), block(32 * 32);
    sgemm_global_mem_coalesce<32><<<grid, block>>>(M, N, K, al, A, B, be, C);
}

void launch3(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(M, 32), CEIL_DIV(N, 32)), block(32 * 32);
    // runner.cu asks for the shared-memory carveout: only a hint, but part of the API used.
    CORPUS_CHECK(cudaFuncSetAttribute(sgemm_shared_mem_block<32>,
                                      cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
    sgemm_shared_mem_block<32><<<grid, block>>>(M, N, K, al, A, B, be, C);
}

void launch4(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(N, 64), CEIL_DIV(M, 64)), block((64 * 64) / 8);
    sgemm1DBlocktiling<64, 64, 8, 8><<<grid, block>>>(M, N, K, al, A, B, be, C);
}

// Kernels 9-12 with runner.cu's settings (those it marks as the A6000's).
void launch9(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), block(K9_NUM_THREADS);
    sgemmAutotuned<128, 128, 16, 8, 8><<<grid, block>>>(M, N, K, al, A, B, be, C);
}

void launch10(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), block(128);
    sgemmWarptiling<128, 128, 16, 64, 64, 4, 8, 4, 128>
        <<<grid, block>>>(M, N, K, al, A, B, be, C);
}

void launch11(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(N, 256), CEIL_DIV(M, 128)), block(256);
    sgemmDoubleBuffering<128, 256, 16, 128, 32, 1, 8, 8, 256>
        <<<grid, block>>>(M, N, K, al, A, B, be, C);
}

void launch12(int M, int N, int K, float al, float *A, float *B, float be, float *C)
{
    dim3 grid(CEIL_DIV(N, 128), CEIL_DIV(M, 128)), block(128);
    runSgemmDoubleBuffering2<128, 128, 16, 64, 64, 4, 8, 4, 128>
        <<<grid, block>>>(M, N, K, al, A, B, be, C);
}

struct sgemm_kernel {
    const char *name;
    launcher launch;
    bool small, ragged; // also run at kSmall, kRagged
};

const sgemm_kernel kKernels[] = {
    {"k01_naive", launch1, true, true},
    {"k02_global_mem_coalesce", launch2, true, true},
    {"k03_shared_mem_block", launch3, true, false},
    {"k04_1D_blocktiling", launch4, true, false},
    {"k05_2D_blocktiling", launch_2d<k5>, true, false},
    {"k06_vectorize", launch_2d<k6>, false, false},
    {"k07_resolve_bank_conflicts", launch_2d<k7>, false, false},
    {"k08_bank_extra_col", launch_2d<k8>, false, false},
    {"k09_autotuned", launch9, false, false},
    {"k10_warptiling", launch10, false, false},
    {"k11_double_buffering", launch11, false, false},
    {"k12_double_buffering2", launch12, false, false},
};

void run(const char *name)
{
    for (const sgemm_kernel &k : kKernels) {
        if (strcmp(k.name, name) != 0)
            continue;
        for (shape s : kLarge)
            gemm(name, s, k.launch);
        if (k.small)
            gemm(name, kSmall, k.launch);
        if (k.ragged)
            gemm(name, kRagged, k.launch);
    }
}

// --time N [REPS]: each kernel's time at N^3 (N a multiple of 256), the median of REPS runs
// (default 20) after a warm-up, timed with events: what a performance model is calibrated
// against (REPS 1 under a profiler).
int time_all(int n, int reps)
{
    size_t count = (size_t)n * n;
    std::vector<float> a = corpus_floats(count, 1), b = corpus_floats(count, 2);
    corpus_buf A(count * sizeof(float)), B(count * sizeof(float)), C(count * sizeof(float));
    A.upload(a.data());
    B.upload(b.data());
    cudaEvent_t start, stop;
    CORPUS_CHECK(cudaEventCreate(&start));
    CORPUS_CHECK(cudaEventCreate(&stop));
    printf("# kernel size ms GFLOP/s (median of %d runs, events)\n", reps);
    std::vector<float> ms((size_t)reps);
    for (const sgemm_kernel &k : kKernels) {
        k.launch(n, n, n, 1.0f, A.as<float>(), B.as<float>(), 0.0f, C.as<float>());
        CORPUS_CHECK(cudaDeviceSynchronize());
        for (int r = 0; r < reps; r++) {
            CORPUS_CHECK(cudaEventRecord(start));
            k.launch(n, n, n, 1.0f, A.as<float>(), B.as<float>(), 0.0f, C.as<float>());
            CORPUS_CHECK(cudaEventRecord(stop));
            CORPUS_CHECK(cudaEventSynchronize(stop));
            CORPUS_CHECK(cudaEventElapsedTime(&ms[r], start, stop));
        }
        std::sort(ms.begin(), ms.end());
        double med = ms[reps / 2];
        printf("%s %d %.4f %.0f\n", k.name, n, med, 2.0 * n * n * (double)n / (med * 1e6));
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--time") == 0)
        return time_all(atoi(argv[2]), argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 20);
    std::vector<corpus_kernel> kernels;
    for (const sgemm_kernel &k : kKernels)
        kernels.push_back({k.name, run});
    return corpus_main(argc, argv, kernels);
}
