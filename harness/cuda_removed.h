/* cuda_removed.h: the CUDA runtime calls that CUDA 13 removed and programs written for older
 * toolkits still make, defined as the calls that replaced them.
 *
 * Course templates of the CUDA 4 to 12 years (the GPU Teaching Kit's, ECE408's, PMPP's) call
 * cudaThreadSynchronize() after a launch, and some cudaThreadExit(), cudaThreadSetLimit() and the
 * others of the runtime's old "thread management" group, deprecated since CUDA 4 and removed in
 * CUDA 13. lab.h and wb.h (so gputk.h too) include this header: a program that makes those calls
 * builds unchanged, with the kit's runtimes (the capture runtime, the CPU backend's) and with
 * libcudart. Only in code nvcc compiles, and only where the toolkit no longer declares them
 * (CUDART_VERSION 13000 and up): with an older toolkit its own declarations stand. A program
 * that maps a name itself (`#define cudaThreadSynchronize cudaDeviceSynchronize` before the
 * #include) keeps its own mapping. The runner names each use in the student's feedback
 * (runner/src/runner_removed.c lists the same calls). */
#ifndef TILELAB_CUDA_REMOVED_H
#define TILELAB_CUDA_REMOVED_H

#if defined(__CUDACC__)
#include <cuda_runtime_api.h>

#if CUDART_VERSION >= 13000
#ifndef cudaThreadSynchronize
static inline cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
#endif
#ifndef cudaThreadExit
static inline cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }
#endif
#ifndef cudaThreadSetLimit
static inline cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value)
{
    return cudaDeviceSetLimit(limit, value);
}
#endif
#ifndef cudaThreadGetLimit
static inline cudaError_t cudaThreadGetLimit(size_t *value, enum cudaLimit limit)
{
    return cudaDeviceGetLimit(value, limit);
}
#endif
#ifndef cudaThreadSetCacheConfig
static inline cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache config)
{
    return cudaDeviceSetCacheConfig(config);
}
#endif
#ifndef cudaThreadGetCacheConfig
static inline cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *config)
{
    return cudaDeviceGetCacheConfig(config);
}
#endif
#endif /* CUDART_VERSION >= 13000 */
#endif /* __CUDACC__ */

#endif /* TILELAB_CUDA_REMOVED_H */
