/* The replayer's GPU backend: the module image nvcc built from the submission, loaded with the
 * CUDA runtime's library API (cudaLibraryLoadData, the runtime face of the driver's
 * cuLibraryLoadData), kernels found by name and launched with the recorded configuration.
 * Timing is the harness's tl_time_kernel, the same loop `bench labs` uses, with the SM clock and
 * throttle reasons recorded around each timed set (NVML, replay_gpu_nvml.c): a throttled set is
 * timed once more, and flagged if it still is (gpu_timing.h decides). */
#include "replay.h"
#include "replay_gpu_nvml.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KERNELS CAPLOG_MAX_KERNELS

struct replay_device {
    cudaLibrary_t library;
    int device;
    const ptx_outline *outline;
    struct {
        char name[CAPLOG_MAX_NAME + 1];
        cudaKernel_t kernel;
        uint32_t shared_allowed;
    } kernels[MAX_KERNELS];
    int nkernels;
    void **allocs;
    int nallocs;
    struct {
        void *ptr, *saved;
        size_t size;
    } vars[PTX_OUTLINE_MAX_VARS];
    int nvars;
    gpu_nvml *nvml;          /* NULL: the clock is not recorded */
    int sms, bus_bits;       /* for the peak rates (gpu_timing.h) */
    double sm_mhz, mem_mhz;  /* the highest SM clock and the memory clock the runtime gives */
    replay_failure failure;
};

#define KHZ_PER_MHZ 1000.0
#define PCI_BUS_ID_BYTES 32

/* NVML for this device, and what its peak rates come from. */
static void open_clock(replay_device *d)
{
    char bus[PCI_BUS_ID_BYTES];
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, d->device) == cudaSuccess)
        d->nvml = gpu_nvml_open(bus);
    int sm_khz = 0, mem_khz = 0;
    if (cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, d->device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, d->device) != cudaSuccess ||
        cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, d->device) != cudaSuccess ||
        cudaDeviceGetAttribute(&d->bus_bits, cudaDevAttrGlobalMemoryBusWidth, d->device) !=
            cudaSuccess)
        d->sms = 0; /* the peaks unknown: no time is judged implausible */
    d->sm_mhz = sm_khz / KHZ_PER_MHZ;
    d->mem_mhz = mem_khz / KHZ_PER_MHZ;
}

static int cuda_failed(replay_device *d, replay_failure why, cudaError_t e, const char *what,
                       tl_error *err)
{
    d->failure = why;
    return tl_error_set(err, "%s: CUDA error %s (%s)", what, cudaGetErrorName(e),
                        cudaGetErrorString(e));
}

static int gpu_open(const replay_module *m, replay_device **out, replay_failure *why, tl_error *err)
{
    replay_device *d = calloc(1, sizeof *d);
    *out = d;
    *why = REPLAY_INTERNAL;
    if (!d)
        return tl_error_set(err, "out of memory");
    d->outline = m->outline;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return tl_error_set(err, "no CUDA device here (%s)", cudaGetErrorString(e));
    if ((e = cudaGetDevice(&d->device)) != cudaSuccess)
        return cuda_failed(d, REPLAY_INTERNAL, e, "cudaGetDevice", err);
    size_t len = 0;
    char *image = m->image ? replay_read_file(m->image, REPLAY_MAX_MODULE, &len, err) : NULL;
    if (!image || len == 0) {
        free(image);
        *why = REPLAY_BAD_MODULE;
        return image ? tl_error_set(err, "%s: an empty module image", m->image)
                     : m->image ? -1 : tl_error_set(err, "no module image was given");
    }
    e = cudaLibraryLoadData(&d->library, image, NULL, NULL, 0, NULL, NULL, 0);
    free(image);
    if (e != cudaSuccess) {
        *why = REPLAY_BAD_MODULE;
        return tl_error_set(err, "%s: the GPU cannot load this module image: %s", m->image,
                            cudaGetErrorString(e));
    }
    open_clock(d);
    return 0;
}

static void gpu_close(replay_device *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->nvars; i++)
        cudaFree(d->vars[i].saved);
    for (int i = 0; i < d->nallocs; i++)
        cudaFree(d->allocs[i]);
    free(d->allocs);
    if (d->library)
        cudaLibraryUnload(d->library);
    gpu_nvml_close(d->nvml);
    free(d);
}

static void gpu_device_name(replay_device *d, char *out, size_t size)
{
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, d->device) == cudaSuccess)
        snprintf(out, size, "%s", prop.name);
    else
        snprintf(out, size, "CUDA device %d", d->device);
}

