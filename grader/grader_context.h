/* What the class grader (grader.c) and the grading of one submission (grade_one.c) share: the
 * rubric, the datasets, the performance dataset and the reference's time. */
#ifndef TILELAB_GRADER_CONTEXT_H
#define TILELAB_GRADER_CONTEXT_H

#include "explain.h"
#include "grader.h"
#include "roster.h"

#define GRADE_MAX_DATASETS 128
/* The most PTX plain_cuda's check reads: a fully unrolled register-tiled kernel is a few
 * hundred KB; more is refused, and the check fails. */
#define GRADER_MAX_PTX_BYTES (64u << 20)
/* The scoring rules' version, part of every journal key: bump it when how points are given or
 * shown changes, so a resumed grading regrades the entries the old rules scored (3: each
 * dataset's explanation, the performance item's visibility with hidden datasets). */
#define GRADE_RULES_VERSION 3

typedef struct grade_dataset {
    char path[PATH_MAX];
    char name[64];
    bool hidden;
    tl_size size;
    bool generated;   /* the safety dataset: made from `seed` for this grading, not a folder */
    uint64_t seed;
    char shape[48];   /* a described lab's: its expected output's shape ("1000", "64x48x3");
                         "" for a matrix lab's, which `size` says */
} grade_dataset;

typedef struct grade_context {
    const grade_options *o;
    rubric r;
    grader_roster roster;    /* empty without --roster */
    grader_roster_match ids; /* the submissions' folders against the roster (grade_match_ids) */
    double metadata_submitted; /* --submission-metadata's created_at (submitted.h), or NAN */
    uint64_t rubric_hash;
    grade_dataset ds[GRADE_MAX_DATASETS];
    int nds;
    uint64_t datasets_hash;   /* every dataset's files, for the journal key */
    runner_dataset perf;      /* generated for this grading, never written anywhere */
    runner_model_run model;   /* CPU backend: the perf dataset and the grading's secret draw of
                                 the blocks the model samples */
    double reference_ms;
    char device[128];
    char sandbox[200];
    char turns[PATH_MAX];     /* the lock replays take turns on (the grader's own file) */
    int compute_capability;   /* the GPU's, found once before any worker starts */
} grade_context;

/* The rubric, roster, datasets, the sandbox's check and the performance dataset (grader.c). */
int grade_prepare(grade_context *c, tl_error *err);
/* The reference solution's time on the performance dataset (predicted on the CPU backend). */
int grade_time_reference(grade_context *c, tl_error *err);
/* The submission's journal entry (journal.c, the one reader), NULL when there is none or it
 * cannot be read; read its fields with outputs_entry.h's accessors. */
cJSON *grade_journal_read(const grade_context *c, const submission *s);
/* True when the submission's journal entry has the current grading key. */
bool grade_journaled(const grade_context *c, const submission *s);
/* True when its entry's build failed or a dataset did not pass (for the progress line). */
bool grade_has_failure(const grade_context *c, const submission *s);
/* The progress line on stderr (nothing with --quiet). */
void grade_progress(const grade_context *c, int done, int total, int failures, double started,
                    const char *current);
/* Matches the n submissions' folders to the roster (roster.h's rules) into c->ids and prints
 * its warnings (unless --quiet). */
int grade_match_ids(grade_context *c, const submission *subs, int n, tl_error *err);
/* The gradebook, results, feedback and report from the journal entries, and the table: every
 * submission under its roster id, and every roster id without one (c->ids). */
int grade_write_outputs(const grade_context *c, const submission *subs, int n, tl_error *err);
/* Grades the class through one Slurm array job (slurm.c): submits what is neither graded nor
 * running, watches the journal until every task ended. Returns 0 when every submission has its
 * entry, GRADE_TASKS_FAILED when some task ended without one, -1 on error. */
int grade_slurm(const grade_context *c, const submission *subs, int n, tl_error *err);

/* OUT/slurm/grading-GEN.json: what a task needs to grade as this process would (absolute
 * paths, the options, every submission's file name) and which indices the array runs. */
int grade_slurm_write_grading(const grade_context *c, const submission *subs, int n,
                              const int *tasks, int k, const char *path, tl_error *err);
/* The array's batch script: runs `tilelab-cli grade-task GRADING $SLURM_ARRAY_TASK_ID`. */
int grade_slurm_write_script(const char *grading, const char *path, tl_error *err);

/* A journal entry's score item, and a dataset's entry; "64x64x64", or a described lab's shape. */
cJSON *grade_item(const char *name, double score, double max, bool passed, const char *vis,
                  const char *output);
/* Adds the performance item to `items` when the rubric gives points for speed; a rubric that
 * gives none has no such item (a 0 / 0 item would read as failed), and the entry's performance
 * says "graded": false. The item is taken either way. */
void grade_add_performance(const grade_context *c, cJSON *items, cJSON *item, cJSON *e);
cJSON *grade_dataset_json(const grade_dataset *d, tl_verdict v, const char *detail,
                          const char *output);
void grade_dataset_shape(const grade_dataset *d, char *out, size_t size);
/* The performance item's visibility: the hidden datasets' when any is graded (its points are
 * scaled by every dataset that passed, and a kernel unsafe on any is not timed, so it would
 * tell their results), else "visible". */
const char *grade_performance_visibility(const grade_context *c);
/* A dataset graded: its journal entry with its explanation ("explain": explain_json) and its
 * score item, worth `per`, whose output is what explain_student_text shows of it (of a hidden
 * dataset, the verdict and detail only). */
void grade_dataset_record(const grade_context *c, const grade_dataset *d, const runner_result *res,
                          const explanation *x, double per, cJSON *dsets, cJSON *items);

/* Whole libwb programs (grade_program.c): whether a submission is graded as one (a described
 * lab, --libwb, or a file that defines main), and its datasets and performance items (graded
 * by the lab's runner_lab_whole description), after the build and static checks of grade_one. */
bool grade_is_program(const grade_context *c, const submission *s);
void grade_program_datasets(const grade_context *c, const runner_config *cfg,
                            const runner_program *p, const runner_outcome *built, cJSON *items,
                            cJSON *e);

/* What grading one submission carries from one step to the next. */
typedef struct grade_state {
    const grade_context *c;
    const submission *s;
    runner_config cfg;
    runner_program p;
    runner_outcome built;      /* the build's verdict */
    runner_outcome captured;   /* the build's, then the capture's */
    runner_capture cap;
    bool have_capture;         /* cap needs runner_capture_free */
    bool replayable;           /* built and captured: the datasets can be replayed */
    cJSON *e, *items;          /* the journal entry and its score items */
    char forbidden[700];       /* what plain_cuda found ("": nothing) */
    char unsafe[800];          /* the first unsafe dataset's finding ("": none) */
    int passed;                /* graded datasets that passed */
    double start;
} grade_state;

/* A submission's string, as valid UTF-8 for the journal. */
void grade_add_text(cJSON *o, const char *key, const char *text);
/* The performance item (grade_performance.c), after the datasets: not timed when a dataset was
 * unsafe, the rubric asks for plain CUDA C and it is not, or no dataset passed. */
cJSON *grade_performance(const grade_state *g);

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
