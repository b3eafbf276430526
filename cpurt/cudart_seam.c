/* The part of a libcudart stand-in that does not depend on what it stands in for: the start-up
 * registration nvcc's host code makes that needs no answer, the launch configuration stack its
 * <<<...>>> stubs push and pop, and the error names. Linked into the CPU backend's runtime
 * (cpurt) and into the capture runtime (capture/). */
#include <cuda_runtime_api.h>
#include <stddef.h>

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
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid (no PTX for the CPU backend)"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure (the CPU backend stopped the kernel; see the message above)"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported by the CPU backend"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted when grading (see the refusal)"},
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
