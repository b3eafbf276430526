/* The replayer's two backends: the GPU (through the CUDA runtime's library API) and the PTX
 * interpreter. replay_main.c does the recorded work through this interface; a backend only
 * knows how to move bytes and launch a kernel by name. */
#ifndef TILELAB_REPLAY_H
#define TILELAB_REPLAY_H

#include "capture_log.h"
#include "gpu_timing.h"
#include "ptx.h"
#include "replay_protocol.h"

/* A device address: a GPU pointer, or a host address of the interpreter's device memory. */
typedef uint64_t replay_addr;

typedef struct replay_device replay_device;

/* How a failed call should be judged. */
typedef enum replay_failure {
    REPLAY_CRASH = 1,     /* the kernel faulted, or the GPU refused a launch */
    REPLAY_BAD_MODULE,    /* the module image or PTX cannot be loaded */
    REPLAY_UNSUPPORTED,   /* the backend cannot run what the kernel asks for */
    REPLAY_TIMEOUT,       /* the CPU backend stopped a launch at its instruction limit or at
                             the time limit (--deadline) */
    REPLAY_INTERNAL       /* out of memory, no device: not the submission's fault */
} replay_failure;

typedef struct replay_module {
    const char *ptx, *image;        /* module text and GPU image (paths) */
    const ptx_outline *outline;
    const char *diagnose;           /* CPU: write the diagnosis here (NULL: plain run) */
    uint64_t sample_blocks;         /* CPU, with diagnose: blocks run per launch (0: all) */
    uint64_t sample_seed;           /* which: the grader's secret draw (ptx_env.sample_seed) */
    uint64_t instruction_limit;     /* CPU: thread instructions a launch may run (0: no limit) */
    uint64_t deadline_ns;           /* CPU: when a launch still running is stopped (CLOCK_MONOTONIC;
                                       0: never) */
    double work_macs;               /* CPU: the dataset's multiply-adds, for what loop trips are
                                       ordinary (0: unknown) */
    uint64_t busy[3];               /* CPU: ptx_env's max_warp_issue, max_block_issue and
                                       max_block_wavefronts (0: none) */
} replay_module;

/* One timed launch sequence, with what must happen before it outside the timed region. */
typedef void (*replay_step)(void *ctx, int rep);

/* A backend's name is its row's in runner_backend.h (runner_backend_name), never its own. */
typedef struct replay_backend {
    /* Opens the device and loads the module; -1 with *why set and err filled. */
    int (*open)(const replay_module *m, replay_device **out, replay_failure *why, tl_error *err);
    void (*close)(replay_device *d);
    void (*device_name)(replay_device *d, char *out, size_t size);
    /* New device memory holds the NaN pattern (all-ones bytes), never zeros. `name` says what
     * it is in the messages of the checks ("M (64x64 floats, 16384 bytes)", at most
     * REPLAY_MAX_NAME bytes); NULL for the submission's own cudaMallocs, which are named by
     * their order among them. */
    int (*alloc)(replay_device *d, uint64_t bytes, const char *name, replay_addr *out,
                 tl_error *err);
    int (*upload)(replay_device *d, replay_addr dst, const void *src, uint64_t bytes, tl_error *err);
    int (*download)(replay_device *d, void *dst, replay_addr src, uint64_t bytes, tl_error *err);
    int (*fill)(replay_device *d, replay_addr dst, int value, uint64_t bytes, tl_error *err);
    /* The NaN pattern again, as memory nothing has written yet (the replayer's own doing, so
     * under diagnosis a read of it is still a read of memory the submission never wrote). */
    int (*poison)(replay_device *d, replay_addr dst, uint64_t bytes, tl_error *err);
    int (*copy)(replay_device *d, replay_addr dst, replay_addr src, uint64_t bytes, tl_error *err);
    /* args[i] points to parameter i's bytes. Launch failures are crashes. */
    int (*launch)(replay_device *d, const char *kernel, const caplog_launch *l, void **args,
                  tl_error *err);
    /* Waits for queued work; a fault shows here on a GPU. */
    int (*sync)(replay_device *d, tl_error *err);
    /* Copies every module variable aside / back, so each repetition starts from the state the
     * module was loaded with. */
    int (*save_variables)(replay_device *d, tl_error *err);
    int (*restore_variables)(replay_device *d, tl_error *err);
    /* Runs `warmup` untimed then `reps` timed repetitions of step(ctx, rep), each after
     * before(ctx, rep) (outside the timing; warm-ups get rep -1 - i); ms[rep] is each timed
     * repetition's time. `emulated` says the times are not a GPU's. A GPU records its clock
     * around the set in `clock` (a throttled set is timed once more, gpu_timing.h) and its
     * peak rates in `peaks`; the CPU backend leaves both zero. */
    int (*time)(replay_device *d, int warmup, int reps, replay_step before, replay_step step,
                void *ctx, double *ms, bool *emulated, gpu_clock_record *clock, gpu_peaks *peaks,
                tl_error *err);
    /* The last failure's kind, when a call above returned -1. */
    replay_failure (*failure)(replay_device *d);
    /* CPU, with --sample-blocks: whether the next launches run a sample of their blocks (the
     * call's last launch, which makes P) or all of them (launches before it make what it
     * reads). NULL where there is no sampling. */
    void (*set_sampling)(replay_device *d, bool on);
    /* CPU, with diagnose: whether the next launches are lab 05's given baseline's, whose
     * findings and figures the diagnosis keeps apart from the submission's. NULL elsewhere. */
    void (*set_baseline)(replay_device *d, bool on);
    /* Writes `bytes` at `offset` of the module variable `name` (a program's cudaMemcpyToSymbol):
     * from `src`, or, when `src` is NULL, the byte `value` repeated. */
    int (*write_variable)(replay_device *d, const char *name, uint64_t offset, const void *src,
                          int value, uint64_t bytes, tl_error *err);
    /* CPU, with diagnose: what last wrote each byte of [src, src+bytes) (PTX_HELD_*: nothing, a
     * memset, an upload, a kernel), into out; a device-to-device copy carries its source's.
     * NULL elsewhere. */
    int (*held)(replay_device *d, replay_addr src, uint64_t bytes, uint8_t *out, tl_error *err);
    /* CPU, with diagnose: from now on each block's stores into the allocation holding
     * [a, a+bytes) (an answer's memory) are counted, once per 4-byte word, in the diagnosis's
     * samples. NULL elsewhere. */
    int (*count_stores)(replay_device *d, replay_addr a, uint64_t bytes, tl_error *err);
} replay_backend;

