/* runner: the layer that turns a lab file into a verdict, for run, diagnose, bench and grade.
 * The one public header of runner/.
 *
 *   build    the submission's files, copied and checked, compiled by nvcc in a sandbox into a
 *            capture program, the module's PTX and its GPU image;
 *   capture  the capture program runs in a sandbox with no GPU: the student's host code only
 *            describes the work (capture/capture_log.h);
 *   replay   tilelab-replay, the grader's own program, does that work on its own buffers, on
 *            the GPU or in the PTX interpreter, times it and sends back every result;
 *   check    the runner checks every result against the fp32 error bound itself.
 * Nothing the student's code writes is believed: not a result file, not a time, not an exit
 * status. One verdict vocabulary, below, is what every command shows and scores.
 */
#ifndef TILELAB_RUNNER_H
#define TILELAB_RUNNER_H

#include "capture_log.h"
#include "datagen.h"
#include "gpu_timing.h"
#include "perfmodel.h"
#include "runner_backend.h"
#include "util.h"

#include <limits.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- verdicts ------------------------------------------------------------------------------ */
typedef enum tl_verdict {
    TL_VERDICT_PASS = 0,     /* every result checked was within the bound */
    TL_VERDICT_WRONG,        /* a result (the first run or any timed repetition) was not */
    TL_VERDICT_UNSAFE,       /* the CPU backend's checks found a race, an access out of bounds
                                or through a host pointer, a divergent barrier or a read of
                                memory nothing wrote: a correct result would be luck */
    TL_VERDICT_TIMEOUT,      /* stopped at the time limit: a hang or an endless loop */
    TL_VERDICT_CRASH,        /* a CUDA error, a fault in a kernel, a program that died */
    TL_VERDICT_BUILD_FAILED, /* nvcc refused the file (its messages say why) */
    TL_VERDICT_BAD_INPUT,    /* a dataset, module or capture log that cannot be read */
    TL_VERDICT_REFUSED,      /* the submission asked for something grading does not allow */
    TL_VERDICT_UNSUPPORTED,  /* the CPU backend cannot run this kernel (not the student's fault) */
    TL_VERDICT_ERROR,        /* the kit itself failed (no device, out of memory, ...) */
    TL_VERDICT_COUNT
} tl_verdict;

/* "pass", "wrong", "unsafe", "timeout", "crash", "build-failed", "bad-input", "refused", "unsupported",
 * "error". */
const char *tl_verdict_name(tl_verdict v);
/* The same in capitals, for a terminal line ("PASS", "BUILD FAILED"). */
const char *tl_verdict_label(tl_verdict v);
bool tl_verdict_parse(const char *name, tl_verdict *out);
/* The exit status a command ends with for this verdict (harness.h's TL_EXIT_*). */
int tl_verdict_exit_status(tl_verdict v);
/* Of several verdicts, the one a summary shows: the first not-pass in the order above, with
 * wrong the mildest. */
tl_verdict tl_verdict_worst(tl_verdict a, tl_verdict b);

/* ---- configuration ---------------------------------------------------------------------- */
/* runner_backend, its table (runner_backend_about), names and parsing: runner_backend.h. */

/* A command's backend, decided here once: *backend as --backend gave it (`given`), else gpu
 * where this machine has a CUDA device and the CPU backend otherwise. Returns whether there is a
 * device, its name (or why there is none) in device[size]: a backend that needs one and finds
 * none is the command's to refuse (runner_backend_about(b)->device). */
bool runner_backend_default(runner_backend *backend, bool given, char *device, size_t size);

typedef struct runner_config {
    runner_backend backend;
    /* Sandboxes: bubblewrap around every build, capture and replay. Only a user who says so
     * (run --no-sandbox, or no bubblewrap on a student's own machine) goes without. */
    bool sandbox;
    int slot;                 /* worker slot: with root, builds and captures run as uid
                                 RUNNER_SLOT_UID_BASE + slot, so no two share a process limit
                                 (default RUNNER_SLOT_OWN: runner_own_slot()) */
    const char *turns;        /* a lock file GPU replays and timed CPU replays take turns on,
                                 held by the runner (never by student code); NULL: none */
    int build_timeout_s, capture_timeout_s, replay_timeout_s;
    int reps;                 /* timed repetitions */
    bool device_debug;        /* build device code with -G */
    int compute_capability;   /* the GPU image's (90 for sm_90); 0: this machine's GPU, or 90 */
    bool program;             /* the file is a whole libwb program (its own main): built with
                                 the capture runtime's libwb layer (capture_wb.c) instead of
                                 the lab functions' capture main */
} runner_config;

/* The defaults of runner_config_default. A capture runs the host code once on stubs, which a
 * correct program does in well under a second: however long a replay may take, a capture gets
 * at most RUNNER_CAPTURE_MAX_S. */
