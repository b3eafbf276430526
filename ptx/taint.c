/* Under diagnosis: where values read from never-written shared memory go. A GPU's fresh shared
 * memory holds whatever the last block left, so such a read is a bug only when what it read
 * can change what the kernel does or leaves. Threads outside the output of a tiled product
 * commonly multiply tile elements nothing stored and never store the sum; every element of the
 * result is right on any GPU, and those reads are no finding.
 *
 * Each register of each lane carries an origin: the pc + 1 of the never-written read its value
 * derives from (0: none). Arithmetic passes its sources' origins to its results; a shared store
 * leaves its value's origin in the word (diag_race.c), which a later load by any thread picks
 * up. The finding is made, at the line of the read, when such a value is stored outside shared
 * memory, decides a branch or a guard, forms an address, or goes into an atomic, a barrier, a
 * warp synchronisation or an asynchronous copy: from there on the kernel's output or behaviour
 * depends on the garbage. Limits (the finding goes unmade, a GPU giving the right answer all
 * the same or not): the carry flag of add.cc and kin, an atomic's old value, and a word partly
 * overwritten by a narrower store (the store's origin stands for the whole word). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

void ptx_taint_report(block_ctx *b, const warp *w, int lane, int32_t origin, int pc,
                      const char *use)
{
    const ptx_insn *code = b->e->code, *read = &code[origin - 1];
    if (diag_count_known(b->diag, DK_UNINIT_SHARED, b, read, NULL))
        return;
    char detail[DIAG_DETAIL_MAX], where[160] = "";
    const char *file = ptx_source_file(b->e->module, &code[pc]);
    if (strcmp(file, ptx_source_file(b->e->module, read)) != 0)
        snprintf(where, sizeof where, " of %.120s", file); /* the read was in an included file */
    if (origin - 1 == pc || code[pc].line <= 0)
        snprintf(detail, sizeof detail, "reads a shared word that no thread of the block has "
                 "written, and %s uses it", use);
    else
        snprintf(detail, sizeof detail, "reads a shared word that no thread of the block has "
                 "written; a value made from it reaches %s at line %d%s", use, code[pc].line,
                 where);
    diag_finding(b->diag, DK_UNINIT_SHARED, b, read, NULL, w->base + lane, -1, detail);
}

void ptx_taint_reset(block_ctx *b, warp *warps)
{
    for (int k = 0; k < b->nwarps; k++) {
        warp *w = &warps[k];
        if (w->tainted)
            memset(w->taint, 0, (size_t)b->e->nregs * 32 * sizeof *w->taint);
        w->tainted = false;
    }
}

/* The words of a shared access of `size`-byte elements at `off` that element i touches. */
static void element_words(uint64_t off, unsigned size, int i, unsigned words, unsigned *lo,
                          unsigned *hi)
{
    unsigned at = (unsigned)(off % 4) + (unsigned)i * size;
    *lo = at / 4 < words ? at / 4 : words - 1;
    *hi = (at + size - 1) / 4 < words ? (at + size - 1) / 4 : words - 1;
}

/* The origins a shared store leaves in each word it writes. */
void ptx_taint_shared_store(const warp *w, const ptx_insn *in, int lane, uint64_t off,
                            unsigned size, int32_t *words)
{
    unsigned n = (size * in->vec + 3) / 4, lo, hi;
    for (int i = 0; i < in->vec; i++) {
        int32_t t = ptx_taint_of(w, &in->ops[1 + i], lane);
        element_words(off, size, i, n, &lo, &hi);
        for (unsigned j = lo; t && j <= hi; j++)
            words[j] = words[j] ? words[j] : t;
    }
}

/* The origins a shared load's results take from the words they come from. */
void ptx_taint_shared_load(warp *w, const ptx_insn *in, int lane, uint64_t off, unsigned size,
                           const int32_t *words)
{
    unsigned n = (size * in->vec + 3) / 4, lo, hi;
    for (int i = 0; i < in->vec; i++) {
        int32_t t = 0;
        element_words(off, size, i, n, &lo, &hi);
        for (unsigned j = lo; !t && j <= hi; j++)
            t = words[j];
        if (t)
            w->tainted = true;
        if (w->tainted)
            w->taint[(size_t)in->ops[i].reg * 32 + (size_t)lane] = t;
    }
}

/* A load from elsewhere gives clean values; a store there of a value with an origin is where
 * it leaves the kernel (global memory), or may (local memory: kept per thread, a call's
 * arguments; followed no further). */
void ptx_taint_elsewhere(block_ctx *b, warp *w, const ptx_insn *in, int lane, int pc,
                         unsigned space)
{
    for (int i = 0; i < in->vec; i++) {
        if (in->op == OP_LD) {
            w->taint[(size_t)in->ops[i].reg * 32 + (size_t)lane] = 0;
            continue;
        }
        int32_t t = ptx_taint_of(w, &in->ops[1 + i], lane);
        if (t) {
            ptx_taint_report(b, w, lane, t, pc, space == SP_LOCAL    ? "a store to local memory"
                                                : space == SP_GLOBAL ? "a store to global memory"
                                                                     : "a store");
            return;
        }
    }
}

static inline int32_t *slot_of(warp *w, const ptx_operand *o)
{
    return o->kind == OPK_REG && o->reg >= 0 ? w->taint + (size_t)o->reg * 32 : NULL;
}

