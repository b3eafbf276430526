/* A launch: checks its configuration, then runs its blocks, on several threads when it can.
 * Workers take blocks in order (x fastest, as blockIdx is linearised); the first failing block
 * in that order is the one reported, as when they run one after another: once block i fails,
 * no block after it is started, and every block before it has been. */
#include "diag.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LAUNCH_THREADS 256
#define MAX_HOST_PARAMS 8

/* What every worker shares: the launch, read-only while blocks run, and its outcome. */
typedef struct launch {
    const ptx_entry *e;
    ptx_dim3 grid, block;
    int nthreads, nwarps;
    size_t dynamic_shared;
    const ptx_env *env;
    ptx_diag *diag;
    uint8_t *params;
    uint64_t host_params[MAX_HOST_PARAMS];
    int host_param_index[MAX_HOST_PARAMS], nhost_params;
    uint64_t nblocks;
    bool parallel;
    atomic_uint_fast64_t next_block;
    atomic_uint_fast64_t failed_block; /* UINT64_MAX while none has failed */
    pthread_mutex_t lock;
    ptx_error err;                     /* the failed block's */
} launch;

typedef struct worker {
    launch *l;
    ptx_stats stats;
    bool out_of_memory;
} worker;

static void record_failure(launch *l, uint64_t index, const ptx_error *err)
{
    pthread_mutex_lock(&l->lock);
    if (index < atomic_load(&l->failed_block)) {
        l->err = *err;
        atomic_store(&l->failed_block, index);
    }
    pthread_mutex_unlock(&l->lock);
}