#define RUNNER_BUILD_TIMEOUT_S 300
#define RUNNER_REPLAY_TIMEOUT_S 60
#define RUNNER_CAPTURE_MAX_S 30
/* A replay's limit for the kit's own tools a person waits for (diagnose's checked replay, whose
 * checks cost about ten times a plain run; bench's timing of the reference); the CPU backend's
 * limits grow with the dataset's work past this. */
#define RUNNER_TOOL_REPLAY_TIMEOUT_S 600

#define RUNNER_SLOT_UID_BASE 61000
#define RUNNER_MAX_SLOTS 256
#define RUNNER_SLOT_OWN (-1)
#define RUNNER_MAX_SOURCE_BYTES (1u << 20)  /* the submission's files together */
#define RUNNER_MAX_SOURCE_FILES 64
#define RUNNER_OUTPUT_CAP (64u * 1024)      /* bytes kept of a child's stdout and of stderr */
/* The CPU backend's time limit grows with the work: a replay may take twice what the lab's
 * reference needs, RUNNER_CPU_REFERENCE_PER_MAC thread-instructions per multiply-add (the kit's
 * tiled and naive references run 4 to 8), at RUNNER_CPU_RATE_FLOOR of them per second (one slow
 * core), when that is more than --timeout. A dataset that would need more than
 * RUNNER_CPU_MAX_SECONDS is not started. */
#define RUNNER_CPU_REFERENCE_PER_MAC 8.0
#define RUNNER_CPU_RATE_FLOOR 2e8
#define RUNNER_CPU_MAX_SECONDS 7200.0
/* The CPU backend also stops a launch that runs far more thread instructions than the reference
 * would: REPLAY_CPU_SLOWDOWN (100) times RUNNER_CPU_REFERENCE_PER_MAC per multiply-add of the
 * dataset, plus RUNNER_CPU_LIMIT_PER_TILE_MAC per multiply-add of its sizes rounded up to whole
 * tiles of P of RUNNER_CPU_LIMIT_TILE and phases of RUNNER_CPU_LIMIT_PHASE (a fast kernel
 * computes whole tiles, lab 06's reference 128 x 256 in phases of 8, even where P has a single
 * row: at the smallest sizes that is most of its work, a fraction of an instruction per rounded
 * multiply-add, which 32 covers a hundred times), plus a floor for launch overheads
 * (REPLAY_LIMIT_FLOOR): the same on every machine, RUNNER_CPU_LIMIT_DEBUG_FACTOR times more with
 * -G (unoptimised code runs 32 to 64 per multiply-add). The limit is a backstop against endless
 * loops, not a speed test: a correct kernel doing up to a hundred times the reference's work
 * finishes, unless the time limit stops it first, and an endless loop on a 32^3 dataset is
 * stopped within seconds. Where the time limit stops a kernel, the replayer says whether its
 * loops were still making ordinary progress (REPLAY_CPU_SLOWDOWN). */
/* A launch may start more threads than the data has elements (inputs and result): a grid a
 * hundred times what the data needs, whose surplus blocks load zeros past the edges and store
 * nothing, is correct, and each surplus thread costs about what a thread of the reference
 * does. So the limit for a verdict is multiplied by how many times more threads the call's
 * widest launch starts than the data has elements (runner_thread_scale), up to
 * RUNNER_CPU_LIMIT_MAX_THREAD_SCALE (a hundredfold grid of 1024-thread blocks on a 1x1x1
 * product is 34 133 times its 3 elements). It never lengthens the time limit: a grid made huge
 * to widen the limit buys an endless loop no more time than --timeout, only a stop by the
 * clock instead of by the count, and a CPU-backend verdict is never better than a GPU's (which
 * has only the clock). The performance model's counts (a slowdown given) get no such scale: a
 * kernel doing that much more work than the reference earns no speed points anyway. */
#define RUNNER_CPU_LIMIT_MAX_THREAD_SCALE 65536.0
#define RUNNER_CPU_LIMIT_PER_TILE_MAC 32.0
#define RUNNER_CPU_LIMIT_TILE 256
#define RUNNER_CPU_LIMIT_PHASE 64
#define RUNNER_CPU_LIMIT_DEBUG_FACTOR 8.0

/* Defaults: the backend given, sandbox on, a slot of this process's own, timeouts 300 s build,
 * 30 s capture, 60 s replay, 10 repetitions on a GPU and 3 on the CPU backend. */
void runner_config_default(runner_config *c, runner_backend backend);
/* A replay's time limit, and the capture's that follows from it (the same, at most
 * RUNNER_CAPTURE_MAX_S). */
void runner_config_set_timeout(runner_config *c, int replay_timeout_s);
/* Seconds each further dataset of a `run` gets once one has timed out: a kernel that hangs once
 * most likely hangs again, and a lab kernel that works takes milliseconds on a GPU (the CPU
 * backend's limits grow with the work past this). A grading gives every dataset the same
 * limit, so that no dataset's verdict depends on the one before it. */
#define RUNNER_TIMEOUT_AFTER_A_TIMEOUT_S 10
/* Lowers c's replay limit to RUNNER_TIMEOUT_AFTER_A_TIMEOUT_S after a timeout (never raises
 * it): true when it did. */
