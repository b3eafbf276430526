/* Inside the runner: starting tilelab-replay, shared by the replay of lab calls
 * (runner_replay.c) and of whole programs (runner_program.c). */
#ifndef TILELAB_RUNNER_EXEC_H
#define TILELAB_RUNNER_EXEC_H

#include "runner.h"

/* Runs the replayer's command `cmd` in the sandbox (the replayer, the toolkit, the program's
 * build `p`, the capture's folder and the runner's `work` folder visible, read-only; `writable`
 * (NULL: none) writable; the GPU's devices on the GPU backend), or bare under `wrapper` (a
 * profiler, NULL-terminated; NULL: none). The result descriptor's bytes go to on_result(ctx).
 * `timed` runs take the runner's turn on c->turns. Returns proc_run_spec's status. */
int runner_replay_exec(const runner_config *c, const runner_program *p, const char *cap_work,
                       const char *work, const char *writable, char *const *wrapper,
                       char *const *cmd, int timeout_s, bool timed,
                       void (*on_result)(void *ctx, const char *data, size_t n), void *ctx,
                       proc_result *r);

/* The seconds after which a CPU-backend replayer stops itself (--deadline), a little before the
 * runner's own time limit `timeout_s` would kill it: its report then says where the warps were
 * and whether their loops were making ordinary progress, which a kill cannot. */
double runner_replayer_deadline(int timeout_s);

/* How many times more threads than the data has elements (`elements`: inputs and result) the
 * widest launch of `call` starts, at least 1 and at most RUNNER_CPU_LIMIT_MAX_THREAD_SCALE: the
 * CPU backend's instruction limit for a verdict grows by it (runner.h). 1 for no call. */
double runner_thread_scale(const caplog_call *call, double elements);

/* Whether the lab gives a baseline kernel that a replay asking for it also checks and times
 * (lab 05's unpadded one): the judge replays again for it (runner_judge.c). */
bool runner_lab_has_baseline(const tl_lab *lab);

#endif /* TILELAB_RUNNER_EXEC_H */