/* Runs blocks until none is left or one has failed; each worker has its own block memory. */
static void *work(void *arg)
{
    worker *wk = arg;
    launch *l = wk->l;
    const ptx_entry *e = l->e;
    block_ctx b;
    memset(&b, 0, sizeof b);
    /* Counted on this thread's stack: workers side by side in one array would share a cache
     * line that every instruction writes. */
    ptx_stats stats = {0, 0};
    ptx_error err;
    err.kind = PTX_ERROR_FAULT;
    err.msg[0] = '\0';
    b.e = e;
    b.grid = l->grid;
    b.block = l->block;
    b.nthreads = l->nthreads;
    b.nwarps = l->nwarps;
    b.stats = &stats;
    b.err = &err;
    b.env = l->env;
    b.diag = l->diag;
    b.parallel = l->parallel;
    b.params = l->params;
    b.shared_bytes = e->shared_bytes;
    b.dynamic_bytes = l->dynamic_shared;
    if (e->reserved_shared) {
        /* The reserved region lengthens the last part of the block's shared memory. */
        uint64_t own = l->dynamic_shared ? l->dynamic_shared : e->shared_bytes;
        uint64_t at = (own + PTX_RESERVED_SHARED_ALIGN - 1) / PTX_RESERVED_SHARED_ALIGN *
                      PTX_RESERVED_SHARED_ALIGN;
        if (l->dynamic_shared)
            b.dynamic_bytes = at + PTX_RESERVED_SHARED_CAP;
        else
            b.shared_bytes = at + PTX_RESERVED_SHARED_CAP;
        b.reserved_offset = (uint32_t)(at + (l->dynamic_shared ? PTX_DYNAMIC_SHARED_BASE : 0));
    }
    memcpy(b.host_params, l->host_params, sizeof b.host_params);
    memcpy(b.host_param_index, l->host_param_index, sizeof b.host_param_index);
    b.nhost_params = l->nhost_params;
    size_t shared_alloc = b.dynamic_bytes ? PTX_DYNAMIC_SHARED_BASE + b.dynamic_bytes
                                          : b.shared_bytes;
    size_t local_block = (size_t)e->local_bytes * (size_t)l->nthreads;
    b.shared = malloc(shared_alloc ? shared_alloc : 1);
    b.local = malloc(local_block ? local_block : 1);
    warp *warps = calloc((size_t)b.nwarps, sizeof *warps);
    uint64_t *regs = calloc((size_t)b.nwarps * 32 * (size_t)(e->nregs ? e->nregs : 1),
                            sizeof *regs);
    if (b.diag) {
        b.static_words = (b.shared_bytes + 3) / 4;
        b.shadow = malloc((b.static_words + (b.dynamic_bytes + 3) / 4 + 1) * sizeof *b.shadow);
    }
    if (!b.shared || !b.local || !warps || !regs || (b.diag && !b.shadow)) {
        wk->out_of_memory = true;
        goto done;
    }
    for (;;) {
        uint64_t i = atomic_fetch_add(&l->next_block, 1);
        if (i >= l->nblocks || i > atomic_load(&l->failed_block))
            break;
        uint64_t gx = l->grid.x, gy = l->grid.y;
        b.ctaid = (ptx_dim3){(unsigned)(i % gx), (unsigned)(i / gx % gy), (unsigned)(i / gx / gy)};
        b.issued = 0;
        /* Fresh shared and local memory are not zero on a GPU either: a pattern that reads
         * as NaN, so a kernel that reads before writing shows it. */
        memset(b.shared, 0xff, b.shared_bytes);
        if (b.dynamic_bytes)
            memset(b.shared + PTX_DYNAMIC_SHARED_BASE, 0xff, b.dynamic_bytes);
        /* The system's region starts cleared (cooperative groups reset what they use). */
        if (e->reserved_shared)
            memset(b.shared + b.reserved_offset, 0, PTX_RESERVED_SHARED_CAP);
        memset(b.local, 0xff, local_block);
        for (int k = 0; k < b.nwarps; k++) {
            warp *w = &warps[k];
            w->base = k * 32;
            w->nlanes = b.nthreads - w->base < 32 ? b.nthreads - w->base : 32;
            w->regs = regs + (size_t)k * 32 * (size_t)e->nregs;
            memset(w->pc, 0, sizeof w->pc);
            for (int lane = 0; lane < 32; lane++)
                w->state[lane] = lane < w->nlanes ? LANE_RUN : LANE_DONE;
        }
        int rc = ptx_run_block(&b, warps);
        ptx_calls_free(&b);
        if (rc != 0) {
            record_failure(l, i, &err);
            break;
        }
    }
done:
    wk->stats = stats;
    free(b.shadow);
    free(b.mbar_valid);
    free(regs);
    free(warps);
    free(b.local);
    free(b.shared);
    return NULL;
}

/* Whether the kernel prints: its output must come out in block order, so it runs alone. */
static bool prints(const ptx_entry *e)
{
    for (int i = 0; i < e->ncode; i++)
        if (e->code[i].op == OP_CALL && e->code[i].ops[1].imm == PTX_FUNC_VPRINTF)
            return true;
    return false;
}

static int thread_count(const launch *l, const ptx_env *env)
{
    if (l->diag || prints(l->e))
        return 1;
    long n = env && env->threads > 0 ? env->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > MAX_LAUNCH_THREADS)
        n = MAX_LAUNCH_THREADS;
    return (uint64_t)n > l->nblocks ? (int)l->nblocks : (int)n;
}

/* The parameters, and the 64-bit ones outside every allocation: probably host pointers, which
 * the checks name when a kernel dereferences one. */
static void copy_params(launch *l, void **args)
{
    const ptx_entry *e = l->e;
    const ptx_env *env = l->env;
    for (int i = 0; i < e->nparams; i++) {
        memcpy(l->params + e->params[i].offset, args[i], e->params[i].size);
        if (!env || !env->regions || e->params[i].size != 8 || l->nhost_params == MAX_HOST_PARAMS)
            continue;
        uint64_t v = 0;
        memcpy(&v, args[i], 8);
        bool device = v == 0;
        for (int r = 0; r < env->nregions && !device; r++)
            device = v >= env->regions[r].base && v < env->regions[r].base + env->regions[r].size;
        if (!device) {
            l->host_param_index[l->nhost_params] = i;
            l->host_params[l->nhost_params++] = v;
        }
    }
}