bool runner_config_after_timeout(runner_config *c);

/* ---- worker slots ------------------------------------------------------------------------- */
/* With root, a worker's builds and captures run as its slot's user, and that user's process
 * limit is the slot's. Processes that run at once on one host (gradings, Slurm tasks sharing a
 * node, `run`s) must not share a slot, or one's sandboxes starve another's ("bwrap: Can't
 * fork"): slots are leased host-wide, a lock file per slot under the folder
 * runner_slot_lock_dir() names (RUNNER_SLOT_LOCK_DIR, or $TILELAB_SLOT_LOCKS), held with flock
 * while the leasing process or a worker it forked lives. A process that ends, however it ends,
 * frees its slots. */
#define RUNNER_SLOT_LOCK_DIR "/run/lock/tilelab-slots"
typedef struct runner_slots {
    int count;
    int slot[RUNNER_MAX_SLOTS];
    int fd[RUNNER_MAX_SLOTS]; /* the held lock files (close-on-exec) */
} runner_slots;

const char *runner_slot_lock_dir(void);
/* Leases up to `wanted` slots no other process holds and returns how many it got: fewer where
 * the host's other processes hold the rest; where all are held it waits for one. 0, with *why
 * filled, where the lock folder cannot be used. */
int runner_slots_lease(runner_slots *s, int wanted, char *why, size_t why_size);
void runner_slots_release(runner_slots *s);
/* This process's own slot, leased at the first call (a config's RUNNER_SLOT_OWN). */
int runner_own_slot(void);

/* Whether bubblewrap works here; when not, *why says what is missing. */
bool runner_sandbox_available(char *why, size_t size);
/* One line for reports: what the sandbox does here. */
void runner_sandbox_describe(const runner_config *c, char *out, size_t size);

/* ---- build -------------------------------------------------------------------------------- */
#define RUNNER_MAX_INCLUDES 64
#define RUNNER_NOTES_MAX 512

typedef struct runner_program {
    char dir[PATH_MAX];        /* cache folder */
    char capture[PATH_MAX];    /* the capture program */
    char ptx[PATH_MAX];        /* the module's PTX (CPU backend, parameter sizes) */
    char image[PATH_MAX];      /* the module's GPU image (cubin) */
    /* The preprocessed device code that came from the submission's own files, macros expanded,
     * each stretch behind a line marker `# LINE "NAME"` (runner/src/runner_own_code.h); missing
     * when it was too large to keep */
    char own_code[PATH_MAX];
#define RUNNER_OWN_CODE_MAX_BYTES (16u << 20) /* macros may expand the files' 1 MiB */
    char headers[PATH_MAX];    /* the other headers the build read (the toolkit's, the system's,
                                  lab.h), one path a line as the compiler named them */
    char source_name[NAME_MAX + 1];
    /* What the kit did so that the submission builds, for the student to read ("" or one line:
     * the runtime calls CUDA 13 removed that it calls, which harness/cuda_removed.h supplies);
     * run prints it, grade puts it in the feedback's note. */
    char notes[RUNNER_NOTES_MAX];
    bool cached;
    double seconds;
    /* The submission's own files the source includes, itself first (relative names): the
     * static checks read these. */
    int nfiles;
    char files[RUNNER_MAX_INCLUDES][NAME_MAX + 1];
} runner_program;

typedef struct runner_outcome {
    tl_verdict verdict;      /* pass when the step worked */
    char detail[768];        /* one line */
    char *messages;          /* nvcc's messages or the program's stderr (malloc'd, capped) */
} runner_outcome;

void runner_outcome_free(runner_outcome *o);

/* Builds `source`, a file in the submission folder `folder` (the student's own files: it may
 * include only those, the kit's lab.h and the toolkit's headers). The folder's regular files
 * are copied first (a symbolic link or a special file anywhere, or more than
 * RUNNER_MAX_SOURCE_BYTES, is refused); nvcc runs in the sandbox with nothing else visible.
 * `folder` NULL (run on a student's own file): the source and the headers beside it are copied,
 * anything else in its folder is left alone.
 * Returns 0 with outcome pass, build-failed or refused; -1 only when the kit failed. */
int runner_build(const runner_config *c, const char *folder, const char *source,
                 runner_program *out, runner_outcome *outcome);
/* The folder of the toolkit's headers the build compiles with (nvcc's own include folder). */
const char *runner_toolkit_headers(void);
/* A line marker as the preprocessor writes it (and runner_program.own_code has them),
 * `# 12 "name" flags`: its line and name (the escapes \\, \" and \ooo undone, cut to `size`).
 * False for any other line. */
bool runner_line_marker(const char *text, long *line, char *name, size_t size);

/* ---- capture ------------------------------------------------------------------------------ */
typedef struct runner_capture {
    caplog log;
    char work[PATH_MAX];     /* the runner's folder for this capture (removed by _free) */
    char log_path[PATH_MAX]; /* the log as written, for the replayer (runner-owned folder) */
    char *out, *err;         /* the host code's own output, capped */
} runner_capture;

