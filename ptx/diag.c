/* Findings (errors with their source lines) and figures (bank conflicts, coalescing, traffic)
 * collected while kernels run under diagnosis, written as JSON for ./tilelab diagnose. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

typedef struct finding {
    diag_kind kind;
    const char *file;
    int line, line2;
    uint64_t count;
    char kernel[128];
    ptx_dim3 block, thread, thread2;
    bool has_thread2;
    bool baseline; /* in a launch of lab 05's given baseline (ptx_diag_set_baseline) */
    bool within_warp; /* a race between lanes of one warp (diag_race_finding) */
    char detail[DIAG_DETAIL_MAX];
} finding;

/* Counters of one instruction of one entry. */
typedef struct site {
    uint64_t executions;       /* warp-level executions */
    uint64_t extra_wavefronts; /* shared: passes beyond the first */
    uint32_t max_ways;         /* shared: worst n-way conflict */
    uint64_t sectors, bytes;   /* global: 32-byte sectors touched, bytes asked for */
    uint64_t used;             /* global: bytes asked for, each counted once however many lanes
                                  asked (less than `bytes` when lanes share words: a broadcast) */
    uint64_t needed;           /* global: the fewest sectors `used` fits in, per request summed */
} site;

/* One launch as the performance model sees it (perfmodel/): its shape and what its blocks
 * asked of each unit. Counts are of the blocks run (all, or a sample: ptx_env.sample_blocks). */
typedef struct launch_counts {
    char kernel[128];
    bool baseline;
    ptx_dim3 grid, block;
    uint64_t static_shared, dynamic_shared, blocks, blocks_run;
    uint64_t warp_instructions;
    uint64_t shared_requests, shared_wavefronts;
    uint64_t global_requests, global_wavefronts, global_sectors;
    uint64_t l2_sectors; /* distinct 32-byte sectors each block touched, summed over blocks */
    diag_costs costs;    /* diag_cost.c */
    char busy[256];      /* why a busy limit stopped it (ptx_env), or empty */
} launch_counts;

/* The sectors a block touched: open addressing on (block, sector), cleared every launch. */
typedef struct sector_set {
    uint64_t *keys; /* 0: empty */
    size_t cap, used;
} sector_set;

typedef struct entry_sites {
    const ptx_entry *e;
    bool baseline; /* the baseline's launches of e count apart from the submission's */
    site *sites;
    diag_group *groups; /* diag_groups.c; NULL if out of memory */
} entry_sites;

/* What a call's launches did in all. */
typedef struct traffic {
    uint64_t flops, fmas, shared_loads, shared_stores, global_load_bytes, global_store_bytes;
} traffic;

struct ptx_diag {
    finding *findings;
    int nfindings, errors;
    entry_sites *entries;
    int nentries;
    bool baseline, had_baseline; /* the launches now running are the baseline's; some were */
    traffic traffic[2];          /* the submission's, the baseline's */
    int launches;
    launch_counts *counts; /* one per launch, the last one current */
    int ncounts;
    sector_set touched;
    diag_samples *samples;
};

static const char *const kind_names[DK_COUNT] = {
    [DK_OOB_GLOBAL] = "out-of-bounds global access",
    [DK_HOST_POINTER] = "host pointer in a kernel",
    [DK_OOB_SHARED] = "out-of-bounds shared access",
    [DK_OOB_LOCAL] = "local array overrun",
    [DK_RACE] = "shared-memory race",
    [DK_BARRIER_DIVERGENCE] = "barrier divergence",
    [DK_UNINIT_SHARED] = "uninitialized shared read",
    [DK_UNINIT_GLOBAL] = "uninitialized global read",
    [DK_MACHINE_QUERY] = "machine query",
};

const char *diag_kind_name(diag_kind k) { return k < DK_COUNT ? kind_names[k] : "?"; }

ptx_diag *ptx_diag_new(void) { return calloc(1, sizeof(ptx_diag)); }

