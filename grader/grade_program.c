/* Grading a whole libwb program: a submission to a lab described by a lab.json (the Teaching
 * Kit's labs), or one with its own main handed in for a matrix lab. Each dataset is captured,
 * replayed and checked by the runner (runner_program_run): the answer the program would hand to
 * wbSolution, as the device computed it, against the dataset's expected output. For a matrix
 * lab the program's kernels are also timed against the reference on the grading's performance
 * dataset, as a lab file's are. */
#include "grader_context.h"
#include "outputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool grade_is_program(const grade_context *c, const submission *s)
{
    if (runner_lab_described(c->o->lab) || c->o->libwb)
        return true;
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%.3800s/%.255s", s->folder, s->source);
    return s->source[0] && runner_source_defines_main(path);
}

static void add_text(cJSON *o, const char *key, const char *text)
{
    char *utf8 = tl_text_utf8(text ? text : "", text ? strlen(text) : 0);
    cJSON_AddStringToObject(o, key, utf8 ? utf8 : "");
    free(utf8);
}

/* The performance of a matrix lab's program: its kernels' median time on the grading's
 * performance dataset (every run's answer checked) against the reference's. */
static cJSON *program_performance(const grade_context *c, const runner_config *cfg,
                                  const runner_program *p, const runner_program_lab *lab,
                                  bool built, int passed, cJSON *e)
{
    const rubric *r = &c->r;
    double student_ms = 0;
    runner_result res;
    memset(&res, 0, sizeof res);
    runner_prediction predicted = {0};
    char detail[900];
    tl_error err;
    if (!built) {
        snprintf(detail, sizeof detail, "not run: the program does not build");
    } else if (!runner_lab_shipped(c->o->lab) || r->performance <= 0) {
        snprintf(detail, sizeof detail, "no points for speed in this rubric");
    } else if (passed == 0) {
        snprintf(detail, sizeof detail, "not timed: no graded dataset passed");
    } else if (runner_backend_about(c->o->backend)->emulated) {
        if (runner_program_predict(cfg, p, lab, &c->model, &predicted, &err) != 0)
            snprintf(detail, sizeof detail, "error: %.800s", err.msg);
        else if (!predicted.ok)
            snprintf(detail, sizeof detail, "%.800s", predicted.detail);
        else
            student_ms = predicted.ms;
        res.verdict = student_ms > 0 ? TL_VERDICT_PASS : TL_VERDICT_WRONG;
    } else {
        runner_program_opts opts = {.time = true, .safety = false};
        if (runner_program_run(cfg, p, lab, &c->perf, &opts, &res, &err) != 0) {
            res.verdict = TL_VERDICT_ERROR;
            snprintf(res.detail, sizeof res.detail, "%s", err.msg);
        }
        if (res.verdict == TL_VERDICT_PASS)
            student_ms = res.calls[CAPLOG_CALL_PROGRAM].ms.median;
        snprintf(detail, sizeof detail, "%s: %.800s", tl_verdict_name(res.verdict), res.detail);
    }
    double ratio = student_ms > 0 && c->reference_ms > 0 ? c->reference_ms / student_ms : 0;
    bool model = runner_backend_about(c->o->backend)->emulated && runner_lab_shipped(c->o->lab);
    double scored = grader_scored_ratio(ratio, model);
    /* Slower than the time past which no backend gives points (grader_no_points_ms). */
    double frac = predicted.slower ? 0 : rubric_performance_share(r, scored);
    double share = c->nds ? (double)passed / c->nds : 1;
    char size[48];
    snprintf(size, sizeof size, "%dx%dx%d", c->perf.size.m, c->perf.size.k, c->perf.size.n);
    const char *scaled = passed < c->nds ? "; scaled by the share of graded datasets that passed"
                                         : "";
    if (student_ms > 0 && predicted.slower)
        snprintf(detail, sizeof detail, "%s at %s (the program's kernels), against the "
                 "reference's %.3f ms: no points for speed (the performance model, CPU backend)",
                 predicted.detail, size, c->reference_ms);
    else if (student_ms > 0 && predicted.ok)
        snprintf(detail, sizeof detail, "predicted for an H100 by the performance model (CPU "
                 "backend): %.2fx the reference's speed at %s (the program's kernels, %.3f ms "
                 "against %.3f ms; bound by %s), scored as %.2fx (the model's margin of %.0f "
                 "%%)%s", ratio, size, student_ms, c->reference_ms,
                 pm_bound_name(predicted.bound), scored, GRADER_PREDICTED_MARGIN * 100, scaled);
    else if (student_ms > 0)
        snprintf(detail, sizeof detail, "%.2fx the reference's speed on a %s dataset made for "
                 "this grading (the program's kernels, %d timed runs, every answer checked)%s",
                 ratio, size, res.calls[CAPLOG_CALL_PROGRAM].ms.n, scaled);
    cJSON *perf = cJSON_AddObjectToObject(e, "performance");
    cJSON_AddNumberToObject(perf, "student_ms", student_ms);
    cJSON_AddNumberToObject(perf, "reference_ms", c->reference_ms);
    cJSON_AddNumberToObject(perf, "ratio", ratio);
    cJSON_AddNumberToObject(perf, "scored_ratio", scored);
    cJSON_AddBoolToObject(perf, "predicted", model);
    if (predicted.slower)
        cJSON_AddBoolToObject(perf, "slower_than", true);
    if (predicted.ok)
        cJSON_AddStringToObject(perf, "bound", pm_bound_name(predicted.bound));
    cJSON_AddStringToObject(perf, "dataset", runner_lab_shipped(c->o->lab) ? size : "");
    cJSON_AddStringToObject(perf, "verdict", tl_verdict_name(student_ms > 0 ? TL_VERDICT_PASS
                                                                            : res.verdict));
    add_text(perf, "detail", detail);
    cJSON_AddNumberToObject(perf, "runs_checked", res.calls[CAPLOG_CALL_PROGRAM].runs_checked);
    runner_result_free(&res);
    double score = student_ms > 0 ? r->performance * frac * share : 0;
    return grade_item("performance", score, r->performance, frac >= 1 && passed == c->nds,
                      grade_performance_visibility(c), detail);
}

