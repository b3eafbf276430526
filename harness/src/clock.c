#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double tl_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void tl_stats_compute(const double *samples, int n, tl_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0)
        return;
    /* Sorting a copy keeps the caller's samples in launch order (useful for spotting drift). */
    double small[64];
    double *sorted = n <= 64 ? small : malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        return;
    memcpy(sorted, samples, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += sorted[i];
    out->n = n;
    out->min = sorted[0];
    out->max = sorted[n - 1];
    out->mean = sum / n;
    out->median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    if (sorted != small)
        free(sorted);
}

double tl_gflops(int64_t m, int64_t k, int64_t n, double seconds)
{
    if (seconds <= 0)
        return 0;
    return 2.0 * (double)m * (double)k * (double)n / seconds * 1e-9;
}

void tl_phase_log_init(tl_phase_log *log)
{
    memset(log, 0, sizeof *log);
}

static void copy_text(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

int tl_phase_start(tl_phase_log *log, const char *kind, const char *name)
{
    if (log->n >= TL_MAX_PHASES)
        return -1;
    tl_phase *p = &log->phases[log->n];
    copy_text(p->kind, sizeof p->kind, kind);
    copy_text(p->name, sizeof p->name, name);
    p->seconds = -1;
    p->start = tl_clock_now();
    return log->n++;
}

int tl_phase_stop(tl_phase_log *log, const char *kind, const char *name)
{
    double now = tl_clock_now();
    for (int i = log->n - 1; i >= 0; i--) {
        tl_phase *p = &log->phases[i];
        if (p->seconds < 0 && strcmp(p->kind, kind ? kind : "") == 0 &&
            strncmp(p->name, name ? name : "", sizeof p->name - 1) == 0) {
            p->seconds = now - p->start;
            return i;
        }
    }
    return -1;
}