void ptx_diag_free(ptx_diag *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->nentries; i++) {
        free(d->entries[i].sites);
        free(d->entries[i].groups);
    }
    free(d->entries);
    free(d->findings);
    for (int i = 0; i < d->ncounts; i++)
        diag_costs_done(&d->counts[i].costs);
    free(d->counts);
    free(d->touched.keys);
    diag_samples_free(d->samples);
    free(d);
}

int ptx_diag_error_count(const ptx_diag *d) { return d ? d->errors : 0; }

void ptx_diag_set_baseline(ptx_diag *d, bool on)
{
    d->baseline = on;
    d->had_baseline |= on;
}

static traffic *now(ptx_diag *d) { return &d->traffic[d->baseline]; }

static const char *file_of(const ptx_entry *e, const ptx_insn *in)
{
    return ptx_source_file(e->module, in);
}

static ptx_dim3 thread_of(const block_ctx *b, int tid)
{
    return (ptx_dim3){(unsigned)tid % b->block.x, (unsigned)tid / b->block.x % b->block.y,
                      (unsigned)tid / (b->block.x * b->block.y)};
}

static finding *known(ptx_diag *d, diag_kind kind, const block_ctx *b, const ptx_insn *in,
                      const ptx_insn *in2)
{
    int line = in ? in->line : 0, line2 = in2 ? in2->line : 0;
    const char *file = file_of(b->e, in);
    for (int i = 0; i < d->nfindings; i++) {
        finding *f = &d->findings[i];
        if (f->kind == kind && f->line == line && f->line2 == line2 &&
            f->baseline == d->baseline && strcmp(f->file, file) == 0)
            return f;
    }
    return NULL;
}

bool diag_count_known(ptx_diag *d, diag_kind kind, const block_ctx *b, const ptx_insn *in,
                      const ptx_insn *in2)
{
    finding *f = known(d, kind, b, in, in2);
    if (f) {
        d->errors++;
        f->count++;
    }
    return f != NULL;
}

/* Who a finding was first seen by, and what it says. */
static void describe(finding *f, const block_ctx *b, int tid, int tid2, const char *detail)
{
    snprintf(f->kernel, sizeof f->kernel, "%.120s", b->e->name);
    f->block = b->ctaid;
    f->thread = thread_of(b, tid);
    f->has_thread2 = tid2 >= 0;
    f->thread2 = tid2 >= 0 ? thread_of(b, tid2) : (ptx_dim3){0, 0, 0};
    snprintf(f->detail, sizeof f->detail, "%s", detail);
}

