/* tilelab grader: grade a class of submissions for one lab. The one public header of the
 * grader (outputs.h writes the files; this runs everything before). */
#ifndef TILELAB_GRADER_H
#define TILELAB_GRADER_H

#include "datagen.h"
#include "lab_build.h"

#include <cjson/cJSON.h>

typedef struct grade_options {
    const char *submissions; /* folder of student folders, or one submission folder */
    const tl_lab *lab;
    const char *datasets;    /* folder of datasets (default: the lab's shipped ones) */
    const char *hidden;      /* optional folder of hidden datasets */
    const char *out;         /* output folder */
    const char *rubric;      /* rubric file (default: grader/rubrics/LAB.rubric) */
    lab_backend backend;
    int jobs;                /* submissions graded at once */
    int timeout;             /* seconds per dataset run */
    int reps;                /* timed repetitions */
    bool quiet;
    const char *timing_lock; /* set by grade_class: file the timed parts take turns on */
} grade_options;

/* ---- rubric (checks.c) ------------------------------------------------------------------- */
typedef struct rubric {
    double compile, datasets, statics, performance;
    double performance_full, performance_zero;
    char hidden_visibility[32];
    char require[8][128]; /* regular expressions the source must match */
    int nrequire;
} rubric;

/* Reads a rubric file; unknown keys and malformed values are errors naming the line. */
int rubric_read(const char *path, rubric *r, tl_error *err);

/* Static checks of a source file: forbidden libraries and calls, then the rubric's required
 * constructs. Appends {name, ok, detail} objects to `checks`; returns how many failed. */
int static_checks(const char *source_text, const rubric *r, cJSON *checks);

/* ---- judging one dataset (judge.c) --------------------------------------------------------- */
typedef struct judged {
    char verdict[16];   /* pass, fail, timeout, crash, bad-input */
    char detail[512];
    double kernel_ms;   /* median, 0 when untimed */
    double gflops;
    char *stdout_text, *stderr_text; /* capped; free() them */
} judged;

/* Runs `program` on one dataset in the sandbox (only the inputs visible; the result comes back
 * as files) and checks the result and the result after timing against the expected output. */
int judge_dataset(const grade_options *o, const lab_program *program, const char *dataset,
                  judged *out, tl_error *err);
/* How the sandbox works here, for the report: "bubblewrap" or "rlimits only (...)". */
const char *judge_sandbox_kind(void);

/* ---- the whole class (grader.c) ------------------------------------------------------------ */
/* Grades every submission (resuming from the journal in out/journal), then writes the
 * gradebook, Gradescope results, feedback and report. Returns a tilelab exit status. */
int grade_class(const grade_options *o, tl_error *err);

#endif /* TILELAB_GRADER_H */