int ptx_launch(const ptx_entry *e, ptx_dim3 grid, ptx_dim3 block, void **args,
               size_t dynamic_shared, ptx_stats *stats, ptx_error *err)
{
    return ptx_launch_env(e, grid, block, args, dynamic_shared, NULL, stats, err);
}

int ptx_launch_env(const ptx_entry *e, ptx_dim3 grid, ptx_dim3 block, void **args,
                   size_t dynamic_shared, const ptx_env *env, ptx_stats *stats, ptx_error *err)
{
    err->kind = PTX_ERROR_FAULT;
    if (e->unsupported[0]) {
        snprintf(err->msg, sizeof err->msg, "%s", e->unsupported);
        return -1;
    }
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 ||
        grid.z == 0 || grid.y > 65535 || grid.z > 65535) {
        snprintf(err->msg, sizeof err->msg,
                 "invalid launch configuration for %s: grid (%u,%u,%u), block (%u,%u,%u)", e->name,
                 grid.x, grid.y, grid.z, block.x, block.y, block.z);
        return -1;
    }
    if (e->shared_bytes > PTX_DYNAMIC_SHARED_BASE) {
        snprintf(err->msg, sizeof err->msg, "%s declares %u bytes of shared memory, more than a "
                 "block can have", e->name, e->shared_bytes);
        return -1;
    }
    launch *l = calloc(1, sizeof *l);
    if (!l || !(l->params = calloc(1, e->param_bytes ? e->param_bytes : 1))) {
        free(l);
        snprintf(err->msg, sizeof err->msg, "out of memory launching %s", e->name);
        return -1;
    }
    l->e = e;
    l->grid = grid;
    l->block = block;
    l->nthreads = (int)threads;
    l->nwarps = (l->nthreads + 31) / 32;
    l->dynamic_shared = dynamic_shared;
    l->env = env;
    l->diag = env ? env->diag : NULL;
    l->nblocks = (uint64_t)grid.x * grid.y * grid.z;
    atomic_init(&l->next_block, 0);
    atomic_init(&l->failed_block, UINT64_MAX);
    pthread_mutex_init(&l->lock, NULL);
    copy_params(l, args);
    if (l->diag)
        diag_launch(l->diag, e, grid, block);
    int n = thread_count(l, env);
    l->parallel = n > 1;
    worker workers[MAX_LAUNCH_THREADS];
    pthread_t tids[MAX_LAUNCH_THREADS];
    int started = 1;
    for (int i = 0; i < n; i++)
        workers[i] = (worker){l, {0, 0}, false};
    /* This thread is worker 0; the others are started beside it. */
    for (int i = 1; i < n; i++) {
        if (pthread_create(&tids[i], NULL, work, &workers[i]) != 0)
            break;
        started++;
    }
    work(&workers[0]);
    for (int i = 1; i < started; i++)
        pthread_join(tids[i], NULL);
    int rc = 0;
    bool out_of_memory = false;
    for (int i = 0; i < started; i++) {
        if (stats) {
            stats->warp_instructions += workers[i].stats.warp_instructions;
            stats->thread_instructions += workers[i].stats.thread_instructions;
        }
        out_of_memory |= workers[i].out_of_memory;
    }
    if (atomic_load(&l->failed_block) != UINT64_MAX) {
        *err = l->err;
        rc = -1;
    } else if (out_of_memory && atomic_load(&l->next_block) < l->nblocks) {
        snprintf(err->msg, sizeof err->msg, "out of memory launching %s", e->name);
        rc = -1;
    }
    pthread_mutex_destroy(&l->lock);
    free(l->params);
    free(l);
    return rc;
}
