/* Shared inside the CPU backend's runtime library. */
#ifndef TILELAB_CPURT_INTERNAL_H
#define TILELAB_CPURT_INTERNAL_H

#include "ptx.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

/* Records `e` as the last error and returns it. */
cudaError_t cpurt_fail(cudaError_t e);
/* The sticky error left by a failed kernel, or cudaSuccess. */
cudaError_t cpurt_status(void);
/* Prints "not supported by the CPU backend: NAME" once and returns cudaErrorNotSupported. */
cudaError_t cpurt_unsupported(const char *what, const char *name);
double cpurt_now(void);
/* Launch bookkeeping: seconds of interpretation and instruction counts. */
void cpurt_note_launch(double seconds, const ptx_stats *stats);
/* The live device allocations, sorted by address, for the interpreter's checks (valid until
 * the next allocation or free). */
const ptx_region *cpurt_regions(int *count);
/* Threads for a launch's blocks: $TILELAB_CPU_THREADS when set (1: one after another), else 0
 * (one per CPU). */
int cpurt_threads(void);
/* The diagnostics collector when $TILELAB_DIAGNOSE names a report file, else NULL. */
ptx_diag *cpurt_diag(void);

#endif /* TILELAB_CPURT_INTERNAL_H */
