/* Linking device functions into the entries that call them. Each entry gets its own copy of
 * every .func it reaches (directly or through other functions, recursion included), placed
 * after its own code: the copy's registers, local memory and branch targets are moved past the
 * entry's, so a call is a jump plus copies of the arguments (call.c runs it). */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOCAL_ALIGN 16                /* a function's local memory starts on this boundary */
#define LINK_MAX_REGISTERS (1 << 20)  /* register slots of an entry and all it calls */
#define LINK_MAX_LOCAL_BYTES (1 << 20) /* local memory per thread, likewise */

/* A unit (the entry, or a function) and where it sits in the linked entry. */
typedef struct placed {
    const ptx_entry *unit;
    int32_t code_base, reg_base;
    uint32_t local_base;
    int call_base;
} placed;

/* The defined function of that name, else its declaration, else NULL. */
static const ptx_entry *find_func(const ptx_module *m, const char *name)
{
    const ptx_entry *decl = NULL;
    for (int i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i].name, name) == 0) {
            if (m->funcs[i].defined)
                return &m->funcs[i];
            decl = &m->funcs[i];
        }
    return decl;
}

static int placed_index(const placed *pl, int n, const ptx_entry *unit)
{
    for (int i = 0; i < n; i++)
        if (pl[i].unit == unit)
            return i;
    return -1;
}

