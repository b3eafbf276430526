/* A part of runner.h (included at its end): building a lab's .cu file (a template or a
 * solution) directly into a lab program, outside the sandbox, for the kit's own benchmarks: nvcc,
 * the harness's lab main and libraries, kept in the runner's build cache keyed by content. */
#ifndef TILELAB_RUNNER_LAB_BUILD_H
#define TILELAB_RUNNER_LAB_BUILD_H

#include "runner.h"

#include <limits.h>

typedef struct lab_program {
    char path[PATH_MAX]; /* the built program */
    bool cached;         /* found in the cache, not compiled now */
    double seconds;      /* compile time */
    char arch[32];       /* the -arch it was built for */
} lab_program;

enum { LAB_BUILD_OK = 0, LAB_BUILD_FAILED = -1, LAB_BUILD_NO_SOURCE = -2 };

/* Builds `source` (or finds it in the cache) for a backend: RUNNER_GPU links libcudart (kernels
 * run on the GPU), RUNNER_CPU builds with -cudart none against the CPU backend and writes the
 * PTX beside the program. `with_cublas` links the cuBLAS
 * comparison (bench only, GPU only; student programs never link it). On LAB_BUILD_FAILED,
 * *compiler_output holds nvcc's messages (malloc'd; they name the source file and its own line
 * numbers). */
int lab_build(const char *source, runner_backend backend, bool with_cublas, lab_program *out,
              char **compiler_output);

/* Device code built with -G (no optimisation, full debug information) from now on: for
 * cuda-gdb, and to run unoptimised PTX on the CPU backend. */
void lab_build_set_device_debug(bool on);

#endif /* TILELAB_RUNNER_LAB_BUILD_H */
