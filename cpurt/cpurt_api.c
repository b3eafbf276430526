/* The CUDA runtime calls of the CPU backend other than launches: memory, devices, events and
 * error names. Calls it does not implement say so instead of pretending to work. */
#include "cpurt_internal.h"
#include "cudart_seam.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEVICE_NAME "NVIDIA H100 80GB HBM3 (tilelab CPU backend: a PTX interpreter)"

double cpurt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double busy_until; /* the end of the last launch, for events */

void cpurt_note_launch(double seconds, const ptx_stats *stats)
{
    (void)seconds, (void)stats;
    busy_until = cpurt_now();
}

cudaError_t cpurt_unsupported(const char *what, const char *name)
{
    fflush(stdout);
    fprintf(stderr, "tilelab CPU backend: not supported by the CPU backend: %s%s%s\n", what,
            name ? " " : "", name ? name : "");
    return cpurt_fail(cudaErrorNotSupported);
}

/* ---- memory: device memory is host memory ------------------------------------------------- */

typedef struct allocation {
    void *ptr;
    size_t size;
    uint8_t *shadow; /* under diagnosis: which bytes something has written */
    int id;
} allocation;

static allocation *allocs;
static size_t nallocs, capallocs;
static int next_id = 1;
static ptx_region *regions;
static size_t capregions;

static int by_base(const void *a, const void *b)
{
    uint64_t x = ((const ptx_region *)a)->base, y = ((const ptx_region *)b)->base;
    return (x > y) - (x < y);
}

const ptx_region *cpurt_regions(int *count)
{
    if (nallocs > capregions) {
        ptx_region *r = realloc(regions, nallocs * sizeof *r);
        if (!r) {
            *count = 0;
            return NULL;
        }
        regions = r;
        capregions = nallocs;
    }
    for (size_t i = 0; i < nallocs; i++)
        regions[i] = (ptx_region){(uint64_t)(uintptr_t)allocs[i].ptr, allocs[i].size,
                                  allocs[i].shadow, allocs[i].id, NULL, NULL};
    qsort(regions, nallocs, sizeof *regions, by_base);
    *count = (int)nallocs;
    return regions;
}

/* Marks [ptr, ptr+count) written, where it lies in a device allocation (diagnosis only). */
static void mark_written(const void *ptr, size_t count)
{
    uintptr_t p = (uintptr_t)ptr;
    for (size_t i = 0; i < nallocs; i++) {
        uintptr_t base = (uintptr_t)allocs[i].ptr;
        if (allocs[i].shadow && p >= base && p < base + allocs[i].size) {
            size_t n = count < base + allocs[i].size - p ? count : base + allocs[i].size - p;
            memset(allocs[i].shadow + (p - base), 1, n);
            return;
        }
    }
}

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    if (!ptr)
        return cpurt_fail(cudaErrorInvalidValue);
    if (cpurt_status() != cudaSuccess)
        return cpurt_fail(cpurt_status());
    /* cudaMalloc returns memory aligned to at least 256 bytes; so does this, which keeps
     * alignment-dependent figures (sectors per request) the same as on a GPU. */
    void *p = NULL;
    if (posix_memalign(&p, 256, size ? size : 1) != 0)
        return cpurt_fail(cudaErrorMemoryAllocation);
    /* Fresh device memory is not zero: a pattern that reads as NaN (floats) or -1 (ints). */
    memset(p, 0xff, size);
    if (nallocs == capallocs) {
        size_t cap = capallocs ? 2 * capallocs : 64;
        allocation *a = realloc(allocs, cap * sizeof *a);
        if (!a) {
            free(p);
            return cpurt_fail(cudaErrorMemoryAllocation);
        }
        allocs = a;
        capallocs = cap;
    }
    uint8_t *shadow = cpurt_diag() ? calloc(1, size ? size : 1) : NULL;
    allocs[nallocs++] = (allocation){p, size, shadow, next_id++};
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaFree(void *ptr)
{
    if (!ptr)
        return cudaSuccess;
    for (size_t i = 0; i < nallocs; i++) {
        if (allocs[i].ptr == ptr) {
            free(ptr);
            free(allocs[i].shadow);
            allocs[i] = allocs[--nallocs];
            return cudaSuccess;
        }
    }
    return cpurt_fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return cpurt_fail(cudaErrorInvalidMemcpyDirection);
    if (cpurt_status() != cudaSuccess)
        return cpurt_fail(cpurt_status());
    if (count && (!dst || !src))
        return cpurt_fail(cudaErrorInvalidValue);
    memmove(dst, src, count);
    mark_written(dst, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemset(void *ptr, int value, size_t count)
{
    if (cpurt_status() != cudaSuccess)
        return cpurt_fail(cpurt_status());
    if (count && !ptr)
        return cpurt_fail(cudaErrorInvalidValue);
    memset(ptr, value, count);
    mark_written(ptr, count);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset(ptr, value, count);
}

/* ---- the device ---------------------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : cpurt_fail(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (device != 0)
        return cpurt_fail(cudaErrorInvalidDevice);
    /* Host code sizes its work for the GPU it would run on: the kit's H100. Device memory is
     * this machine's, though. */
    seam_device_properties(prop, DEVICE_NAME);
    size_t host = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    prop->totalGlobalMem = host < prop->totalGlobalMem ? host : prop->totalGlobalMem;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cpurt_fail(cudaErrorInvalidDevice);
    if (seam_device_attribute(value, attr) != cudaSuccess)
        return cpurt_unsupported("cudaDeviceGetAttribute of attribute", NULL);
    return cudaSuccess;
}

/* ---- events: launches are synchronous, so an event records the wall clock -------------- */

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    double *t = calloc(1, sizeof *t);
    if (!t)
        return cpurt_fail(cudaErrorMemoryAllocation);
    *event = (cudaEvent_t)(void *)t;
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    free((void *)event);
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    (void)stream;
    *(double *)(void *)event = cpurt_now();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    (void)event;
    return cpurt_status() != cudaSuccess ? cpurt_fail(cpurt_status()) : cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    *ms = (float)((*(double *)(void *)end - *(double *)(void *)start) * 1e3);
    return cudaSuccess;
}

/* ---- calls the CPU backend does not implement ------------------------------------------- */

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    (void)ptr, (void)size, (void)flags;
    return cpurt_unsupported("cudaMallocManaged", NULL);
}

cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    (void)ptr, (void)pitch, (void)width, (void)height;
    return cpurt_unsupported("cudaMallocPitch", NULL);
}

