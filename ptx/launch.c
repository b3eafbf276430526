/* A launch: checks its configuration, then runs its blocks, on several threads when it can.
 * Workers take blocks in order (x fastest, as blockIdx is linearised); the first failing block
 * in that order is the one reported, as when they run one after another: once block i fails,
 * no block after it is started, and every block before it is run.
 *
 * Blocks may wait for each other: a flag one block sets and another spins on, a barrier of the
 * whole grid made of atomics. A GPU runs as many blocks at once as its SMs hold (the resident
 * blocks) and starts the others as resident ones finish. Here, with fewer host threads than
 * that, a block whose warps all spin (spin.c) is parked, its state kept, and its thread runs
 * another block: a new one while the GPU's residency limit allows, else the parked block that
 * has waited longest. When every resident block spins while no block writes anything, and no
 * block is left to start, none can ever go on: the launch fails with a report where a GPU
 * would hang. */
#include "diag.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LAUNCH_THREADS 256
#define MAX_HOST_PARAMS 8
/* Blocks a deadlock report names; it counts the others. */
#define REPORT_BLOCKS 4

/* What an H100 SXM (132 SMs) holds at once, per SM: 32 blocks, 64 warps (2048 threads),
 * 228 KB of shared memory, of which each block takes its own and 1 KB the runtime reserves.
 * Registers are left out: PTX's are virtual, so a kernel that uses many may have fewer blocks
 * resident on a GPU than here. */
#define H100_SMS 132u
#define H100_BLOCKS_PER_SM 32u
#define H100_WARPS_PER_SM 64u
#define H100_SHARED_PER_SM (228u * 1024u)
#define H100_SHARED_PER_BLOCK_RESERVED 1024u

/* A started block that has not finished: its memory and warps, kept while it is parked. A
 * finished block's slot is reused for the next one. */
typedef struct slot {
    block_ctx b;
    warp *warps;
    uint64_t *regs;
    int32_t *taint; /* under diagnosis: the registers' origins (taint.c) */
    size_t local_bytes;
    ptx_error err;
    uint64_t index;    /* the block's linear index */
    uint64_t ordinal;  /* its place among the blocks the launch runs */
    uint64_t stamp;    /* parked: ptx_spin_stamp's; PTX_NO_STAMP before it has parked */
    struct slot *next; /* in the free list or the parked queue */
} slot;

/* What every worker shares: the launch, read-only while blocks run, and the schedule, which
 * `lock` guards. */
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
    uint64_t nrun;        /* blocks to run: nblocks, or a sample of them (ptx_env) */
    uint64_t *sample;     /* the sample's block indices, ascending; NULL when all run */
    bool parallel;
    pthread_mutex_t lock;
    pthread_cond_t wake;  /* a block's run ended: workers waiting for that look again */
    uint64_t next_block;  /* the next block to start */
    uint64_t failed_block; /* UINT64_MAX while none has failed */
    ptx_error err;        /* the failed block's */
    uint64_t resident, resident_max; /* blocks started and not finished, and the GPU's limit */
    int nworkers, running, waiting;  /* workers; those running a block, those waiting */
    slot *current[MAX_LAUNCH_THREADS]; /* what each worker runs, or NULL */
    slot *free_slots, *parked, *parked_last;
    bool out_of_memory;
    _Atomic uint64_t changes; /* writes of the block runs that have ended (exec.h) */
    _Atomic uint64_t instructions; /* thread instructions run, for the limit (limit.c) */
} launch;

typedef struct worker {
    launch *l;
    int id;
    ptx_stats stats;
} worker;

