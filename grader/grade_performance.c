/* The performance item of a lab file's grading: the student's kernel timed on the grading's
 * own performance dataset (on a GPU), or its H100 time predicted from the CPU backend's counts,
 * against the reference's, scaled by the datasets that passed. */
#include "grader_context.h"

#include <stdlib.h>
#include <string.h>

/* On the CPU backend: the student's H100 time at the performance size, predicted by the model
 * from the interpreter's counts on the grading's own performance dataset and its secret draw of
 * blocks (runner_predict_on checks the sampled blocks' results and shares). */
static runner_prediction predict(const grade_state *g, runner_result *res, double *ms)
{
    runner_prediction pred[2];
    tl_error err;
    if (runner_predict_on(&g->cfg, &g->p, &g->cap, runner_lab_matrix(g->c->o->lab), &g->c->model, false, pred, NULL,
                          &err) != 0) {
        res->verdict = TL_VERDICT_ERROR;
        snprintf(res->detail, sizeof res->detail, "%s", err.msg);
        return (runner_prediction){0};
    }
    res->verdict = pred[0].ok ? TL_VERDICT_PASS : TL_VERDICT_WRONG;
    /* No prediction, or only a time it is slower than: why. */
    snprintf(res->detail, sizeof res->detail, "%s",
             pred[0].ok && !pred[0].slower ? "" : pred[0].detail);
    *ms = pred[0].ok ? pred[0].ms : 0;
    return pred[0];
}

/* On a GPU: the student's kernel timed by the replayer on the performance dataset, every run
 * checked. */
static void time_on_gpu(const grade_state *g, runner_result *res, double *ms)
{
    runner_replay_opts opts = {.time = true};
    tl_error err;
    if (runner_replay(&g->cfg, &g->p, &g->cap, runner_lab_matrix(g->c->o->lab), &g->c->perf, &opts, res, &err) != 0) {
        res->verdict = TL_VERDICT_ERROR;
        snprintf(res->detail, sizeof res->detail, "%s", err.msg);
    }
    const runner_call_result *timed = &res->calls[CAPLOG_CALL_LAUNCH];
    if (res->verdict == TL_VERDICT_PASS && timed->implausible) {
        /* Faster than the device can do the work: a broken timer or device, never the
         * kernel's speed. Not scored, whichever way it would have gone. */
        res->verdict = TL_VERDICT_ERROR;
        snprintf(res->detail, sizeof res->detail, "implausible time: a timed run took %.4f "
                 "ms, less than the %.4f ms this work needs at the GPU's peak fp32 rate and "
                 "DRAM bandwidth; not scored (the GPU or its timer misbehaved: grade again)",
                 timed->ms.min, timed->floor_ms);
    } else if (res->verdict == TL_VERDICT_PASS) {
        *ms = timed->ms.median;
    }
}

/* The student's time at the performance size (0: none), or why there is none in res: not
 * timed when unsafe, not plain CUDA C or wrong on every dataset. */
static runner_prediction measure(const grade_state *g, runner_result *res, double *student_ms)
{
    memset(res, 0, sizeof *res);
    res->verdict = g->captured.verdict; /* why it was not run: the build's or the capture's */
    *student_ms = 0;
    if (g->replayable && g->unsafe[0]) {
        res->verdict = TL_VERDICT_UNSAFE;
        snprintf(res->detail, sizeof res->detail, "not timed: the safety checks found %.700s",
                 g->unsafe);
    } else if (g->replayable && g->forbidden[0]) {
        /* Its speed would be the tensor cores' or the assembly's, not the lab's. */
        res->verdict = TL_VERDICT_REFUSED;
        snprintf(res->detail, sizeof res->detail, "not timed: the rubric asks for plain CUDA C: "
                 "%.600s", g->forbidden);
    } else if (g->replayable && g->passed == 0) {
        res->verdict = TL_VERDICT_WRONG;
        snprintf(res->detail, sizeof res->detail, "not timed: no graded dataset passed");
    } else if (g->replayable && g->c->o->backend == RUNNER_CPU) {
        return predict(g, res, student_ms);
    } else if (g->replayable) {
        time_on_gpu(g, res, student_ms);
    }
    return (runner_prediction){0};
}

