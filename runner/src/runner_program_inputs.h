/* Inside the runner: a whole program's dataset, as runner_program.c hands it to the capture
 * (stubs) and to the replayer (each input's bytes), and a generated matrix product's. */
#ifndef TILELAB_RUNNER_PROGRAM_INPUTS_H
#define TILELAB_RUNNER_PROGRAM_INPUTS_H

#include "runner.h"

/* Inputs and expected output of a generated dataset (a matrix lab's performance dataset). */
typedef struct program_generated {
    tl_matrix in[2];
    tl_product_ref ref;
    bool made;
} program_generated;

/* Makes the inputs and the reference of a generated product (d->generated). */
int program_generate(const runner_dataset *d, program_generated *g, tl_error *err);
void program_generated_free(program_generated *g);

/* Writes DIR/INDEX (DIR/expected for index -1): the stub of `file` (CAPLOG_STUB_MAGIC: its
 * shape only), or of a generated matrix. -1 with err naming the file when it cannot be read. */
int program_write_stub(const char *dir, int index, const char *file, const tl_matrix *generated,
                       tl_error *err);
/* Writes DIR/hI<n> for every input the capture recorded: the dataset's file (or generated
 * matrix) as the program imported it, exactly the bytes its import took. */
int program_write_inputs(const char *dir, const runner_program_lab *lab, const runner_dataset *d,
                         const tl_matrix *gen, const caplog_call *call, tl_error *err);

#endif /* TILELAB_RUNNER_PROGRAM_INPUTS_H */