/* Runs the capture program for the shapes (sandboxed, no GPU). Outcome pass: the log is
 * complete and read; refused, crash, timeout or bad-input otherwise. */
int runner_capture_run(const runner_config *c, const runner_program *p, const tl_size *shapes,
                       int nshapes, runner_capture *out, runner_outcome *outcome);
/* Runs a whole libwb program's capture (runner_config.program builds): its -i files are the
 * stubs 0, 1, ... in `stubs` (CAPLOG_STUB_MAGIC lines, written by the runner), -e the stub
 * "expected", -t `type`. Outcome pass: the log is complete and holds the program's answer;
 * refused (a refusal anywhere), wrong (it never called wbSolution), crash, timeout or bad-input
 * otherwise. */
int runner_capture_program(const runner_config *c, const runner_program *p, const char *stubs,
                           int ninputs, const char *type, runner_capture *cap,
                           runner_outcome *o);
void runner_capture_free(runner_capture *cap);

/* ---- labs graded as whole libwb programs ---------------------------------------------------- */
/* How the answer handed to wbSolution is judged. */
typedef enum runner_answer_rule {
    RUNNER_ANSWER_AS_IS = 0, /* the values handed to wbSolution, against the expected output */
    RUNNER_ANSWER_SUM,       /* their sum: a reduction's partial results, copied from the
                                device into the buffer handed to wbSolution, added up by the
                                grader (the program's own host loop is never believed) */
    RUNNER_ANSWER_RULES
} runner_answer_rule;

const char *runner_answer_rule_name(runner_answer_rule r);

/* A lab description (docs/libwb-compat.md): lab.json, e.g.
 *   {"name": "vector-add", "title": "Vector addition", "type": "vector", "tolerance": "libwb",
 *    "answer": "as-is", "inputs": ["input0.raw", "input1.raw"], "output": "output.raw",
 *    "datasets": "datasets", "rubric": "lab.rubric"}
 * type is the -t the program is run with (matrix, vector, integral_vector, histogram, image);
 * datasets and rubric (optional) are found beside the description. */
typedef struct runner_program_lab {
    char name[64], title[128];
    char type[32];
    tl_tolerance tolerance;
    runner_answer_rule answer;
    int ninputs;
    char inputs[CAPLOG_MAX_INPUTS][NAME_MAX + 1];
    char output[NAME_MAX + 1];
    char datasets[PATH_MAX];
    char rubric[PATH_MAX];   /* "" for the grader's default */
    char dir[PATH_MAX];      /* the description's folder */
} runner_program_lab;

/* Reads a description (`where`: a lab.json, or a folder holding one). Errors name the file, the
 * line (JSON syntax) or the key, and what was expected. */
int runner_program_lab_read(const char *where, runner_program_lab *lab, tl_error *err);
/* A lab as the commands name it, one value whichever kind it is: one of the registry's matrix
 * labs (datagen.h's tl_lab), or a lab described by a lab.json, whose programs are graded whole.
 * run, diagnose, grade (grade_options), the Slurm task and export carry this value and ask it
 * what they need through the functions below (its name, datasets, rubric, performance size,
 * whether it has a template and a reference, how a whole program of it is run); none keeps a
 * matrix lab and a description side by side. */
typedef enum runner_lab_kind {
    RUNNER_LAB_MATRIX = 0,
    RUNNER_LAB_DESCRIBED
} runner_lab_kind;

typedef struct runner_lab {
    /* Read through the functions below (runner_lab_matrix, runner_lab_described). */
    runner_lab_kind kind;
    const tl_lab *matrix;         /* RUNNER_LAB_MATRIX; NULL otherwise */
    runner_program_lab described; /* RUNNER_LAB_DESCRIBED */
} runner_lab;

#define RUNNER_LAB_UNKNOWN 1
/* Resolves `name` as run, diagnose, grade and export take a lab: a lab's id, number or name
 * (tl_lab_find), else a lab.json or the folder holding one. Returns 0 with `out` filled;
 * RUNNER_LAB_UNKNOWN when nothing has that name (the caller lists the labs); -1 with err when
 * a description is there but cannot be read. */
int runner_lab_resolve(const char *name, runner_lab *out, tl_error *err);
/* The described lab of a resolved one, or NULL for a matrix lab. */
const runner_program_lab *runner_lab_described(const runner_lab *lab);
/* Its name as outputs give it: a matrix lab's id ("02-tiled"), or a described lab's name. */
const char *runner_lab_name(const runner_lab *lab);
/* Whether the kit ships the lab's files: a template (labs/ID/template.cu) and a reference solution
 * (solutions/ID/solution.cu) that performance is timed against; a described lab has neither. */
