/* The part of a libcudart stand-in that does not depend on what it stands in for: the start-up
 * registration nvcc's host code makes that needs no answer, the launch configuration stack its
 * <<<...>>> stubs push and pop, the device's limits and cache preference, and the error names.
 * Linked into the CPU backend's runtime (cpurt) and into the capture runtime (capture/). */
#include "cudart_seam.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

void seam_device_properties(struct cudaDeviceProp *prop, const char *name)
{
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "%s", name);
    prop->major = 9;
    prop->minor = 0;
    prop->warpSize = SEAM_WARP_SIZE;
    prop->maxThreadsPerBlock = SEAM_MAX_THREADS_PER_BLOCK;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 0x7fffffff;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->sharedMemPerBlock = SEAM_SHARED_PER_BLOCK;
    prop->sharedMemPerBlockOptin = SEAM_SHARED_PER_BLOCK_OPTIN;
    prop->sharedMemPerMultiprocessor = SEAM_SHARED_PER_SM;
    prop->regsPerBlock = 65536;
    prop->regsPerMultiprocessor = 65536;
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->maxBlocksPerMultiProcessor = 32;
    prop->multiProcessorCount = SEAM_SM_COUNT;
    prop->l2CacheSize = SEAM_L2_BYTES;
    prop->totalGlobalMem = (size_t)80 << 30;
    prop->totalConstMem = 64 * 1024;
    prop->memoryBusWidth = 5120;
    prop->concurrentKernels = 1;
    prop->unifiedAddressing = 1;
    prop->managedMemory = 1;
    prop->ECCEnabled = 1;
}

cudaError_t seam_device_attribute(int *value, enum cudaDeviceAttr attr)
{
    switch (attr) {
    case cudaDevAttrL2CacheSize: *value = SEAM_L2_BYTES; break;
    case cudaDevAttrWarpSize: *value = SEAM_WARP_SIZE; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = SEAM_MAX_THREADS_PER_BLOCK; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = SEAM_SHARED_PER_BLOCK; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = SEAM_SHARED_PER_BLOCK_OPTIN; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = SEAM_SHARED_PER_SM; break;
    case cudaDevAttrMultiProcessorCount: *value = SEAM_SM_COUNT; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMaxBlockDimX: *value = 1024; break;
    case cudaDevAttrMaxBlockDimY: *value = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *value = 64; break;
    case cudaDevAttrMaxGridDimX: *value = 0x7fffffff; break;
    case cudaDevAttrMaxGridDimY: *value = 65535; break;
    case cudaDevAttrMaxGridDimZ: *value = 65535; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = 65536; break;
    default: return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* ---- limits and the cache preference: kept, read back, no effect ----------------------- */

static size_t limits[] = {
    [cudaLimitStackSize] = SEAM_DEFAULT_STACK_BYTES,
    [cudaLimitPrintfFifoSize] = SEAM_DEFAULT_PRINTF_FIFO_BYTES,
    [cudaLimitMallocHeapSize] = SEAM_DEFAULT_MALLOC_HEAP_BYTES,
    [cudaLimitDevRuntimeSyncDepth] = SEAM_DEFAULT_SYNC_DEPTH,
    [cudaLimitDevRuntimePendingLaunchCount] = SEAM_DEFAULT_PENDING_LAUNCHES,
    [cudaLimitMaxL2FetchGranularity] = SEAM_DEFAULT_L2_FETCH_BYTES,
    [cudaLimitPersistingL2CacheSize] = 0,
};
static enum cudaFuncCache cache_config = cudaFuncCachePreferNone;

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    if ((size_t)limit >= sizeof limits / sizeof limits[0])
        return cudaErrorUnsupportedLimit;
    limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    if (!value)
        return cudaErrorInvalidValue;
    if ((size_t)limit >= sizeof limits / sizeof limits[0])
        return cudaErrorUnsupportedLimit;
    *value = limits[limit];
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
    if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual)
        return cudaErrorInvalidValue;
    cache_config = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
    if (!config)
        return cudaErrorInvalidValue;
    *config = cache_config;
    return cudaSuccess;
}

void **__cudaRegisterFatBinary(void *fat_cubin)
{
    static void *handle;
    handle = fat_cubin;
    return &handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }
void __cudaUnregisterFatBinary(void **handle) { (void)handle; }

char __cudaInitModule(void **handle)
{
    (void)handle;
    return 1;
}

typedef struct launch_config {
    dim3 grid, block;
    size_t shared;
    void *stream;
} launch_config;

/* Nested <<<...>>> in an argument list is the only way past one level: 16 is plenty. */
#define CONFIG_DEPTH 16
static launch_config config_stack[CONFIG_DEPTH];
static int config_depth;

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void *stream)
{
    if (config_depth == CONFIG_DEPTH)
        return 1;
    config_stack[config_depth++] = (launch_config){grid, block, shared, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
    if (config_depth == 0)
        return cudaErrorMissingConfiguration;
    launch_config c = config_stack[--config_depth];
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *(void **)stream = c.stream;
    return cudaSuccess;
}

typedef struct error_text {
    cudaError_t code;
    const char *name, *text;
} error_text;

static const error_text errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid (the CPU backend could not load the kernels' PTX; see the message above)"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure (the CPU backend stopped the kernel; see the message above)"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered (the CPU backend stopped the kernel; see the message above)"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported by the CPU backend"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted when grading (see the refusal)"},
    {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
};

const char *cudaGetErrorName(cudaError_t e)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e)
            return errors[i].name;
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e)
            return errors[i].text;
    return "unknown error";
}
