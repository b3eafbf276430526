/* Inside the runner: the judge's rule, written once for both kinds of work it judges, a lab
 * file's captured calls (runner_judge) and a whole libwb program's run (runner_program_run). */
#ifndef TILELAB_RUNNER_JUDGE_H
#define TILELAB_RUNNER_JUDGE_H

#include "runner.h"

/* The two replays a dataset may get, as the caller does them. */
typedef struct runner_judge_steps {
    bool checks;  /* the safety checks apply to this dataset */
    bool more;    /* more is asked of the replay than a check (timing, lab 05's baseline) */
    /* The replay on the CPU backend with every check on, and the plain one on the configured
     * backend: 0 with the verdict in out, -1 when the kit failed (err). */
    int (*checked)(void *ctx, runner_result *out, tl_error *err);
    int (*plain)(void *ctx, runner_result *out, tl_error *err);
    /* Sets the checked replay's result aside (and whatever it left) before the plain one. */
    void (*forget)(void *ctx, runner_result *out);
    void *ctx;
} runner_judge_steps;

/* The checked replay where the checks apply, whose verdict is final when it blames the
 * submission; then, where runner_replay_again says so, the plain replay, whose detail says the
 * checks were incomplete after a checked replay that timed out. Returns as the steps do. */
int runner_judge_apply(runner_backend b, const runner_judge_steps *s, runner_result *out,
                       tl_error *err);

#endif /* TILELAB_RUNNER_JUDGE_H */
