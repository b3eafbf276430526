/* What the capture runtime says about the device: the reference GPU of the kit (an H100), since
 * the host code's choices (launch sizes) must be the ones it would make there. */
#include "cudart_seam.h"

#define DEVICE_NAME "NVIDIA H100 80GB HBM3 (captured: no kernel runs during capture)"

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
    seam_device_properties(prop, DEVICE_NAME);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    return seam_device_attribute(value, attr);
}
