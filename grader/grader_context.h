/* What the class grader (grader.c) and the grading of one submission (grade_one.c) share: the
 * rubric, the datasets, the performance dataset and the reference's time. */
#ifndef TILELAB_GRADER_CONTEXT_H
#define TILELAB_GRADER_CONTEXT_H

#include "grader.h"
#include "roster.h"

#define GRADE_MAX_DATASETS 128
/* The scoring rules' version, part of every journal key: bump it when how points are given
 * changes, so a resumed grading regrades the entries the old rules scored. */
#define GRADE_RULES_VERSION 2

typedef struct grade_dataset {
    char path[PATH_MAX];
    char name[64];
    bool hidden;
    tl_size size;
    bool generated;   /* the safety dataset: made from `seed` for this grading, not a folder */
    uint64_t seed;
} grade_dataset;

typedef struct grade_context {
    const grade_options *o;
    rubric r;
    grader_roster roster;    /* empty without --roster */
    uint64_t rubric_hash;
    grade_dataset ds[GRADE_MAX_DATASETS];
    int nds;
    uint64_t datasets_hash;   /* every dataset's files, for the journal key */
    runner_dataset perf;      /* generated for this grading, never written anywhere */
    double reference_ms;
    char device[128];
    char sandbox[200];
    char turns[PATH_MAX];     /* the lock replays take turns on (the grader's own file) */
    int compute_capability;   /* the GPU's, found once before any worker starts */
} grade_context;

/* The runner's configuration for a worker slot. */
void grade_config(const grade_context *c, int slot, runner_config *out);
/* Grades one submission in worker slot `slot` and writes its journal entry. */
void grade_one(const grade_context *c, const submission *s, int slot);
/* journal/<file name>.json */
void grade_journal_path(const grade_context *c, const submission *s, char *out, size_t size);
/* The fingerprint of what an entry was graded against: the submission's files, the rubric, the
 * datasets, the performance dataset and the backend. */
void grade_key(const grade_context *c, const submission *s, char *out, size_t size);

#endif /* TILELAB_GRADER_CONTEXT_H */