#define REPLAY_MAX_NAME 96

/* A whole file of at most `max` bytes (malloc'd, NUL-terminated), or NULL with err filled. */
char *replay_read_file(const char *path, size_t max, size_t *len, tl_error *err);
#define REPLAY_MAX_MODULE (64u << 20)

/* Which words of a download are taken as the device's work (replay_keep_computed). */
typedef enum replay_keep {
    REPLAY_KEEP_STORED,    /* what a kernel stored: a sampled run's result, where a memset or
                              a copy into P must not pass for the sampled blocks' work */
    REPLAY_KEEP_NOT_INPUT  /* anything but bytes copied from an input: a reduction's partial
                              results, which an input copied back would add up to the answer */
} replay_keep;

/* After a download of `bytes` from `src` into `host` (CPU, with diagnose): each 4-byte word
 * (and the bytes past the last) that `keep` does not take becomes the NaN pattern. */
int replay_keep_computed(const replay_backend *be, replay_device *dev, replay_addr src,
                         void *host, uint64_t bytes, replay_keep keep, tl_error *err);

/* Launches a recorded kernel, its pointer parameters relocated by address_of(ctx, ref). */
int replay_launch(const replay_backend *be, replay_device *dev, const caplog *log,
                  const caplog_launch *l, replay_addr (*address_of)(const void *ctx, caplog_ref),
                  const void *ctx, tl_error *err);
/* The device memory a call's own cudaMallocs may hold together, on every backend: an H100
 * has far more, but the CPU backend holds it in the grader's memory, and a grade must mean the
 * same on both. The kit's labs need a few times their matrices at most. */
#define REPLAY_MAX_DEVICE_BYTES (UINT64_C(4) << 30)

/* Why a call cannot be replayed as recorded (a refusal, a capture cut short, a launch the
 * module or a GPU would refuse, more device memory than REPLAY_MAX_DEVICE_BYTES), or NULL. */
const char *replay_call_problem(const caplog *log, const ptx_outline *outline,
                                const caplog_call *c, char *why, size_t size);
/* Adds "timing" (reps, median, min, max, emulated, the samples; on a GPU its clock around the
 * set, or "not recorded", and its peak rates) to a call's item. */
struct cJSON;
void replay_add_timing(struct cJSON *item, const double *ms, int reps, bool emulated,
                       const gpu_clock_record *clock, gpu_peaks peaks);
/* A failed call's status: crash, bad-input, unsupported, timeout or error. */
replay_status replay_failure_status(replay_failure f);
/* Adds a call's (or the result's) "status", by its name, and its one-line "detail". */
void replay_add_status(struct cJSON *item, replay_status s, const char *detail);

/* A program call (tilelab-replay --program DIR): the whole run, checked and timed. */
typedef struct replay_program_opts {
    const replay_backend *be;
    replay_device *dev;
    const caplog *log;
    const ptx_outline *outline;
    const char *inputs;   /* folder of hI0, hI1, ...: each input's bytes as the program got them */
    int fd;               /* the result descriptor */
    bool time;
    int warmup, reps;
    /* CPU, with --sample-blocks: the launches run a sample of their blocks (all of them, or
     * with `sample_last` only the last, the launches before it making what it reads); what the
     * launches left unchanged in the memory the answer is copied from comes back as NaN. */
    bool sampled, sample_last;
    /* CPU, with diagnose: the answer must be the device's work: the words of it the program
     * copied from an input come back as NaN (a reduction's partial results, summed by the
     * runner, could otherwise be the input itself). */
    bool answer_computed;
} replay_program_opts;

/* Replays the log's program call; sends one answer frame per run and adds the call's item to
 * `calls`. */
struct cJSON;
void replay_program(const replay_program_opts *o, struct cJSON *calls);
/* Writes all of `data` to fd: 0, or -1 with errno set. */
int replay_write_all(int fd, const void *data, size_t n);
/* The same, or ends the replayer (status 3) when the runner stopped listening. */
void replay_send(int fd, const void *data, size_t n);

extern const replay_backend replay_gpu_backend;
extern const replay_backend replay_cpu_backend;

#endif /* TILELAB_REPLAY_H */
