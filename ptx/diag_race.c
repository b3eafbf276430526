/* The message of a shared-memory race: which __syncthreads() is missing, by its lines. */
#include "diag.h"

#include <stdio.h>

/* The last __syncthreads() (bar.sync, barrier.sync, bar.red) strictly between two instructions of
 * the code, or -1. */
static int barrier_between(const ptx_insn *code, int from, int to)
{
    for (int pc = to - 1; pc > from; pc--)
        if (code[pc].op == OP_BAR && code[pc].sub != BAR_ARRIVE)
            return pc;
    return -1;
}

/* A race between two warps' accesses to one shared word, with which __syncthreads() is missing,
 * told from where the two accesses lie in the code. With no barrier between them in program
 * order, the missing one goes between them. With one between them, they happened in different
 * trips round a loop (a warp already in the next phase overwrote, or read, a tile another warp
 * was still using), and what is missing is a barrier after the later line, before the loop
 * comes back to the earlier one. The text is made once per pair of lines: a race repeats. */
void diag_shared_race(block_ctx *b, int pc1, int pc2, int tid1, int tid2, const char *what)
{
    const ptx_insn *code = b->e->code;
    if (diag_count_known(b->diag, DK_RACE, b, &code[pc1], &code[pc2]))
        return;
    int x = pc1 < pc2 ? pc1 : pc2, y = pc1 < pc2 ? pc2 : pc1;
    int lx = code[x].line, ly = code[y].line, bar = barrier_between(code, x, y);
    char detail[DIAG_DETAIL_MAX];
    if (lx <= 0 || ly <= 0)
        snprintf(detail, sizeof detail, "%s with no __syncthreads() between the two", what);
    else if (bar < 0 && lx < ly)
        snprintf(detail, sizeof detail, "%s with no __syncthreads() between them: a barrier is "
                 "missing between line %d and line %d", what, lx, ly);
    else if (bar < 0 || code[bar].line <= 0)
        snprintf(detail, sizeof detail, "%s: after line %d the loop comes back to line %d with "
                 "no __syncthreads() between: a barrier after line %d (before the next phase's "
                 "line %d) is missing", what, lx > ly ? lx : ly, lx < ly ? lx : ly,
                 lx > ly ? lx : ly, lx < ly ? lx : ly);
    else
        snprintf(detail, sizeof detail, "%s: the __syncthreads() at line %d separates them within "
                 "a phase, but after line %d the loop comes back to line %d with none between: a "
                 "barrier after line %d (before the next phase's line %d) is missing", what,
                 code[bar].line, ly, lx, ly, lx);
    diag_finding(b->diag, DK_RACE, b, &code[pc1], &code[pc2], tid1, tid2, detail);
}