void grade_program_datasets(const grade_context *c, const runner_config *cfg,
                            const runner_program *p, const runner_outcome *built, cJSON *items,
                            cJSON *e)
{
    runner_config pc = *cfg;
    pc.program = true;
    runner_program_lab lab;
    runner_lab_whole(c->o->lab, c->o->datasets, &lab);
    cJSON_AddStringToObject(e, "graded_as", "program");
    bool ok = built->verdict == TL_VERDICT_PASS;
    const rubric *r = &c->r;
    cJSON *dsets = cJSON_AddArrayToObject(e, "datasets");
    long cents = lround(r->datasets * 100), base = c->nds ? cents / c->nds : 0;
    long extra = c->nds ? cents % c->nds : 0;
    int passed = 0;
    for (int i = 0; i < c->nds; i++) {
        const grade_dataset *d = &c->ds[i];
        runner_result res;
        memset(&res, 0, sizeof res);
        res.verdict = built->verdict;
        snprintf(res.detail, sizeof res.detail, "not run: %.700s", built->detail);
        runner_dataset rd = {.dir = d->path};
        if (d->generated)
            rd = (runner_dataset){.generated = true, .seed = d->seed, .size = d->size};
        runner_program_opts opts = {.time = false, .safety = true};
        tl_error err;
        if (ok && runner_program_run(&pc, p, &lab, &rd, &opts, &res, &err) != 0) {
            res.verdict = TL_VERDICT_ERROR;
            snprintf(res.detail, sizeof res.detail, "%s", err.msg);
        }
        double per = (double)(base + (i < extra)) / 100;
        passed += res.verdict == TL_VERDICT_PASS;
        /* No map: a program's answer is not always a matrix product's P. */
        explanation x;
        explain_result(&x, &res, NULL);
        grade_dataset_record(c, d, &res, &x, per, dsets, items);
        explain_free(&x);
        runner_result_free(&res);
    }
    grade_add_performance(c, items, program_performance(c, &pc, p, &lab, ok, passed, e), e);
}
