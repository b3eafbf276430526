/* PrairieLearn's results.json, made from the grader's Gradescope results.json: PrairieLearn's
 * external grading reads score (0..1), gradable, message and tests[] (name, points, max_points,
 * output, message), as its documentation on external grading gives them. */
#include "export.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The grader's results.json is a few KiB; a much larger one is not the grader's. */
#define RESULTS_MAX_BYTES (1 << 20)
#define HIDDEN_OUTPUT "Hidden test: its details are not shown."

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One PrairieLearn test from one Gradescope test; a test the student may not see yet on
 * Gradescope (its visibility is not "visible") shows only its points, as "hidden test N". */
static cJSON *pl_test(const cJSON *t, int *hidden)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const char *vis = string(t, "visibility"), *name = string(t, "name");
    const char *output = string(t, "output"), *status = string(t, "status");
    bool shown = !vis || strcmp(vis, "visible") == 0;
    char hidden_name[64];
    if (!shown)
        snprintf(hidden_name, sizeof hidden_name, "hidden test %d", ++*hidden);
    bool ok = cJSON_AddStringToObject(o, "name", shown ? (name ? name : "") : hidden_name) &&
              cJSON_AddNumberToObject(o, "points", number(t, "score")) &&
              cJSON_AddNumberToObject(o, "max_points", number(t, "max_score")) &&
              cJSON_AddStringToObject(o, "output", shown ? (output ? output : "") : HIDDEN_OUTPUT) &&
              (!shown || !status || cJSON_AddStringToObject(o, "message", status));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *convert(const cJSON *gs, tl_error *err)
{
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(gs, "tests");
    if (!cJSON_IsObject(gs) || !cJSON_IsArray(tests)) {
        tl_error_set(err, "not the grader's results.json (an object with tests[])");
        return NULL;
    }
    cJSON *pl = cJSON_CreateObject(), *out = pl ? cJSON_AddArrayToObject(pl, "tests") : NULL;
    double max = 0, sum = 0;
    int hidden = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, tests) {
        cJSON *o = out ? pl_test(t, &hidden) : NULL;
        if (!o) {
            cJSON_Delete(pl);
            tl_error_set(err, "out of memory");
            return NULL;
        }
        cJSON_AddItemToArray(out, o);
        max += number(t, "max_score");
        sum += number(t, "score");
    }
    /* The same total as the gradebook's, as a fraction of the points there are: the tests'
     * sum when results.json leaves the total out (it does with hidden tests). */
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(gs, "score");
    double score = max > 0 ? (cJSON_IsNumber(total) ? total->valuedouble : sum) / max : 0;
    score = score < 0 ? 0 : score > 1 ? 1 : score;
    const char *message = string(gs, "output");
    if (!cJSON_AddBoolToObject(pl, "gradable", true) ||
        !cJSON_AddNumberToObject(pl, "score", score) ||
        !cJSON_AddStringToObject(pl, "message", message ? message : "")) {
        cJSON_Delete(pl);
        tl_error_set(err, "out of memory");
        return NULL;
    }
    return pl;
}

int export_prairielearn_results(const char *gradescope_json, const char *out, tl_error *err)
{
    char *text = files_read_untrusted(gradescope_json, RESULTS_MAX_BYTES, NULL, err);
    if (!text)
        return -1;
    cJSON *gs = cJSON_Parse(text);
    free(text);
    if (!gs)
        return tl_error_set(err, "%s: not valid JSON", gradescope_json);
    tl_error why;
    cJSON *pl = convert(gs, &why);
    cJSON_Delete(gs);
    if (!pl)
        return tl_error_set(err, "%s: %s", gradescope_json, why.msg);
    char *json = cJSON_Print(pl);
    cJSON_Delete(pl);
    if (!json)
        return tl_error_set(err, "out of memory");
    int rc = tl_write_file_atomic(out, json, strlen(json), err);
    free(json);
    return rc;
}
