/* What the replay of every kind of call shares: reading files, sending frames, launching a
 * recorded kernel, and the checks a call passes before it is replayed. */
#include "replay.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int replay_write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void replay_send(int fd, const void *data, size_t n)
{
    if (replay_write_all(fd, data, n) != 0) {
        fprintf(stderr, "tilelab-replay: cannot write the results: %s\n", strerror(errno));
        exit(3);
    }
}

char *replay_read_file(const char *path, size_t max, size_t *len, tl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        tl_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    fclose(f);
    if (!buf || n > max) {
        free(buf);
        tl_error_set(err, "%s: larger than %zu bytes", path, max);
        return NULL;
    }
    *len = n;
    return buf;
}

int replay_launch(const replay_backend *be, replay_device *dev, const caplog *log,
                  const caplog_launch *l, replay_addr (*address_of)(const void *ctx, caplog_ref),
                  const void *ctx, tl_error *err)
{
    static uint64_t params[CAPLOG_MAX_ARG_BYTES / 8 + CAPLOG_MAX_ARGS];
    uint8_t *bytes = (uint8_t *)params;
    void *args[CAPLOG_MAX_ARGS];
    memcpy(bytes, l->bytes, l->nbytes);
    for (int i = 0; i < l->nrelocs; i++) {
        uint64_t a = address_of(ctx, l->relocs[i].ref);
        memcpy(bytes + l->relocs[i].at, &a, 8);
    }
    uint32_t at = 0;
    for (int i = 0; i < l->nargs; i++) {
        args[i] = bytes + at;
        at += l->arg_size[i];
    }
    return be->launch(dev, log->kernels[l->kernel], l, args, err);
}

/* "the 3rd" */
static void ordinal(int n, char *out, size_t size)
{
    const char *suffix = n % 100 >= 11 && n % 100 <= 13 ? "th"
                         : n % 10 == 1                 ? "st"
                         : n % 10 == 2                 ? "nd"
                         : n % 10 == 3                 ? "rd"
                                                       : "th";
    snprintf(out, size, "the %d%s", n, suffix);
}

/* The call's allocations together over REPLAY_MAX_DEVICE_BYTES: which, the largest named. */
static bool memory_problem(const caplog *log, const caplog_call *c, char *why, size_t size)
{
    bool *used = calloc((size_t)log->nallocs + 1, sizeof *used);
    if (!used)
        return false;
    uint64_t bytes = caplog_call_allocs(log, c, used);
    int largest = -1;
    for (int i = 0; i < log->nallocs; i++)
        if (used[i] && (largest < 0 || log->alloc_sizes[i] > log->alloc_sizes[largest]))
            largest = i;
    free(used);
    if (bytes <= REPLAY_MAX_DEVICE_BYTES)
        return false;
    char which[32];
    ordinal(largest + 1, which, sizeof which);
    const double gib = (double)(UINT64_C(1) << 30);
    snprintf(why, size, "the cudaMalloc'd buffers it uses hold %.2f GiB of device memory, more "
             "than grading allows (%.0f GiB): %s cudaMalloc of the program asks for %.2f GiB "
             "(%llu bytes)", (double)bytes / gib, (double)REPLAY_MAX_DEVICE_BYTES / gib, which,
             (double)log->alloc_sizes[largest] / gib,
             (unsigned long long)log->alloc_sizes[largest]);
    return true;
}

