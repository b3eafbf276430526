/* tilelab grader: grade a class of submissions for one lab. The one public header of the
 * grader (outputs.h writes the files; this runs everything before).
 *
 * Every submission goes through the runner (runner/runner.h): built in a sandbox, its host code
 * captured in a sandbox, its kernels replayed and timed by the grader's own program. A grade
 * comes only from what that measured and checked. */
#ifndef TILELAB_GRADER_H
#define TILELAB_GRADER_H

#include "runner.h"

#include <cjson/cJSON.h>

typedef struct grade_options {
    const char *submissions; /* folder of student folders, or one submission folder */
    /* The lab: one of the registry's, or one described by a lab.json, whose submissions are
     * all whole libwb programs graded on the description's datasets by its rule. */
    const runner_lab *lab;
    bool libwb;              /* a matrix lab's submissions are whole libwb programs (a file
                                that defines main is taken for one anyway) */
    const char *datasets;    /* folder of datasets (default: the lab's shipped ones) */
    const char *hidden;      /* optional folder of hidden datasets */
    const char *out;         /* output folder */
    const char *rubric;      /* rubric file (default: grader/rubrics/LAB.rubric) */
    const char *roster;      /* optional class roster (roster.h) joined into the gradebook */
    /* Gradescope's submission_metadata.json, or NULL: its created_at is the time submitted of
     * every submission graded (Gradescope grades a class of one) that the roster gives none */
    const char *metadata;
    runner_backend backend;
    int jobs;                /* submissions graded at once, each in its own worker slot */
    int timeout;             /* seconds per replay */
    int reps;                /* timed repetitions */
    tl_size perf_size;       /* the performance dataset, generated for this grading */
    bool no_sandbox;         /* grade without bubblewrap (only when asked for) */
    bool quiet;
    /* --slurm: one Slurm array job grades the class, a task per submission (slurm.c) */
    bool slurm;
    const char *partition;   /* sbatch --partition, or NULL */
    const char *gres;        /* sbatch --gres, e.g. gpu:1, or NULL */
    const char *slurm_time;  /* sbatch --time per task, or NULL (the partition's default) */
    int array_limit;         /* tasks running at once (the array's %LIMIT); 0: no limit */
} grade_options;

/* ---- rubric and static checks (checks.c) --------------------------------------------------- */
/* How performance points grow with the speed ratio between performance_zero and _full. */
typedef enum rubric_curve {
    RUBRIC_CURVE_LINEAR, /* in proportion to the ratio */
    RUBRIC_CURVE_LOG     /* in proportion to its logarithm: each doubling earns the same */
} rubric_curve;

typedef struct rubric {
    double compile, datasets, statics, performance;
    double performance_full, performance_zero;
    rubric_curve performance_curve;
    bool leaderboard;     /* the class report, summary and gradebook rank the speeds */
    bool plain_cuda;      /* no tensor cores, no inline assembly of the student's (checks_plain.c) */
    char hidden_visibility[32];
    char require[8][128]; /* regular expressions the source must match */
    int nrequire;
} rubric;

/* Reads a rubric file; unknown keys and malformed values are errors naming the line. */
int rubric_read(const char *path, rubric *r, tl_error *err);
/* The share (0..1) of the performance points a speed ratio (reference / student time) earns:
 * none at or below performance_zero, all at or above performance_full, by the curve between. */
double rubric_performance_share(const rubric *r, double ratio);
/* The ratio the points are taken at. A measured ratio as it is; a predicted one (the CPU
 * backend's model) GRADER_PREDICTED_MARGIN lower: the model's speed relative to the reference
 * errs by up to about that much either way on honest kernels (docs/perfmodel.md's table), and
 * the CPU backend must never give more points than a GPU. */
#define GRADER_PREDICTED_MARGIN 0.10
double grader_scored_ratio(double ratio, bool predicted);
/* The predicted time past which a kernel earns no speed points on any backend: the reference's
 * predicted time over performance_zero, and over the model's margin again (a GPU's reference
 * may be that much faster than predicted); with performance_zero 0, at 1 / RUNNER_MODEL_-
 * SLOWDOWN_MAX of the reference's speed. The model stops counting there (runner_model_run's
 * busy_ms), and a kernel predicted slower earns none. */