/* Refuses the entry's launches, naming the .cu line of call site `site` of `unit`. */
static void refuse(const ptx_module *m, ptx_entry *e, const ptx_entry *unit, int site,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void refuse(const ptx_module *m, ptx_entry *e, const ptx_entry *unit, int site,
                   const char *fmt, ...)
{
    if (e->unsupported[0])
        return;
    const ptx_insn *at = NULL;
    for (int i = 0; i < unit->ncode && !at; i++)
        if (unit->code[i].op == OP_CALL && unit->code[i].ops[1].imm != PTX_FUNC_VPRINTF &&
            unit->code[i].target == site)
            at = &unit->code[i];
    char why[400], kernel[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    ptx_kernel_name(e->name, kernel, sizeof kernel);
    snprintf(e->unsupported, sizeof e->unsupported, "%.200s:%d: %.300s (kernel %.100s)",
             ptx_source_file(m, at), at ? at->line : 0, why, kernel);
}

/* Copies a unit's code to its place, moving registers, local offsets, branches and calls. */
static void relocate(ptx_insn *dst, const placed *p)
{
    const ptx_entry *u = p->unit;
    for (int i = 0; i < u->ncode; i++) {
        ptx_insn in = u->code[i];
        if (in.guard >= 0)
            in.guard = (int16_t)(in.guard + p->reg_base);
        for (int k = 0; k < in.nops; k++) {
            ptx_operand *o = &in.ops[k];
            if (o->kind == OPK_REG || (o->kind == OPK_ADDR && o->reg >= 0))
                o->reg += p->reg_base;
            if (o->local_sym)
                o->imm += p->local_base;
        }
        if (in.op == OP_BRA)
            in.target += p->code_base;
        else if (in.op == OP_CALL && in.ops[1].imm != PTX_FUNC_VPRINTF)
            in.target += p->call_base;
        dst[i] = in;
    }
}

/* Fills in a call site of a placed unit: where the callee is, and the copies in and out. */
static void resolve(const ptx_module *m, ptx_entry *e, const placed *pl, int npl, int u, int site,
                    ptx_callsite *cs)
{
    uint32_t caller_local = pl[u].local_base;
    for (int i = 0; i < cs->nargs; i++)
        cs->args[i].from += caller_local;
    cs->ret.to += caller_local;
    const ptx_entry *f = find_func(m, cs->callee);
    if (cs->builtin) {
        /* __assertfail: its declaration gives the sizes of the arguments. */
        for (int i = 0; i < cs->nargs; i++)
            cs->args[i].size = f && i < f->nparams ? f->params[i].size : 8;
        return;
    }
    int q = f ? placed_index(pl, npl, f) : -1;
    if (q < 0)
        return; /* refused when the functions were gathered */
    if (cs->nargs != f->nparams) {
        refuse(m, e, pl[u].unit, site, "a call of %s with %d arguments; it takes %d", f->name,
               cs->nargs, f->nparams);
        return;
    }
    for (int i = 0; i < cs->nargs; i++) {
        cs->args[i].to = pl[q].local_base + f->params[i].offset;
        cs->args[i].size = f->params[i].size;
    }
    cs->has_ret = cs->has_ret && f->has_ret;
    cs->ret.from = pl[q].local_base + f->ret_offset;
    cs->ret.size = f->ret_size;
    cs->target = pl[q].code_base;
    cs->reg_base = pl[q].reg_base;
    cs->nregs = f->nregs;
    cs->local_base = pl[q].local_base;
    cs->local_bytes = f->local_bytes;
}

static int link_entry(const ptx_module *m, ptx_entry *e, ptx_error *err)
{
    int cap = 8, npl = 1;
    placed *pl = malloc((size_t)cap * sizeof *pl);
    if (!pl)
        goto out_of_memory;
    pl[0] = (placed){e, 0, 0, 0, 0};
    /* The entry's code, then an exit (so that falling off the end of its body cannot run into
     * a function), then the functions. */
    int64_t code = e->ncode + 1, regs = e->nregs, local = e->local_bytes, calls = e->ncalls;
    /* Breadth first through the call graph: every function reached, once. */
    for (int u = 0; u < npl; u++) {
        const ptx_entry *unit = pl[u].unit;
        for (int c = 0; c < unit->ncalls; c++) {
            const ptx_callsite *cs = &unit->calls[c];
            if (cs->builtin)
                continue;
            const ptx_entry *f = find_func(m, cs->callee);
            if (!f || !f->defined) {
                refuse(m, e, unit, c, "a call of the device function %.100s, which this file "
                       "does not define (a function from another file, -rdc, is not supported "
                       "by the CPU backend)", cs->callee);
                continue;
            }
            if (f->unsupported[0] && !e->unsupported[0])
                snprintf(e->unsupported, sizeof e->unsupported, "%s", f->unsupported);
            if (placed_index(pl, npl, f) >= 0)
                continue;
            if (npl == cap) {
                placed *np = realloc(pl, (size_t)(cap *= 2) * sizeof *np);
                if (!np)
                    goto out_of_memory;
                pl = np;
            }
            uint32_t base = (uint32_t)((local + LOCAL_ALIGN - 1) / LOCAL_ALIGN * LOCAL_ALIGN);
            pl[npl++] = (placed){f, (int32_t)code, (int32_t)regs, base, (int)calls};
            code += f->ncode;
            regs += f->nregs;
            local = (int64_t)base + f->local_bytes;
            calls += f->ncalls;
        }
    }
    if (regs > LINK_MAX_REGISTERS || local > LINK_MAX_LOCAL_BYTES)
        refuse(m, e, e, 0, "device functions needing %lld registers and %lld bytes of local "
               "memory per thread", (long long)regs, (long long)local);
    if (e->unsupported[0]) {
        free(pl);
        return 0; /* its launches are refused: nothing more to build */
    }
    ptx_insn *ncode = malloc((size_t)code * sizeof *ncode);
    ptx_callsite *ncalls = malloc((size_t)(calls ? calls : 1) * sizeof *ncalls);
    if (!ncode || !ncalls) {
        free(ncode);
        free(ncalls);
        goto out_of_memory;
    }
    ncode[e->ncode] = (ptx_insn){.op = OP_EXIT, .guard = -1,
                                 .line = e->ncode ? e->code[e->ncode - 1].line : 0};
    for (int u = 0; u < npl; u++) {
        relocate(ncode + pl[u].code_base, &pl[u]);
        if (pl[u].unit->ncalls)
            memcpy(ncalls + pl[u].call_base, pl[u].unit->calls,
                   (size_t)pl[u].unit->ncalls * sizeof *ncalls);
    }
    for (int u = 0; u < npl; u++)
        for (int c = 0; c < pl[u].unit->ncalls; c++)
            resolve(m, e, pl, npl, u, c, &ncalls[pl[u].call_base + c]);
    free(e->code);
    free(e->calls);
    e->code = ncode;
    e->ncode = (int)code;
    e->calls = ncalls;
    e->ncalls = (int)calls;
    e->nregs = (int)regs;
    e->local_bytes = (uint32_t)local;
    free(pl);
    return 0;
out_of_memory:
    free(pl);
    snprintf(err->msg, sizeof err->msg, "%s: out of memory linking %s", m->name, e->name);
    return -1;
}

int ptx_link_module(ptx_module *m, ptx_error *err)
{
    for (int i = 0; i < m->nentries; i++)
        if (m->entries[i].ncalls && link_entry(m, &m->entries[i], err) != 0)
            return -1;
    return 0;
}
