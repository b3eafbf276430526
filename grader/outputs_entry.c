/* The grader's outputs, the shared part: reading journal entries and writing files
 * atomically. Each file is composed in memory first and then written through a temporary file
 * and a rename, so a failure half way leaves the previous file (or none) in place, never a
 * truncated one. */
#include "outputs_entry.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading entries: every field may be missing or null ----------------------------------- */
const cJSON *entry_field(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key); /* NULL-safe */
}

const char *entry_str(const cJSON *o, const char *key)
{
    const cJSON *v = entry_field(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

bool entry_num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = entry_field(o, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    *out = v->valuedouble;
    return true;
}

/* A time or a rate of 0 means "not measured" in the journal: only positive values count. */
bool entry_positive(const cJSON *o, const char *key, double *out)
{
    double v;
    if (!entry_num(o, key, &v) || v <= 0)
        return false;
    *out = v;
    return true;
}

const char *entry_student(const cJSON *e)
{
    const char *s = entry_str(e, "student");
    return s ? s : "";
}

bool entry_visible(const char *visibility)
{
    return !visibility || strcmp(visibility, "visible") == 0;
}

bool entry_item_passed(const cJSON *item)
{
    const char *st = entry_str(item, "status");
    double s, m;
    if (st)
        return strcmp(st, "passed") == 0;
    return entry_num(item, "score", &s) && entry_num(item, "max_score", &m) && m > 0 && s >= m;
}

bool entry_verdict_is(const cJSON *o, tl_verdict v)
{
    const char *name = entry_str(o, "verdict");
    tl_verdict parsed;
    return name && tl_verdict_parse(name, &parsed) && parsed == v;
}

bool entry_dataset_passed(const cJSON *d) { return entry_verdict_is(d, TL_VERDICT_PASS); }

bool entry_slower(const cJSON *e)
{
    return cJSON_IsTrue(entry_field(entry_field(e, "performance"), "slower_than"));
}

bool entry_predicted(const cJSON *e)
{
    return cJSON_IsTrue(entry_field(e, "predicted_time")) ||
           cJSON_IsTrue(entry_field(entry_field(e, "performance"), "predicted"));
}

/* A hidden dataset is shown only when its score item (named "hidden dataset NAME (SIZE)" by
 * grader.c) is "visible"; without a matching item it stays hidden, because showing it by
 * mistake cannot be undone. */
bool entry_dataset_shown(const cJSON *e, const cJSON *d)
{
    if (!cJSON_IsTrue(entry_field(d, "hidden")))
        return true;
    const char *name = entry_str(d, "name");
    char prefix[256];
    int len = snprintf(prefix, sizeof prefix, "hidden dataset %s", name ? name : "");
    if (!name || len < 0 || (size_t)len >= sizeof prefix)
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, entry_field(entry_field(e, "score"), "items")) {
        const char *in = entry_str(it, "name");
        if (in && strncmp(in, prefix, (size_t)len) == 0 && (in[len] == '\0' || in[len] == ' '))
            return entry_str(it, "visibility") && entry_visible(entry_str(it, "visibility"));
    }
    return false;
}

bool entry_absent(const cJSON *e)
{
    const char *roster = entry_str(e, "roster");
    return roster && strcmp(roster, GRADER_NO_SUBMISSION) == 0;
}

cJSON *grader_absent_entry(const char *student, const char *lab, double max)
{
    cJSON *e = cJSON_CreateObject(), *score = e ? cJSON_AddObjectToObject(e, "score") : NULL;
    if (!score || !cJSON_AddStringToObject(e, "student", student) ||
        !cJSON_AddStringToObject(e, "lab", lab ? lab : "") ||
        !cJSON_AddStringToObject(e, "roster", GRADER_NO_SUBMISSION) ||
        !cJSON_AddNumberToObject(score, "total", 0) ||
        !cJSON_AddNumberToObject(score, "max", max) ||
        !cJSON_AddArrayToObject(score, "items")) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

bool entry_performance_shown(const cJSON *e)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, entry_field(entry_field(e, "score"), "items")) {
        const char *name = entry_str(it, "name"), *vis = entry_str(it, "visibility");
        if (name && strcmp(name, "performance") == 0)
            return !vis || entry_visible(vis);
    }
    return true;
}

