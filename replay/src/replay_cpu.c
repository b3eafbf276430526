/* The replayer's CPU backend: the PTX interpreter, with device memory in this process. Every
 * global access a kernel makes is checked against the allocations below and the module's
 * variables, so a kernel can reach nothing else of this process. */
#include "replay.h"
#include "replay_memory.h"
#include "replay_protocol.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct allocation {
    uint8_t *ptr;
    uint64_t size;
    uint8_t *shadow; /* under diagnosis: what last wrote each byte (PTX_HELD_*) */
    uint32_t *owner; /* an answer's memory in a sampled run: who stored each word, or NULL */
    int id;          /* among the submission's own (unnamed) allocations */
    char name[REPLAY_MAX_NAME]; /* "" for those */
} allocation;

struct replay_device {
    ptx_module *module;
    ptx_diag *diag;
    const char *diagnose_path;
    uint64_t sample_blocks, sample_seed;
    uint32_t serial; /* block serials handed out so far (ptx_env.block_serial) */
    uint64_t instruction_limit, deadline_ns;
    uint64_t busy[3]; /* replay_module.busy */
    double work_macs;
    bool sampling; /* the next launches are sampled (set_sampling) */
    allocation *allocs;
    int nallocs, nunnamed;
    ptx_region *regions; /* the allocations sorted by address, for the interpreter */
    uint8_t **saved;     /* module variables as loaded */
    replay_failure failure;
};

static int failed(replay_device *d, replay_failure why, tl_error *err, const char *msg)
{
    d->failure = why;
    return tl_error_set(err, "%s", msg);
}

static int cpu_open(const replay_module *m, replay_device **out, replay_failure *why, tl_error *err)
{
    replay_device *d = calloc(1, sizeof *d);
    *out = d;
    *why = REPLAY_INTERNAL;
    if (!d)
        return tl_error_set(err, "out of memory");
    size_t len = 0;
    char *text = replay_read_file(m->ptx, REPLAY_MAX_MODULE, &len, err);
    if (!text) {
        *why = REPLAY_BAD_MODULE;
        return -1;
    }
    ptx_error perr;
    d->module = ptx_module_parse(m->ptx, text, len, &perr);
    free(text);
    if (!d->module) {
        /* nvcc wrote this PTX, so the interpreter is what falls short. */
        *why = REPLAY_UNSUPPORTED;
        return tl_error_set(err, "%s", perr.msg);
    }
    d->instruction_limit = m->instruction_limit;
    d->deadline_ns = m->deadline_ns;
    memcpy(d->busy, m->busy, sizeof d->busy);
    d->work_macs = m->work_macs;
    if (m->diagnose) {
        d->diag = ptx_diag_new();
        d->diagnose_path = m->diagnose;
        d->sample_blocks = m->sample_blocks;
        d->sample_seed = m->sample_seed;
        if (!d->diag)
            return tl_error_set(err, "out of memory");
    }
    return 0;
}

static void cpu_close(replay_device *d)
{
    if (!d)
        return;
    if (d->diag) {
        FILE *f = fopen(d->diagnose_path, "w");
        if (f) {
            ptx_diag_write_json(d->diag, f);
            fclose(f);
        }
        ptx_diag_free(d->diag);
    }
    for (int i = 0; i < d->nallocs; i++) {
        replay_memory_free(d->allocs[i].ptr, d->allocs[i].size);
        replay_memory_free(d->allocs[i].shadow, d->allocs[i].size);
        free(d->allocs[i].owner);
    }
    if (d->module && d->saved)
        for (int i = 0; i < ptx_module_variable_count(d->module); i++)
            free(d->saved[i]);
    free(d->saved);
    free(d->allocs);
    free(d->regions);
    ptx_module_free(d->module);
    free(d);
}

static void cpu_device_name(replay_device *d, char *out, size_t size)
{
    (void)d;
    snprintf(out, size, "tilelab CPU backend (PTX interpreter)");
}

static int by_base(const void *a, const void *b)
{
    uint64_t x = ((const ptx_region *)a)->base, y = ((const ptx_region *)b)->base;
    return (x > y) - (x < y);
}

