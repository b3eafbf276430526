/* Kernels for the GPU tests of the harness, callable from C. */
#ifndef TILELAB_GPU_TEST_KERNELS_H
#define TILELAB_GPU_TEST_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_mm_job {
    const float *A, *B; /* device pointers */
    float *C;
    int m, k, n;
    int block_threads;  /* threads per block side; 64 makes an invalid 4096-thread block */
    int write_fraction; /* 1: write every element; 2: write only the first half */
} gpu_mm_job;

/* Launches one naive matrix product (one thread per output element). Launch errors are left
 * for the caller to collect with cudaGetLastError, as the timing harness does. */
void gpu_mm_launch(void *job);

#ifdef __cplusplus
}
#endif

#endif
