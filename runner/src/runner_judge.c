/* The judge: a dataset loaded once, and the policy every command applies to it, so that `run`,
 * `diagnose`, `bench` and `grade` give a dataset the same verdict and detail. The safety checks
 * first, then the replay on the configured backend where it can still change the verdict. */
#include "runner_exec.h"
#include "runner_judge.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the dataset and its reference ------------------------------------------------------- */

/* The folder's files, or the inputs made from the seed; A, B and ref the caller's to free, on
 * failure too. */
static int load(const runner_dataset *d, tl_matrix *A, tl_matrix *B, tl_product_ref *ref,
                tl_error *err)
{
    memset(A, 0, sizeof *A);
    memset(B, 0, sizeof *B);
    if (d->generated) {
        if (tl_matrix_alloc(A, d->size.m, d->size.k, err) != 0 ||
            tl_matrix_alloc(B, d->size.k, d->size.n, err) != 0)
            return -1;
        tl_fill_inputs(d->seed, 0, d->size, A, B);
        return tl_product_ref_init(ref, A, B, NULL, 0, err);
    }
    char path[PATH_MAX];
    tl_matrix E = {0, 0, NULL};
    snprintf(path, sizeof path, "%.4000s/input0.raw", d->dir);
    if (tl_matrix_read(path, A, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%.4000s/input1.raw", d->dir);
    if (tl_matrix_read(path, B, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%.4000s/output.raw", d->dir);
    if (tl_matrix_read(path, &E, err) != 0) {
        tl_matrix_free(&E);
        return -1;
    }
    int rc = tl_product_ref_init(ref, A, B, &E, 0, err);
    tl_matrix_free(&E);
    if (rc != 0)
        tl_error_set(err, "%.300s: %.400s", d->dir, err->msg);
    return rc;
}

int runner_loaded_read(const runner_dataset *d, runner_loaded *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    out->from = *d;
    if (load(d, &out->A, &out->B, &out->ref, err) != 0) {
        runner_loaded_free(out);
        return -1;
    }
    out->shape = (tl_size){out->A.rows, out->A.cols, out->B.cols};
    return 0;
}

void runner_loaded_free(runner_loaded *d)
{
    tl_matrix_free(&d->A);
    tl_matrix_free(&d->B);
    tl_product_ref_free(&d->ref);
}

/* ---- the policy ----------------------------------------------------------------------------- */

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

int runner_judge_apply(runner_backend b, const runner_judge_steps *s, runner_result *out,
                       tl_error *err)
{
    bool incomplete = false;
    if (s->checks) {
        int rc = s->checked(s->ctx, out, err);
        if (rc != 0 || !runner_replay_again(b, s->more, out->verdict))
            return rc;
        incomplete = out->verdict == TL_VERDICT_TIMEOUT;
        s->forget(s->ctx, out);
    }
    int rc = s->plain(s->ctx, out, err);
    if (rc == 0 && incomplete)
        runner_safety_incomplete(out);
    return rc;
}

/* A lab file's dataset, as runner_judge's steps see it. */
typedef struct lab_judgement {
    const runner_config *c;
    const runner_program *p;
    const runner_capture *cap;
    const tl_lab *lab;
    const runner_loaded *d;
    const runner_judge_opts *opts;
} lab_judgement;

static int lab_checked(void *ctx, runner_result *out, tl_error *err)
{
    const lab_judgement *j = ctx;
    return runner_safety(j->c, j->p, j->cap, j->lab, j->d, j->opts->save_output, out, err);
}

static int lab_plain(void *ctx, runner_result *out, tl_error *err)
{
    const lab_judgement *j = ctx;
    runner_replay_opts ro = {.time = j->opts->time, .baseline = j->opts->baseline,
                             .save_output = j->opts->save_output};
    return runner_replay_loaded(j->c, j->p, j->cap, j->lab, j->d, &ro, out, err);
}

static void lab_forget(void *ctx, runner_result *out)
{
    const lab_judgement *j = ctx;
    runner_result_free(out);
    forget_output(j->opts);
}

int runner_judge(const runner_config *c, const runner_program *p, const runner_capture *cap,
                 const tl_lab *lab, const runner_loaded *d, const runner_judge_opts *opts,
                 runner_result *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    forget_output(opts);
    if (opts->diagnose) {
        runner_config cpu = *c;
        cpu.backend = RUNNER_CPU;
        runner_replay_opts ro = {.baseline = opts->baseline, .diagnose = opts->diagnose,
                                 .save_output = opts->save_output};
        if (runner_replay_loaded(&cpu, p, cap, lab, d, &ro, out, err) != 0)
            return kit_failed(err, out);
        return 0;
    }
    lab_judgement j = {c, p, cap, lab, d, opts};
    runner_judge_steps steps = {
        .checks = opts->safety && runner_safety_applies(d->shape),
        .more = opts->time || (opts->baseline && lab->baseline),
        .checked = lab_checked, .plain = lab_plain, .forget = lab_forget, .ctx = &j};
    if (runner_judge_apply(c->backend, &steps, out, err) != 0)
        return kit_failed(err, out);
    return 0;
}