static finding *add(ptx_diag *d, diag_kind kind, const block_ctx *b, const ptx_insn *in,
                    const ptx_insn *in2, int tid, int tid2, const char *detail)
{
    d->errors++;
    finding *nf = realloc(d->findings, (size_t)(d->nfindings + 1) * sizeof *nf);
    if (!nf)
        return NULL;
    d->findings = nf;
    finding *f = &nf[d->nfindings++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->file = file_of(b->e, in);
    f->line = in ? in->line : 0;
    f->line2 = in2 ? in2->line : 0;
    f->count = 1;
    f->baseline = d->baseline;
    describe(f, b, tid, tid2, detail);
    return f;
}

void diag_finding(ptx_diag *d, diag_kind kind, const block_ctx *b, const ptx_insn *in,
                  const ptx_insn *in2, int tid, int tid2, const char *detail)
{
    if (!diag_count_known(d, kind, b, in, in2))
        add(d, kind, b, in, in2, tid, tid2, detail);
}

bool diag_race_known(ptx_diag *d, const block_ctx *b, const ptx_insn *in, const ptx_insn *in2,
                     bool within_warp)
{
    finding *f = known(d, DK_RACE, b, in, in2);
    if (!f || (f->within_warp && !within_warp))
        return false;
    d->errors++;
    f->count++;
    return true;
}

void diag_race_finding(ptx_diag *d, const block_ctx *b, const ptx_insn *in, const ptx_insn *in2,
                       int tid, int tid2, bool within_warp, const char *detail)
{
    finding *f = known(d, DK_RACE, b, in, in2);
    if (!f) {
        f = add(d, DK_RACE, b, in, in2, tid, tid2, detail);
        if (f)
            f->within_warp = within_warp;
        return;
    }
    d->errors++;
    f->count++;
    if (f->within_warp && !within_warp) {
        describe(f, b, tid, tid2, detail);
        f->within_warp = false;
    }
}

static entry_sites *entry_of(ptx_diag *d, const ptx_entry *e)
{
    for (int i = 0; i < d->nentries; i++)
        if (d->entries[i].e == e && d->entries[i].baseline == d->baseline)
            return &d->entries[i];
    entry_sites *ne = realloc(d->entries, (size_t)(d->nentries + 1) * sizeof *ne);
    if (!ne)
        return NULL;
    d->entries = ne;
    entry_sites *es = &ne[d->nentries];
    es->e = e;
    es->baseline = d->baseline;
    es->sites = calloc((size_t)e->ncode, sizeof(site));
    es->groups = diag_find_groups(e);
    if (!es->sites) {
        free(es->groups);
        return NULL;
    }
    d->nentries++;
    return es;
}

static site *site_of(ptx_diag *d, const ptx_entry *e, int pc)
{
    entry_sites *es = entry_of(d, e);
    return es ? &es->sites[pc] : NULL;
}

void diag_launch(ptx_diag *d, const ptx_entry *e, ptx_dim3 grid, ptx_dim3 block,
                 uint64_t dynamic_shared, uint64_t blocks_run)
{
    d->launches++;
    launch_counts *grown = realloc(d->counts, (size_t)(d->ncounts + 1) * sizeof *grown);
    if (!grown)
        return;
    d->counts = grown;
    launch_counts *c = &grown[d->ncounts++];
    memset(c, 0, sizeof *c);
    snprintf(c->kernel, sizeof c->kernel, "%.120s", e->name);
    c->baseline = d->baseline;
    c->grid = grid;
    c->block = block;
    c->static_shared = e->shared_bytes;
    c->dynamic_shared = dynamic_shared;
    c->blocks = (uint64_t)grid.x * grid.y * grid.z;
    c->blocks_run = blocks_run;
    if (d->touched.keys)
        memset(d->touched.keys, 0, d->touched.cap * sizeof *d->touched.keys);
    d->touched.used = 0;
}

void diag_launch_done(ptx_diag *d, uint64_t warp_instructions)
{
    if (d->ncounts) {
        d->counts[d->ncounts - 1].warp_instructions = warp_instructions;
        diag_costs_done(&d->counts[d->ncounts - 1].costs);
    }
}

void diag_launch_busy(ptx_diag *d, const char *why)
{
    if (d->ncounts)
        snprintf(d->counts[d->ncounts - 1].busy, sizeof d->counts[d->ncounts - 1].busy, "%s",
                 why);
}

void diag_sample_block(ptx_diag *d, ptx_dim3 block, uint64_t warp_instructions,
                       uint64_t answer_words)
{
    if (d->ncounts)
        diag_samples_add(&d->samples, d->ncounts - 1, block, warp_instructions, answer_words);
}

static launch_counts *current(ptx_diag *d) { return d->ncounts ? &d->counts[d->ncounts - 1] : NULL; }

diag_costs *diag_now_costs(ptx_diag *d)
{
    launch_counts *c = current(d);
    return c ? &c->costs : NULL;
}

/* Adds (block, sector) to the set; true when it was not there. A set that cannot grow counts
 * every sector as new (the L2 estimate then errs high). */
static bool touch(sector_set *t, uint64_t block, uint64_t sector)
{
    if (t->used * 2 >= t->cap) {
        size_t cap = t->cap ? t->cap * 2 : (size_t)1 << 16;
        uint64_t *keys = calloc(cap, sizeof *keys);
        if (!keys)
            return true;
        for (size_t i = 0; i < t->cap; i++) {
            uint64_t k = t->keys[i];
            if (!k)
                continue;
            size_t h = (size_t)((k * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (cap - 1);
            while (keys[h])
                h = (h + 1) & (cap - 1);
            keys[h] = k;
        }
        free(t->keys);
        t->keys = keys;
        t->cap = cap;
    }
    /* Sectors of a 2^40-byte space and 2^23 blocks fit; key 0 stays free. */
    uint64_t key = (block << 40 | (sector & ((UINT64_C(1) << 40) - 1))) + 1;
    size_t h = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 20) & (t->cap - 1);
    while (t->keys[h]) {
        if (t->keys[h] == key)
            return false;
        h = (h + 1) & (t->cap - 1);
    }
    t->keys[h] = key;
    t->used++;
    return true;
}

/* 32 banks of 4-byte words. A request of 4-byte words takes as many passes (wavefronts) as
 * the bank with the most distinct words needs; lanes reading the same word share it
 * (broadcast). A 64-bit request is served a half-warp at a time and a 128-bit one a
 * quarter-warp at a time, each part with its own passes: lanes conflict only within their part.
 * Returns the passes; *minimum gets the fewest it could take (one per part, and one per 128
 * bytes of 4-byte words), *ways_out the busiest bank's count of distinct words in any part. */
static uint32_t shared_passes(const uint64_t *addr, uint32_t mask, unsigned size,
                              uint32_t *minimum, uint32_t *ways_out)
{
    unsigned per_lane = size >= 4 ? size / 4 : 1;
    int part_lanes = per_lane >= 4 ? PTX_WARP_SIZE / 4 : per_lane == 2 ? PTX_WARP_SIZE / 2 : PTX_WARP_SIZE;
    uint32_t passes = 0, least = 0, ways = 0;
    for (int first = 0; first < PTX_WARP_SIZE; first += part_lanes) {
        uint64_t words[PTX_WARP_SIZE * 4];
        int n = 0;
        for (int lane = first; lane < first + part_lanes; lane++)
            if (mask >> lane & 1)
                for (unsigned k = 0; k < per_lane && n < PTX_WARP_SIZE * 4; k++)
                    words[n++] = addr[lane] / 4 + k;
        if (n == 0)
            continue;
        uint32_t part_ways = 0;
        for (int bank = 0; bank < PTX_SHARED_BANKS; bank++) {
            uint32_t distinct = 0;
            for (int i = 0; i < n; i++) {
                if (words[i] % PTX_SHARED_BANKS != (uint64_t)bank)
                    continue;
                bool seen = false;
                for (int j = 0; j < i && !seen; j++)
                    seen = words[j] == words[i];
                distinct += !seen;
            }
            if (distinct > part_ways)
                part_ways = distinct;
        }
        /* More than 128 bytes needs more than one pass even without conflicts. */
        uint32_t part_min = (uint32_t)((n * 4 + 127) / 128);
        least += part_min;
        passes += part_ways > part_min ? part_ways : part_min;
        if (part_ways > ways)
            ways = part_ways;
    }
    *minimum = least;
    *ways_out = ways;
    return passes;
}

/* The distinct 32-byte sectors of a warp's global request (at most 64 kept). */
static int global_sectors(const uint64_t *addr, uint32_t mask, unsigned size, uint64_t *sectors)
{
    int n = 0;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        for (uint64_t sec = addr[lane] / 32; sec <= (addr[lane] + size - 1) / 32; sec++) {
            bool seen = false;
            for (int j = 0; j < n && !seen; j++)
                seen = sectors[j] == sec;
            if (!seen && n < 64)
                sectors[n++] = sec;
        }
    }
    return n;
}

#define SECTOR_BYTES 32 /* global memory's unit of transfer */

/* The distinct bytes of a warp's request: a byte several lanes read (a broadcast) counts once,
 * so they never exceed the bytes of the sectors that hold them. */
static uint64_t distinct_bytes(const uint64_t *addr, uint32_t mask, unsigned size)
{
    uint64_t start[PTX_WARP_SIZE];
    int n = 0;
    for (int lane = 0; lane < PTX_WARP_SIZE; lane++) {
        if (!(mask >> lane & 1))
            continue;
        int at = n++;
        for (; at > 0 && start[at - 1] > addr[lane]; at--)
            start[at] = start[at - 1];
        start[at] = addr[lane];
    }
    uint64_t total = 0, covered = 0; /* bytes below `covered` are counted */
    for (int i = 0; i < n; i++) {
        uint64_t from = start[i] > covered ? start[i] : covered, to = start[i] + size;
        if (to > from) {
            total += to - from;
            covered = to;
        }
    }
    return total;
}

static uint64_t block_index(const block_ctx *b)
{
    return ((uint64_t)b->ctaid.z * b->grid.y + b->ctaid.y) * b->grid.x + b->ctaid.x;
}

void diag_l2_sector(ptx_diag *d, const block_ctx *b, uint64_t sector)
{
    launch_counts *c = current(d);
    if (c)
        c->l2_sectors += touch(&d->touched, block_index(b), sector);
}

/* The model's counts of one global request: L1 handles it one 128-byte line per pass, at
 * most 128 bytes per pass; L2 sees each sector once per block (the block's L1 keeps it). */
static uint64_t count_global(ptx_diag *d, const block_ctx *b, const uint64_t *sectors, int n,
                             uint64_t bytes)
{
    launch_counts *c = current(d);
    if (!c)
        return 0;
    uint64_t lines[64];
    int nlines = 0;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < nlines && !seen; j++)
            seen = lines[j] == sectors[i] / 4;
        if (!seen)
            lines[nlines++] = sectors[i] / 4;
        diag_l2_sector(d, b, sectors[i]);
    }
    uint64_t minimum = (bytes + 127) / 128;
    uint64_t wavefronts = (uint64_t)nlines > minimum ? (uint64_t)nlines : minimum;
    c->global_requests++;
    c->global_wavefronts += wavefronts;
    c->global_sectors += (uint64_t)n;
    return wavefronts;
}

