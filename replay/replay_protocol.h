/* What the replayer sends back to the runner, on the descriptor given by --result-fd (never
 * stdout, where the kernels' printf output goes):
 *
 *   output NAME ROWS COLS\n   then ROWS*COLS float32 values (little-endian bytes): one result
 *                             matrix, exactly as the kernels left it
 *   answer program:RUN BYTES\n then BYTES bytes: a program call's hO after one run (check,
 *                             warmup0..., rep0...), exactly as its downloads left it
 *   result JSON\n             the replay's summary, last: the device, its status and, per
 *                             call, its status (replay_status, by its name), a one-line detail
 *                             and the timings
 *
 * NAME is CALL:RUN, CALL one of launch, host, baseline and RUN one of check (the first run),
 * warmup0..., rep0... (the timed repetitions, in order). The replayer holds no expected output:
 * the runner checks every matrix it receives. */
#ifndef TILELAB_REPLAY_PROTOCOL_H
#define TILELAB_REPLAY_PROTOCOL_H

#include "runner.h"

#define REPLAY_FRAME_OUTPUT "output"
#define REPLAY_FRAME_RESULT "result"
#define REPLAY_FRAME_ANSWER "answer"
#define REPLAY_MAX_HEADER 256
#define REPLAY_MAX_RESULT (1u << 20)
/* The least instruction limit (--instruction-limit) of a CPU-backend launch; runner.h's
 * RUNNER_CPU_REFERENCE_PER_MAC says the rest: what tiny sizes' launch overheads need, and what
 * a sampled launch's few blocks get at least. */
#define REPLAY_LIMIT_FLOOR 1e7
/* How many times the reference's work a correct kernel may do on the CPU backend: the
 * instruction limit allows this much (the limit is a backstop against endless loops, not a
 * speed test), and at the time limit (--deadline) a warp whose loop trips are within this many
 * times its share of the multiply-adds (--work-macs over the launch's threads), plus
 * REPLAY_ORDINARY_TRIPS_FLOOR, is reported as still making ordinary progress. */
#define REPLAY_CPU_SLOWDOWN 100.0
#define REPLAY_ORDINARY_TRIPS_FLOOR 4096.0

/* How a call (or the replay as a whole, before any call) ended: one row per status in
 * replay_status.c, by whose names the replayer writes it and the runner reads it back. */
typedef enum replay_status {
    REPLAY_STATUS_OK = 0,
    REPLAY_STATUS_CRASH,       /* the kernel faulted, or the GPU refused a launch */
    REPLAY_STATUS_BAD_INPUT,   /* a capture log, module or dataset that cannot be read */
    REPLAY_STATUS_UNSUPPORTED, /* the backend cannot run what the kernel asks for */
    REPLAY_STATUS_TIMEOUT,     /* the CPU backend stopped a launch at one of its limits */
    REPLAY_STATUS_MISSING,     /* the capture has no such call */
    REPLAY_STATUS_UNANSWERED,  /* the program ran but never handed in its answer (wbSolution) */
    REPLAY_STATUS_REFUSED,     /* the call cannot be replayed as recorded (replay_call_problem) */
    REPLAY_STATUS_ERROR,       /* the kit's own failure: out of memory, no device */
    REPLAY_STATUS_COUNT
} replay_status;

/* "ok", "crash", "bad-input", "unsupported", "timeout", "missing", "unanswered", "refused",
 * "error". */
const char *replay_status_name(replay_status s);
/* A status by its name; anything else (or NULL) is REPLAY_STATUS_ERROR: a result the runner
 * cannot read is the kit's failure, never a pass. */
replay_status replay_status_parse(const char *name);
/* The verdict a call with this status gets before its results are checked (ok: pass). */
tl_verdict replay_status_verdict(replay_status s);

#endif /* TILELAB_REPLAY_PROTOCOL_H */