void entry_explanation(const cJSON *d, explanation *x)
{
    tl_verdict v = TL_VERDICT_ERROR;
    const char *name = entry_str(d, "verdict");
    if (!name || !tl_verdict_parse(name, &v))
        v = TL_VERDICT_ERROR;
    explain_from_json(x, v, entry_str(d, "detail"), entry_field(d, "explain"));
}

dataset_stats entry_stats(const cJSON *e, bool shown_only)
{
    dataset_stats s = {0, 0, 0};
    const cJSON *d;
    double g;
    cJSON_ArrayForEach(d, entry_field(e, "datasets")) {
        if (shown_only && !entry_dataset_shown(e, d))
            continue;
        s.total++;
        if (!entry_dataset_passed(d))
            continue;
        s.passed++;
        if (entry_positive(d, "gflops", &g) && g > s.gflops)
            s.gflops = g;
    }
    return s;
}

/* Speed relative to the reference (reference_ms / student_ms), higher is faster; 0 if unknown. */
double entry_ratio(const cJSON *e)
{
    const cJSON *p = entry_field(e, "performance");
    double r, s, ref;
    if (entry_positive(p, "ratio", &r))
        return r;
    return entry_positive(p, "student_ms", &s) && entry_positive(p, "reference_ms", &ref)
               ? ref / s
               : 0;
}

/* At most 2 decimals, no trailing zeros, never "-0". */
const char *out_fmt_num(char out[40], double v)
{
    if (fabs(v) < 1e15)
        snprintf(out, 40, "%.2f", v);
    else
        snprintf(out, 40, "%.0f", v); /* "%.2f" would not fit */
    if (strchr(out, '.')) {
        char *end = out + strlen(out) - 1;
        while (*end == '0')
            *end-- = '\0';
        if (*end == '.')
            *end = '\0';
    }
    if (strcmp(out, "-0") == 0)
        strcpy(out, "0");
    return out;
}

int out_check_entries(const char *path, cJSON *const *entries, int n, tl_error *err)
{
    if (n < 0 || (n > 0 && !entries))
        return tl_error_set(err, "%s: no entries given (n = %d)", path, n);
    for (int i = 0; i < n; i++)
        if (!cJSON_IsObject(entries[i]))
            return tl_error_set(err, "%s: entry %d is not a JSON object", path, i);
    return 0;
}


/* ---- writing: composed in memory (open_memstream), then temporary file and rename ---------- */
int out_open(membuf *m, const char *path, tl_error *err)
{
    *m = (membuf){NULL, 0, NULL, INERT_TERMINAL};
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? 0 : tl_error_set(err, "%s: cannot compose: %s", path, strerror(errno));
}

int out_commit(membuf *m, const char *path, tl_error *err)
{
    bool composed = !ferror(m->f);
    composed = fclose(m->f) == 0 && composed;
    if (composed && m->rule != INERT_NONE) {
        char *inert = m->rule == INERT_UTF8 ? tl_text_utf8(m->buf, m->len)
                                            : tl_text_terminal(m->buf, m->len);
        free(m->buf);
        m->buf = inert;
        m->len = inert ? strlen(inert) : 0;
        composed = inert != NULL;
    }
    int rc = composed ? tl_write_file_atomic(path, m->buf, m->len, err)
                      : tl_error_set(err, "%s: cannot write: out of memory", path);
    free(m->buf);
    return rc;
}

/* Entry indices sorted by student id; ties keep the input order, so the files are the same on
 * every run. */
static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

keyed *out_sorted_by_student(cJSON *const *entries, int n)
{
    keyed *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    for (int i = 0; order && i < n; i++)
        order[i] = (keyed){entry_student(entries[i]), i};
    if (order)
        qsort(order, (size_t)n, sizeof *order, by_key);
    return order;
}