/* The regions point into allocs, which may have moved: all are made again. */
static void make_regions(replay_device *d)
{
    for (int i = 0; i < d->nallocs; i++) {
        const allocation *a = &d->allocs[i];
        d->regions[i] = (ptx_region){(uint64_t)(uintptr_t)a->ptr, a->size, a->shadow, a->id,
                                     a->name[0] ? a->name : NULL, a->owner};
    }
    qsort(d->regions, (size_t)d->nallocs, sizeof *d->regions, by_base);
}

static int cpu_alloc(replay_device *d, uint64_t bytes, const char *name, replay_addr *out,
                     tl_error *err)
{
    /* Aligned as cudaMalloc's memory is, so the sectors a warp touches are the GPU's; backed
     * only where written (replay_memory.h). */
    uint8_t *p = bytes > ((uint64_t)1 << 40) ? NULL : replay_memory_new(bytes);
    if (!p)
        return failed(d, REPLAY_INTERNAL, err, "out of memory for device memory");
    allocation *grown = realloc(d->allocs, (size_t)(d->nallocs + 1) * sizeof *grown);
    ptx_region *regions = realloc(d->regions, (size_t)(d->nallocs + 1) * sizeof *regions);
    if (grown)
        d->allocs = grown;
    if (regions)
        d->regions = regions;
    uint8_t *shadow = d->diag ? replay_memory_zeroed(bytes) : NULL;
    if (!grown || !regions || (d->diag && !shadow)) {
        replay_memory_free(p, bytes);
        replay_memory_free(shadow, bytes);
        return failed(d, REPLAY_INTERNAL, err, "out of memory for device memory");
    }
    allocation *a = &d->allocs[d->nallocs++];
    *a = (allocation){p, bytes, shadow, NULL, name ? 0 : ++d->nunnamed, ""};
    snprintf(a->name, sizeof a->name, "%s", name ? name : "");
    make_regions(d);
    *out = (uint64_t)(uintptr_t)p;
    return 0;
}

/* The allocation holding [a, a+bytes): the replayer's own operations stay inside them. */
static allocation *holder(replay_device *d, replay_addr a, uint64_t bytes)
{
    for (int i = 0; i < d->nallocs; i++) {
        uint64_t base = (uint64_t)(uintptr_t)d->allocs[i].ptr;
        if (a >= base && a - base <= d->allocs[i].size && bytes <= d->allocs[i].size - (a - base))
            return &d->allocs[i];
    }
    return NULL;
}

/* [a, a+bytes) of an allocation, now holding what `held` says wrote it (PTX_HELD_*). */
static uint8_t *span(replay_device *d, replay_addr a, uint64_t bytes, int held, tl_error *err)
{
    allocation *h = holder(d, a, bytes);
    if (!h) {
        failed(d, REPLAY_INTERNAL, err, "a copy outside the device memory the replayer made");
        return NULL;
    }
    if (held != PTX_HELD_NOTHING && h->shadow)
        memset(h->shadow + (a - (uint64_t)(uintptr_t)h->ptr), held, bytes);
    return (uint8_t *)(uintptr_t)a;
}

static int cpu_upload(replay_device *d, replay_addr dst, const void *src, uint64_t bytes,
                      tl_error *err)
{
    uint8_t *p = span(d, dst, bytes, PTX_HELD_UPLOAD, err);
    if (!p)
        return -1;
    memcpy(p, src, bytes);
    return 0;
}

static int cpu_download(replay_device *d, void *dst, replay_addr src, uint64_t bytes, tl_error *err)
{
    uint8_t *p = span(d, src, bytes, PTX_HELD_NOTHING, err);
    if (!p)
        return -1;
    memcpy(dst, p, bytes);
    return 0;
}

static int cpu_fill(replay_device *d, replay_addr dst, int value, uint64_t bytes, tl_error *err)
{
    uint8_t *p = span(d, dst, bytes, PTX_HELD_FILL, err);
    if (!p)
        return -1;
    memset(p, value, bytes);
    return 0;
}

