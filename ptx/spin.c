/* Spin detection: when does a warp wait for something only another block can do?
 *
 * A warp yields after many backward branches (exec.c). At such a yield its whole state (every
 * lane's program counter, run state, carry flag and registers) is compared with the state kept
 * from an earlier yield. When the two are equal and the block wrote nothing in
 * between (no store in any space, no atomic that changed memory, no barrier arrival, no call),
 * what the warp does next depends on nothing but memory it reads: unless someone else changes
 * that memory, it goes round the same loop forever. That is a spin-wait, exactly; a loop that
 * counts, reads %clock, or writes anything is never taken for one.
 *
 * The kept state is compared at later yields and taken again after 1, 2, 4, ... of them (Brent's
 * cycle finding), so a loop whose period (in backward branches) does not divide the yield
 * interval is still caught once a multiple of the interval is one of the period, and a warp
 * whose state changed (another block wrote what it waits for, and it waits again) is caught
 * again two yields later. */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

#define WARP_LANES 32
/* The most yields a kept state is compared at before it is replaced: loops whose period's odd
 * part is up to this are found. */
#define SPIN_KEEP_YIELDS 64

struct spin_probe {
    bool valid;
    int age;         /* yields compared since it was taken */
    int keep;        /* yields to compare it at: 1, 2, 4, ... SPIN_KEEP_YIELDS */
    uint64_t writes; /* the block's writes then */
    uint64_t stamp;  /* the launch's change count then */
    int32_t pc[WARP_LANES];
    uint8_t state[WARP_LANES], carry[WARP_LANES];
    int8_t bar_id[WARP_LANES];
    uint64_t regs[]; /* nregs x 32 */
};

static size_t reg_bytes(const block_ctx *b)
{
    return (size_t)b->e->nregs * WARP_LANES * sizeof(uint64_t);
}

static bool same_state(const struct spin_probe *p, const warp *w, size_t bytes)
{
    return memcmp(p->pc, w->pc, sizeof p->pc) == 0 &&
           memcmp(p->state, w->state, sizeof p->state) == 0 &&
           memcmp(p->carry, w->carry, sizeof p->carry) == 0 &&
           memcmp(p->bar_id, w->bar_id, sizeof p->bar_id) == 0 &&
           memcmp(p->regs, w->regs, bytes) == 0;
}

static void keep_state(struct spin_probe *p, const block_ctx *b, const warp *w, uint64_t stamp,
                       size_t bytes)
{
    memcpy(p->pc, w->pc, sizeof p->pc);
    memcpy(p->state, w->state, sizeof p->state);
    memcpy(p->carry, w->carry, sizeof p->carry);
    memcpy(p->bar_id, w->bar_id, sizeof p->bar_id);
    memcpy(p->regs, w->regs, bytes);
    p->valid = true;
    p->age = 0;
    p->keep = 1;
    p->writes = b->writes;
    p->stamp = stamp;
}

void ptx_spin_check(block_ctx *b, warp *w)
{
    size_t bytes = reg_bytes(b);
    struct spin_probe *p = w->probe;
    w->spinning = false;
    w->spin_stamp = PTX_NO_STAMP;
    if (!p) {
        /* Without memory for it, the warp is simply never found spinning. */
        if (!(p = w->probe = malloc(sizeof *p + bytes)))
            return;
        p->valid = false;
    }
    uint64_t stamp = b->changes ? atomic_load(b->changes) : 0;
    /* Kept before the block last wrote: the warp may have read what was written. */
    bool comparable = p->valid && p->writes == b->writes;
    if (comparable && same_state(p, w, bytes)) {
        w->spinning = true;
        /* Quiet: no block's run that wrote anything ended while this warp went round. */
        w->spin_stamp = p->stamp == stamp ? stamp : PTX_NO_STAMP;
        p->stamp = stamp; /* the same state, seen now */
        p->age = 0;
        p->keep = 1;
        return;
    }
    if (comparable && ++p->age < p->keep)
        return;
    int keep = comparable && p->keep < SPIN_KEEP_YIELDS ? 2 * p->keep : comparable ? p->keep : 1;
    keep_state(p, b, w, stamp, bytes);
    p->keep = keep;
}

uint64_t ptx_spin_stamp(const block_ctx *b)
{
    uint64_t stamp = PTX_NO_STAMP;
    bool first = true;
    for (int i = 0; i < b->nwarps; i++) {
        const warp *w = &b->warps[i];
        if (!w->spinning)
            continue;
        if (w->spin_stamp == PTX_NO_STAMP || (!first && w->spin_stamp != stamp))
            return PTX_NO_STAMP;
        stamp = w->spin_stamp;
        first = false;
    }
    return stamp;
}

void ptx_spin_reset(warp *warps, int nwarps)
{
    for (int i = 0; i < nwarps; i++) {
        if (warps[i].probe)
            warps[i].probe->valid = false;
        warps[i].spinning = false;
        warps[i].spin_stamp = PTX_NO_STAMP;
    }
}

void ptx_spin_free(warp *warps, int nwarps)
{
    for (int i = 0; i < nwarps; i++) {
        free(warps[i].probe);
        warps[i].probe = NULL;
    }
}

const ptx_insn *ptx_spin_where(const block_ctx *b, const warp *w)
{
    int pc = -1;
    for (int lane = 0; lane < w->nlanes; lane++)
        if (w->state[lane] == LANE_RUN && (pc < 0 || w->pc[lane] < pc))
            pc = w->pc[lane];
    if (pc < 0 || pc >= b->e->ncode)
        return NULL;
    return &b->e->code[pc];
}
