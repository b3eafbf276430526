/* Which scalar shared loads the GPU's final compiler would merge. ptxas turns loads of
 * neighbouring words through one base register (Nds[tx][i], Nds[tx][i+1], ... once a loop is
 * unrolled) into one 64- or 128-bit load when their alignment allows, and the GPU's counters
 * (ncu's wavefronts and bank conflicts) count that load, not the PTX's. The diagnosis counts
 * the same way: this file finds the groups in the code; diag.c checks each one's alignment on
 * the addresses of the run and counts a group as the one wide load it becomes. */
#include "diag.h"

#include <stdlib.h>

enum { WORD = 4, MAX_OFFSETS = 64 };

static bool scalar_shared_load(const ptx_insn *in)
{
    return in->op == OP_LD && in->space == SP_SHARED && in->vec == 1 && in->nops == 2 &&
           in->ops[1].kind == OPK_ADDR &&
           (in->type == TY_F32 || in->type == TY_B32 || in->type == TY_U32 ||
            in->type == TY_S32);
}

/* Where a run of loads that could merge must end: control flow, a barrier, a store or an
 * atomic that could change shared memory, a call. */
static bool ends_region(const ptx_insn *in, const bool *target, int pc)
{
    return target[pc] || in->op == OP_BRA || in->op == OP_BAR || in->op == OP_RET ||
           in->op == OP_EXIT || in->op == OP_CALL || in->op == OP_ATOM || in->op == OP_RED ||
           (in->op == OP_ST && in->space != SP_LOCAL && in->space != SP_PARAM);
}

/* Marks the group of `width` bytes at offsets first .. first+width-4 of the loads `at` (pc per
 * word offset from `base`, -1 where none) when all are there. */
static void mark(diag_group *g, const int *at, int64_t base, int64_t first, int width)
{
    int leader = -1;
    for (int w = 0; w < width / WORD; w++) {
        int pc = at[(first - base) / WORD + w];
        if (pc < 0 || g[pc].width)
            return;
        if (leader < 0 || pc < leader)
            leader = pc;
    }
    for (int w = 0; w < width / WORD; w++) {
        int pc = at[(first - base) / WORD + w];
        g[pc] = (diag_group){leader, (int32_t)first, (uint8_t)width};
    }
}

/* The loads of one region through base register `reg` (loaded before it changes) from `start`:
 * gathered by offset, then grouped 16 bytes at a time, then 8. */
static void group_from(const ptx_entry *e, const bool *target, int start, diag_group *g)
{
    const ptx_insn *first = &e->code[start];
    int32_t reg = first->ops[1].reg;
    int64_t base = first->ops[1].imm - (MAX_OFFSETS / 2) * WORD;
    int at[MAX_OFFSETS];
    for (int i = 0; i < MAX_OFFSETS; i++)
        at[i] = -1;
    for (int pc = start; pc < e->ncode; pc++) {
        const ptx_insn *in = &e->code[pc];
        if (pc > start && ends_region(in, target, pc))
            break;
        if (scalar_shared_load(in) && in->ops[1].reg == reg) {
            int64_t slot = (in->ops[1].imm - base) / WORD;
            if ((in->ops[1].imm - base) % WORD == 0 && slot >= 0 && slot < MAX_OFFSETS &&
                at[slot] < 0)
                at[slot] = pc;
        }
        /* A new value of the base register starts other addresses. */
        if (reg >= 0 && in->op != OP_ST && in->nops > 0 && in->ops[0].kind == OPK_REG &&
            in->ops[0].reg == reg)
            break;
    }
    for (int width = 16; width >= 8; width /= 2)
        for (int64_t off = base; off + width <= base + MAX_OFFSETS * WORD; off += WORD)
            if ((off % width + width) % width == 0)
                mark(g, at, base, off, width);
}

diag_group *diag_find_groups(const ptx_entry *e)
{
    diag_group *g = calloc((size_t)e->ncode + 1, sizeof *g);
    bool *target = calloc((size_t)e->ncode + 1, sizeof *target);
    if (!g || !target) {
        free(g);
        free(target);
        return NULL;
    }
    for (int pc = 0; pc < e->ncode; pc++)
        if (e->code[pc].op == OP_BRA && e->code[pc].target >= 0 && e->code[pc].target < e->ncode)
            target[e->code[pc].target] = true;
    for (int pc = 0; pc < e->ncode; pc++)
        if (scalar_shared_load(&e->code[pc]) && !g[pc].width)
            group_from(e, target, pc, g);
    free(target);
    return g;
}
