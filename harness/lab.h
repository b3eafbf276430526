/* lab.h: the contract between the harness and a lab's .cu file (docs/lab-contract.md).
 *
 * The harness owns main: it reads a dataset, puts M (j x k) and N (k x l) on the device, calls
 * the functions below, checks P (j x l) and times the kernel. A lab's file includes this header
 * and defines the functions its lab asks for; any file that does so can be run with
 * `./tilelab run LAB --source FILE`.
 *
 * All matrices are row-major float32. Square labs (01, 02, 03) get j == k == l == Width.
 */
#ifndef TILELAB_LAB_H
#define TILELAB_LAB_H

#include "harness.h"
#include "cuda_removed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every lab. Launch the kernel that computes P = M * N. M, N and P are device pointers the
 * harness allocated (P is filled with NaN first, so an element the kernel does not write fails).
 * Only launch: the harness checks the launch and synchronizes, and calls this again for every
 * timed repetition. */
void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l);

/* Lab 01 only: the host side. hostM, hostN and hostP are host arrays; allocate device memory,
 * copy the inputs over, compute P (through launch_matmul), copy P back and free what you
 * allocated, checking every CUDA call (TL_CUDA_CHECK). The harness calls this once for the
 * correctness check; it times launch_matmul on its own buffers. */
void matmul_on_device(const float *hostM, const float *hostN, float *hostP, int j, int k, int l);

/* Lab 05 only: the unpadded starting kernel, launched the same way, so one run shows the kernel
 * before and after the fix. The harness checks and times it too. */
void launch_matmul_baseline(const float *M, const float *N, float *P, int j, int k, int l);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_LAB_H */