static uint64_t count_shared(ptx_diag *d, uint32_t passes)
{
    launch_counts *c = current(d);
    if (c) {
        c->shared_requests++;
        c->shared_wavefronts += passes;
    }
    return passes;
}

/* A load of a merged group (diag_groups.c) whose run is aligned as the group needs: true with
 * *leader set when the group is to be counted here as one wide load from `wide` (each lane's
 * first word), true with *leader false when the group's first load counted it already. */
static bool merged(const entry_sites *es, int pc, const uint64_t *addr, uint32_t mask,
                   uint64_t *wide, bool *leader)
{
    const diag_group *g = es->groups ? &es->groups[pc] : NULL;
    if (!g || !g->width)
        return false;
    int64_t delta = es->e->code[pc].ops[1].imm - g->first_offset;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        wide[lane] = addr[lane] - (uint64_t)delta;
        if (wide[lane] % g->width != 0)
            return false;
    }
    *leader = g->leader == pc;
    return true;
}

uint64_t diag_shared_access(ptx_diag *d, const block_ctx *b, int pc, const uint64_t *addr,
                            uint32_t mask, unsigned size)
{
    entry_sites *es = entry_of(d, b->e);
    if (!es)
        return 0;
    site *s = &es->sites[pc];
    const ptx_insn *in = &b->e->code[pc];
    uint64_t wide[32];
    bool leader = false;
    if (in->op == OP_LD && merged(es, pc, addr, mask, wide, &leader)) {
        now(d)->shared_loads += (uint64_t)__builtin_popcount(mask);
        if (!leader)
            return 0;
        addr = wide;
        size = es->groups[pc].width;
        now(d)->shared_loads -= (uint64_t)__builtin_popcount(mask);
    }
    if (in->op == OP_LD)
        now(d)->shared_loads += (uint64_t)__builtin_popcount(mask);
    else
        now(d)->shared_stores += (uint64_t)__builtin_popcount(mask);
    uint32_t minimum, ways, passes = shared_passes(addr, mask, size, &minimum, &ways);
    count_shared(d, passes);
    s->executions++;
    s->extra_wavefronts += passes > minimum ? passes - minimum : 0;
    if (ways > s->max_ways)
        s->max_ways = ways;
    return passes;
}

