/* Loads, stores and atomics: address resolution with bounds checks, and under diagnosis the
 * uninitialized-global-read detector and the access figures (shared-memory races and
 * uninitialized shared reads: diag_race.c). */
#include "diag.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>


typedef struct access {
    uint8_t *ptr;
    unsigned space; /* SP_SHARED, SP_LOCAL, SP_PARAM or SP_GLOBAL */
    uint64_t addr;  /* shared offset, or global address */
    const ptx_region *region;
} access;

/* The allocation holding [a, a+size), or the nearest one (*inside false). */
static const ptx_region *find_region(const ptx_env *env, uint64_t a, unsigned size, bool *inside)
{
    const ptx_region *best = NULL;
    uint64_t best_distance = UINT64_MAX;
    *inside = false;
    int lo = 0, hi = env->nregions - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const ptx_region *r = &env->regions[mid];
        if (a < r->base) {
            hi = mid - 1;
        } else if (a >= r->base + r->size) {
            lo = mid + 1;
        } else {
            *inside = a + size <= r->base + r->size;
            return r;
        }
    }
    for (int i = hi; i <= lo; i++) {
        if (i < 0 || i >= env->nregions)
            continue;
        const ptx_region *r = &env->regions[i];
        uint64_t d = a < r->base ? r->base - a : a - (r->base + r->size);
        if (d < best_distance) {
            best_distance = d;
            best = r;
        }
    }
    return best;
}

/* How messages name an allocation: by what its owner calls it, or by its place among the
 * program's cudaMallocs ("the 2nd cudaMalloc'd buffer (40000 bytes)"). */
static const char *region_name(const ptx_region *r, char *buf, size_t size)
{
    if (r->name)
        return r->name;
    int tens = r->id % 100, units = r->id % 10;
    const char *suffix = tens >= 11 && tens <= 13 ? "th"
                         : units == 1             ? "st"
                         : units == 2             ? "nd"
                         : units == 3             ? "rd"
                                                  : "th";
    snprintf(buf, size, "the %d%s cudaMalloc'd buffer (%llu bytes)", r->id, suffix,
             (unsigned long long)r->size);
    return buf;
}

/* Reports a bad access: recorded under diagnosis (returns 1: skip the lane), otherwise it stops
 * the kernel (returns -1). */
static int bad_access(block_ctx *b, const warp *w, int lane, const ptx_insn *in, diag_kind kind,
                      const char *detail)
{
    if (b->diag) {
        diag_finding(b->diag, kind, b, in, NULL, w->base + lane, -1, detail);
        return 1;
    }
    b->err->kind = PTX_ERROR_ADDRESS;
    ptx_stopf(b, in, "%s: %s", diag_kind_name(kind), detail);
    return -1;
}

/* The module variable (__device__, __constant__, a printf format) holding [a, a+size). */
static const ptx_global *module_variable(const block_ctx *b, uint64_t a, uint64_t size)
{
    const ptx_module *m = b->e->module;
    for (int i = 0; i < m->nglobals; i++) {
        uint64_t base = (uint64_t)(uintptr_t)m->globals[i].data;
        if (a >= base && a - base < m->globals[i].size && size <= m->globals[i].size - (a - base))
            return &m->globals[i];
    }
    return NULL;
}

const uint8_t *ptx_span(const block_ctx *b, uint64_t a, uint64_t *avail)
{
    *avail = 0;
    if (a >= PTX_LOCAL_WINDOW) {
        uint64_t off = a - PTX_LOCAL_WINDOW, total = (uint64_t)b->e->local_bytes * b->nthreads;
        *avail = off < total ? total - off : 0;
        return *avail ? b->local + off : NULL;
    }
    if (a >= PTX_SHARED_WINDOW) {
        uint64_t off = a - PTX_SHARED_WINDOW;
        if (off < b->shared_bytes)
            *avail = b->shared_bytes - off;
        else if (off >= PTX_DYNAMIC_SHARED_BASE && off - PTX_DYNAMIC_SHARED_BASE < b->dynamic_bytes)
            *avail = PTX_DYNAMIC_SHARED_BASE + b->dynamic_bytes - off;
        return *avail ? b->shared + off : NULL;
    }
    const ptx_global *g = module_variable(b, a, 1);
    if (g) {
        *avail = (uint64_t)(uintptr_t)g->data + g->size - a;
        return (const uint8_t *)(uintptr_t)a;
    }
    if (!b->env || !b->env->regions) {
        *avail = 4096; /* unchecked runs (the interpreter's own tests) trust their kernels */
        return (const uint8_t *)(uintptr_t)a;
    }
    bool inside;
    const ptx_region *r = find_region(b->env, a, 1, &inside);
    if (!r || !inside)
        return NULL;
    *avail = r->base + r->size - a;
    return (const uint8_t *)(uintptr_t)a;
}

