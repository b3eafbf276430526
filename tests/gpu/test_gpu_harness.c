/* GPU tests of the harness's CUDA side: kernel timing with refilled output, the check after
 * timing, launch-error reporting and TL_CUDA_CHECK's exit status. A plain C program (no
 * Criterion) so it builds on GPU machines that only have the CUDA toolkit; exits 77 (skipped)
 * with a message when no device is usable. */
#include "gpu_test_kernels.h"
#include "harness.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (cond) {                                                                            \
            passed++;                                                                          \
        } else {                                                                               \
            failed++;                                                                          \
            printf("FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond);                           \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

typedef struct fixture {
    tl_matrix A, B, expected;
    float *dA, *dB, *dC;
    int m, k, n;
} fixture;

static void make_fixture(fixture *f, int m, int k, int n)
{
    tl_error err;
    f->m = m, f->k = k, f->n = n;
    if (tl_matrix_alloc(&f->A, m, k, &err) || tl_matrix_alloc(&f->B, k, n, &err) ||
        tl_matrix_alloc(&f->expected, m, n, &err)) {
        printf("%s\n", err.msg);
        exit(1);
    }
    for (int i = 0; i < m * k; i++) f->A.data[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    for (int i = 0; i < k * n; i++) f->B.data[i] = (float)((i * 53) % 97) / 97.0f - 0.5f;
    double *exact = malloc(sizeof(double) * (size_t)m * n);
    tl_gemm_f64(m, k, n, f->A.data, f->B.data, exact, NULL, 0);
    for (int i = 0; i < m * n; i++) f->expected.data[i] = (float)exact[i];
    free(exact);
    TL_CUDA_CHECK(cudaMalloc((void **)&f->dA, sizeof(float) * m * k));
    TL_CUDA_CHECK(cudaMalloc((void **)&f->dB, sizeof(float) * k * n));
    TL_CUDA_CHECK(cudaMalloc((void **)&f->dC, sizeof(float) * m * n));
    TL_CUDA_CHECK(cudaMemcpy(f->dA, f->A.data, sizeof(float) * m * k, cudaMemcpyHostToDevice));
    TL_CUDA_CHECK(cudaMemcpy(f->dB, f->B.data, sizeof(float) * k * n, cudaMemcpyHostToDevice));
}

static tl_check_report check_device_result(const fixture *f)
{
    tl_matrix got;
    tl_error err;
    tl_check_report rep;
    tl_matrix_alloc(&got, f->m, f->n, &err);
    TL_CUDA_CHECK(cudaMemcpy(got.data, f->dC, sizeof(float) * f->m * f->n, cudaMemcpyDeviceToHost));
    if (tl_check_product(&f->A, &f->B, &f->expected, &got, &rep, &err) != 0)
        printf("check error: %s\n", err.msg);
    tl_matrix_free(&got);
    return rep;
}

static void test_timing_of_a_correct_kernel(fixture *f)
{
    gpu_mm_job job = {f->dA, f->dB, f->dC, f->m, f->k, f->n, 16, 1};
    tl_kernel_timing_opts opts;
    tl_kernel_timing_opts_default(&opts);
    tl_kernel_timing t;
    tl_error err;
    int rc = tl_time_kernel(&opts, gpu_mm_launch, &job, f->dC, sizeof(float) * f->m * f->n, &t, &err);
    EXPECT(rc == 0, "%s", err.msg);
    EXPECT(t.ms.n == 10, "reps %d", t.ms.n);
    EXPECT(t.ms.min > 0 && t.ms.min <= t.ms.median && t.ms.median <= t.ms.max,
           "min %g median %g max %g", t.ms.min, t.ms.median, t.ms.max);
    int dev = 0, l2 = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    EXPECT(l2 > 0 && t.l2_flush_bytes == 2 * (size_t)l2, "flush %zu bytes, L2 %d", t.l2_flush_bytes, l2);
    tl_check_report rep = check_device_result(f);
    EXPECT(rep.pass, "the last rep's output passes the check: %lld bad", (long long)rep.bad);
    printf("naive %dx%dx%d: median %.3f ms (min %.3f, max %.3f), %.1f GFLOP/s, L2 flush %zu MB\n",
           f->m, f->k, f->n, t.ms.median, t.ms.min, t.ms.max,
           tl_gflops(f->m, f->k, f->n, t.ms.median * 1e-3), t.l2_flush_bytes >> 20);
}

static void test_output_is_refilled_before_each_rep(fixture *f)
{
    /* First a full, correct result; then a kernel that writes only half. Without the refill the
     * stale correct half would hide the bug. */
    gpu_mm_job full = {f->dA, f->dB, f->dC, f->m, f->k, f->n, 16, 1};
    gpu_mm_launch(&full);
    TL_CUDA_CHECK(cudaDeviceSynchronize());
    gpu_mm_job half = full;
    half.write_fraction = 2;
    tl_kernel_timing t;
    tl_error err;
    EXPECT(tl_time_kernel(NULL, gpu_mm_launch, &half, f->dC, sizeof(float) * f->m * f->n, &t, &err) == 0,
           "%s", err.msg);
    tl_check_report rep = check_device_result(f);
    int64_t unwritten = (int64_t)f->m * f->n - (int64_t)f->m * f->n / 2;
    EXPECT(!rep.pass, "half an output must fail");
    EXPECT(rep.nonfinite == unwritten, "unwritten elements are NaN: %lld of %lld",
           (long long)rep.nonfinite, (long long)unwritten);
}

static void test_launch_errors_are_reported(fixture *f)
{
    gpu_mm_job bad = {f->dA, f->dB, f->dC, f->m, f->k, f->n, 64, 1}; /* 4096 threads a block */
    tl_kernel_timing t;
    tl_error err;
    int rc = tl_time_kernel(NULL, gpu_mm_launch, &bad, f->dC, sizeof(float) * f->m * f->n, &t, &err);
    EXPECT(rc == -1, "an invalid configuration fails the timing");
    /* The runtime reports a block of 4096 threads as an invalid configuration or an invalid
     * value depending on its version; either way it must be named as a launch failure. */
    EXPECT(strstr(err.msg, "CUDA error cudaErrorInvalid") != NULL &&
               strstr(err.msg, "during the kernel launch") != NULL,
           "message: %s", err.msg);
}

/* Runs first, before this process touches CUDA: a forked child must not inherit a CUDA context.
 * The child's stderr is captured to check the message names the call site. */
static void test_cuda_check_exits_with_status_3(void)
{
    int fds[2];
    if (pipe(fds) != 0) {
        EXPECT(0, "pipe failed");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        void *p = NULL;
        /* An absurd allocation fails with cudaErrorMemoryAllocation. */
        TL_CUDA_CHECK(cudaMalloc(&p, (size_t)1 << 62));
        _exit(0);
    }
    close(fds[1]);
    char msg[512] = "";
    ssize_t n = read(fds[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == TL_EXIT_CRASH, "status %d", status);
    EXPECT(strstr(msg, "test_gpu_harness.c:") && strstr(msg, ": CUDA error cudaError") &&
               strstr(msg, "in cudaMalloc(&p, (size_t)1 << 62)"),
           "message: %s", msg);
}

int main(void)
{
    test_cuda_check_exits_with_status_3();
    char name[256];
    if (!tl_device_name(name, sizeof name)) {
        printf("SKIPPED: %s; this GPU test needs a CUDA device\n", name);
        return 77;
    }
    printf("device: %s\n", name);
    fixture f;
    make_fixture(&f, 512, 384, 256);
    test_timing_of_a_correct_kernel(&f);
    test_output_is_refilled_before_each_rep(&f);
    test_launch_errors_are_reported(&f);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