/* The performance item's text: the ratio and how it was measured, or why there are no points. */
static void performance_detail(const grade_state *g, const runner_result *res, double student_ms,
                               const runner_prediction *predicted, double ratio, double scored,
                               char *detail, size_t size)
{
    const grade_context *c = g->c;
    char shape[48];
    snprintf(shape, sizeof shape, "%dx%dx%d", c->perf.size.m, c->perf.size.k, c->perf.size.n);
    int len = 0;
    if (student_ms > 0 && predicted->slower)
        len = snprintf(detail, size, "%s at %s, against the reference's %.3f ms: no points for "
                       "speed (the performance model, CPU backend)", predicted->detail, shape,
                       c->reference_ms);
    else if (student_ms > 0 && predicted->ok)
        len = snprintf(detail, size, "predicted for an H100 by the performance model (CPU "
                 "backend): %.2fx the reference's speed at %s (%.3f ms against %.3f ms; bound "
                 "by %s), scored as %.2fx (the model's margin of %.0f %%)", ratio, shape,
                 student_ms, c->reference_ms, pm_bound_name(predicted->bound), scored,
                 GRADER_PREDICTED_MARGIN * 100);
    else if (student_ms > 0)
        len = snprintf(detail, size, "%.2fx the reference's speed on a %s dataset made for "
                 "this grading (%d timed runs, every result checked)", ratio, shape,
                 res->calls[CAPLOG_CALL_LAUNCH].ms.n);
    else
        snprintf(detail, size, "no points: on the %s dataset made for this grading the "
                 "result was %s%s%.600s", shape, tl_verdict_name(res->verdict),
                 res->detail[0] ? ": " : "", res->detail);
    if (student_ms > 0 && g->passed < c->nds && len > 0 && (size_t)len < size)
        len += snprintf(detail + len, size - (size_t)len, "; scaled by the %d of %d "
                        "graded datasets that passed", g->passed, c->nds);
    if (student_ms > 0 && res->calls[CAPLOG_CALL_LAUNCH].clock.throttled && len > 0 &&
        (size_t)len < size)
        snprintf(detail + len, size - (size_t)len, "; the GPU was throttled (power or "
                 "thermal) while this was timed, also when timed again: the time may be slower "
                 "than the kernel");
}

/* The journal's "performance": the times, the ratio, how it was measured. */
static void performance_json(const grade_state *g, const runner_result *res, double student_ms,
                             const runner_prediction *predicted, double ratio, double scored)
{
    const grade_context *c = g->c;
    char shape[48];
    snprintf(shape, sizeof shape, "%dx%dx%d", c->perf.size.m, c->perf.size.k, c->perf.size.n);
    cJSON *perf = cJSON_AddObjectToObject(g->e, "performance");
    cJSON_AddNumberToObject(perf, "student_ms", student_ms);
    cJSON_AddNumberToObject(perf, "reference_ms", c->reference_ms);
    cJSON_AddNumberToObject(perf, "ratio", ratio);
    cJSON_AddNumberToObject(perf, "scored_ratio", scored);
    cJSON_AddBoolToObject(perf, "predicted", c->o->backend == RUNNER_CPU);
    if (predicted->slower)
        cJSON_AddBoolToObject(perf, "slower_than", true);
    if (predicted->ok)
        cJSON_AddStringToObject(perf, "bound", pm_bound_name(predicted->bound));
    cJSON_AddStringToObject(perf, "dataset", shape);
    cJSON_AddStringToObject(perf, "verdict", tl_verdict_name(res->verdict));
    grade_add_text(perf, "detail", g->replayable ? res->detail : "not run");
    cJSON_AddNumberToObject(perf, "runs_checked", res->calls[CAPLOG_CALL_LAUNCH].runs_checked);
    /* the timed repetitions' min, median and max, and on a GPU its clock and the floor */
    if (res->calls[CAPLOG_CALL_LAUNCH].timed)
        runner_timing_add(perf, &res->calls[CAPLOG_CALL_LAUNCH]);
}

/* Performance: the student's kernel timed by the replayer on the dataset generated for this
 * grading, against the reference timed the same way in the same grading. A kernel the safety
 * checks found unsafe on some dataset is not timed: dropping a barrier makes a kernel faster,
 * and its speed would be the race's. */
cJSON *grade_performance(const grade_state *g)
{
    const grade_context *c = g->c;
    const rubric *r = &c->r;
    /* Speed counts only where the kernel is right: the points are scaled by the share of the
     * graded datasets that passed, so a kernel fast at the performance size but wrong on the
     * small or odd sizes earns nothing (and is not timed when none passed). */
    double pass_share = c->nds ? (double)g->passed / c->nds : 1;
    runner_result res;
    double student_ms;
    runner_prediction predicted = measure(g, &res, &student_ms);
    double ratio = student_ms > 0 && c->reference_ms > 0 ? c->reference_ms / student_ms : 0;
    double scored = grader_scored_ratio(ratio, c->o->backend == RUNNER_CPU);
    /* Slower than the time past which no backend gives points (grader_no_points_ms). */
    double frac = predicted.slower ? 0 : rubric_performance_share(r, scored);
    performance_json(g, &res, student_ms, &predicted, ratio, scored);
    char detail[900] = "";
    performance_detail(g, &res, student_ms, &predicted, ratio, scored, detail, sizeof detail);
    runner_result_free(&res);
    double score = student_ms > 0 ? r->performance * frac * pass_share : 0;
    return grade_item("performance", score, r->performance, frac >= 1 && g->passed == c->nds,
                      grade_performance_visibility(c), detail);
}
