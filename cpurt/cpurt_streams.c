/* Streams and pinned host memory on the CPU backend. Every launch and copy finishes before its
 * call returns, so each stream is trivially in order and every stream is done at all times; a
 * stream is a token that exists until it is destroyed. Pinned host memory is host memory. */
#include "cpurt_internal.h"

#include <stdlib.h>

/* A stream handle points at one of these; `magic` tells a live stream from anything else. */
#define STREAM_MAGIC 0x5354524du
typedef struct stream {
    unsigned magic;
} stream;

static bool live(cudaStream_t s)
{
    /* 0 is the default stream; cudaStreamLegacy and cudaStreamPerThread are special handles. */
    return !s || s == cudaStreamLegacy || s == cudaStreamPerThread ||
           ((const stream *)(const void *)s)->magic == STREAM_MAGIC;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *out, unsigned int flags, int priority)
{
    (void)flags, (void)priority;
    if (!out)
        return cpurt_fail(cudaErrorInvalidValue);
    stream *s = malloc(sizeof *s);
    if (!s)
        return cpurt_fail(cudaErrorMemoryAllocation);
    s->magic = STREAM_MAGIC;
    *out = (cudaStream_t)(void *)s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *out, unsigned int flags)
{
    return cudaStreamCreateWithPriority(out, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *out) { return cudaStreamCreateWithPriority(out, 0, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread || !live(s))
        return cpurt_fail(cudaErrorInvalidResourceHandle);
    ((stream *)(void *)s)->magic = 0;
    free((void *)s);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t s)
{
    (void)s;
    return cpurt_status() != cudaSuccess ? cpurt_fail(cpurt_status()) : cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t event, unsigned int flags)
{
    (void)s, (void)event, (void)flags;
    return cudaSuccess; /* whatever the event marks has already happened */
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    (void)flags;
    return cudaEventCreate(event);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    (void)event;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    if (!ptr)
        return cpurt_fail(cudaErrorInvalidValue);
    *ptr = malloc(size ? size : 1);
    return *ptr ? cudaSuccess : cpurt_fail(cudaErrorMemoryAllocation);
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    (void)flags;
    return cudaMallocHost(ptr, size);
}

cudaError_t cudaFreeHost(void *ptr)
{
    free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    (void)ptr, (void)size, (void)flags;
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    (void)ptr;
    return cudaSuccess;
}

/* Mapped pinned memory: host and device share one address space here. */
cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int flags)
{
    (void)flags;
    *device = host;
    return cudaSuccess;
}