bool runner_lab_shipped(const runner_lab *lab);
/* Its datasets' folder: the kit's (ROOT/datasets/ID) or the description's. */
void runner_lab_datasets(const runner_lab *lab, const char *root, char *out, size_t size);
/* Its entry in the registry (datagen.h's tl_lab: host call, baseline, sizes, performance size,
 * goal checks), which a lab file's capture and replay follow; NULL for a described lab, whose
 * programs bring their own main and have none of these. */
const tl_lab *runner_lab_matrix(const runner_lab *lab);
/* A lab of the registry as a runner_lab (what runner_lab_resolve gives for its id). */
void runner_lab_of(const tl_lab *matrix, runner_lab *out);
/* A lab described by a lab.json (`where`: the file or its folder) as a runner_lab; as
 * runner_program_lab_read. */
int runner_lab_read(const char *where, runner_lab *out, tl_error *err);
/* The size of the performance dataset a grading makes: the registry's tl_lab.perf, or
 * RUNNER_PREDICT_SIZE cubed for a described lab (which has no reference to time against). */
tl_size runner_lab_perf_size(const runner_lab *lab);
/* The file that makes a folder one of its datasets: input0.raw, or a description's first input. */
const char *runner_lab_dataset_marker(const runner_lab *lab);
/* The rubric it is graded by where none is given: a description's own, else RUBRICS/ID.rubric
 * (RUBRICS/program.rubric for a described lab that names none). */
void runner_lab_rubric(const runner_lab *lab, const char *rubrics, char *out, size_t size);
/* The description a whole libwb program handed in for it is run by: a described lab's own; for
 * a matrix lab, type matrix, its error bound, input0.raw and input1.raw, output.raw, in
 * `datasets`. */
void runner_lab_whole(const runner_lab *lab, const char *datasets, runner_program_lab *out);
/* Whether a source file defines main (a whole program rather than a lab file): "main" then
 * "(" outside comments, strings and character constants, not after "." or "->" (a call of a
 * member). False for a file that cannot be read. */
bool runner_source_defines_main(const char *path);

/* What the CPU backend expects a whole program's launch to run: this many thread-instructions
 * per element of its inputs and answer (a scan or a convolution needs tens; a matrix lab's
 * program adds RUNNER_CPU_REFERENCE_PER_MAC per multiply-add). Its time limit allows twice that
 * at RUNNER_CPU_RATE_FLOOR, its instruction limit REPLAY_CPU_SLOWDOWN times it (times the
 * threads' scale, RUNNER_CPU_LIMIT_MAX_THREAD_SCALE), plus REPLAY_LIMIT_FLOOR. */
#define RUNNER_PROGRAM_REFERENCE_PER_ELEMENT 64.0

/* ---- replay and check -------------------------------------------------------------------- */
typedef struct runner_dataset {
    const char *dir;     /* a dataset folder (input0.raw, input1.raw, output.raw) */
    bool generated;      /* or inputs made from a seed, never written anywhere */
    uint64_t seed;
    tl_size size;
} runner_dataset;

/* A dataset loaded once, for all one judgement of it needs: the inputs the replayer is given,
 * their shape (the capture's), and the reference product with each element's error bound,
 * computed once, which checks every run's result and draws the map of a wrong P. A whole
 * program's generated matrix product (a matrix lab's performance dataset) is loaded as one too. */
typedef struct runner_loaded {
    runner_dataset from;  /* where it came from (a folder's path stays the caller's) */
    tl_size shape;
    tl_matrix A, B;
    tl_product_ref ref;
} runner_loaded;

/* A dataset's inputs and their reference product into `out`: the folder's files, or the inputs
 * made from the seed. -1 with err (naming the folder) when the files cannot be read or do not
 * form a product, out then holding nothing. runner_loaded_free either way. */
int runner_loaded_read(const runner_dataset *d, runner_loaded *out, tl_error *err);
void runner_loaded_free(runner_loaded *d);

typedef struct runner_replay_opts {
    bool time;                /* time the student's kernel (and lab 05's baseline) */
    bool baseline;            /* lab 05: also check and time the given baseline */
    const char *diagnose;     /* CPU backend: write the interpreter's findings here */
    bool launch_only;         /* lab 01: the kernel's launch call only, not the host side */
    int sample_blocks;        /* with diagnose: run only this many blocks of each launch,
                                 for the performance model's counts (the result is then not
                                 the product: its verdict means nothing); 0: all */
    bool sample_last;         /* sample only each call's last launch; those before run whole */
    uint64_t sample_seed;     /* which blocks: a grading's secret draw (ptx_env.sample_seed) */
    double slowdown;          /* CPU: a launch may run this many times the reference's work
                                 before the instruction limit stops it (0: REPLAY_CPU_SLOWDOWN,
                                 the backstop of a verdict; the model's counts need less) */
    double busy_ms;           /* CPU, with diagnose: the model's busy limits' time (0: none) */
    const char *save_output;  /* write the first run's P here (tilelab binary) */
    /* A profiler to run the replayer under (ncu ...; NULL-terminated), outside the sandbox
     * since it needs the GPU's counters; its output joins kernel_output. NULL: none. */
    char *const *wrapper;
} runner_replay_opts;

