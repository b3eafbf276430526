/* The run report: JSON fields and the text layout. */
#include "harness.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void failing_report(tl_run_report *r)
{
    tl_run_report_init(r, "mm");
    snprintf(r->dataset, sizeof r->dataset, "datasets/02-tiled/3");
    snprintf(r->device, sizeof r->device, "NVIDIA H100 80GB HBM3");
    r->m = 256;
    r->k = 128;
    r->n = 64;
    r->checked = true;
    r->check.pass = false;
    r->check.checked = 256 * 64;
    r->check.bad = 2;
    r->check.nonfinite = 1;
    r->check.has_worst = true;
    r->check.worst = (tl_mismatch){4, 5, NAN, 1.5f, 1e-5};
    r->check.nfirst = 2;
    r->check.first[0] = (tl_mismatch){0, 1, 2.0f, 1.0f, 1e-5};
    r->check.first[1] = r->check.worst;
    r->check.max_error_ratio = INFINITY;
    r->check.got_rows = r->check.expected_rows = 256;
    r->check.got_cols = r->check.expected_cols = 64;
    r->kernel_timed = true;
    double ms[] = {0.5, 0.25, 1.0};
    tl_stats_compute(ms, 3, &r->kernel.ms);
    r->phases.n = 1;
    snprintf(r->phases.phases[0].kind, 16, "IO");
    snprintf(r->phases.phases[0].name, 96, "import");
    r->phases.phases[0].seconds = 0.125;
}

static cJSON *parse(const tl_run_report *r)
{
    char *text = tl_run_report_json(r);
    cr_assert_not_null(text);
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc, "not valid JSON: %s", text);
    free(text);
    return doc;
}

Test(report_json, holds_verdict_mismatches_timings_and_device)
{
    tl_run_report r;
    failing_report(&r);
    cJSON *doc = parse(&r);
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "verdict")->valuestring, "wrong");
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "device")->valuestring, "NVIDIA H100 80GB HBM3");
    cJSON *check = cJSON_GetObjectItem(doc, "check");
    cr_assert_eq(cJSON_GetObjectItem(check, "bad")->valueint, 2);
    cr_assert_eq(cJSON_GetObjectItem(check, "nonfinite")->valueint, 1);
    cJSON *worst = cJSON_GetObjectItem(check, "worst");
    cr_assert_eq(cJSON_GetObjectItem(worst, "row")->valueint, 4);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(worst, "got")), "NaN is written as null");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(check, "max_error_ratio")));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(check, "first")), 2);
    cJSON *kernel = cJSON_GetObjectItem(doc, "kernel");
    cr_assert_float_eq(cJSON_GetObjectItem(kernel, "median_ms")->valuedouble, 0.5, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItem(kernel, "min_ms")->valuedouble, 0.25, 1e-12);
    cr_assert_eq(cJSON_GetObjectItem(kernel, "reps")->valueint, 3);
    double expected_gflops = 2.0 * 256 * 128 * 64 / 0.5e-3 / 1e9;
    cr_assert_float_eq(cJSON_GetObjectItem(doc, "gflops")->valuedouble, expected_gflops, 1e-9);
    cJSON *phase = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "phases"), 0);
    cr_assert_str_eq(cJSON_GetObjectItem(phase, "kind")->valuestring, "IO");
    cr_assert_float_eq(cJSON_GetObjectItem(phase, "seconds")->valuedouble, 0.125, 1e-12);
    cJSON *shape = cJSON_GetObjectItem(doc, "shape");
    cr_assert_eq(cJSON_GetObjectItem(shape, "k")->valueint, 128);
    cJSON_Delete(doc);
}

Test(report_json, unchecked_and_untimed_runs_say_so)
{
    tl_run_report r;
    tl_run_report_init(&r, "prog");
    cJSON *doc = parse(&r);
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "verdict")->valuestring, "unchecked");
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "kernel")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "gflops")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(doc, "check")));
    cJSON_Delete(doc);
}

Test(report_text, shows_phases_kernel_and_verdict)
{
    tl_run_report r;
    failing_report(&r);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    tl_run_report_print(out, &r);
    fclose(out);
    cr_assert(strstr(text, "== mm on datasets/02-tiled/3 (256 x 128 x 64)"), "%s", text);
    cr_assert(strstr(text, "IO          125.000 ms  import"), "%s", text);
    cr_assert(strstr(text, "kernel        0.500 ms  median of 3 (min 0.250, max 1.000)"), "%s", text);
    cr_assert(strstr(text, "FAIL: 2 of 16384 elements wrong (1 NaN/Inf)"), "%s", text);
    free(text);
}
