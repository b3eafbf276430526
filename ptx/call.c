/* Calls of device functions, with a call stack per thread: a call saves the callee's registers
 * and local memory for that thread (so a recursive call cannot overwrite its caller's), copies
 * the arguments in and jumps; ret copies the result out and restores them. assert() calls
 * __assertfail, which prints CUDA's message for each failing thread and stops the kernel. */
#include "exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARP_LANES 32
/* Nested calls one thread may make: far beyond a GPU's default 1 KB stack, and low enough to
 * stop a recursion that never ends with a message rather than exhausting memory. */
#define PTX_MAX_CALL_DEPTH 10000
#define ASSERT_TEXT_MAX 512 /* bytes of each string of an assert message */

typedef struct ptx_frame {
    int32_t return_pc, site;
    uint8_t *saved; /* the callee's registers for this thread, then its local memory */
} ptx_frame;

struct ptx_callstack {
    ptx_frame *frames;
    int depth, cap;
};

static uint8_t *thread_local_memory(const block_ctx *b, int tid)
{
    return b->local + (size_t)tid * b->e->local_bytes;
}

/* A string of the module (an assert's condition, file or function) at a device address. */
static void read_string(const block_ctx *b, uint64_t addr, char *out, size_t size)
{
    uint64_t avail = 0;
    const uint8_t *p = ptx_span(b, addr, &avail);
    size_t n = 0;
    while (p && n + 1 < size && n < avail && p[n])
        n++;
    if (p)
        memcpy(out, p, n);
    out[n] = '\0';
}

static uint64_t read_arg(const uint8_t *local, const ptx_copy *arg)
{
    uint64_t v = 0;
    memcpy(&v, local + arg->from, arg->size < sizeof v ? arg->size : sizeof v);
    return v;
}

/* __assertfail(message, file, line, function, char size), once per failing thread. */
static int assert_fail(block_ctx *b, warp *w, const ptx_insn *in, const ptx_callsite *cs,
                       uint32_t exec)
{
    if (cs->nargs < 4)
        return ptx_stopf(b, in, "a call of __assertfail with %d arguments", cs->nargs);
    fflush(stdout);
    for (int lane = 0; lane < WARP_LANES; lane++) {
        if (!(exec >> lane & 1))
            continue;
        int tid = w->base + lane;
        const uint8_t *local = thread_local_memory(b, tid);
        char message[ASSERT_TEXT_MAX], file[ASSERT_TEXT_MAX], function[ASSERT_TEXT_MAX];
        read_string(b, read_arg(local, &cs->args[0]), message, sizeof message);
        read_string(b, read_arg(local, &cs->args[1]), file, sizeof file);
        read_string(b, read_arg(local, &cs->args[3]), function, sizeof function);
        unsigned line = (unsigned)read_arg(local, &cs->args[2]);
        unsigned tx = (unsigned)tid % b->block.x, ty = (unsigned)tid / b->block.x % b->block.y,
                 tz = (unsigned)tid / (b->block.x * b->block.y);
        /* CUDA's own wording, so that what students search for matches. */
        fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                file, line, function, b->ctaid.x, b->ctaid.y, b->ctaid.z, tx, ty, tz, message);
    }
    b->err->kind = PTX_ERROR_ASSERT;
    return ptx_stopf(b, in, "device-side assert triggered");
}

