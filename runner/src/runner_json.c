/* A dataset's result as JSON: what `run --json` prints and what the grader's journal keeps. */
#include "runner.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

void runner_timing_add(cJSON *o, const runner_call_result *c)
{
    cJSON_AddNumberToObject(o, "reps", c->ms.n);
    cJSON_AddNumberToObject(o, "median_ms", c->ms.median);
    cJSON_AddNumberToObject(o, "min_ms", c->ms.min);
    cJSON_AddNumberToObject(o, "max_ms", c->ms.max);
    cJSON_AddBoolToObject(o, "emulated", c->emulated);
    if (c->emulated)
        return;
    gpu_timing_clock_to_json(o, "clock", &c->clock);
    cJSON_AddNumberToObject(o, "floor_ms", c->floor_ms);
    cJSON_AddBoolToObject(o, "implausible", c->implausible);
}

static cJSON *timing_json(const runner_call_result *c)
{
    cJSON *o = cJSON_CreateObject();
    runner_timing_add(o, c);
    return o;
}

cJSON *runner_result_json(const runner_result *r, const char *dataset_name)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const runner_call_result *launch = &r->calls[CAPLOG_CALL_LAUNCH];
    const runner_call_result *main = r->calls[CAPLOG_CALL_HOST].run ? &r->calls[CAPLOG_CALL_HOST]
                                                                    : launch;
    cJSON_AddStringToObject(o, "dataset", dataset_name ? dataset_name : "");
    cJSON_AddStringToObject(o, "verdict", tl_verdict_name(r->verdict));
    cJSON_AddStringToObject(o, "detail", r->detail);
    if (r->hint[0])
        cJSON_AddStringToObject(o, "hint", r->hint);
    cJSON *shape = cJSON_AddObjectToObject(o, "shape");
    cJSON_AddNumberToObject(shape, "m", r->shape.m);
    cJSON_AddNumberToObject(shape, "k", r->shape.k);
    cJSON_AddNumberToObject(shape, "n", r->shape.n);
    cJSON_AddStringToObject(o, "device", r->device);
    cJSON_AddNumberToObject(o, "runs_checked", main->runs_checked +
                            (main != launch ? launch->runs_checked : 0));
    cJSON_AddItemToObject(o, "check", main->runs_checked ? tl_check_report_json(&main->check)
                                                         : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "kernel", launch->timed ? timing_json(launch) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "gflops", r->gflops > 0 ? cJSON_CreateNumber(r->gflops)
                                                     : cJSON_CreateNull());
    cJSON *others = cJSON_AddArrayToObject(o, "other_kernels");
    const runner_call_result *b = &r->calls[CAPLOG_CALL_BASELINE];
    if (b->run) {
        cJSON *k = cJSON_CreateObject();
        cJSON_AddStringToObject(k, "name", "baseline");
        cJSON_AddStringToObject(k, "verdict", tl_verdict_name(b->verdict));
        cJSON_AddStringToObject(k, "detail", b->detail);
        if (b->timed && b->verdict == TL_VERDICT_PASS) {
            cJSON_AddNumberToObject(k, "median_ms", b->ms.median);
            cJSON_AddNumberToObject(k, "gflops", tl_gflops(r->shape.m, r->shape.k, r->shape.n,
                                                           b->ms.median * 1e-3));
        }
        cJSON_AddItemToArray(others, k);
    }
    cJSON_AddStringToObject(o, "kernel_output", r->kernel_output ? r->kernel_output : "");
    return o;
}