/* The lock is held. */
static void record_failure(launch *l, uint64_t index, const ptx_error *err)
{
    /* Past a busy limit the launch's time is known: no block starts after it. */
    if (err->kind == PTX_ERROR_BUSY) {
        if (l->failed_block == UINT64_MAX) {
            l->err = *err;
            l->failed_block = 0;
        }
    } else if (index < l->failed_block) {
        l->err = *err;
        l->failed_block = index;
    }
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* The index of the n-th block to run: all in order, or the n-th of the sample. */
static uint64_t block_index(const launch *l, uint64_t n)
{
    return l->sample ? l->sample[n] : n;
}

/* SplitMix64's finaliser: a well-mixed 64-bit value of x. */
static uint64_t mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* The sample: the grid in blockIdx order cut into nrun stretches as equal as can be, and one
 * block drawn from each by the seed. Spread over the whole grid (every stretch has one), and
 * unknowable to a kernel that does not know the seed. Ascending, so that blocks still start,
 * and a failure is still reported, in index order. */
static int draw_sample(launch *l, uint64_t seed)
{
    l->sample = malloc(l->nrun * sizeof *l->sample);
    if (!l->sample)
        return -1;
    for (uint64_t n = 0; n < l->nrun; n++) {
        uint64_t lo = n * l->nblocks / l->nrun, hi = (n + 1) * l->nblocks / l->nrun;
        l->sample[n] = lo + mix64(seed ^ mix64(n)) % (hi - lo);
    }
    return 0;
}

/* Blocks of this launch an H100 holds at once. */
static uint64_t resident_limit(const launch *l)
{
    uint64_t shared = (uint64_t)l->e->shared_bytes + l->dynamic_shared +
                      H100_SHARED_PER_BLOCK_RESERVED;
    uint64_t per_sm = min_u64(H100_BLOCKS_PER_SM, H100_WARPS_PER_SM / (uint64_t)l->nwarps);
    per_sm = min_u64(per_sm, H100_SHARED_PER_SM / shared);
    return H100_SMS * (per_sm ? per_sm : 1);
}

static void slot_free(slot *s, int nwarps)
{
    if (!s)
        return;
    if (s->warps)
        ptx_spin_free(s->warps, nwarps);
    free(s->b.shadow);
    free(s->b.shared_taint);
    free(s->taint);
    free(s->b.lane_clocks);
    free(s->b.lane_known);
    free(s->b.mbar_valid);
    free(s->regs);
    free(s->warps);
    free(s->b.local);
    free(s->b.shared);
    free(s);
}

/* A block's memory, for one block after another; NULL when there is no memory for it. */
static slot *slot_new(launch *l)
{
    const ptx_entry *e = l->e;
    slot *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    block_ctx *b = &s->b;
    s->err.kind = PTX_ERROR_FAULT;
    b->e = e;
    b->grid = l->grid;
    b->block = l->block;
    b->nthreads = l->nthreads;
    b->nwarps = l->nwarps;
    b->err = &s->err;
    b->env = l->env;
    b->diag = l->diag;
    b->parallel = l->parallel;
    b->params = l->params;
    b->shared_bytes = e->shared_bytes;
    b->dynamic_bytes = l->dynamic_shared;
    if (e->reserved_shared) {
        /* The reserved region lengthens the last part of the block's shared memory. */
        uint64_t own = l->dynamic_shared ? l->dynamic_shared : e->shared_bytes;
        uint64_t at = (own + PTX_RESERVED_SHARED_ALIGN - 1) / PTX_RESERVED_SHARED_ALIGN *
                      PTX_RESERVED_SHARED_ALIGN;
        if (l->dynamic_shared)
            b->dynamic_bytes = at + PTX_RESERVED_SHARED_CAP;
        else
            b->shared_bytes = at + PTX_RESERVED_SHARED_CAP;
        b->reserved_offset = (uint32_t)(at + (l->dynamic_shared ? PTX_DYNAMIC_SHARED_BASE : 0));
    }
    b->changes = &l->changes;
    b->launch_instructions = &l->instructions;
    b->max_thread_instructions = l->env ? l->env->max_thread_instructions : 0;
    b->deadline_ns = l->env ? l->env->deadline_ns : 0;
    b->ordinary_trips = l->env ? l->env->ordinary_trips : 0;
    b->max_warp_issue = l->env ? l->env->max_warp_issue : 0;
    b->max_block_issue = l->env ? l->env->max_block_issue : 0;
    b->max_block_wavefronts = l->env && l->diag ? l->env->max_block_wavefronts : 0;
    memcpy(b->host_params, l->host_params, sizeof b->host_params);
    memcpy(b->host_param_index, l->host_param_index, sizeof b->host_param_index);
    b->nhost_params = l->nhost_params;
    size_t shared_alloc = b->dynamic_bytes ? PTX_DYNAMIC_SHARED_BASE + b->dynamic_bytes
                                           : b->shared_bytes;
    s->local_bytes = (size_t)e->local_bytes * (size_t)l->nthreads;
    b->shared = malloc(shared_alloc ? shared_alloc : 1);
    b->local = malloc(s->local_bytes ? s->local_bytes : 1);
    s->warps = calloc((size_t)b->nwarps, sizeof *s->warps);
    s->regs = calloc((size_t)b->nwarps * 32 * (size_t)(e->nregs ? e->nregs : 1), sizeof *s->regs);
    if (b->diag) {
        b->static_words = (b->shared_bytes + 3) / 4;
        size_t words = b->static_words + (b->dynamic_bytes + 3) / 4 + 1;
        b->shadow = malloc(words * sizeof *b->shadow);
        b->shared_taint = malloc(words * sizeof *b->shared_taint);
        s->taint = calloc((size_t)b->nwarps * 32 * (size_t)(e->nregs ? e->nregs : 1),
                          sizeof *s->taint);
        b->lane_clocks = malloc((size_t)b->nwarps * PTX_WARP_SIZE * sizeof *b->lane_clocks);
        b->lane_known = malloc((size_t)b->nwarps * PTX_WARP_SIZE * PTX_WARP_SIZE *
                               sizeof *b->lane_known);
    }
    if (!b->shared || !b->local || !s->warps || !s->regs ||
        (b->diag && (!b->shadow || !b->shared_taint || !s->taint || !b->lane_clocks ||
                     !b->lane_known))) {
        slot_free(s, l->nwarps);
        return NULL;
    }
    return s;
}

/* Sets up block s->index: fresh memory, every thread at the first instruction. */
static void begin_block(launch *l, slot *s)
{
    block_ctx *b = &s->b;
    const ptx_entry *e = l->e;
    uint64_t i = s->index, gx = l->grid.x, gy = l->grid.y;
    b->ctaid = (ptx_dim3){(unsigned)(i % gx), (unsigned)(i / gx % gy), (unsigned)(i / gx / gy)};
    b->issued = 0;
    b->serial = (l->env ? l->env->block_serial : 0) + (uint32_t)s->ordinal + 1;
    b->answer_words = 0;
    /* Fresh shared and local memory are not zero on a GPU either: a pattern that reads as NaN,
     * so a kernel that reads before writing shows it. */
    memset(b->shared, 0xff, b->shared_bytes);
    if (b->dynamic_bytes)
        memset(b->shared + PTX_DYNAMIC_SHARED_BASE, 0xff, b->dynamic_bytes);
    /* The system's region starts cleared (cooperative groups reset what they use). */
    if (e->reserved_shared)
        memset(b->shared + b->reserved_offset, 0, PTX_RESERVED_SHARED_CAP);
    memset(b->local, 0xff, s->local_bytes);
    for (int k = 0; k < b->nwarps; k++) {
        warp *w = &s->warps[k];
        w->base = k * 32;
        w->nlanes = b->nthreads - w->base < 32 ? b->nthreads - w->base : 32;
        w->regs = s->regs + (size_t)k * 32 * (size_t)e->nregs;
        w->taint = s->taint ? s->taint + (size_t)k * 32 * (size_t)e->nregs : NULL;
        memset(w->pc, 0, sizeof w->pc);
        w->stored_global = false;
        w->wsync_waiting = 0;
        w->trips = 0; /* the report counts this block's trips, not the slot's earlier blocks' */
        for (int lane = 0; lane < 32; lane++)
            w->state[lane] = lane < w->nlanes ? LANE_RUN : LANE_DONE;
    }
    ptx_block_begin(b, s->warps);
}

/* The lock is held from here on. A block leaves the launch: its slot is kept for another. */
static void retire(launch *l, slot *s)
{
    ptx_calls_free(&s->b);
    l->resident--;
    s->next = l->free_slots;
    l->free_slots = s;
}

static void park(launch *l, slot *s)
{
    s->next = NULL;
    if (l->parked_last)
        l->parked_last->next = s;
    else
        l->parked = s;
    l->parked_last = s;
}

static slot *unpark(launch *l)
{
    slot *s = l->parked;
    l->parked = s->next;
    if (!l->parked)
        l->parked_last = NULL;
    return s;
}

/* A block that spun while nothing any block wrote has changed since: it cannot go on unless
 * another block writes. */
static bool stuck(const launch *l, const slot *s)
{
    return s->stamp != PTX_NO_STAMP && s->stamp == atomic_load(&l->changes);
}

/* Every resident block, parked or running, is stuck. */
static bool none_can_go_on(const launch *l)
{
    for (const slot *s = l->parked; s; s = s->next)
        if (!stuck(l, s))
            return false;
    for (int i = 0; i < l->nworkers; i++)
        if (l->current[i] && !stuck(l, l->current[i]))
            return false;
    return true;
}

/* Where block s spins: its first spinning warp. */
static int spin_site(const slot *s, const ptx_insn **in)
{
    for (int i = 0; i < s->b.nwarps; i++) {
        if (s->warps[i].spinning && (*in = ptx_spin_where(&s->b, &s->warps[i])))
            return i;
    }
    *in = NULL;
    return -1;
}

/* Every resident block is parked and stuck: names the first few (in block order) and where
 * they spin, and says why nothing else can run. */
static void report_deadlock(launch *l)
{
    const slot *first = NULL;
    uint64_t parked = 0;
    for (const slot *s = l->parked; s; s = s->next, parked++)
        if (!first || s->index < first->index)
            first = s;
    const ptx_insn *at;
    spin_site(first, &at);
    char msg[sizeof l->err.msg];
    int n = snprintf(msg, sizeof msg, "%.200s:%d: no block can make progress:",
                     ptx_source_file(l->e->module, at), at ? at->line : 0);
    uint64_t named = 0, last = 0;
    for (; named < REPORT_BLOCKS && named < parked; named++) {
        /* The next block in index order after the last one named. */
        const slot *next = NULL;
        for (const slot *s = l->parked; s; s = s->next)
            if ((named == 0 || s->index > last) && (!next || s->index < next->index))
                next = s;
        last = next->index;
        int w = spin_site(next, &at);
        n += snprintf(msg + n, sizeof msg - (size_t)n, " block (%u,%u,%u) warp %d spins at "
                      "%.100s:%d;", next->b.ctaid.x, next->b.ctaid.y, next->b.ctaid.z, w,
                      ptx_source_file(l->e->module, at), at ? at->line : 0);
    }
    if (parked > named)
        n += snprintf(msg + n, sizeof msg - (size_t)n, " and %llu more blocks;",
                      (unsigned long long)(parked - named));
    if (l->next_block < l->nrun)
        n += snprintf(msg + n, sizeof msg - (size_t)n, " %llu blocks are resident, all an H100 "
                      "holds of this kernel's, and %llu more cannot start until one finishes;",
                      (unsigned long long)parked, (unsigned long long)(l->nrun - l->next_block));
    char kernel[128];
    ptx_kernel_name(l->e->name, kernel, sizeof kernel);
    snprintf(msg + n, sizeof msg - (size_t)n, " each waits for memory that no block will change "
             "(a GPU hangs here) (in %.100s)", kernel);
    ptx_error err = {.kind = PTX_ERROR_FAULT};
    snprintf(err.msg, sizeof err.msg, "%s", msg);
    record_failure(l, first->index, &err);
}

/* What a worker runs next: a new block while the residency limit allows, else the parked block
 * that has waited longest; NULL when nothing is left for it. While every resident block is
 * stuck and some are running, it waits for them; once all are parked, the launch gives up. */
static slot *next_slot(launch *l, bool *fresh)
{
    for (;;) {
        if (l->next_block < l->nrun && block_index(l, l->next_block) < l->failed_block &&
            l->resident < l->resident_max) {
            slot *s = l->free_slots;
            if (s)
                l->free_slots = s->next;
            else
                s = slot_new(l);
            if (s) {
                s->ordinal = l->next_block;
                s->index = block_index(l, l->next_block++);
                s->stamp = PTX_NO_STAMP;
                l->resident++;
                *fresh = true;
                return s;
            }
            /* No memory for another block: those resident go on alone. */
            l->out_of_memory = true;
            l->resident_max = l->resident;
        }
        if (!l->parked)
            return NULL;
        if (l->parked->index > l->failed_block) {
            retire(l, unpark(l)); /* after the failed block: its result does not matter */
            continue;
        }
        if (!none_can_go_on(l)) {
            *fresh = false;
            return unpark(l);
        }
        if (l->running > 0) {
            l->waiting++;
            pthread_cond_wait(&l->wake, &l->lock);
            l->waiting--;
            continue;
        }
        /* A failure or a lack of memory stopped the launch already: that is its error. */
        if (l->failed_block == UINT64_MAX && !l->out_of_memory)
            report_deadlock(l);
        while (l->parked)
            retire(l, unpark(l));
        if (l->waiting)
            pthread_cond_broadcast(&l->wake);
        return NULL;
    }
}

/* Runs blocks, or parts of them, until nothing is left for this worker. */
static void *work(void *arg)
{
    worker *wk = arg;
    launch *l = wk->l;
    /* Counted on this thread's stack: workers side by side in one array would share a cache
     * line that every instruction writes. */
    ptx_stats stats = {0, 0};
    pthread_mutex_lock(&l->lock);
    for (;;) {
        bool fresh = false;
        slot *s = next_slot(l, &fresh);
        if (!s)
            break;
        l->running++;
        l->current[wk->id] = s;
        pthread_mutex_unlock(&l->lock);
        if (fresh)
            begin_block(l, s);
        s->b.stats = &stats;
        uint64_t writes = s->b.writes;
        int rc = ptx_block_run(&s->b);
        pthread_mutex_lock(&l->lock);
        l->running--;
        l->current[wk->id] = NULL;
        if (s->b.writes != writes)
            atomic_fetch_add(&l->changes, s->b.writes - writes);
        if (rc == PTX_BLOCK_PARKED) {
            s->stamp = ptx_spin_stamp(&s->b);
            park(l, s);
        } else {
            if (rc != 0)
                record_failure(l, s->index, &s->err);
            else if (l->diag && l->sample)
                diag_sample_block(l->diag, s->b.ctaid, s->b.issued, s->b.answer_words);
            retire(l, s);
        }
        if (l->waiting)
            pthread_cond_broadcast(&l->wake);
    }
    pthread_mutex_unlock(&l->lock);
    wk->stats = stats;
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
    char kernel[128];
    ptx_kernel_name(e->name, kernel, sizeof kernel);
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 ||
        grid.z == 0 || grid.y > 65535 || grid.z > 65535) {
        snprintf(err->msg, sizeof err->msg,
                 "invalid launch configuration for %s: grid (%u,%u,%u), block (%u,%u,%u)", kernel,
                 grid.x, grid.y, grid.z, block.x, block.y, block.z);
        return -1;
    }
    if (e->shared_bytes > PTX_DYNAMIC_SHARED_BASE) {
        snprintf(err->msg, sizeof err->msg, "%s declares %u bytes of shared memory, more than a "
                 "block can have", kernel, e->shared_bytes);
        return -1;
    }
    launch *l = calloc(1, sizeof *l);
    if (!l || !(l->params = calloc(1, e->param_bytes ? e->param_bytes : 1))) {
        free(l);
        snprintf(err->msg, sizeof err->msg, "out of memory launching %s", kernel);
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
    l->nrun = env && env->sample_blocks ? min_u64(env->sample_blocks, l->nblocks) : l->nblocks;
    if (l->nrun < l->nblocks && draw_sample(l, env->sample_seed) != 0) {
        free(l->params);
        free(l);
        snprintf(err->msg, sizeof err->msg, "out of memory launching %s", kernel);
        return -1;
    }
    l->failed_block = UINT64_MAX;
    l->resident_max = resident_limit(l);
    atomic_init(&l->changes, 0);
    atomic_init(&l->instructions, 0);
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->wake, NULL);
    copy_params(l, args);
    if (l->diag)
        diag_launch(l->diag, e, grid, block, dynamic_shared, l->nrun);
    int n = thread_count(l, env);
    l->parallel = n > 1;
    l->nworkers = n;
    worker workers[MAX_LAUNCH_THREADS];
    pthread_t tids[MAX_LAUNCH_THREADS];
    int started = 1;
    for (int i = 0; i < n; i++)
        workers[i] = (worker){l, i, {0, 0}};
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
    uint64_t issued = 0;
    for (int i = 0; i < started; i++) {
        issued += workers[i].stats.warp_instructions;
        if (stats) {
            stats->warp_instructions += workers[i].stats.warp_instructions;
            stats->thread_instructions += workers[i].stats.thread_instructions;
        }
    }
    if (l->diag)
        diag_launch_done(l->diag, issued);
    if (l->diag && l->failed_block != UINT64_MAX && l->err.kind == PTX_ERROR_BUSY)
        diag_launch_busy(l->diag, l->err.msg);
    if (l->failed_block != UINT64_MAX) {
        *err = l->err;
        rc = -1;
    } else if (l->out_of_memory && l->next_block < l->nrun) {
        snprintf(err->msg, sizeof err->msg, "out of memory launching %s", e->name);
        rc = -1;
    }
    while (l->free_slots) {
        slot *s = l->free_slots;
        l->free_slots = s->next;
        slot_free(s, l->nwarps);
    }
    pthread_cond_destroy(&l->wake);
    pthread_mutex_destroy(&l->lock);
    free(l->sample);
    free(l->params);
    free(l);
    return rc;
}
