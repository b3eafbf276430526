/* The judge: one dataset through the policy every command applies to it, so that `run`,
 * `diagnose`, `bench` and `grade` give a dataset the same verdict and detail. The safety checks
 * first, then the replay on the configured backend where it can still change the verdict. */
#include "runner_exec.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool runner_replay_again(runner_backend b, bool more, tl_verdict checked)
{
    if (runner_safety_final(checked))
        return false;
    if (b == RUNNER_GPU)
        return true;
    return more && checked != TL_VERDICT_TIMEOUT;
}

static int kit_failed(const tl_error *err, runner_result *out)
{
    snprintf(out->detail, sizeof out->detail, "%s", err->msg);
    return -1;
}

/* A P left by a replay whose verdict was not kept is not the dataset's. */
static void forget_output(const runner_judge_opts *opts)
{
    if (opts->save_output)
        unlink(opts->save_output);
}

int runner_judge(const runner_config *c, const runner_program *p, const runner_capture *cap,
                 const tl_lab *lab, const runner_loaded *d, const runner_judge_opts *opts,
                 runner_result *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    forget_output(opts);
    bool incomplete = false;
    if (opts->safety && runner_safety_applies(d->shape)) {
        if (runner_safety(c, p, cap, lab, d, opts->save_output, out, err) != 0)
            return kit_failed(err, out);
        bool more = opts->time || (opts->baseline && runner_lab_has_baseline(lab));
        if (!runner_replay_again(c->backend, more, out->verdict))
            return 0;
        incomplete = out->verdict == TL_VERDICT_TIMEOUT;
        runner_result_free(out);
        forget_output(opts);
    }
    runner_replay_opts ro = {.time = opts->time, .baseline = opts->baseline,
                             .save_output = opts->save_output};
    if (runner_replay_loaded(c, p, cap, lab, d, &ro, out, err) != 0)
        return kit_failed(err, out);
    if (incomplete)
        runner_safety_incomplete(out);
    return 0;
}
