/* The interpreter: blocks of warps of 32 threads in lockstep.
 *
 * Each lane has its own program counter. A warp issues the instruction at the lowest program
 * counter among its running lanes, for every lane standing there (the others wait), so lanes
 * that took different sides of a branch run one side after the other and reconverge where the
 * sides meet. bar.sync parks a lane until every lane of the block that has not exited arrives.
 * Instructions are decoded once (parse.c); here each is one switch, then a loop over lanes. */
#include "exec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { LANE_RUN = 0, LANE_BAR, LANE_DONE };

static int stop(block_ctx *b, const ptx_insn *in, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int stop(block_ctx *b, const ptx_insn *in, const char *fmt, ...)
{
    const ptx_module *m = b->e->module;
    const char *file = in->file > 0 && in->file < m->nfiles && m->files[in->file]
                           ? m->files[in->file]
                           : m->name;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(b->err->msg, sizeof b->err->msg, "%.200s:%d: %.200s (in %.100s, block (%u,%u,%u))",
             file, in->line, what, b->e->name, b->ctaid.x, b->ctaid.y, b->ctaid.z);
    return -1;
}

static uint64_t special(const block_ctx *b, const warp *w, int lane, int sreg)
{
    int t = w->base + lane;
    switch (sreg) {
    case SR_TID_X: return (uint64_t)(t % b->block.x);
    case SR_TID_Y: return (uint64_t)(t / b->block.x % b->block.y);
    case SR_TID_Z: return (uint64_t)(t / (b->block.x * b->block.y));
    case SR_NTID_X: return b->block.x;
    case SR_NTID_Y: return b->block.y;
    case SR_NTID_Z: return b->block.z;
    case SR_CTAID_X: return b->ctaid.x;
    case SR_CTAID_Y: return b->ctaid.y;
    case SR_CTAID_Z: return b->ctaid.z;
    case SR_NCTAID_X: return b->grid.x;
    case SR_NCTAID_Y: return b->grid.y;
    case SR_NCTAID_Z: return b->grid.z;
    case SR_LANEID: return (uint64_t)lane;
    case SR_WARPID: return (uint64_t)(w->base / 32);
    case SR_NWARPID: return (uint64_t)b->nwarps;
    default: return 32; /* WARP_SZ */
    }
}

static inline uint64_t get(const block_ctx *b, const warp *w, const ptx_operand *o, int lane)
{
    if (o->kind == OPK_REG)
        return w->regs[(size_t)o->reg * 32 + (size_t)lane];
    if (o->kind == OPK_SREG)
        return special(b, w, lane, o->sreg);
    return (uint64_t)o->imm;
}

/* Resolves an address operand for one lane to a host pointer, checking shared and local
 * bounds. Returns NULL (err filled) when the access is outside its memory. */
static void *address(block_ctx *b, const warp *w, const ptx_insn *in, const ptx_operand *o,
                     int lane, unsigned size)
{
    uint64_t a = (o->reg >= 0 ? w->regs[(size_t)o->reg * 32 + (size_t)lane] : 0) + (uint64_t)o->imm;
    unsigned space = in->space;
    size_t thread = (size_t)(w->base + lane);
    if (space == SP_GENERIC) {
        if (a >= PTX_LOCAL_WINDOW) {
            uint64_t off = a - PTX_LOCAL_WINDOW;
            if (off + size > (uint64_t)b->e->local_bytes * (uint64_t)b->nthreads) {
                stop(b, in, "local memory access out of bounds at offset %llu", (unsigned long long)off);
                return NULL;
            }
            return b->local + off;
        }
        if (a >= PTX_SHARED_WINDOW) {
            a -= PTX_SHARED_WINDOW;
            space = SP_SHARED;
        } else {
            return (void *)(uintptr_t)a;
        }
    }
    switch (space) {
    case SP_SHARED:
        if (a + size <= b->shared_bytes ||
            (a >= PTX_DYNAMIC_SHARED_BASE && a + size <= PTX_DYNAMIC_SHARED_BASE + b->dynamic_bytes))
            return b->shared + a;
        if (a >= PTX_DYNAMIC_SHARED_BASE)
            stop(b, in, "dynamic shared memory access out of bounds: byte %llu of %llu",
                 (unsigned long long)(a - PTX_DYNAMIC_SHARED_BASE),
                 (unsigned long long)b->dynamic_bytes);
        else
            stop(b, in, "shared memory access out of bounds: byte %llu of %llu",
                 (unsigned long long)a, (unsigned long long)b->shared_bytes);
        return NULL;
    case SP_LOCAL:
        if (a + size > b->e->local_bytes) {
            stop(b, in, "local memory access out of bounds: byte %llu of %u",
                 (unsigned long long)a, b->e->local_bytes);
            return NULL;
        }
        return b->local + thread * b->e->local_bytes + a;
    case SP_PARAM:
        if (a + size > b->e->param_bytes) {
            stop(b, in, "parameter access out of bounds: byte %llu of %u", (unsigned long long)a,
                 b->e->param_bytes);
            return NULL;
        }
        return b->params + a;
    default:
        return (void *)(uintptr_t)a;
    }
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

static int exec_memory(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    unsigned size = ty_bytes((ptx_type)in->type);
    int sgn = ty_is_signed((ptx_type)in->type);
    int nv = in->vec;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        if (in->op == OP_LD) {
            uint8_t *p = address(b, w, in, &in->ops[nv], lane, size * (unsigned)nv);
            if (!p)
                return -1;
            for (int i = 0; i < nv; i++)
                w->regs[(size_t)in->ops[i].reg * 32 + (size_t)lane] = load_bits(p + i * size, size, sgn);
        } else {
            uint8_t *p = address(b, w, in, &in->ops[0], lane, size * (unsigned)nv);
            if (!p)
                return -1;
            for (int i = 0; i < nv; i++)
                store_bits(p + i * size, size, get(b, w, &in->ops[1 + i], lane));
        }
    }
    return 0;
}

static int exec_atomic(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    ptx_type t = (ptx_type)in->type;
    unsigned size = ty_bytes(t);
    int has_dst = in->op == OP_ATOM;
    const ptx_operand *addr = &in->ops[has_dst];
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint8_t *p = address(b, w, in, addr, lane, size);
        if (!p)
            return -1;
        uint64_t old = load_bits(p, size, ty_is_signed(t));
        uint64_t v = get(b, w, &in->ops[has_dst + 1], lane), r;
        if (!ptx_atomic_apply(in, old, v, in->atomic == AT_CAS ? get(b, w, &in->ops[has_dst + 2], lane) : 0, &r))
            return stop(b, in, "unsupported atomic operation");
        store_bits(p, size, r);
        if (has_dst)
            w->regs[(size_t)in->ops[0].reg * 32 + (size_t)lane] = old;
    }
    return 0;
}