const char *replay_call_problem(const caplog *log, const ptx_outline *outline,
                                const caplog_call *c, char *why, size_t size)
{
    if (c->refused[0]) {
        snprintf(why, size, "%s", c->refused);
        return why;
    }
    if (!c->ended) {
        snprintf(why, size, "the program stopped during this call when it was captured");
        return why;
    }
    if (memory_problem(log, c, why, size))
        return why;
    for (int i = 0; i < c->nops; i++) {
        const caplog_launch *l = c->ops[i].launch;
        if (!l)
            continue;
        const char *name = log->kernels[l->kernel];
        const ptx_entry_outline *e = ptx_outline_entry(outline, name);
        const char *bad = caplog_launch_problem(l, CAPLOG_MAX_DYNAMIC_SHARED);
        char shown[128];
        ptx_kernel_name(name, shown, sizeof shown);
        if (!e) {
            snprintf(why, size, "kernel %s is not in the module", shown);
            return why;
        }
        if (bad) {
            snprintf(why, size, "launch of %s: %s", shown, bad);
            return why;
        }
        if (e->nparams != l->nargs) {
            snprintf(why, size, "kernel %s takes %d parameters, the launch gives %d", shown,
                     e->nparams, l->nargs);
            return why;
        }
        for (int a = 0; a < l->nargs; a++) {
            if (e->param_size[a] != l->arg_size[a]) {
                snprintf(why, size, "kernel %s: parameter %d is %u bytes, the launch gives %u",
                         shown, a, e->param_size[a], l->arg_size[a]);
                return why;
            }
        }
    }
    return NULL;
}

replay_status replay_failure_status(replay_failure f)
{
    switch (f) {
    case REPLAY_CRASH: return REPLAY_STATUS_CRASH;
    case REPLAY_BAD_MODULE: return REPLAY_STATUS_BAD_INPUT;
    case REPLAY_UNSUPPORTED: return REPLAY_STATUS_UNSUPPORTED;
    case REPLAY_TIMEOUT: return REPLAY_STATUS_TIMEOUT;
    default: return REPLAY_STATUS_ERROR;
    }
}

void replay_add_status(cJSON *item, replay_status s, const char *detail)
{
    cJSON_AddStringToObject(item, "status", replay_status_name(s));
    cJSON_AddStringToObject(item, "detail", detail);
}


void replay_add_timing(cJSON *item, const double *ms, int reps, bool emulated,
                       const gpu_clock_record *clock, gpu_peaks peaks)
{
    tl_stats st;
    tl_stats_compute(ms, reps, &st);
    cJSON *t = cJSON_AddObjectToObject(item, "timing");
    cJSON_AddNumberToObject(t, "reps", reps);
    cJSON_AddNumberToObject(t, "median_ms", st.median);
    cJSON_AddNumberToObject(t, "min_ms", st.min);
    cJSON_AddNumberToObject(t, "max_ms", st.max);
    cJSON_AddBoolToObject(t, "emulated", emulated);
    cJSON *samples = cJSON_AddArrayToObject(t, "samples_ms");
    for (int i = 0; i < reps; i++)
        cJSON_AddItemToArray(samples, cJSON_CreateNumber(ms[i]));
    if (emulated)
        return;
    gpu_timing_clock_to_json(t, "clock", clock);
    cJSON *p = cJSON_AddObjectToObject(t, "peaks");
    cJSON_AddNumberToObject(p, "fp32_flops", peaks.flops);
    cJSON_AddNumberToObject(p, "dram_bytes", peaks.bytes);
}

/* Whether a word whose bytes were written as `held` says is kept. */
static bool kept(const uint8_t *held, size_t n, replay_keep keep)
{
    for (size_t i = 0; i < n; i++)
        if (keep == REPLAY_KEEP_STORED ? held[i] != PTX_HELD_KERNEL : held[i] == PTX_HELD_UPLOAD)
            return false;
    return true;
}

int replay_keep_computed(const replay_backend *be, replay_device *dev, replay_addr src,
                         void *host, uint64_t bytes, replay_keep keep, tl_error *err)
{
    if (!be->held)
        return tl_error_set(err, "this backend cannot tell what wrote device memory");
    uint8_t *held = malloc(bytes ? bytes : 1);
    if (!held)
        return tl_error_set(err, "out of memory");
    int rc = be->held(dev, src, bytes, held, err);
    uint8_t *out = host;
    for (uint64_t at = 0; rc == 0 && at < bytes; at += 4) {
        size_t n = bytes - at < 4 ? (size_t)(bytes - at) : 4;
        if (!kept(held + at, n, keep))
            memset(out + at, 0xff, n);
    }
    free(held);
    return rc;
}
