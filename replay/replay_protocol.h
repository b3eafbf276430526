/* What the replayer sends back to the runner, on the descriptor given by --result-fd (never
 * stdout, where the kernels' printf output goes):
 *
 *   output NAME ROWS COLS\n   then ROWS*COLS float32 values (little-endian bytes): one result
 *                             matrix, exactly as the kernels left it
 *   answer program:RUN BYTES\n then BYTES bytes: a program call's hO after one run (check,
 *                             warmup0..., rep0...), exactly as its downloads left it
 *   result JSON\n             the replay's summary, last: the device, per call its status
 *                             (ok, crash, refused, unsupported, missing, bad-input, error), a
 *                             one-line detail and the timings
 *
 * NAME is CALL:RUN, CALL one of launch, host, baseline and RUN one of check (the first run),
 * warmup0..., rep0... (the timed repetitions, in order). The replayer holds no expected output:
 * the runner checks every matrix it receives. */
#ifndef TILELAB_REPLAY_PROTOCOL_H
#define TILELAB_REPLAY_PROTOCOL_H

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

#endif /* TILELAB_REPLAY_PROTOCOL_H */
