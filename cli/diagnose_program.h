/* `diagnose` for a whole libwb program (its own main): a lab described by a lab.json, or a
 * matrix lab's file with its own main. The program is built and captured as `run` and the
 * grader do it, and its recorded work replayed once on the CPU backend with every check on. */
#ifndef TILELAB_CLI_DIAGNOSE_PROGRAM_H
#define TILELAB_CLI_DIAGNOSE_PROGRAM_H

#include "runner.h"

typedef struct cJSON cJSON;

/* The dataset diagnose takes when none is given: the middle one of the lab's (in the order of
 * their numbers), into `out`. -1 when the lab has none. */
int diagnose_program_dataset(const runner_lab *lab, char *out, size_t size);

/* Whether `dir` holds the inputs and expected output a whole program of the lab is run on
 * (runner_lab_whole); false with err naming what is missing. */
bool diagnose_program_is_dataset(const runner_lab *lab, const char *dir, tl_error *err);

/* Builds `source` as a whole program and replays it on `dataset` with the checks on: the
 * findings into *diag (diagnose's JSON; NULL when the replay stopped before writing them), the
 * answer's verdict into result. With `pred` and a matrix lab, the performance model's
 * prediction at its grading size too. A build failure or a refusal is printed (unless
 * `quiet`) and its exit status returned; TL_EXIT_OK when the replay ran. */
int diagnose_program(const runner_lab *lab, const char *source, const char *dataset, bool quiet,
                     cJSON **diag, runner_result *result, runner_prediction *pred);

#endif /* TILELAB_CLI_DIAGNOSE_PROGRAM_H */
