/* `run` for a whole libwb program (run_program.c), and the datasets of a lab described by a
 * lab.json, which `grade` reads too. */
#ifndef TILELAB_CLI_RUN_PROGRAM_H
#define TILELAB_CLI_RUN_PROGRAM_H

#include "runner.h"

typedef struct run_program_options {
    runner_program_lab lab;
    const char *lab_arg;      /* the lab as it was named, for the diagnose line (NULL: none) */
    const char *source;
    const char *const *datasets; /* given with --dataset; none: every one of the lab's */
    int ndatasets;
    runner_backend backend;   /* unless given: the GPU when there is one, else the CPU backend */
    bool backend_given;
    int timeout, reps;        /* reps unless given: 3 on the CPU backend */
    bool reps_given;
    bool json, no_time, no_sandbox, device_debug, build_only, fail_fast, safety;
} run_program_options;

/* Builds the program and runs every dataset; returns run's exit status (4: --backend gpu and
 * no CUDA device). */
int run_program(const run_program_options *o);
/* The lab's dataset folders (those holding its first input), in numeric order (malloc'd
 * strings); -1 when its datasets folder cannot be read. */
int run_program_datasets(const runner_program_lab *lab, char ***out);
/* The folders of `dir` that hold the file `marker` (`numbered`: only those whose name starts
 * with a digit), at most 256, in the numeric order of their names; -1 when `dir` cannot be
 * read. */
int run_dataset_folders(const char *dir, const char *marker, bool numbered, char ***out);

#endif /* TILELAB_CLI_RUN_PROGRAM_H */
