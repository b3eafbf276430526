/* bench steps: lab 06's steps measured one after the other (bench_steps.c). */
#ifndef TILELAB_CLI_BENCH_STEPS_H
#define TILELAB_CLI_BENCH_STEPS_H

#include "runner.h"

typedef struct bench_steps_options {
    int size;           /* timed (GPU) or predicted (CPU backend) at size^3 */
    int counts_size;    /* the counters' dataset: size^3; 0: the backend's default */
    int reps;
    int threads;        /* for writing the datasets */
    runner_backend backend; /* with backend_given; else runner_backend_default's */
    bool backend_given;
    const char *svg;    /* the roofline picture, or NULL */
    const char *tsv;    /* the table as TSV, or NULL */
} bench_steps_options;

/* Prints the table; returns 0 when every step passed its check, 1 when one did not, 2 for a
 * file that cannot be written, 4 when --backend gpu was asked for without a GPU. */
int bench_steps(const bench_steps_options *o);

#endif /* TILELAB_CLI_BENCH_STEPS_H */