typedef struct runner_call_result {
    bool run;                 /* the call was asked for */
    tl_verdict verdict;
    char detail[768];
    tl_check_report check;    /* the first failing run's, or the first run's */
    int runs_checked;
    bool timed;
    bool emulated;            /* times are the interpreter's, not a GPU's */
    tl_stats ms;              /* the timed repetitions: min, median, max */
    /* On a GPU: its SM clock and throttle reasons around the timed set (clock.recorded false:
     * NVML was not there), and the least time the work can take at the device's peak fp32 rate
     * and DRAM bandwidth (floor_ms, 0: unknown); `implausible` when a repetition was faster
     * than that (gpu_timing.h). */
    gpu_clock_record clock;
    double floor_ms;
    bool implausible;
} runner_call_result;

typedef struct runner_result {
    tl_verdict verdict;       /* the submission's: its checked call and timed repetitions */
    char detail[768];
    char hint[640];           /* a hint for a wrong result; empty: none */
    tl_size shape;
    char device[128];
    runner_call_result calls[CAPLOG_CALL_KINDS];
    double gflops;            /* from the student's median time, 0 if untimed */
    char *kernel_output;      /* what the kernels printed (printf), capped; malloc'd */
    char *diagnosis;          /* an unsafe verdict's: the checks' findings, as diagnose's JSON
                                 (runner_safety); malloc'd, or NULL */
} runner_result;

/* Replays the captured work for one dataset and checks every result. Returns 0 with the
 * verdict in out (whatever it is: bad-input when the dataset cannot be read), -1 only when the
 * kit itself failed (err). */
int runner_replay(const runner_config *c, const runner_program *p, const runner_capture *cap,
                  const tl_lab *lab, const runner_dataset *d, const runner_replay_opts *opts,
                  runner_result *out, tl_error *err);
/* The same on a dataset already loaded. */
int runner_replay_loaded(const runner_config *c, const runner_program *p,
                         const runner_capture *cap, const tl_lab *lab, const runner_loaded *d,
                         const runner_replay_opts *opts, runner_result *out, tl_error *err);
void runner_result_free(runner_result *r);

/* One dataset of a lab graded as whole libwb programs (`p` built with c->program): the program
 * captured on stubs of the dataset's inputs, its recorded work replayed on the inputs as its
 * imports would have read them, every run's answer checked here against the dataset's expected
 * output by the lab's rule (tl_check_answer; the sum of the partial results for answer "sum").
 * `d` a dataset folder holding lab->inputs and lab->output, or a generated matrix product.
 * Judged by runner_judge's rule (the safety checks, then a replay where runner_replay_again
 * says so), written once for both. The verdict and the program call's results are in out
 * (calls[CAPLOG_CALL_PROGRAM]); returns
 * -1 only when the kit itself failed (err). */
typedef struct runner_program_opts {
    bool time;    /* time the kernels (warm-up and c->reps timed runs, every answer checked) */
    bool safety;  /* first replay on the CPU backend with the checks of diagnose on, where the
                     dataset has at most RUNNER_PROGRAM_SAFETY_MAX_ELEMENTS elements (and
                     RUNNER_SAFETY_MAX_MACS multiply-adds): a finding makes it unsafe */
    /* The performance model's counts instead (runner_program_predict): one replay on the CPU
     * backend writing the interpreter's counts here, a sample of `sample_blocks` blocks of
     * each launch (`sample_last`: of the last only); the answer's elements the sampled blocks
     * did not write come back as NaN. With sample_blocks 0, diagnose's report: every block
     * with every check on, the findings and counts written here, the verdict the answer's
     * (a finding does not make it unsafe: the report names each). NULL: none. */
    const char *diagnose;
    int sample_blocks;
    bool sample_last;
    uint64_t sample_seed;
    double slowdown; /* as runner_replay_opts.slowdown */
    double busy_ms;  /* as runner_replay_opts.busy_ms */
} runner_program_opts;
#define RUNNER_PROGRAM_SAFETY_MAX_ELEMENTS 4000000
/* How much more the checks' replay may take than a plain one (limits and time). */
#define RUNNER_PROGRAM_DIAGNOSE_SLOWDOWN 10

int runner_program_run(const runner_config *c, const runner_program *p,
                       const runner_program_lab *lab, const runner_dataset *d,
                       const runner_program_opts *opts, runner_result *out, tl_error *err);

/* Safety: the captured work for one dataset replayed on the CPU backend with every check of
 * the interpreter on (races, barrier divergence, out-of-bounds and host-pointer accesses, reads
 * of memory nothing wrote), whatever backend `c` names. The verdict is unsafe when a check
 * found something (detail: the first finding, "shared-memory race at FILE:LINE and LINE2"),
 * otherwise the replay's own. The findings come from the replayer, never from the
 * submission's code. The checked run's P goes to `save_output` (tilelab binary; NULL:
 * nowhere), as runner_replay_opts.save_output: a map of where a wrong or unsafe result is
 * wrong. Returns 0, or -1 when the kit itself failed (err). */
