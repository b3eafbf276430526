/* The harness's use of the CUDA runtime: error checks, device queries and kernel timing.
 * Written against the C runtime API only, so a stand-in runtime library can replace libcudart. */
#include "harness.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

void tl_cuda_check_(int status, const char *expr, const char *file, int line)
{
    if (status == (int)cudaSuccess)
        return;
    cudaError_t e = (cudaError_t)status;
    tl_log(TL_LOG_FATAL, "%s:%d: CUDA error %s (%s) in %s", file, line, cudaGetErrorName(e),
           cudaGetErrorString(e), expr);
    fflush(stdout);
    exit(TL_EXIT_CRASH);
}

bool tl_gpu_available(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

int tl_device_compute_capability(void)
{
    int dev = 0, major = 0, minor = 0;
    if (!tl_gpu_available() || cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return major * 10 + minor;
}

bool tl_device_name(char *name, size_t size)
{
    int count = 0, dev = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(name, size, "no CUDA device (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        cudaGetLastError(); /* clear the recorded error so later calls start clean */
        return false;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        snprintf(name, size, "CUDA device %d (properties unavailable)", dev);
        return false;
    }
    snprintf(name, size, "%s", prop.name);
    return true;
}

void tl_kernel_timing_opts_default(tl_kernel_timing_opts *opts)
{
    opts->warmup = 1;
    opts->reps = 10;
    opts->flush_l2 = true;
    opts->before_launch = NULL;
    opts->samples = NULL;
}

/* Returns -1 with err filled when a CUDA call failed. */
static int cuda_ok(cudaError_t e, const char *what, tl_error *err)
{
    if (e == cudaSuccess)
        return 0;
    return tl_error_set(err, "CUDA error %s (%s) during %s", cudaGetErrorName(e),
                        cudaGetErrorString(e), what);
}

/* A launch error (bad configuration) shows at once; a fault inside the kernel shows at the
 * next synchronization. Both end the timing. */
static int launch_ok(tl_error *err)
{
    return cuda_ok(cudaGetLastError(), "the kernel launch", err);
}

typedef struct timing_resources {
    cudaEvent_t *start, *stop;
    int nevents;
    void *flush;
    size_t flush_bytes;
} timing_resources;

static void release(timing_resources *t)
{
    for (int i = 0; i < t->nevents; i++) {
        cudaEventDestroy(t->start[i]);
        cudaEventDestroy(t->stop[i]);
    }
    free(t->start);
    free(t->stop);
    if (t->flush)
        cudaFree(t->flush);
}

static int acquire(timing_resources *t, int reps, bool flush_l2, tl_error *err)
{
    memset(t, 0, sizeof *t);
    t->start = calloc((size_t)reps, sizeof *t->start);
    t->stop = calloc((size_t)reps, sizeof *t->stop);
    if (!t->start || !t->stop)
        return tl_error_set(err, "out of memory for %d timing events", reps);
    for (; t->nevents < reps; t->nevents++) {
        if (cuda_ok(cudaEventCreate(&t->start[t->nevents]), "cudaEventCreate", err) ||
            cuda_ok(cudaEventCreate(&t->stop[t->nevents]), "cudaEventCreate", err))
            return -1;
    }
    if (flush_l2) {
        int dev = 0, l2 = 0;
        if (cuda_ok(cudaGetDevice(&dev), "cudaGetDevice", err) ||
            cuda_ok(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev),
                    "reading the L2 cache size", err))
            return -1;
        /* Twice the L2 size: writing it evicts every line the kernel's inputs could hold. */
        t->flush_bytes = 2 * (size_t)l2;
        if (t->flush_bytes &&
            cuda_ok(cudaMalloc(&t->flush, t->flush_bytes), "allocating the L2 flush buffer", err))
            return -1;
    }
    return 0;
}

int tl_time_kernel(const tl_kernel_timing_opts *opts, tl_launch_fn launch, void *ctx, void *d_out,
                   size_t out_bytes, tl_kernel_timing *out, tl_error *err)
{
    tl_kernel_timing_opts defaults;
    if (!opts) {
        tl_kernel_timing_opts_default(&defaults);
        opts = &defaults;
    }
    if (opts->reps < 1)
        return tl_error_set(err, "kernel timing needs at least one rep, got %d", opts->reps);
    memset(out, 0, sizeof *out);

    for (int i = 0; i < opts->warmup; i++) {
        if (opts->before_launch)
            opts->before_launch(ctx, -1 - i);
        launch(ctx);
        if (launch_ok(err))
            return -1;
    }
    if (cuda_ok(cudaDeviceSynchronize(), "the warm-up launches", err))
        return -1;

    timing_resources t;
    int rc = acquire(&t, opts->reps, opts->flush_l2, err);
    for (int i = 0; rc == 0 && i < opts->reps; i++) {
        if (opts->before_launch)
            opts->before_launch(ctx, i);
        /* All-ones bytes are a NaN in float32: a rep that skips an element leaves it failing. */
        if ((d_out && cuda_ok(cudaMemsetAsync(d_out, 0xff, out_bytes, 0), "refilling the output",
                              err)) ||
            (t.flush && cuda_ok(cudaMemsetAsync(t.flush, i & 0xff, t.flush_bytes, 0),
                                "flushing L2", err)) ||
            cuda_ok(cudaEventRecord(t.start[i], 0), "cudaEventRecord", err)) {
            rc = -1;
            break;
        }
        launch(ctx);
        if (launch_ok(err) || cuda_ok(cudaEventRecord(t.stop[i], 0), "cudaEventRecord", err))
            rc = -1;
    }
    double *samples = rc == 0 ? malloc((size_t)opts->reps * sizeof *samples) : NULL;
    if (rc == 0 && !samples)
        rc = tl_error_set(err, "out of memory for %d timing samples", opts->reps);
    /* One wait at the end, not one per timer call: the reps queue back to back. */
    if (rc == 0 && cuda_ok(cudaEventSynchronize(t.stop[opts->reps - 1]), "the timed launches", err))
        rc = -1;
    for (int i = 0; rc == 0 && i < opts->reps; i++) {
        float ms = 0;
        if (cuda_ok(cudaEventElapsedTime(&ms, t.start[i], t.stop[i]), "cudaEventElapsedTime", err))
            rc = -1;
        samples[i] = ms;
    }
    if (rc == 0) {
        if (opts->samples)
            memcpy(opts->samples, samples, (size_t)opts->reps * sizeof *samples);
        tl_stats_compute(samples, opts->reps, &out->ms);
        out->l2_flush_bytes = t.flush_bytes;
    }
    free(samples);
    release(&t);
    return rc;
}