/* Lowest program counter among running lanes and the lanes standing there; *other gets the
 * lowest program counter of the running lanes not standing there (INT32_MAX if none). */
static int pick(const warp *w, uint32_t *mask, int *other)
{
    int best = -1, second = INT32_MAX;
    uint32_t m = 0;
    for (int lane = 0; lane < w->nlanes; lane++) {
        if (w->state[lane] != LANE_RUN)
            continue;
        int pc = w->pc[lane];
        if (best < 0 || pc < best) {
            if (best >= 0 && best < second)
                second = best;
            best = pc;
            m = 1u << lane;
        } else if (pc == best) {
            m |= 1u << lane;
        } else if (pc < second) {
            second = pc;
        }
    }
    *mask = m;
    *other = second;
    return best;
}

static void set_pcs(warp *w, uint32_t mask, int pc)
{
    for (int lane = 0; lane < 32; lane++)
        if (mask >> lane & 1)
            w->pc[lane] = pc;
}

/* Runs a warp until none of its lanes can go on (all exited or at a barrier). The lanes at the
 * lowest program counter run straight-line code together until a branch, a barrier, an exit,
 * or the point where other lanes of the warp wait (which then join them). */
static int run_warp(block_ctx *b, warp *w)
{
    const ptx_insn *code = b->e->code;
    const int ncode = b->e->ncode;
    for (;;) {
        uint32_t mask;
        int other;
        int pc = pick(w, &mask, &other);
        if (pc < 0)
            return 0;
        int lanes = __builtin_popcount(mask);
        for (;;) {
            if (pc >= ncode) {
                /* Falling off the end of the body ends the thread, as ret would. */
                for (int lane = 0; lane < 32; lane++)
                    if (mask >> lane & 1)
                        w->state[lane] = LANE_DONE;
                break;
            }
            const ptx_insn *in = &code[pc];
            uint32_t exec = mask;
            if (in->guard >= 0) {
                exec = 0;
                const uint64_t *g = w->regs + (size_t)in->guard * 32;
                for (int lane = 0; lane < 32; lane++)
                    exec |= (uint32_t)((g[lane] != 0) != in->guard_neg) << lane;
                exec &= mask;
            }
            b->stats->warp_instructions++;
            b->stats->thread_instructions += (uint64_t)(exec == mask ? lanes : __builtin_popcount(exec));
            int op = in->op;
            if (op == OP_BRA) {
                for (int lane = 0; lane < 32; lane++)
                    if (mask >> lane & 1)
                        w->pc[lane] = (exec >> lane & 1) ? in->target : pc + 1;
                break;
            }
            if (op == OP_BAR || op == OP_RET || op == OP_EXIT) {
                set_pcs(w, mask, pc + 1);
                for (int lane = 0; lane < 32; lane++)
                    if (exec >> lane & 1)
                        w->state[lane] = op == OP_BAR ? LANE_BAR : LANE_DONE;
                break;
            }
            int rc = 0;
            if (exec) {
                if (op == OP_LD || op == OP_ST)
                    rc = exec_memory(b, w, in, exec);
                else if (op == OP_ATOM || op == OP_RED)
                    rc = exec_atomic(b, w, in, exec);
                else if (op == OP_CALL)
                    rc = ptx_vprintf(b, w, in, exec);
                else
                    rc = ptx_exec_alu(b, w, in, exec);
            }
            if (rc != 0)
                return -1;
            pc++;
            if (pc >= other) {
                /* Other lanes wait here (or earlier, after a loop): let them join. */
                set_pcs(w, mask, pc);
                break;
            }
        }
    }
}