uint64_t diag_global_access(ptx_diag *d, const block_ctx *b, int pc, const uint64_t *addr,
                            uint32_t mask, unsigned size)
{
    site *s = site_of(d, b->e, pc);
    if (!s)
        return 0;
    uint64_t sectors[64];
    int n = global_sectors(addr, mask, size, sectors);
    uint64_t bytes = (uint64_t)__builtin_popcount(mask) * size;
    uint64_t wavefronts = count_global(d, b, sectors, n, bytes);
    s->executions++;
    s->sectors += (uint64_t)n;
    s->bytes += bytes;
    uint64_t used = distinct_bytes(addr, mask, size);
    s->used += used;
    s->needed += (used + SECTOR_BYTES - 1) / SECTOR_BYTES;
    if (b->e->code[pc].op == OP_LD) {
        now(d)->global_load_bytes += bytes;
    } else {
        now(d)->global_store_bytes += bytes;
        if (diag_now_costs(d))
            diag_now_costs(d)->l2_store_sectors += (uint64_t)n;
    }
    return wavefronts;
}

uint64_t diag_async_copy(ptx_diag *d, const block_ctx *b, const uint64_t *from,
                         const uint64_t *to, uint32_t mask, unsigned size)
{
    uint64_t sectors[64];
    int n = global_sectors(from, mask, size, sectors);
    uint64_t bytes = (uint64_t)__builtin_popcount(mask) * size;
    uint64_t wavefronts = count_global(d, b, sectors, n, bytes);
    now(d)->global_load_bytes += bytes;
    uint32_t minimum, ways;
    return wavefronts + count_shared(d, shared_passes(to, mask, size, &minimum, &ways));
}