static int gpu_alloc(replay_device *d, uint64_t bytes, const char *name, replay_addr *out,
                     tl_error *err)
{
    (void)name; /* the GPU's faults name no allocation */
    void *p = NULL;
    void **grown = realloc(d->allocs, (size_t)(d->nallocs + 1) * sizeof *grown);
    if (!grown)
        return tl_error_set(err, "out of memory");
    d->allocs = grown;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess)
        return cuda_failed(d, e == cudaErrorMemoryAllocation ? REPLAY_CRASH : REPLAY_INTERNAL, e,
                           "cudaMalloc", err);
    d->allocs[d->nallocs++] = p;
    /* Fresh memory holds the NaN pattern, as on the CPU backend: an unwritten element fails. */
    if ((e = cudaMemset(p, 0xff, bytes)) != cudaSuccess)
        return cuda_failed(d, REPLAY_INTERNAL, e, "cudaMemset", err);
    *out = (uint64_t)(uintptr_t)p;
    return 0;
}

static void *ptr(replay_addr a) { return (void *)(uintptr_t)a; }

/* A fault inside a kernel shows at the next synchronizing call: a crash of the submission. */
static int gpu_upload(replay_device *d, replay_addr dst, const void *src, uint64_t bytes,
                      tl_error *err)
{
    cudaError_t e = cudaMemcpy(ptr(dst), src, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? 0 : cuda_failed(d, REPLAY_CRASH, e, "copying to the device", err);
}

static int gpu_download(replay_device *d, void *dst, replay_addr src, uint64_t bytes, tl_error *err)
{
    cudaError_t e = cudaMemcpy(dst, ptr(src), bytes, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : cuda_failed(d, REPLAY_CRASH, e, "copying from the device", err);
}

static int gpu_fill(replay_device *d, replay_addr dst, int value, uint64_t bytes, tl_error *err)
{
    cudaError_t e = cudaMemsetAsync(ptr(dst), value, bytes, 0);
    return e == cudaSuccess ? 0 : cuda_failed(d, REPLAY_CRASH, e, "cudaMemset", err);
}

static int gpu_poison(replay_device *d, replay_addr dst, uint64_t bytes, tl_error *err)
{
    return gpu_fill(d, dst, 0xff, bytes, err);
}

static int gpu_copy(replay_device *d, replay_addr dst, replay_addr src, uint64_t bytes,
                    tl_error *err)
{
    cudaError_t e = cudaMemcpyAsync(ptr(dst), ptr(src), bytes, cudaMemcpyDeviceToDevice, 0);
    return e == cudaSuccess ? 0 : cuda_failed(d, REPLAY_CRASH, e, "a device-to-device copy", err);
}

static int kernel_of(replay_device *d, const char *name, tl_error *err)
{
    for (int i = 0; i < d->nkernels; i++)
        if (strcmp(d->kernels[i].name, name) == 0)
            return i;
    if (d->nkernels == MAX_KERNELS)
        return tl_error_set(err, "more than %d kernels", MAX_KERNELS);
    int i = d->nkernels;
    cudaError_t e = cudaLibraryGetKernel(&d->kernels[i].kernel, d->library, name);
    if (e != cudaSuccess) {
        cuda_failed(d, REPLAY_BAD_MODULE, e, name, err);
        return -1;
    }
    snprintf(d->kernels[i].name, sizeof d->kernels[i].name, "%s", name);
    d->kernels[i].shared_allowed = CAPLOG_DEFAULT_DYNAMIC_SHARED;
    d->nkernels++;
    return i;
}

static int gpu_launch(replay_device *d, const char *kernel, const caplog_launch *l, void **args,
                      tl_error *err)
{
    int i = kernel_of(d, kernel, err);
    if (i < 0)
        return -1;
    cudaError_t e;
    /* The capture already held the host code to asking for more than 48 KiB itself. */
    if (l->shared > d->kernels[i].shared_allowed) {
        e = cudaKernelSetAttributeForDevice(d->kernels[i].kernel,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)l->shared, d->device);
        if (e != cudaSuccess)
            return cuda_failed(d, REPLAY_CRASH, e, "asking for dynamic shared memory", err);
        d->kernels[i].shared_allowed = l->shared;
    }
    dim3 grid = {l->grid[0], l->grid[1], l->grid[2]}, block = {l->block[0], l->block[1], l->block[2]};
    e = cudaLaunchKernel((const void *)d->kernels[i].kernel, grid, block, args, l->shared, 0);
    if (e == cudaSuccess)
        e = cudaGetLastError();
    return e == cudaSuccess ? 0 : cuda_failed(d, REPLAY_CRASH, e, kernel, err);
}

static int gpu_sync(replay_device *d, tl_error *err)
{
    cudaError_t e = cudaDeviceSynchronize();
    return e == cudaSuccess ? 0 : cuda_failed(d, REPLAY_CRASH, e, "the kernels", err);
}

/* Module variables by the names the PTX declares: the values they were loaded with are kept
 * aside and put back before every repetition. */
static int gpu_save_variables(replay_device *d, tl_error *err)
{
    for (int v = 0; v < d->outline->nvars; v++) {
        void *p = NULL;
        size_t size = 0;
        if (cudaLibraryGetGlobal(&p, &size, d->library, d->outline->vars[v].name) != cudaSuccess ||
            size == 0) {
            cudaGetLastError(); /* a declaration the linker dropped: nothing to keep */
            continue;
        }
        void *saved = NULL;
        cudaError_t e = cudaMalloc(&saved, size);
        if (e == cudaSuccess)
            e = cudaMemcpy(saved, p, size, cudaMemcpyDeviceToDevice);
        if (e != cudaSuccess)
            return cuda_failed(d, REPLAY_INTERNAL, e, "keeping a module variable", err);
        d->vars[d->nvars].ptr = p;
        d->vars[d->nvars].saved = saved;
        d->vars[d->nvars++].size = size;
    }
    return 0;
}

static int gpu_restore_variables(replay_device *d, tl_error *err)
{
    for (int v = 0; v < d->nvars; v++) {
        cudaError_t e = cudaMemcpyAsync(d->vars[v].ptr, d->vars[v].saved, d->vars[v].size,
                                        cudaMemcpyDeviceToDevice, 0);
        if (e != cudaSuccess)
            return cuda_failed(d, REPLAY_CRASH, e, "restoring a module variable", err);
    }
    return 0;
}

typedef struct timing_ctx {
    replay_step before, step;
    void *ctx;
    int rep;
} timing_ctx;

static void before_launch(void *arg, int rep)
{
    timing_ctx *t = arg;
    t->rep = rep;
    t->before(t->ctx, rep);
}

static void launch_step(void *arg)
{
    timing_ctx *t = arg;
    t->step(t->ctx, t->rep);
}

/* The SM clock and throttle reasons now, into one side of the record; false: not recorded. */
static bool read_clock(replay_device *d, unsigned *mhz, uint64_t *reasons, gpu_clock_record *c)
{
    unsigned max = 0;
    if (!gpu_nvml_read(d->nvml, mhz, &max, reasons))
        return false;
    c->sm_mhz_max = max;
    return true;
}

static int gpu_time(replay_device *d, int warmup, int reps, replay_step before, replay_step step,
                    void *ctx, double *ms, bool *emulated, gpu_clock_record *clock,
                    gpu_peaks *peaks, tl_error *err)
{
    *emulated = false;
    *clock = (gpu_clock_record){0};
    tl_kernel_timing_opts opts;
    tl_kernel_timing_opts_default(&opts);
    opts.warmup = warmup;
    opts.reps = reps;
    opts.before_launch = before_launch;
    opts.samples = ms;
    timing_ctx t = {before, step, ctx, 0};
    for (gpu_set_action next = GPU_SET_RETIME; next == GPU_SET_RETIME;) {
        clock->recorded = read_clock(d, &clock->sm_mhz_before, &clock->reasons_before, clock);
        tl_kernel_timing timing;
        if (tl_time_kernel(&opts, launch_step, &t, NULL, 0, &timing, err) != 0) {
            d->failure = d->failure ? d->failure : REPLAY_CRASH;
            return -1;
        }
        clock->recorded = clock->recorded &&
                          read_clock(d, &clock->sm_mhz_after, &clock->reasons_after, clock);
        next = gpu_timing_after_set(clock);
        clock->retimed |= next == GPU_SET_RETIME;
        clock->throttled = next == GPU_SET_FLAG;
    }
    /* The highest SM clock either source gives: the peak a time is held against is never low. */
    double sm_mhz = clock->sm_mhz_max > d->sm_mhz ? clock->sm_mhz_max : d->sm_mhz;
    *peaks = gpu_timing_peaks(d->sms, sm_mhz, d->mem_mhz, d->bus_bits);
    return 0;
}

static replay_failure gpu_failure(replay_device *d) { return d->failure; }

static int gpu_write_variable(replay_device *d, const char *name, uint64_t offset,
                              const void *src, int value, uint64_t bytes, tl_error *err)
{
    void *p = NULL;
    size_t size = 0;
    cudaError_t e = cudaLibraryGetGlobal(&p, &size, d->library, name);
    if (e != cudaSuccess)
        return cuda_failed(d, REPLAY_BAD_MODULE, e, "finding a module variable", err);
    if (offset > size || bytes > size - offset) {
        d->failure = REPLAY_BAD_MODULE;
        return tl_error_set(err, "%llu bytes at %llu pass the end of variable %s (%zu bytes)",
                            (unsigned long long)bytes, (unsigned long long)offset, name, size);
    }
    e = src ? cudaMemcpy((char *)p + offset, src, bytes, cudaMemcpyHostToDevice)
            : cudaMemset((char *)p + offset, value, bytes);
    return e == cudaSuccess ? 0 : cuda_failed(d, REPLAY_CRASH, e, "writing a module variable", err);
}

const replay_backend replay_gpu_backend = {
    gpu_open,     gpu_close,          gpu_device_name,      gpu_alloc,
    gpu_upload,     gpu_download, gpu_fill,           gpu_poison,           gpu_copy,
    gpu_launch,     gpu_sync,     gpu_save_variables, gpu_restore_variables, gpu_time,
    gpu_failure,    NULL,         NULL,               gpu_write_variable,
    NULL,           NULL,
};
