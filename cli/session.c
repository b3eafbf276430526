/* Build and capture for run and diagnose. */
#include "session.h"

#include "cli.h"

#include <stdlib.h>
#include <string.h>

int session_open(session *s, const session_options *o, const char *source, const tl_size *shapes,
                 int nshapes, tl_error *err)
{
    memset(s, 0, sizeof *s);
    runner_config *c = &s->config;
    runner_config_default(c, o->backend);
    runner_config_set_timeout(c, o->timeout);
    if (o->reps > 0)
        c->reps = o->reps;
    c->device_debug = o->device_debug;
    char why[300];
    if (o->no_sandbox) {
        c->sandbox = false;
    } else if (!runner_sandbox_available(why, sizeof why)) {
        /* A student's own machine: the file is theirs, so it still runs, and says so. */
        c->sandbox = false;
        if (!o->quiet)
            fprintf(stderr, "note: running without a sandbox (%s)\n", why);
    }
    if (!o->quiet)
        fprintf(stderr, "building %s for the %s backend ...", cli_shown(source),
                runner_backend_name(o->backend));
    if (runner_build(c, NULL, source, &s->program, &s->outcome) != 0) {
        if (!o->quiet)
            fputc('\n', stderr);
        return tl_error_set(err, "the build could not be run (a folder under /tmp or the "
                            "cache could not be written)");
    }
    if (s->outcome.verdict != TL_VERDICT_PASS) {
        if (!o->quiet)
            fprintf(stderr, " %s\n", s->outcome.verdict == TL_VERDICT_BUILD_FAILED
                                         ? "it does not build:" : "refused:");
        return 0;
    }
    if (!o->quiet) {
        if (s->program.cached)
            fprintf(stderr, " ok (cached)\n");
        else
            fprintf(stderr, " ok (%.1f s)\n", s->program.seconds);
        if (s->program.notes[0])
            fprintf(stderr, "note: %s\n", s->program.notes);
    }
    if (nshapes == 0)
        return 0; /* built only */
    if (runner_capture_run(c, &s->program, shapes, nshapes, &s->capture, &s->outcome) != 0)
        return tl_error_set(err, "the capture could not be run");
    s->captured = true;
    return 0;
}

void session_close(session *s)
{
    if (s->captured)
        runner_capture_free(&s->capture);
    runner_outcome_free(&s->outcome);
}

void session_print_failure(const runner_outcome *o, const char *source_shown)
{
    char *detail = tl_text_line(o->detail, strlen(o->detail));
    fprintf(stderr, "tilelab: %s: %s: %s\n", source_shown, tl_verdict_name(o->verdict),
            detail ? detail : "");
    free(detail);
    /* After the verdict, whose detail says they follow ("nvcc refused the file (its messages
     * follow)"): the compiler's first error is what the student reads next. */
    if (o->messages && o->messages[0]) {
        char *inert = tl_text_terminal(o->messages, strlen(o->messages));
        fputs(inert ? inert : "", stderr);
        free(inert);
    }
}

void session_print_outcome(const session *s, const char *source_shown)
{
    session_print_failure(&s->outcome, source_shown);
    if (s->captured && s->capture.err && s->capture.err[0]) {
        char *err = tl_text_terminal(s->capture.err, strlen(s->capture.err));
        fprintf(stderr, "the host code's messages:\n%s", err ? err : "");
        free(err);
    }
}

/* ---- the performance model (CPU backend) -------------------------------------------------- */

/* The grader's performance size of the lab, so `run` predicts what the grade will time. */
tl_size session_predicted_size(const tl_lab *lab)
{
    return lab ? lab->perf
               : (tl_size){RUNNER_PREDICT_SIZE, RUNNER_PREDICT_SIZE, RUNNER_PREDICT_SIZE};
}

void session_print_prediction(const char *who, const runner_prediction *p)
{
    if (!p->ok || p->slower) {
        printf("  %-9s %s\n", who, p->detail[0] ? p->detail : "no prediction");
        return;
    }
    printf("  %-9s %8.3f ms %9.0f GFLOP/s  bound by %s (%d block%s per SM, %d registers)\n", who,
           p->ms, p->gflops, pm_bound_name(p->bound), p->blocks_per_sm,
           p->blocks_per_sm == 1 ? "" : "s", p->registers);
}

void session_print_predictions(const session *s, const tl_lab *lab)
{
    tl_size size = session_predicted_size(lab);
    bool baseline = lab->baseline;
    printf("predicted on an H100 at %dx%dx%d (the performance model, from the CPU backend's "
           "counts):\n", size.m, size.k, size.n);
    fflush(stdout);
    runner_prediction p[2];
    tl_error err;
    if (runner_predict(&s->config, &s->program, &s->capture, lab, size, baseline, p, NULL,
                       &err) != 0) {
        printf("  no prediction: %s\n", err.msg);
        return;
    }
    session_print_prediction("yours", &p[0]);
    if (baseline) {
        session_print_prediction("baseline", &p[1]);
        if (p[0].ok && p[1].ok && !p[0].slower && !p[1].slower)
            printf("  yours is %.2fx faster than the baseline (predicted)\n", p[1].ms / p[0].ms);
    }
}
