/* What the capture runtime says about the device: the reference GPU of the kit (an H100), since
 * the host code's choices (launch sizes) must be the ones it would make there. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define DEVICE_NAME "NVIDIA H100 80GB HBM3 (captured: no kernel runs during capture)"
#define SM_COUNT 132
#define L2_BYTES (50 * 1024 * 1024)
#define SHARED_PER_BLOCK (48 * 1024)
#define SHARED_PER_BLOCK_OPTIN (227 * 1024)
#define MAX_THREADS_PER_BLOCK 1024
#define WARP_SIZE 32

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

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "%s", DEVICE_NAME);
    prop->major = 9;
    prop->minor = 0;
    prop->warpSize = WARP_SIZE;
    prop->maxThreadsPerBlock = MAX_THREADS_PER_BLOCK;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 0x7fffffff;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->sharedMemPerBlock = SHARED_PER_BLOCK;
    prop->sharedMemPerBlockOptin = SHARED_PER_BLOCK_OPTIN;
    prop->regsPerBlock = 65536;
    prop->multiProcessorCount = SM_COUNT;
    prop->l2CacheSize = L2_BYTES;
    prop->totalGlobalMem = (size_t)80 << 30;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    switch (attr) {
    case cudaDevAttrL2CacheSize: *value = L2_BYTES; break;
    case cudaDevAttrWarpSize: *value = WARP_SIZE; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = MAX_THREADS_PER_BLOCK; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = SHARED_PER_BLOCK; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = SHARED_PER_BLOCK_OPTIN; break;
    case cudaDevAttrMultiProcessorCount: *value = SM_COUNT; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    default: return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}