/* Global (and constant) accesses must land in device memory the runtime allocated or in a
 * module variable: anything else is a host address, and reading it would let a kernel see the
 * host process's memory. */
static int global_check(block_ctx *b, const warp *w, int lane, const ptx_insn *in, uint64_t a,
                        unsigned size, access *out)
{
    if (!b->env || !b->env->regions)
        return 0;
    if (module_variable(b, a, size))
        return 0;
    bool inside;
    const ptx_region *r = find_region(b->env, a, size, &inside);
    char detail[256], name[96];
    const char *what = in->op == OP_ST || in->op == OP_RED ? "write" : "read";
    if (r && inside) {
        out->region = r;
        return 0;
    }
    for (int i = 0; i < b->nhost_params; i++) {
        if (a >= b->host_params[i] && a - b->host_params[i] < ((uint64_t)1 << 26)) {
            snprintf(detail, sizeof detail, "%s at 0x%llx through kernel parameter %d, which is not "
                     "device memory (a host pointer? pass the cudaMalloc'd copy)", what,
                     (unsigned long long)a, b->host_param_index[i]);
            return bad_access(b, w, lane, in, DK_HOST_POINTER, detail);
        }
    }
    uint64_t past = r && a >= r->base ? a + size - (r->base + r->size) : 0;
    if (r && a >= r->base && past <= (uint64_t)1 << 20) {
        snprintf(detail, sizeof detail, "%s of %u bytes at 0x%llx, %llu byte(s) past the end of "
                 "%s", what, size, (unsigned long long)a, (unsigned long long)past,
                 region_name(r, name, sizeof name));
        return bad_access(b, w, lane, in, DK_OOB_GLOBAL, detail);
    }
    if (r && a < r->base && r->base - a <= (uint64_t)1 << 20) {
        snprintf(detail, sizeof detail, "%s of %u bytes at 0x%llx, %llu byte(s) before the start "
                 "of %s", what, size, (unsigned long long)a, (unsigned long long)(r->base - a),
                 region_name(r, name, sizeof name));
        return bad_access(b, w, lane, in, DK_OOB_GLOBAL, detail);
    }
    snprintf(detail, sizeof detail, "%s at 0x%llx, which is not device memory (a host pointer, "
             "or an address far from every cudaMalloc'd block)", what, (unsigned long long)a);
    return bad_access(b, w, lane, in, DK_HOST_POINTER, detail);
}