static int cpu_poison(replay_device *d, replay_addr dst, uint64_t bytes, tl_error *err)
{
    allocation *h = holder(d, dst, bytes);
    if (!h)
        return failed(d, REPLAY_INTERNAL, err, "a copy outside the device memory the replayer made");
    uint64_t at = dst - (uint64_t)(uintptr_t)h->ptr;
    replay_memory_poison(h->ptr, h->size, at, bytes);
    if (h->shadow)
        replay_memory_clear(h->shadow, h->size, at, bytes);
    return 0;
}

/* A copy carries what wrote its source, byte for byte. */
static int cpu_copy(replay_device *d, replay_addr dst, replay_addr src, uint64_t bytes,
                    tl_error *err)
{
    allocation *to = holder(d, dst, bytes), *from = holder(d, src, bytes);
    if (!to || !from)
        return failed(d, REPLAY_INTERNAL, err, "a copy outside the device memory the replayer made");
    memmove((uint8_t *)(uintptr_t)dst, (const uint8_t *)(uintptr_t)src, bytes);
    if (to->shadow && from->shadow)
        memmove(to->shadow + (dst - (uint64_t)(uintptr_t)to->ptr),
                from->shadow + (src - (uint64_t)(uintptr_t)from->ptr), bytes);
    else if (to->shadow)
        memset(to->shadow + (dst - (uint64_t)(uintptr_t)to->ptr), PTX_HELD_FILL, bytes);
    return 0;
}

static int cpu_held(replay_device *d, replay_addr src, uint64_t bytes, uint8_t *out,
                    tl_error *err)
{
    allocation *h = holder(d, src, bytes);
    if (!h || !h->shadow)
        return failed(d, REPLAY_INTERNAL, err, h ? "no record of what wrote device memory "
                      "outside a diagnosis" : "a copy outside the device memory the replayer made");
    memcpy(out, h->shadow + (src - (uint64_t)(uintptr_t)h->ptr), bytes);
    return 0;
}

static int cpu_count_stores(replay_device *d, replay_addr a, uint64_t bytes, tl_error *err)
{
    allocation *h = holder(d, a, bytes);
    if (!h)
        return failed(d, REPLAY_INTERNAL, err, "a copy outside the device memory the replayer made");
    if (!h->owner) {
        /* The whole allocation's words: a block's stores anywhere in it are its own. */
        h->owner = calloc(h->size / 4 + 1, sizeof *h->owner);
        if (!h->owner)
            return failed(d, REPLAY_INTERNAL, err, "out of memory");
        make_regions(d);
    }
    return 0;
}

static int cpu_launch(replay_device *d, const char *kernel, const caplog_launch *l, void **args,
                      tl_error *err)
{
    const ptx_entry *e = ptx_module_entry(d->module, kernel);
    if (!e)
        return failed(d, REPLAY_UNSUPPORTED, err, "the interpreter found no such kernel in the PTX");
    ptx_env env = {.regions = d->regions, .nregions = d->nallocs, .diag = d->diag,
                   .sample_blocks = d->sampling ? d->sample_blocks : 0,
                   .sample_seed = d->sample_seed, .block_serial = d->serial,
                   .max_thread_instructions = d->instruction_limit,
                   .deadline_ns = d->deadline_ns, .max_warp_issue = d->busy[0],
                   .max_block_issue = d->busy[1], .max_block_wavefronts = d->busy[2]};
    /* A sample of the blocks gets their share of the limit. */
    double blocks = (double)l->grid[0] * l->grid[1] * l->grid[2];
    double threads = blocks * l->block[0] * l->block[1] * l->block[2];
    if (d->work_macs > 0 && threads > 0)
        env.ordinary_trips = (uint64_t)(REPLAY_CPU_SLOWDOWN * d->work_macs / threads +
                                        REPLAY_ORDINARY_TRIPS_FLOOR);
    if (env.sample_blocks && env.max_thread_instructions && env.sample_blocks < blocks) {
        double share = (double)env.max_thread_instructions * (double)env.sample_blocks / blocks;
        env.max_thread_instructions = (uint64_t)(share > REPLAY_LIMIT_FLOOR ? share
                                                                           : REPLAY_LIMIT_FLOOR);
    }
    /* The next launch's blocks get serials after this one's, sampled or not. */
    d->serial += (uint32_t)(env.sample_blocks && env.sample_blocks < blocks ? env.sample_blocks
                                                                             : blocks);
    ptx_stats stats = {0, 0};
    ptx_error perr;
    int rc = ptx_launch_env(e, (ptx_dim3){l->grid[0], l->grid[1], l->grid[2]},
                            (ptx_dim3){l->block[0], l->block[1], l->block[2]}, args, l->shared,
                            &env, &stats, &perr);
    /* Past a busy limit the model knows enough: the counts say so, the replay goes on. */
    if (rc != 0 && perr.kind == PTX_ERROR_BUSY)
        return 0;
    if (rc != 0) {
        bool unsupported = strstr(perr.msg, "is not supported by the CPU backend") != NULL;
        return failed(d, unsupported                         ? REPLAY_UNSUPPORTED
                         : perr.kind == PTX_ERROR_LIMIT ? REPLAY_TIMEOUT
                                                        : REPLAY_CRASH,
                      err, perr.msg);
    }
    return 0;
}

