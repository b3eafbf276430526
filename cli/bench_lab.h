/* What bench's suites share: the datasets they time on, and a lab file timed on the GPU next
 * to cuBLAS (bench labs, bench steps). */
#ifndef TILELAB_CLI_BENCH_LAB_H
#define TILELAB_CLI_BENCH_LAB_H

#include "datagen.h"

#include <stdbool.h>
#include <stddef.h>

/* build/bench-datasets/MxKxN under the kit's root, written (seed 1, binary) unless the same
 * files are there already. Returns 0 with its path in dir, or -1 with err. */
int bench_dataset(tl_size size, int threads, char *dir, size_t dir_size, tl_error *err);

/* One run of a lab file's program built for the GPU with the cuBLAS comparison: the kernel's
 * median time over `reps` CUDA-event timed launches (L2 flushed before each), cuBLAS SGEMM's
 * timed the same way in the same process on the same buffers, and lab 05's baseline's when
 * the file has one (0 otherwise). */
typedef struct bench_timing {
    char verdict[16];
    double ms, gflops, cublas_ms, cublas_gflops, baseline_ms;
} bench_timing;

/* Returns 0 with out set, or -1 after printing why (the compiler's messages, or how the
 * program failed) on a line that starts with `label`. */
int bench_time_on_gpu(const char *label, const char *source, const char *dataset, int reps,
                      bench_timing *out);

#endif /* TILELAB_CLI_BENCH_LAB_H */