/* Resolves lane's address operand: 0 and *out filled, 1 to skip the lane, -1 to stop. */
static int resolve(block_ctx *b, const warp *w, const ptx_insn *in, const ptx_operand *o, int lane,
                   unsigned size, access *out)
{
    uint64_t a = (o->reg >= 0 ? w->regs[(size_t)o->reg * 32 + (size_t)lane] : 0) + (uint64_t)o->imm;
    unsigned space = in->space;
    char detail[160];
    memset(out, 0, sizeof *out);
    if (space == SP_GENERIC || space == SP_GLOBAL || space == SP_CONST) {
        if (space == SP_GENERIC && a >= PTX_LOCAL_WINDOW) {
            uint64_t off = a - PTX_LOCAL_WINDOW;
            if (off + size > (uint64_t)b->e->local_bytes * (uint64_t)b->nthreads) {
                snprintf(detail, sizeof detail, "byte %llu of the block's local memory",
                         (unsigned long long)off);
                return bad_access(b, w, lane, in, DK_OOB_LOCAL, detail);
            }
            *out = (access){b->local + off, SP_LOCAL, off, NULL};
            return 0;
        }
        if (space == SP_GENERIC && a >= PTX_SHARED_WINDOW) {
            a -= PTX_SHARED_WINDOW;
            space = SP_SHARED;
        } else {
            *out = (access){(uint8_t *)(uintptr_t)a, SP_GLOBAL, a, NULL};
            return global_check(b, w, lane, in, a, size, out);
        }
    }
    if (space == SP_SHARED) {
        if (a + size <= b->shared_bytes ||
            (a >= PTX_DYNAMIC_SHARED_BASE && a + size <= PTX_DYNAMIC_SHARED_BASE + b->dynamic_bytes)) {
            *out = (access){b->shared + a, SP_SHARED, a, NULL};
            return 0;
        }
        if (a >= PTX_DYNAMIC_SHARED_BASE)
            snprintf(detail, sizeof detail, "dynamic shared memory byte %llu of %llu",
                     (unsigned long long)(a - PTX_DYNAMIC_SHARED_BASE),
                     (unsigned long long)b->dynamic_bytes);
        else
            snprintf(detail, sizeof detail, "shared memory byte %llu of %llu", (unsigned long long)a,
                     (unsigned long long)b->shared_bytes);
        return bad_access(b, w, lane, in, DK_OOB_SHARED, detail);
    }
    if (space == SP_LOCAL) {
        if (a + size > b->e->local_bytes) {
            snprintf(detail, sizeof detail, "byte %llu of the thread's %u bytes of local memory",
                     (unsigned long long)a, b->e->local_bytes);
            return bad_access(b, w, lane, in, DK_OOB_LOCAL, detail);
        }
        *out = (access){b->local + (size_t)(w->base + lane) * b->e->local_bytes + a, SP_LOCAL, a, NULL};
        return 0;
    }
    if (a + size > b->e->param_bytes)
        return ptx_stopf(b, in, "parameter access out of bounds: byte %llu of %u",
                         (unsigned long long)a, b->e->param_bytes);
    *out = (access){b->params + a, SP_PARAM, a, NULL};
    return 0;
}