/* The register operands [from, to) of `in`, in `lane`: the first origin among them. */
static int32_t sources(const warp *w, const ptx_insn *in, int from, int to, int lane)
{
    for (int i = from; i < to && i < in->nops; i++) {
        int32_t t = ptx_taint_of(w, &in->ops[i], lane);
        if (t)
            return t;
    }
    return 0;
}

/* An instruction whose operands [from, to) change what the kernel does: any origin among
 * them, or in its guard in the lanes the guard decides for, is a finding. */
static void uses(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec, uint32_t mask, int pc,
                 int from, int to, const char *what)
{
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        int32_t g = in->guard >= 0 ? w->taint[(size_t)in->guard * 32 + (size_t)lane] : 0;
        int32_t t = exec >> lane & 1 ? sources(w, in, from, to, lane) : 0;
        if (g)
            ptx_taint_report(b, w, lane, g, pc, "the condition of an if or a loop");
        else if (t)
            ptx_taint_report(b, w, lane, t, pc, what);
    }
}

/* Results are operands [0, results); for lanes in exec they take `origin[lane]`; a lane whose
 * guard carries an origin keeps its old value by that garbage's decision: it takes that. */
static void results(warp *w, const ptx_insn *in, int results, uint32_t exec, uint32_t mask,
                    const int32_t *origin)
{
    const int32_t *g = in->guard >= 0 ? w->taint + (size_t)in->guard * 32 : NULL;
    for (int i = 0; i < results; i++) {
        int32_t *d = slot_of(w, &in->ops[i]);
        if (!d)
            continue;
        for (int lane = 0; lane < 32; lane++) {
            if (exec >> lane & 1)
                d[lane] = origin[lane] ? origin[lane] : g ? g[lane] : 0;
            else if ((mask >> lane & 1) && g && g[lane] && !d[lane])
                d[lane] = g[lane];
        }
    }
}

/* Operands a value instruction writes: a split's parts, d|p, or the first. */
static int result_count(const ptx_insn *in)
{
    if (in->mods & MOD_SPLIT)
        return in->vec;
    return in->mods & MOD_PDEST ? 2 : 1;
}

void ptx_taint_step(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec, uint32_t mask,
                    int pc)
{
    int32_t origin[32] = {0};
    int n = in->nops, first = result_count(in);
    switch (in->op) {
    case OP_BRA:
        uses(b, w, in, exec, mask, pc, 0, 0, "the condition of an if or a loop");
        return;
    case OP_LD: /* the loaded values' origins: memory.c */
        uses(b, w, in, exec, mask, pc, in->vec, in->vec + 1, "an address");
        return;
    case OP_ST: /* the stored values': memory.c, which knows where they land */
        uses(b, w, in, exec, mask, pc, 0, 1, "an address");
        return;
    case OP_ATOM: case OP_RED:
        uses(b, w, in, exec, mask, pc, in->op == OP_ATOM, n, "an atomic operation");
        if (in->op == OP_ATOM)
            results(w, in, 1, exec, mask, origin);
        return;
    case OP_BAR: case OP_MBARRIER: {
        /* bar.red and most mbarrier operations have a result first: clean, as any origin
         * among their operands is a finding already. */
        bool result = in->op == OP_BAR ? in->sub >= BAR_RED_POPC
                                       : n && in->ops[0].kind == OPK_REG;
        uses(b, w, in, exec, mask, pc, result, n, "a barrier");
        if (result)
            results(w, in, 1, exec, mask, origin);
        return;
    }
    case OP_CPASYNC: case OP_WARPSYNC: case OP_NANOSLEEP:
        uses(b, w, in, exec, mask, pc, 0, n, "a synchronisation or an asynchronous copy");
        return;
    case OP_CALL: case OP_RET: case OP_EXIT: case OP_FENCE: case OP_TRAP:
        /* A call's arguments go through local memory: memory.c sees them stored. */
        uses(b, w, in, exec, mask, pc, 0, 0, "a call or an exit");
        return;
    case OP_ACTIVEMASK: case OP_VOTE: case OP_SHFL: case OP_REDUX: case OP_MATCH: {
        /* Lanes exchange values: an origin in any of them reaches all (a finding only if the
         * result then reaches a use). */
        int32_t any = 0;
        for (int lane = 0; lane < 32 && !any; lane++) {
            if (exec >> lane & 1)
                any = sources(w, in, first, n, lane);
            if (!any && (mask >> lane & 1) && in->guard >= 0)
                any = w->taint[(size_t)in->guard * 32 + (size_t)lane];
        }
        for (int lane = 0; lane < 32; lane++)
            origin[lane] = any;
        results(w, in, first, exec, mask, origin);
        return;
    }
    default:
        break;
    }
    /* A value instruction: its results derive from its sources; selp's from the one it takes. */
    for (int lane = 0; lane < 32; lane++) {
        if (!(exec >> lane & 1))
            continue;
        if (in->op == OP_SELP && n == 4) {
            int32_t p = ptx_taint_of(w, &in->ops[3], lane);
            bool take_a = ptx_operand_value(b, w, &in->ops[3], lane) != 0;
            origin[lane] = p ? p : ptx_taint_of(w, &in->ops[take_a ? 1 : 2], lane);
        } else {
            origin[lane] = sources(w, in, first, n, lane);
        }
    }
    results(w, in, first, exec, mask, origin);
}