uint64_t ptx_operand_value(const block_ctx *b, const warp *w, const ptx_operand *o, int lane)
{
    return get(b, w, o, lane);
}

int ptx_stop_unsupported(block_ctx *b, const ptx_insn *in, const char *what)
{
    return stop(b, in, "%s is not supported by the CPU backend", what);
}

static int run_block(block_ctx *b, warp *warps)
{
    for (;;) {
        for (int i = 0; i < b->nwarps; i++)
            if (run_warp(b, &warps[i]) != 0)
                return -1;
        /* Every lane has exited or waits at a barrier: release the barrier, or finish. */
        int waiting = 0;
        for (int i = 0; i < b->nwarps; i++)
            for (int lane = 0; lane < warps[i].nlanes; lane++)
                if (warps[i].state[lane] == LANE_BAR) {
                    warps[i].state[lane] = LANE_RUN;
                    waiting++;
                }
        if (!waiting)
            return 0;
    }
}

int ptx_launch(const ptx_entry *e, ptx_dim3 grid, ptx_dim3 block, void **args,
               size_t dynamic_shared, ptx_stats *stats, ptx_error *err)
{
    ptx_stats local_stats = {0, 0};
    if (!stats)
        stats = &local_stats;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 ||
        grid.z == 0 || grid.y > 65535 || grid.z > 65535) {
        snprintf(err->msg, sizeof err->msg,
                 "invalid launch configuration for %s: grid (%u,%u,%u), block (%u,%u,%u)", e->name,
                 grid.x, grid.y, grid.z, block.x, block.y, block.z);
        return -1;
    }
    block_ctx b;
    memset(&b, 0, sizeof b);
    b.e = e;
    b.grid = grid;
    b.block = block;
    b.nthreads = (int)threads;
    b.nwarps = (b.nthreads + 31) / 32;
    b.stats = stats;
    b.err = err;
    b.shared_bytes = e->shared_bytes;
    b.dynamic_bytes = dynamic_shared;
    if (e->shared_bytes > PTX_DYNAMIC_SHARED_BASE) {
        snprintf(err->msg, sizeof err->msg, "%s declares %u bytes of shared memory, more than a "
                 "block can have", e->name, e->shared_bytes);
        return -1;
    }
    size_t shared_alloc = dynamic_shared ? PTX_DYNAMIC_SHARED_BASE + dynamic_shared
                                         : e->shared_bytes;
    b.params = calloc(1, e->param_bytes ? e->param_bytes : 1);
    b.shared = malloc(shared_alloc ? shared_alloc : 1);
    b.local = malloc(e->local_bytes ? (size_t)e->local_bytes * threads : 1);
    warp *warps = calloc((size_t)b.nwarps, sizeof *warps);
    uint64_t *regs = calloc((size_t)b.nwarps * 32 * (size_t)(e->nregs ? e->nregs : 1), sizeof *regs);
    int rc = 0;
    if (!b.params || !b.shared || !b.local || !warps || !regs) {
        snprintf(err->msg, sizeof err->msg, "out of memory launching %s", e->name);
        rc = -1;
    }
    for (int i = 0; rc == 0 && i < e->nparams; i++)
        memcpy(b.params + e->params[i].offset, args[i], e->params[i].size);
    for (unsigned z = 0; rc == 0 && z < grid.z; z++)
        for (unsigned y = 0; rc == 0 && y < grid.y; y++)
            for (unsigned x = 0; rc == 0 && x < grid.x; x++) {
                b.ctaid = (ptx_dim3){x, y, z};
                /* Fresh shared memory is not zero on a GPU either: fill it with a pattern
                 * that reads as NaN, so a kernel that reads before writing shows it. */
                memset(b.shared, 0xff, b.shared_bytes);
                if (dynamic_shared)
                    memset(b.shared + PTX_DYNAMIC_SHARED_BASE, 0xff, dynamic_shared);
                memset(b.local, 0xff, (size_t)e->local_bytes * threads);
                for (int i = 0; i < b.nwarps; i++) {
                    warp *w = &warps[i];
                    w->base = i * 32;
                    w->nlanes = b.nthreads - w->base < 32 ? b.nthreads - w->base : 32;
                    w->regs = regs + (size_t)i * 32 * (size_t)e->nregs;
                    memset(w->pc, 0, sizeof w->pc);
                    for (int lane = 0; lane < 32; lane++)
                        w->state[lane] = lane < w->nlanes ? LANE_RUN : LANE_DONE;
                }
                rc = run_block(&b, warps);
            }
    free(regs);
    free(warps);
    free(b.local);
    free(b.shared);
    free(b.params);
    return rc;
}
