/* What every libcudart stand-in of the kit shares (cudart_seam.c): the reference GPU's
 * description, so that host code sizes its launches as it would on an H100, whichever runtime
 * it is linked with (the CPU backend's, or the capture runtime's). */
#ifndef TILELAB_CUDART_SEAM_H
#define TILELAB_CUDART_SEAM_H

#include <cuda_runtime_api.h>

/* The reference GPU: an H100 SXM (80 GB HBM3), compute capability 9.0. */
#define SEAM_SM_COUNT 132
#define SEAM_L2_BYTES (50 * 1024 * 1024)
#define SEAM_SHARED_PER_BLOCK (48 * 1024)         /* without cudaFuncSetAttribute */
#define SEAM_SHARED_PER_BLOCK_OPTIN (227 * 1024)  /* the most a block may ask for */
#define SEAM_SHARED_PER_SM (228 * 1024)
#define SEAM_MAX_THREADS_PER_BLOCK 1024
#define SEAM_WARP_SIZE 32

/* Fills `prop` with the H100's figures and `name`. */
void seam_device_properties(struct cudaDeviceProp *prop, const char *name);
/* One attribute of the H100, or cudaErrorInvalidValue for one this description lacks. */
cudaError_t seam_device_attribute(int *value, enum cudaDeviceAttr attr);

/* cudaDeviceSetLimit and cudaDeviceGetLimit, cudaDeviceSetCacheConfig and
 * cudaDeviceGetCacheConfig (and so the cudaThread* calls of harness/cuda_removed.h) are here
 * too: a value set is kept and read back, and changes nothing (no stand-in bounds a kernel's
 * stack, printf buffer or heap, or has an L1 to split). */
#define SEAM_DEFAULT_STACK_BYTES 1024
#define SEAM_DEFAULT_PRINTF_FIFO_BYTES (1 << 20)
#define SEAM_DEFAULT_MALLOC_HEAP_BYTES (8 << 20)
#define SEAM_DEFAULT_SYNC_DEPTH 2
#define SEAM_DEFAULT_PENDING_LAUNCHES 2048
#define SEAM_DEFAULT_L2_FETCH_BYTES 64

#endif /* TILELAB_CUDART_SEAM_H */
