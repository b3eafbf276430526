#include "harness.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

void tl_run_report_init(tl_run_report *r, const char *program)
{
    memset(r, 0, sizeof *r);
    snprintf(r->program, sizeof r->program, "%s", program ? program : "");
    tl_phase_log_init(&r->phases);
}

const char *tl_run_report_verdict(const tl_run_report *r)
{
    if (!r->checked)
        return "unchecked";
    return r->check.pass ? "pass" : "wrong";
}

double tl_run_report_gflops(const tl_run_report *r)
{
    if (!r->kernel_timed || r->m <= 0 || r->k <= 0 || r->n <= 0)
        return 0;
    return tl_gflops(r->m, r->k, r->n, r->kernel.ms.median * 1e-3);
}

/* JSON has no NaN or Inf: such values are written as null. */
static cJSON *number_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *mismatch_json(const tl_mismatch *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "row", m->row);
    cJSON_AddNumberToObject(o, "col", m->col);
    cJSON_AddItemToObject(o, "got", number_or_null(m->got));
    cJSON_AddItemToObject(o, "expected", number_or_null(m->expected));
    cJSON_AddItemToObject(o, "bound", number_or_null(m->bound));
    return o;
}

/* [rows, cols], or for an image [height, width, channels]. */
static cJSON *shape_json(int rows, int cols, int channels)
{
    int dims[3] = {rows, cols, channels};
    return cJSON_CreateIntArray(dims, channels > 0 ? 3 : 2);
}

cJSON *tl_check_report_json(const tl_check_report *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "pass", c->pass);
    cJSON_AddBoolToObject(o, "shape_mismatch", c->shape_mismatch);
    cJSON_AddItemToObject(o, "got_shape",
                          shape_json(c->got_rows, c->got_cols, c->got_channels));
    cJSON_AddItemToObject(o, "expected_shape",
                          shape_json(c->expected_rows, c->expected_cols, c->expected_channels));
    cJSON_AddNumberToObject(o, "checked", (double)c->checked);
    cJSON_AddNumberToObject(o, "bad", (double)c->bad);
    cJSON_AddNumberToObject(o, "nonfinite", (double)c->nonfinite);
    cJSON_AddItemToObject(o, "max_error_ratio", number_or_null(c->max_error_ratio));
    cJSON_AddItemToObject(o, "worst", c->has_worst ? mismatch_json(&c->worst) : cJSON_CreateNull());
    cJSON *first = cJSON_AddArrayToObject(o, "first");
    for (int i = 0; i < c->nfirst; i++)
        cJSON_AddItemToArray(first, mismatch_json(&c->first[i]));
    cJSON_AddStringToObject(o, "rule", c->policy);
    return o;
}

static cJSON *phases_json(const tl_phase_log *log)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < log->n; i++) {
        const tl_phase *p = &log->phases[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", p->kind);
        cJSON_AddStringToObject(o, "name", p->name);
        cJSON_AddItemToObject(o, "seconds", p->seconds >= 0 ? cJSON_CreateNumber(p->seconds)
                                                            : cJSON_CreateNull());
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *kernel_json(const tl_kernel_timing *k)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "reps", k->ms.n);
    cJSON_AddNumberToObject(o, "median_ms", k->ms.median);
    cJSON_AddNumberToObject(o, "min_ms", k->ms.min);
    cJSON_AddNumberToObject(o, "max_ms", k->ms.max);
    cJSON_AddNumberToObject(o, "mean_ms", k->ms.mean);
    cJSON_AddNumberToObject(o, "l2_flush_bytes", (double)k->l2_flush_bytes);
    return o;
}

char *tl_run_report_json(const tl_run_report *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "program", r->program);
    cJSON_AddStringToObject(o, "dataset", r->dataset);
    cJSON_AddStringToObject(o, "device", r->device);
    cJSON_AddStringToObject(o, "verdict", tl_run_report_verdict(r));
    if (r->m > 0) {
        cJSON *shape = cJSON_AddObjectToObject(o, "shape");
        cJSON_AddNumberToObject(shape, "m", r->m);
        cJSON_AddNumberToObject(shape, "k", r->k);
        cJSON_AddNumberToObject(shape, "n", r->n);
    }
    cJSON_AddItemToObject(o, "check", r->checked ? tl_check_report_json(&r->check) : cJSON_CreateNull());
    cJSON_AddItemToObject(o, "phases", phases_json(&r->phases));
    cJSON_AddItemToObject(o, "kernel", r->kernel_timed ? kernel_json(&r->kernel)
                                                       : cJSON_CreateNull());
    double gflops = tl_run_report_gflops(r);
    cJSON_AddItemToObject(o, "gflops", gflops > 0 ? cJSON_CreateNumber(gflops) : cJSON_CreateNull());
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}

void tl_run_report_print(FILE *out, const tl_run_report *r)
{
    fprintf(out, "== %s", r->program);
    if (r->dataset[0])
        fprintf(out, " on %s", r->dataset);
    if (r->m > 0)
        fprintf(out, " (%d x %d x %d)", r->m, r->k, r->n);
    fprintf(out, "\n   device: %s\n", r->device[0] ? r->device : "unknown");
    for (int i = 0; i < r->phases.n; i++) {
        const tl_phase *p = &r->phases.phases[i];
        if (p->seconds >= 0)
            fprintf(out, "   %-8s %10.3f ms  %s\n", p->kind, p->seconds * 1e3, p->name);
        else
            fprintf(out, "   %-8s    (never stopped)  %s\n", p->kind, p->name);
    }
    if (r->kernel_timed) {
        fprintf(out, "   kernel   %10.3f ms  median of %d (min %.3f, max %.3f)", r->kernel.ms.median,
                r->kernel.ms.n, r->kernel.ms.min, r->kernel.ms.max);
        double gflops = tl_run_report_gflops(r);
        if (gflops > 0)
            fprintf(out, ", %.1f GFLOP/s", gflops);
        fputc('\n', out);
    }
    fputs("   ", out);
    if (r->checked)
        tl_check_report_print(out, &r->check);
    else
        fputs("UNCHECKED: no result was compared\n", out);
}