void diag_flops(ptx_diag *d, uint64_t flops, uint64_t fmas)
{
    now(d)->flops += flops;
    now(d)->fmas += fmas;
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

/* The submission's findings before the given baseline's, each most severe first; races
 * between warps before races within one (the __syncthreads() that a race between warps
 * lacks often orders the lanes of each warp at those lines too). */
static int by_severity(const void *a, const void *b)
{
    const finding *x = a, *y = b;
    if (x->baseline != y->baseline)
        return (int)x->baseline - (int)y->baseline;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    if (x->within_warp != y->within_warp)
        return (int)x->within_warp - (int)y->within_warp;
    return x->line - y->line;
}

static void write_traffic(FILE *out, const traffic *t)
{
    fprintf(out, "{\"flops\": %llu, \"fmas\": %llu, \"global_load_bytes\": %llu, "
            "\"global_store_bytes\": %llu, \"shared_loads\": %llu, \"shared_stores\": %llu}",
            (unsigned long long)t->flops, (unsigned long long)t->fmas,
            (unsigned long long)t->global_load_bytes, (unsigned long long)t->global_store_bytes,
            (unsigned long long)t->shared_loads, (unsigned long long)t->shared_stores);
}

void ptx_diag_write_json(const ptx_diag *d, FILE *out)
{
    if (d->nfindings > 1)
        qsort(d->findings, (size_t)d->nfindings, sizeof *d->findings, by_severity);
    fprintf(out, "{\n  \"launches\": %d,\n  \"errors\": %d,\n  \"findings\": [", d->launches,
            d->errors);
    for (int i = 0; i < d->nfindings; i++) {
        const finding *f = &d->findings[i];
        fprintf(out, "%s\n    {\"kind\": ", i ? "," : "");
        json_string(out, diag_kind_name(f->kind));
        fprintf(out, ", \"file\": ");
        json_string(out, f->file);
        fprintf(out, ", \"line\": %d, \"line2\": %d, \"count\": %llu, \"kernel\": ", f->line,
                f->line2, (unsigned long long)f->count);
        json_string(out, f->kernel);
        fprintf(out, ", \"block\": [%u, %u, %u], \"thread\": [%u, %u, %u]", f->block.x,
                f->block.y, f->block.z, f->thread.x, f->thread.y, f->thread.z);
        if (f->has_thread2)
            fprintf(out, ", \"thread2\": [%u, %u, %u]", f->thread2.x, f->thread2.y, f->thread2.z);
        fprintf(out, ", \"baseline\": %s, \"detail\": ", f->baseline ? "true" : "false");
        json_string(out, f->detail);
        fputc('}', out);
    }
    fprintf(out, "\n  ],\n  \"instructions\": [");
    int first = 1;
    for (int i = 0; i < d->nentries; i++) {
        const ptx_entry *e = d->entries[i].e;
        for (int pc = 0; pc < e->ncode; pc++) {
            const site *s = &d->entries[i].sites[pc];
            if (!s->executions)
                continue;
            const ptx_insn *in = &e->code[pc];
            fprintf(out, "%s\n    {\"kernel\": ", first ? "" : ",");
            first = 0;
            json_string(out, e->name);
            fprintf(out, ", \"file\": ");
            json_string(out, file_of(e, in));
            fprintf(out, ", \"line\": %d, \"baseline\": %s, \"op\": \"%s\", \"space\": \"%s\", "
                    "\"executions\": %llu", in->line, d->entries[i].baseline ? "true" : "false",
                    in->op == OP_LD ? "load" : "store",
                    in->space == SP_SHARED ? "shared" : "global", (unsigned long long)s->executions);
            if (in->space == SP_SHARED)
                fprintf(out, ", \"extra_wavefronts\": %llu, \"max_ways\": %u",
                        (unsigned long long)s->extra_wavefronts, s->max_ways);
            else
                fprintf(out, ", \"sectors\": %llu, \"bytes\": %llu, \"used_bytes\": %llu, "
                        "\"needed_sectors\": %llu", (unsigned long long)s->sectors,
                        (unsigned long long)s->bytes, (unsigned long long)s->used,
                        (unsigned long long)s->needed);
            fputc('}', out);
        }
    }
    fprintf(out, "\n  ],\n  \"launch_counts\": [");
    for (int i = 0; i < d->ncounts; i++) {
        const launch_counts *c = &d->counts[i];
        fprintf(out, "%s\n    {\"kernel\": ", i ? "," : "");
        json_string(out, c->kernel);
        fprintf(out, ", \"baseline\": %s", c->baseline ? "true" : "false");
        fprintf(out, ", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"static_shared\": %llu, "
                "\"dynamic_shared\": %llu, \"blocks\": %llu, \"blocks_run\": %llu, "
                "\"warp_instructions\": %llu, \"shared_requests\": %llu, "
                "\"shared_wavefronts\": %llu, \"global_requests\": %llu, "
                "\"global_wavefronts\": %llu, \"global_sectors\": %llu, \"l2_sectors\": %llu",
                c->grid.x, c->grid.y, c->grid.z, c->block.x, c->block.y, c->block.z,
                (unsigned long long)c->static_shared, (unsigned long long)c->dynamic_shared,
                (unsigned long long)c->blocks, (unsigned long long)c->blocks_run,
                (unsigned long long)c->warp_instructions, (unsigned long long)c->shared_requests,
                (unsigned long long)c->shared_wavefronts, (unsigned long long)c->global_requests,
                (unsigned long long)c->global_wavefronts, (unsigned long long)c->global_sectors,
                (unsigned long long)c->l2_sectors);
        diag_costs_write_json(out, &c->costs);
        if (c->busy[0]) {
            fprintf(out, ", \"busy\": ");
            json_string(out, c->busy);
        }
        fputc('}', out);
    }
    fprintf(out, "\n  ],\n  \"samples\": ");
    diag_samples_write(out, d->samples);
    fprintf(out, ",\n  \"traffic\": ");
    write_traffic(out, &d->traffic[0]);
    if (d->had_baseline) {
        fprintf(out, ",\n  \"baseline_traffic\": ");
        write_traffic(out, &d->traffic[1]);
    }
    fprintf(out, "\n}\n");
}