int runner_safety(const runner_config *c, const runner_program *p, const runner_capture *cap,
                  const tl_lab *lab, const runner_loaded *d, const char *save_output,
                  runner_result *out, tl_error *err);
/* The verdict a diagnosis (the interpreter's JSON `diag`, whose text `text` it takes, malloc'd)
 * gives a replay's result: unsafe, with the first finding as the detail and the text kept as
 * out->diagnosis, when the checks found anything; otherwise out is left as it is. */
struct cJSON;
void runner_safety_judge(char *text, const struct cJSON *diag, runner_result *out);

/* One finding of the interpreter's checks, as a diagnosis (its JSON, ptx_diag_write_json's
 * "findings", most severe first) gives it: the one reader of that list (runner_findings.c), for
 * the safety verdict, diagnose's report and a dataset's explanation. */
#define RUNNER_FINDING_DETAIL_MAX 512 /* above the interpreter's own (ptx/diag.h) */
typedef struct runner_finding {
    char kind[64];           /* "shared-memory race", "out-of-bounds global access", ... */
    char file[256];          /* the source file's own name, not where it was built */
    char kernel[128];        /* the kernel's name as the module has it (mangled) */
    int line, line2;         /* line2: a race's other access, 0 when none */
    double count;            /* how many times it was seen */
    bool has_where;          /* block and thread below are known */
    int block[3], thread[3]; /* where it was first seen */
    bool has_thread2;        /* a race's other thread */
    int thread2[3];
    bool baseline;           /* in lab 05's given baseline kernel, not the submission's */
    char detail[RUNNER_FINDING_DETAIL_MAX]; /* what happened and what is missing */
} runner_finding;
/* How many findings the diagnosis `diag` (parsed; NULL: none) holds. */
int runner_findings_count(const struct cJSON *diag);
/* Finding i (0: the most severe); false when there is none. A field that is missing or of
 * another type reads as empty or 0. */
bool runner_finding_get(const struct cJSON *diag, int i, runner_finding *out);
/* Datasets up to this many multiply-adds get the safety checks: every shipped one and the
 * grader's `safety` dataset (the checks cost about ten times a plain CPU-backend replay). */
#define RUNNER_SAFETY_MAX_MACS 2e7
bool runner_safety_applies(tl_size s);
/* Whether a verdict of the checked replay is the submission's doing (a finding, a wrong
 * result, a crash, a refusal, a deadlock the interpreter found) and so final on every backend:
 * a kernel that crashed only under the checks could otherwise hide a race from them. A timeout
 * is not: the CPU backend's instruction and time limits are backstops against endless loops,
 * and on a GPU the GPU's own run decides (a kernel that never ends times out there too); the
 * checks are then incomplete for the dataset (runner_safety_incomplete). */
bool runner_safety_final(tl_verdict v);
/* Adds to the detail of the replay that followed a checked replay which timed out that the
 * checks did not see the whole run. */
void runner_safety_incomplete(runner_result *out);
/* Whether a dataset is replayed again after its checked replay gave `checked`: never when that
 * verdict is final (runner_safety_final); always on a GPU, whose own run decides; on the CPU
 * backend, which the checked replay already ran on, only when more is asked of the replay than
 * a check (`more`: timing, lab 05's baseline) and the checked replay did not time out (a plain
 * replay has the same limits). So `run --no-time` and `grade` judge a dataset by the same
 * replays on either backend. Lab files and whole programs both follow it. */
bool runner_replay_again(runner_backend b, bool more, tl_verdict checked);

/* ---- the judge ------------------------------------------------------------------------------ */
typedef struct runner_judge_opts {
    bool safety;             /* the checks first where runner_safety_applies (grade: always) */
    bool time;               /* time the call (run; a grading times its performance dataset) */
    bool baseline;           /* lab 05: also check and time the given baseline */
    const char *save_output; /* the P of the replay that gave the verdict (tilelab binary, for a
                                map); removed first, so a file there afterwards is this one's */
    /* diagnose's report instead: one replay on the CPU backend with every check on, whatever
     * c names, the findings written here (the interpreter's JSON) and the verdict the replay's
     * own (a finding is reported, not judged). NULL: the verdict as above. */
    const char *diagnose;
} runner_judge_opts;

/* One dataset judged as every command judges it: the safety checks where they apply, whose
 * verdict is final when it blames the submission (runner_safety_final); then, where
 * runner_replay_again says so, the replay on c's backend (timed when asked, with lab 05's
 * baseline), noting after a checked replay that timed out that the checks are incomplete
 * (runner_safety_incomplete). run, diagnose (opts->diagnose), bench, grade and the Slurm task
 * call this and only format its result. Returns 0 with the verdict in out, -1 only when the kit itself
 * failed (err, also out->detail). */
