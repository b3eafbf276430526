/* Inside the runner: a whole program's dataset, as runner_program.c hands it to the capture
 * (stubs) and to the replayer (each input's bytes), and a generated matrix product's; one run
 * of a program on a dataset, up to its capture. */
#ifndef TILELAB_RUNNER_PROGRAM_INPUTS_H
#define TILELAB_RUNNER_PROGRAM_INPUTS_H

#include "runner.h"

/* Writes DIR/INDEX (DIR/expected for index -1): the stub of `file` (CAPLOG_STUB_MAGIC: its
 * shape only), or of a generated matrix. -1 with err naming the file when it cannot be read. */
int program_write_stub(const char *dir, int index, const char *file, const tl_matrix *generated,
                       tl_error *err);
/* Writes DIR/hI<n> for every input the capture recorded: the dataset's file (or a generated
 * product's A and B, `gen`; NULL: none) as the program imported it, exactly the bytes its
 * import took. */
int program_write_inputs(const char *dir, const runner_program_lab *lab, const runner_dataset *d,
                         const runner_loaded *gen, const caplog_call *call, tl_error *err);

/* How a program's answer is checked: the lab's rule, the recorded call, and the expected
 * output (a file, or a generated product's reference) with its shape. */
typedef struct program_check {
    const runner_program_lab *lab;
    tl_answer_spec spec;
    const caplog_call *call;
    const char *expected;       /* the expected output's file */
    const tl_product_ref *ref;  /* a generated dataset's reference (no file), or NULL */
    int rows, cols, channels;   /* the expected output's shape */
} program_check;

/* One program run's folders and what it read, from the dataset to the last replay. */
typedef struct program_run {
    char work[PATH_MAX], stubs[PATH_MAX], in[PATH_MAX], expected[PATH_MAX];
    runner_loaded g;            /* a generated product (g.from.generated), loaded as the judge
                                   loads one: its inputs and reference */
    tl_matrix inputs[2];
    program_check pc;
    runner_capture cap;
    bool captured;
} program_run;

/* The run's folders (work, stubs, in), under the sandbox's work folder. */
int program_run_open(program_run *pr, tl_error *err);
/* The dataset: stubs of its inputs for the capture, the expected output's shape and the
 * reference for the check. Its files not read are bad input (the dataset's fault, not the
 * program's), in out; -1 only when the kit failed. */
int program_prepare(const runner_program_lab *lab, const runner_dataset *d, program_run *pr,
                    runner_result *out, tl_error *err);
/* The program's whole run captured on the stubs; what it printed is its kernel output. */
int program_capture(const runner_config *c, const runner_program *p,
                    const runner_program_lab *lab, program_run *pr, runner_result *out,
                    tl_error *err);
/* out's verdict bad input, with the error as its detail. */
void program_bad_input(runner_result *out, const tl_error *bad);
/* Frees what the run holds and removes its folders. */
void program_run_free(program_run *pr);

#endif /* TILELAB_RUNNER_PROGRAM_INPUTS_H */
