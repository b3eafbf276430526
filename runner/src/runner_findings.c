/* The interpreter's findings, read from its diagnosis JSON (ptx_diag_write_json) into typed
 * values: the only place that knows the list's keys. */
#include "runner.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/* Lines and block or thread indices past this, negative or not numbers read as 0. */
#define FINDING_MAX_INT 1e9

static const char *text_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int int_of(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < FINDING_MAX_INT
               ? (int)v->valuedouble : 0;
}

/* A [x, y, z] of the finding; false when it has none. */
static bool dim3_of(const cJSON *f, const char *key, int out[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return false;
    for (int i = 0; i < 3; i++)
        out[i] = int_of(cJSON_GetArrayItem(v, i));
    return true;
}

static const cJSON *findings_of(const cJSON *diag)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(diag, "findings");
    return cJSON_IsArray(list) ? list : NULL;
}

int runner_findings_count(const cJSON *diag) { return cJSON_GetArraySize(findings_of(diag)); }

bool runner_finding_get(const cJSON *diag, int i, runner_finding *out)
{
    const cJSON *f = cJSON_GetArrayItem(findings_of(diag), i);
    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(f))
        return false;
    const char *file = text_of(f, "file"), *slash = strrchr(file, '/');
    snprintf(out->kind, sizeof out->kind, "%s", text_of(f, "kind"));
    snprintf(out->file, sizeof out->file, "%s", slash ? slash + 1 : file);
    snprintf(out->kernel, sizeof out->kernel, "%s", text_of(f, "kernel"));
    snprintf(out->detail, sizeof out->detail, "%s", text_of(f, "detail"));
    out->line = int_of(cJSON_GetObjectItemCaseSensitive(f, "line"));
    out->line2 = int_of(cJSON_GetObjectItemCaseSensitive(f, "line2"));
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(f, "count");
    out->count = cJSON_IsNumber(count) && count->valuedouble > 0 ? count->valuedouble : 0;
    out->has_where = dim3_of(f, "block", out->block) && dim3_of(f, "thread", out->thread);
    out->has_thread2 = dim3_of(f, "thread2", out->thread2);
    out->baseline = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "baseline"));
    return true;
}
