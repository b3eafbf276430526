/* Shared declarations of the tilelab command-line program (one subcommand per file). */
#ifndef TILELAB_CLI_H
#define TILELAB_CLI_H

#include "datagen.h"
#include "explain.h"

typedef struct cli_command {
    const char *name;
    const char *summary; /* one line for `tilelab help` */
    const char *usage;   /* the full --help text, printed by tl_lab_names_expand: {labs} and
                            the like stand for the labs of the registry */
    int (*run)(int argc, char **argv);
} cli_command;

extern const cli_command cmd_datasets;
extern const cli_command cmd_check_dataset;
extern const cli_command cmd_bench;
extern const cli_command cmd_predict;
extern const cli_command cmd_run;
extern const cli_command cmd_demo;
extern const cli_command cmd_diagnose;
extern const cli_command cmd_grade;
extern const cli_command cmd_export;
/* Hidden from the overview: what grade --slurm's tasks run. */
extern const cli_command cmd_grade_task;

typedef struct runner_lab runner_lab;
/* Resolves LAB as run, diagnose, grade and export take it (runner_lab_resolve: a lab's id,
 * number or name, else a lab.json or its folder). Returns 0, or the exit status of the error it
 * printed: the student's commands (`every_id`: run, diagnose) list every lab's id, the
 * instructor's (grade, export) the first and the last, and name themselves before a description
 * that cannot be read. */
int cli_lab_resolve(const char *command, const char *name, bool every_id, runner_lab *out);

/* Prints "tilelab: error: ..." on stderr and returns TL_EXIT_BAD_INPUT. */
int cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* True when argv holds -h or --help. */
bool cli_wants_help(int argc, char **argv);

/* The kit's root folder: $TILELAB_ROOT (set by ./tilelab), else the current folder. */
const char *cli_root(void);

/* A path under the kit's root, relative to it; other paths as they are. */
const char *cli_shown(const char *path);
/* True when `dir` holds input0.raw (a dataset folder). */
bool cli_is_dataset(const char *dir);

/* Parses a positive int option value; returns -1 and prints an error on garbage. */
int cli_parse_int(const char *option, const char *text, int min, int max, int *out);

/* Summarises one dataset check as a line: "ok (...)" or "WRONG ...". */
void cli_print_check_line(const char *dir, const tl_dataset_check *res);

typedef struct cJSON cJSON;
/* Follows what the diagnosis saw in lab 05's given baseline kernel (explain.h's words). */
#define CLI_BASELINE_LABEL EXPLAIN_BASELINE_LABEL
/* CLI_BASELINE_LABEL for a finding or an instruction of the diagnosis marked "baseline", or "". */
const char *diagnose_baseline_note(const cJSON *item);

#endif /* TILELAB_CLI_H */