int runner_judge(const runner_config *c, const runner_program *p, const runner_capture *cap,
                 const tl_lab *lab, const runner_loaded *d, const runner_judge_opts *opts,
                 runner_result *out, tl_error *err);
/* A predicted H100 time (perfmodel/) of one call's launches together. */
typedef struct runner_prediction {
    bool ok;
    /* The counts stopped at a busy limit (runner_model_run.busy_ms): the time is known to be
     * longer than `ms`, which is that limit; detail says what proved it. */
    bool slower;
    double ms, gflops;
    pm_bound bound;      /* of its longest launch */
    int launches, blocks_per_sm, registers; /* the longest launch's residency and registers */
    char detail[256];    /* why there is none, when !ok */
} runner_prediction;

/* The model's inputs are counted on a sample of each launch's blocks: RUNNER_MODEL_SAMPLE_BLOCKS
 * of them, drawn by a seed (ptx_env.sample_seed), on a generated dataset. In a grading both
 * are fresh and secret (the performance dataset's seed, and a draw of the grader's own), so a
 * kernel can neither recognise its inputs nor tell whether a block of its is sampled; run,
 * diagnose and bench use the fixed RUNNER_MODEL_SEED for both, and give the same figures every
 * time. */
#define RUNNER_MODEL_SAMPLE_BLOCKS 32
#define RUNNER_MODEL_SEED 20261124u
typedef struct runner_model_run {
    runner_dataset data; /* generated: the inputs the counts are taken on, and their size */
    uint64_t sample_seed;
    /* How many times the reference's work the counted launches may run (runner_replay_opts):
     * a kernel slower than a rubric pays any points for earns none, so counting need not go
     * further (the grader: twice 1 / performance_zero); 0: RUNNER_MODEL_SLOWDOWN. */
    double slowdown;
    /* The time past which counting stops (perfmodel's pm_busy_limits): once one warp or block
     * provably keeps an H100 busy longer, the launch is predicted "slower than" it. The grader:
     * where its rubric gives no points even with the model's margin; 0: RUNNER_MODEL_SLOWDOWN
     * times the reference's least issue time at the size (runner_model_busy_ms). */
    double busy_ms;
} runner_model_run;
/* The counts' limit where no rubric says: twice what the kit's rubrics' lowest performance_zero
 * (0.1, lab 06's log curve) allows. */
#define RUNNER_MODEL_SLOWDOWN 20.0
/* ... and never more than a verdict's backstop allows (REPLAY_CPU_SLOWDOWN). */
#define RUNNER_MODEL_SLOWDOWN_MAX 100.0
/* RUNNER_MODEL_SEED's inputs of this size and its draw. */
runner_model_run runner_model_fixed(tl_size size);
/* The busy limit's time of `m` (its busy_ms, or the default above). */
double runner_model_busy_ms(const runner_model_run *m);
/* The size `run` predicts at where no lab names one (each lab's is its tl_lab.perf, the
 * grader's performance size). */
#define RUNNER_PREDICT_SIZE 2048

/* The H100 time of a whole program's kernels on the generated matrix product `d` (a matrix
 * lab's performance dataset), predicted as runner_predict predicts a lab file's: 0 with out set
 * (ok false and why when there is no prediction), -1 when the kit failed. */
int runner_program_predict(const runner_config *c, const runner_program *p,
                           const runner_program_lab *lab, const runner_model_run *d,
                           runner_prediction *out, tl_error *err);
/* The H100 time of the student's call at `size`, predicted from the CPU backend's counts
 * (out[0]), and with `baseline` (lab 05) the baseline's (out[1]). `counts` (may be NULL): the
 * launches' counts and predictions as a JSON array (malloc'd; the baseline's follow the
 * student's). Returns 0 (out[i].ok false with the reason when the kernel stopped, hung or was
 * refused), -1 when the kit failed. */
int runner_predict(const runner_config *c, const runner_program *p, const runner_capture *cap,
                   const tl_lab *lab, tl_size size, bool baseline, runner_prediction out[2],
                   char **counts, tl_error *err);
/* The same on the inputs and draw `m` (a grading's: runner_model_run). */
int runner_predict_on(const runner_config *c, const runner_program *p, const runner_capture *cap,
                      const tl_lab *lab, const runner_model_run *m, bool baseline,
                      runner_prediction out[2], char **counts, tl_error *err);

/* A timed call's figures into `o`: reps, median_ms, min_ms, max_ms, emulated, and on a GPU the
 * clock record (or "clock": "not recorded"), floor_ms and implausible. */
struct cJSON;
void runner_timing_add(struct cJSON *o, const runner_call_result *c);
/* The result as JSON (the shape `run --json` prints per dataset); NULL when memory runs out. */
struct cJSON *runner_result_json(const runner_result *r, const char *dataset_name);

#ifdef __cplusplus
}
#endif

/* Building a lab's .cu file into a lab program (the harness's main), for bench. */
#include "runner_lab_build.h"

#endif /* TILELAB_RUNNER_H */