double grader_no_points_ms(const rubric *r, double reference_ms);

/* plain_cuda's reading of a submission's PTX, as the grader's build made it: how many tensor-core
 * instructions it has (`detail` names the first: kernel, PTX line, opcode, or says there is
 * none), and in *asm_blocks how many inline-assembly blocks, whoever wrote them. */
int ptx_plain_cuda_findings(const char *ptx, int *asm_blocks, char *detail, size_t size);

/* What plain_cuda judges (checks_plain.c says how and why): the build's products and the
 * submission's files. */
typedef struct plain_cuda_input {
    const char *ptx;             /* runner_program.ptx's text */
    const char *own_code;        /* runner_program.own_code's text; NULL when it is missing */
    const char *const *names;    /* the submission's files the build read (runner_program.files), */
    const char *const *texts;    /* the compiled one first, and their texts */
    int nfiles;
    const char *headers;         /* runner_program.headers's text; NULL when it is missing */
    const char *toolkit_headers; /* runner_toolkit_headers() */
} plain_cuda_input;
/* plain_cuda: no tensor-core instruction, and no inline assembly of the student's (the toolkit's
 * headers' is allowed). Returns 0 when the submission passes, else how many findings (`detail`
 * names the first: what, which file and line); `detail` says what was found either way. */
int plain_cuda_findings(const plain_cuda_input *in, char *detail, size_t size);

/* Static checks of a source file: forbidden libraries and calls, then the rubric's required
 * constructs. Appends {name, ok, detail} objects to `checks`; returns how many failed. */
int static_checks(const char *source_text, const rubric *r, cJSON *checks);

/* The same over every file of a submission the build read (names[i] holds texts[i]): a
 * forbidden call in any of them fails, a required construct may be in any of them. */
int static_checks_files(const char *const *names, const char *const *texts, int n,
                        const rubric *r, cJSON *checks);

/* ---- submissions (discover.c) ---------------------------------------------------------------- */
typedef struct submission {
    char student[NAME_MAX + 1];  /* the folder's name, as it is */
    char folder[PATH_MAX];
    char source[NAME_MAX + 1];   /* the .cu graded, "" when none */
    char note[200];              /* e.g. "no template.cu; the one .cu file found was graded" */
    char refused[300];           /* set when the submission itself is refused (a link, ...) */
} submission;

/* The submissions under `root` (or `root` itself when it holds a .cu), sorted by id. A folder
 * that is a symbolic link is listed and refused, never followed. Returns the count, -1 on
 * error. */
int grader_discover(const char *root, submission **out, tl_error *err);
/* A fingerprint of everything in a submission folder (names and contents), for the journal. */
uint64_t grader_submission_hash(const submission *s);

/* ---- the whole class (grader.c) ------------------------------------------------------------ */
/* Grades every submission (resuming from the journal in out/journal), then writes the
 * gradebook, Gradescope results, feedback and report. Returns a tilelab exit status. */
int grade_class(const grade_options *o, tl_error *err);
/* What grade_class returns when Slurm tasks ended without a journal entry: each was named on
 * stderr, no outputs were written, and running the same command again resubmits them. */
#define GRADE_TASKS_FAILED 3
/* The largest --array-limit: Slurm's default MaxArraySize. */
#define GRADE_MAX_ARRAY_LIMIT 1001

/* ---- one Slurm task (slurm_task.c) ----------------------------------------------------------- */
/* Grades submission `index` of the grading that `grading` (a file the --slurm grader wrote
 * under OUT/slurm/) describes, exactly as a local worker would, writing its journal entry.
 * Returns 0 when the entry was written. */
int grade_task(const char *grading, int index, tl_error *err);
/* True when `program` is an executable on PATH (sbatch, squeue: --slurm needs both). */
bool grade_slurm_on_path(const char *program);

#endif /* TILELAB_GRADER_H */