static uint64_t load_bits(const void *p, unsigned size, int is_signed)
{
    switch (size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return is_signed ? (uint64_t)(int64_t)(int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return is_signed ? (uint64_t)(int64_t)(int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return is_signed ? (uint64_t)(int64_t)(int32_t)v : v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void store_bits(void *p, unsigned size, uint64_t v)
{
    switch (size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* A store of `size` bytes at offset `at` of an answer's memory: each 4-byte word it touches
 * counts once for the storing block, however often the block stores it (a running sum kept in
 * P is one word). */
static void count_answer_words(block_ctx *b, const ptx_region *r, uint64_t at, unsigned size)
{
    if (!r->owner)
        return;
    for (uint64_t word = at / 4; word <= (at + size - 1) / 4 && word < r->size / 4; word++) {
        if (r->owner[word] != b->serial) {
            r->owner[word] = b->serial;
            b->answer_words++;
        }
    }
}

static void global_history(block_ctx *b, const warp *w, int lane, int pc, const access *acc,
                           unsigned size, bool write)
{
    const ptx_region *r = acc->region;
    if (!r || !r->shadow)
        return;
    uint64_t at = acc->addr - r->base;
    uint8_t *sh = r->shadow + at;
    if (write) {
        memset(sh, PTX_HELD_KERNEL, size);
        count_answer_words(b, r, at, size);
        return;
    }
    for (unsigned i = 0; i < size; i++) {
        if (!sh[i]) {
            char detail[256], name[96];
            snprintf(detail, sizeof detail, "reads byte %llu of %s, which nothing wrote (no "
                     "copy, memset or kernel store)",
                     (unsigned long long)(acc->addr - r->base + i),
                     region_name(r, name, sizeof name));
            diag_finding(b->diag, DK_UNINIT_GLOBAL, b, &b->e->code[pc], NULL, w->base + lane, -1,
                         detail);
            return;
        }
    }
}

/* All 32 lanes' 4- or 8-byte accesses, when every address lies in one place: the static or the
 * dynamic shared memory, or one device allocation (anywhere, when global accesses are not
 * checked). One check of the lowest and highest address, then straight loops. */
static PTX_INLINE bool whole_warp(const block_ctx *b, unsigned space, const uint64_t *A,
                                  uint64_t off, unsigned size, bool load, uint64_t *dst,
                                  const uint64_t *V)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int l = 0; l < 32; l++) {
        uint64_t a = A[l] + off;
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    if (hi > UINT64_MAX - size)
        return false;
    uintptr_t bias = 0; /* host address = bias + device address */
    if (space == SP_SHARED) {
        bool in_static = hi + size <= b->shared_bytes;
        bool in_dynamic = lo >= PTX_DYNAMIC_SHARED_BASE &&
                          hi + size <= PTX_DYNAMIC_SHARED_BASE + b->dynamic_bytes;
        if (!in_static && !in_dynamic)
            return false;
        bias = (uintptr_t)b->shared;
    } else if (b->env && b->env->regions) {
        bool inside;
        const ptx_region *r = find_region(b->env, lo, size, &inside);
        if (!inside || hi + size > r->base + r->size)
            return false;
    }
    off += bias;
    if (load && size == 4) {
        for (int l = 0; l < 32; l++) {
            uint32_t v;
            memcpy(&v, (const void *)(uintptr_t)(A[l] + off), 4);
            dst[l] = v;
        }
    } else if (load) {
        for (int l = 0; l < 32; l++)
            memcpy(&dst[l], (const void *)(uintptr_t)(A[l] + off), 8);
    } else if (size == 4) {
        for (int l = 0; l < 32; l++) {
            uint32_t v = (uint32_t)V[l];
            memcpy((void *)(uintptr_t)(A[l] + off), &v, 4);
        }
    } else {
        for (int l = 0; l < 32; l++)
            memcpy((void *)(uintptr_t)(A[l] + off), &V[l], 8);
    }
    return true;
}

/* The common case without checks beyond bounds: 32-bit-or-wider scalar shared or unchecked
 * global accesses, in a tight loop. Returns 1 when it does not apply. */
static PTX_INLINE int fast_memory(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    unsigned size = ty_bytes((ptx_type)in->type);
    bool load = in->op == OP_LD;
    unsigned space = in->space;
    if (b->diag || in->vec != 1 || size < 4 || ty_is_signed((ptx_type)in->type) ||
        !(space == SP_SHARED || space == SP_GLOBAL))
        return 1;
    const ptx_env *env = b->env && b->env->regions ? b->env : NULL;
    const ptx_region *last = NULL;
    const ptx_operand *ao = &in->ops[load ? 1 : 0];
    uint64_t bufA[32], bufV[32];
    const uint64_t *A = ptx_lanes(b, w, &(ptx_operand){.kind = ao->reg >= 0 ? OPK_REG : OPK_IMM,
                                                       .reg = ao->reg,
                                                       .imm = ao->reg >= 0 ? 0 : ao->imm}, bufA);
    const uint64_t *V = load ? NULL : ptx_lanes(b, w, &in->ops[1], bufV);
    uint64_t *dst = load ? w->regs + (size_t)in->ops[0].reg * 32 : NULL;
    uint64_t off = (uint64_t)(ao->reg >= 0 ? ao->imm : 0);
    if (mask == 0xffffffffu && whole_warp(b, space, A, off, size, load, dst, V))
        return 0;
    /* Every lane's address is checked before any lane's load: the destination may be the
     * address register, which the checked path would then read changed. */
    uint8_t *ptr[32];
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t a = A[lane] + off;
        if (space == SP_SHARED) {
            if (!(a + size <= b->shared_bytes ||
                  (a >= PTX_DYNAMIC_SHARED_BASE &&
                   a + size <= PTX_DYNAMIC_SHARED_BASE + b->dynamic_bytes)))
                return 1; /* let the checked path report it */
            ptr[lane] = b->shared + a;
        } else {
            if (env && !(last && a >= last->base && a + size <= last->base + last->size)) {
                bool inside;
                last = find_region(env, a, size, &inside);
                if (!inside)
                    return 1; /* let the checked path report it */
            }
            ptr[lane] = (uint8_t *)(uintptr_t)a;
        }
    }
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint8_t *p = ptr[lane];
        if (load) {
            if (size == 4) {
                uint32_t v;
                memcpy(&v, p, 4);
                dst[lane] = v;
            } else {
                memcpy(&dst[lane], p, 8);
            }
        } else if (size == 4) {
            uint32_t v = (uint32_t)V[lane];
            memcpy(p, &v, 4);
        } else {
            memcpy(p, &V[lane], 8);
        }
    }
    return 0;
}

PTX_HOT int ptx_exec_memory(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask, int pc)
{
    if (fast_memory(b, w, in, mask) == 0)
        return 0;
    unsigned size = ty_bytes((ptx_type)in->type);
    int sgn = ty_is_signed((ptx_type)in->type);
    int nv = in->vec;
    unsigned total = size * (unsigned)nv;
    bool load = in->op == OP_LD;
    const ptx_operand *ao = &in->ops[load ? nv : 0];
    uint64_t addrs[32];
    uint32_t done = 0;
    unsigned space = SP_GLOBAL;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        access acc;
        int rc = resolve(b, w, in, ao, lane, total, &acc);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            /* A bad read gives the poison pattern; a bad write goes nowhere. */
            if (load)
                for (int i = 0; i < nv; i++) {
                    w->regs[(size_t)in->ops[i].reg * 32 + (size_t)lane] = ~UINT64_C(0);
                    if (w->tainted)
                        w->taint[(size_t)in->ops[i].reg * 32 + (size_t)lane] = 0;
                }
            continue;
        }
        uint8_t stored[4 * sizeof(uint64_t)]; /* a store's bytes, as they will land */
        if (!load)
            for (int i = 0; i < nv; i++)
                store_bits(stored + (size_t)i * size, size,
                           ptx_operand_value(b, w, &in->ops[1 + i], lane));
        if (b->diag) {
            if (acc.space == SP_SHARED && b->shadow) {
                int32_t words[DIAG_ACCESS_WORDS] = {0};
                if (!load && w->tainted)
                    ptx_taint_shared_store(w, in, lane, acc.addr, size, words);
                diag_shared_history(b, w, lane, pc, acc.addr, total, !load, load ? NULL : stored,
                                    words);
                if (load)
                    ptx_taint_shared_load(w, in, lane, acc.addr, size, words);
            } else {
                if (acc.space == SP_GLOBAL)
                    global_history(b, w, lane, pc, &acc, total, !load);
                if (w->tainted)
                    ptx_taint_elsewhere(b, w, in, lane, pc, acc.space);
            }
        }
        if (load)
            for (int i = 0; i < nv; i++)
                w->regs[(size_t)in->ops[i].reg * 32 + (size_t)lane] =
                    load_bits(acc.ptr + (size_t)i * size, size, sgn);
        else
            memcpy(acc.ptr, stored, total);
        /* A generic local address is the block's offset: the model wants the thread's. */
        addrs[lane] = acc.space == SP_LOCAL && in->space != SP_LOCAL && b->e->local_bytes
                          ? acc.addr % b->e->local_bytes
                          : acc.addr;
        space = acc.space;
        done |= 1u << lane;
    }
    if (b->diag && done) {
        if (space == SP_SHARED)
            b->wavefronts += diag_shared_access(b->diag, b, pc, addrs, done, total);
        else if (space == SP_GLOBAL)
            b->wavefronts += diag_global_access(b->diag, b, pc, addrs, done, total);
        if (space == SP_GLOBAL)
            diag_store_order(b->diag, w, load);
        else if (space == SP_LOCAL && !(in->mods & MOD_CALL_PARAM))
            diag_local_access(b->diag, b, w, addrs, done, total);
    }
    return 0;
}

int ptx_access_lane(block_ctx *b, const warp *w, const ptx_insn *in, const ptx_operand *o,
                    int lane, unsigned size, unsigned space, int mode, int pc, ptx_place *out)
{
    /* Checked as an ld or st of that space would be; reports name the instruction's line. */
    ptx_insn as = *in;
    as.space = (uint8_t)space;
    as.op = mode == PTX_ACCESS_READ ? OP_LD : OP_ST;
    access acc;
    int rc = resolve(b, w, &as, o, lane, size, &acc);
    if (rc != 0)
        return rc;
    if (b->diag && mode != PTX_ACCESS_SYNC) {
        bool write = mode == PTX_ACCESS_WRITE;
        if (acc.space == SP_SHARED && b->shadow)
            diag_shared_history(b, w, lane, pc, acc.addr, size, write, NULL, NULL);
        else if (acc.space == SP_GLOBAL)
            global_history(b, w, lane, pc, &acc, size, write);
    }
    *out = (ptx_place){acc.ptr, acc.space, acc.addr};
    return 0;
}

/* One atomic update of `size` bytes at p; *old gets the value before it, *changed whether the
 * bytes are now different (a spin on a failing compare-and-swap writes nothing). With `concurrent`,
 * other threads may update the same word: 4- and 8-byte words (aligned, as PTX requires) are
 * updated with compare-and-swap, anything else under a lock. False for an operation
 * ptx_atomic_apply does not know. */
static pthread_mutex_t atomic_lock = PTHREAD_MUTEX_INITIALIZER;

static bool atomic_update(const ptx_insn *in, uint8_t *p, unsigned size, int sgn, uint64_t v,
                          uint64_t cmp, bool concurrent, uint64_t *old, bool *changed)
{
    uint64_t r;
    uint64_t bits = size >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (size * 8)) - 1;
    if (concurrent && size == 4 && (uintptr_t)p % 4 == 0) {
        uint32_t *word = (uint32_t *)(void *)p;
        uint32_t seen = __atomic_load_n(word, __ATOMIC_RELAXED);
        do {
            *old = sgn ? (uint64_t)(int64_t)(int32_t)seen : seen;
            if (!ptx_atomic_apply(in, *old, v, cmp, &r))
                return false;
        } while (!__atomic_compare_exchange_n(word, &seen, (uint32_t)r, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        *changed = ((r ^ *old) & bits) != 0;
        return true;
    }
    if (concurrent && size == 8 && (uintptr_t)p % 8 == 0) {
        uint64_t *word = (uint64_t *)(void *)p;
        uint64_t seen = __atomic_load_n(word, __ATOMIC_RELAXED);
        do {
            *old = seen;
            if (!ptx_atomic_apply(in, *old, v, cmp, &r))
                return false;
        } while (!__atomic_compare_exchange_n(word, &seen, r, true, __ATOMIC_SEQ_CST,
                                              __ATOMIC_RELAXED));
        *changed = r != *old;
        return true;
    }
    if (concurrent)
        pthread_mutex_lock(&atomic_lock);
    *old = load_bits(p, size, sgn);
    bool ok = ptx_atomic_apply(in, *old, v, cmp, &r);
    if (ok)
        store_bits(p, size, r);
    *changed = ok && ((r ^ *old) & bits) != 0;
    if (concurrent)
        pthread_mutex_unlock(&atomic_lock);
    return ok;
}

int ptx_exec_atomic(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask, int pc)
{
    ptx_type t = (ptx_type)in->type;
    unsigned size = ty_bytes(t);
    int has_dst = in->op == OP_ATOM;
    const ptx_operand *addr = &in->ops[has_dst];
    uint64_t addrs[32];
    uint32_t done = 0;
    unsigned space = SP_GLOBAL;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        access acc;
        int rc = resolve(b, w, in, addr, lane, size, &acc);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue;
        addrs[lane] = acc.addr;
        space = acc.space;
        done |= 1u << lane;
        uint64_t v = ptx_operand_value(b, w, &in->ops[has_dst + 1], lane), old;
        uint64_t cmp = in->atomic == AT_CAS ? ptx_operand_value(b, w, &in->ops[has_dst + 2], lane) : 0;
        /* An atomic reads the word (an exchange only hands the old value back), then what it
         * leaves is a kernel's doing, as a store's is. */
        if (b->diag && acc.space == SP_GLOBAL) {
            if (in->atomic != AT_EXCH)
                global_history(b, w, lane, pc, &acc, size, false);
            global_history(b, w, lane, pc, &acc, size, true);
        }
        /* Blocks running at the same time may update the same global word. */
        bool shared_by_blocks = b->parallel && acc.space == SP_GLOBAL;
        bool changed = false;
        if (!atomic_update(in, acc.ptr, size, ty_is_signed(t), v, cmp, shared_by_blocks, &old,
                           &changed))
            return ptx_stop_unsupported(b, in, "this atomic operation");
        b->writes += changed;
        b->global_writes += changed && acc.space == SP_GLOBAL;
        if (has_dst)
            w->regs[(size_t)in->ops[0].reg * 32 + (size_t)lane] = old;
    }
    if (b->diag && done)
        diag_atomic(b->diag, b, addrs, done, space);
    return 0;
}