int ptx_exec_call(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec, uint32_t mask, int pc)
{
    const ptx_callsite *cs = &b->e->calls[in->target];
    for (int lane = 0; lane < WARP_LANES; lane++)
        if ((mask & ~exec) >> lane & 1)
            w->pc[lane] = pc + 1;
    if (!exec)
        return 0;
    if (cs->builtin == PTX_FUNC_ASSERTFAIL)
        return assert_fail(b, w, in, cs, exec);
    if (!b->stacks && !(b->stacks = calloc((size_t)b->nthreads, sizeof *b->stacks)))
        return ptx_stopf(b, in, "out of memory for call stacks");
    size_t reg_bytes = (size_t)cs->nregs * sizeof(uint64_t);
    for (int lane = 0; lane < WARP_LANES; lane++) {
        if (!(exec >> lane & 1))
            continue;
        int tid = w->base + lane;
        struct ptx_callstack *st = &b->stacks[tid];
        if (st->depth == PTX_MAX_CALL_DEPTH)
            return ptx_stopf(b, in, "call stack overflow: %d nested calls of device functions "
                             "in thread %d (a recursion that does not end?)", st->depth, tid);
        if (st->depth == st->cap) {
            int cap = st->cap ? st->cap * 2 : 8;
            ptx_frame *nf = realloc(st->frames, (size_t)cap * sizeof *nf);
            if (!nf)
                return ptx_stopf(b, in, "out of memory for call stacks");
            st->frames = nf;
            st->cap = cap;
        }
        uint8_t *saved = malloc(reg_bytes + cs->local_bytes + 1);
        if (!saved)
            return ptx_stopf(b, in, "out of memory for call stacks");
        uint8_t *local = thread_local_memory(b, tid);
        for (int r = 0; r < cs->nregs; r++)
            memcpy(saved + (size_t)r * sizeof(uint64_t),
                   &w->regs[(size_t)(cs->reg_base + r) * WARP_LANES + (size_t)lane],
                   sizeof(uint64_t));
        memcpy(saved + reg_bytes, local + cs->local_base, cs->local_bytes);
        for (int i = 0; i < cs->nargs; i++)
            memmove(local + cs->args[i].to, local + cs->args[i].from, cs->args[i].size);
        st->frames[st->depth++] = (ptx_frame){pc + 1, in->target, saved};
        w->pc[lane] = cs->target;
    }
    return 0;
}

int ptx_exec_return(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec, uint32_t mask,
                    int pc)
{
    for (int lane = 0; lane < WARP_LANES; lane++) {
        if (!(mask >> lane & 1))
            continue;
        int tid = w->base + lane;
        struct ptx_callstack *st = b->stacks ? &b->stacks[tid] : NULL;
        w->pc[lane] = pc + 1;
        if (!(exec >> lane & 1))
            continue;
        if (!st || st->depth == 0) {
            w->state[lane] = LANE_DONE; /* ret from the kernel itself */
            continue;
        }
        ptx_frame f = st->frames[--st->depth];
        const ptx_callsite *cs = &b->e->calls[f.site];
        uint8_t *local = thread_local_memory(b, tid);
        /* The result leaves the callee's memory before that memory is restored (in a
         * recursion, the caller's .param for it lies there too). */
        uint8_t result[256];
        uint8_t *tmp = cs->ret.size <= sizeof result ? result : malloc(cs->ret.size);
        if (!tmp)
            return ptx_stopf(b, in, "out of memory returning from a device function");
        if (cs->has_ret)
            memcpy(tmp, local + cs->ret.from, cs->ret.size);
        size_t reg_bytes = (size_t)cs->nregs * sizeof(uint64_t);
        for (int r = 0; r < cs->nregs; r++)
            memcpy(&w->regs[(size_t)(cs->reg_base + r) * WARP_LANES + (size_t)lane],
                   f.saved + (size_t)r * sizeof(uint64_t), sizeof(uint64_t));
        memcpy(local + cs->local_base, f.saved + reg_bytes, cs->local_bytes);
        if (cs->has_ret)
            memcpy(local + cs->ret.to, tmp, cs->ret.size);
        if (tmp != result)
            free(tmp);
        free(f.saved);
        w->pc[lane] = f.return_pc;
    }
    return 0;
}

void ptx_calls_free(block_ctx *b)
{
    if (!b->stacks)
        return;
    for (int t = 0; t < b->nthreads; t++) {
        for (int i = 0; i < b->stacks[t].depth; i++)
            free(b->stacks[t].frames[i].saved);
        free(b->stacks[t].frames);
    }
    free(b->stacks);
    b->stacks = NULL;
}