static int cpu_sync(replay_device *d, tl_error *err)
{
    (void)d, (void)err;
    return 0;
}

static int cpu_save_variables(replay_device *d, tl_error *err)
{
    int n = ptx_module_variable_count(d->module);
    d->saved = calloc((size_t)(n ? n : 1), sizeof *d->saved);
    if (!d->saved)
        return failed(d, REPLAY_INTERNAL, err, "out of memory");
    for (int i = 0; i < n; i++) {
        size_t size;
        uint8_t *v = ptx_module_variable(d->module, i, &size);
        d->saved[i] = malloc(size ? size : 1);
        if (!d->saved[i])
            return failed(d, REPLAY_INTERNAL, err, "out of memory");
        memcpy(d->saved[i], v, size);
    }
    return 0;
}

static int cpu_restore_variables(replay_device *d, tl_error *err)
{
    (void)err;
    for (int i = 0; d->saved && i < ptx_module_variable_count(d->module); i++) {
        size_t size;
        uint8_t *v = ptx_module_variable(d->module, i, &size);
        memcpy(v, d->saved[i], size);
    }
    return 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall-clock time of the interpreter: emulated time, useful only to compare kernels run the
 * same way. */
static int cpu_time(replay_device *d, int warmup, int reps, replay_step before, replay_step step,
                    void *ctx, double *ms, bool *emulated, gpu_clock_record *clock,
                    gpu_peaks *peaks, tl_error *err)
{
    (void)err;
    *emulated = true;
    *clock = (gpu_clock_record){0};
    *peaks = (gpu_peaks){0, 0};
    for (int i = 0; i < warmup + reps; i++) {
        int rep = i < warmup ? -1 - i : i - warmup;
        before(ctx, rep);
        double t0 = now();
        step(ctx, rep);
        if (d->failure)
            return -1;
        if (rep >= 0)
            ms[rep] = (now() - t0) * 1e3;
    }
    return 0;
}

static replay_failure cpu_failure(replay_device *d) { return d->failure; }

static int cpu_write_variable(replay_device *d, const char *name, uint64_t offset,
                              const void *src, int value, uint64_t bytes, tl_error *err)
{
    size_t size = 0;
    uint8_t *v = ptx_module_variable_named(d->module, name, &size);
    if (!v || offset > size || bytes > size - offset)
        return failed(d, REPLAY_BAD_MODULE, err,
                      v ? "a write past the end of a module variable"
                        : "a module variable the module does not declare");
    if (src)
        memcpy(v + offset, src, bytes);
    else
        memset(v + offset, value, bytes);
    return 0;
}

static void cpu_set_sampling(replay_device *d, bool on) { d->sampling = on; }

static void cpu_set_baseline(replay_device *d, bool on)
{
    if (d->diag)
        ptx_diag_set_baseline(d->diag, on);
}

const replay_backend replay_cpu_backend = {
    cpu_open,     cpu_close,          cpu_device_name,      cpu_alloc,
    cpu_upload,     cpu_download, cpu_fill,           cpu_poison,           cpu_copy,
    cpu_launch,     cpu_sync,     cpu_save_variables, cpu_restore_variables, cpu_time,
    cpu_failure,    cpu_set_sampling, cpu_set_baseline, cpu_write_variable,
    cpu_held,       cpu_count_stores,
};
