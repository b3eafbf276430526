/* Barriers as a GPU of compute capability 7.0 or later runs them: bar.sync, bar.arrive and
 * bar.red on barriers 0..15, arrivals counted per thread, a barrier complete once its count of
 * threads has arrived at it, wherever each one arrived (warps may wait at different
 * __syncthreads() calls). When every thread left waits and no barrier can complete, nothing can
 * ever run again: a GPU hangs there, and this reports who waits where. */
#include "diag.h"

#include <string.h>

#define WARP_LANES 32

static uint64_t value_of(const block_ctx *b, const warp *w, const ptx_operand *o, int lane)
{
    return ptx_operand_value(b, w, o, lane);
}

/* Under diagnosis, a barrier that completes with threads waiting at different places: legal
 * on the GPUs this kit targets, undefined by the CUDA programming guide, and the slides' bug
 * (a __syncthreads() inside a branch), so it is reported and the block goes on as a GPU does. */
static void note_mixed_arrivals(block_ctx *b, int id)
{
    const ptx_insn *code = b->e->code;
    int first_pc = -1, other_pc = -1, tid_first = -1, tid_other = -1, n_first = 0;
    for (int i = 0; i < b->nwarps; i++) {
        const warp *w = &b->warps[i];
        for (int lane = 0; lane < w->nlanes; lane++) {
            if (w->state[lane] != LANE_BAR || w->bar_id[lane] != id)
                continue;
            int pc = w->pc[lane] - 1;
            if (first_pc < 0 || pc == first_pc) {
                first_pc = pc;
                tid_first = tid_first < 0 ? w->base + lane : tid_first;
                n_first++;
            } else if (other_pc < 0) {
                other_pc = pc;
                tid_other = w->base + lane;
            }
        }
    }
    if (other_pc < 0)
        return;
    char detail[256];
    snprintf(detail, sizeof detail, "threads of one block wait at different __syncthreads(): "
             "line %d (%d threads) and line %d; a barrier inside a branch that not every "
             "thread takes", code[first_pc].line, n_first, code[other_pc].line);
    diag_finding(b->diag, DK_BARRIER_DIVERGENCE, b, &code[first_pc], &code[other_pc], tid_first,
                 tid_other, detail);
}

/* The barrier's count is reached: its waiting threads run again, bar.red's with the result. */
static void complete(block_ctx *b, int id)
{
    struct ptx_barrier *bar = &b->bars[id];
    if (b->diag)
        note_mixed_arrivals(b, id);
    for (int i = 0; i < b->nwarps; i++) {
        warp *w = &b->warps[i];
        for (int lane = 0; lane < w->nlanes; lane++) {
            if (w->state[lane] != LANE_BAR || w->bar_id[lane] != id)
                continue;
            const ptx_insn *in = &b->e->code[w->pc[lane] - 1];
            if (in->sub >= BAR_RED_POPC && in->ops[0].kind == OPK_REG) {
                uint64_t r = in->sub == BAR_RED_POPC ? bar->popc
                             : in->sub == BAR_RED_AND ? bar->all
                                                      : bar->any;
                w->regs[(size_t)in->ops[0].reg * WARP_LANES + (size_t)lane] = r;
            }
            w->state[lane] = LANE_RUN;
        }
    }
    memset(bar, 0, sizeof *bar);
    b->epoch++;
}

int ptx_bar_arrive(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec)
{
    int first = __builtin_ctz(exec);
    bool red = in->sub >= BAR_RED_POPC;
    const ptx_operand *id_op = &in->ops[red ? 1 : 0];
    bool has_count = in->nops > (red ? 3 : 1);
    uint64_t id = value_of(b, w, id_op, first);
    uint64_t count = has_count ? value_of(b, w, &in->ops[red ? 2 : 1], first)
                               : (uint64_t)b->nthreads;
    if (id >= PTX_BARRIERS)
        return ptx_stopf(b, in, "barrier %llu does not exist (a block has barriers 0 to %d)",
                         (unsigned long long)id, PTX_BARRIERS - 1);
    if (has_count &&
        (count == 0 || count % WARP_LANES != 0 || count > (uint64_t)b->nwarps * WARP_LANES))
        return ptx_stopf(b, in, "a barrier for %llu threads: the count must be a multiple of "
                         "%d, at most the block's %d threads rounded up to whole warps",
                         (unsigned long long)count, WARP_LANES, b->nthreads);
    struct ptx_barrier *bar = &b->bars[id];
    if (bar->arrived == 0) {
        bar->expected = (int)count;
        bar->all = true;
    } else if (bar->expected != (int)count) {
        return ptx_stopf(b, in, "barrier %llu is awaited for %d threads here and for %llu "
                         "threads elsewhere", (unsigned long long)id, bar->expected,
                         (unsigned long long)count);
    }
    int n = __builtin_popcount(exec);
    if (red) {
        const ptx_operand *c = &in->ops[in->nops - 1];
        for (int lane = 0; lane < WARP_LANES; lane++) {
            if (!(exec >> lane & 1))
                continue;
            bool p = value_of(b, w, c, lane) != 0;
            bar->popc += p;
            bar->all &= p;
            bar->any |= p;
        }
    }
    if (in->sub != BAR_ARRIVE)
        for (int lane = 0; lane < WARP_LANES; lane++)
            if (exec >> lane & 1) {
                w->state[lane] = LANE_BAR;
                w->bar_id[lane] = (int8_t)id;
            }
    bar->arrived += n;
    if (bar->arrived >= bar->expected)
        complete(b, (int)id);
    return 0;
}

/* Nobody runs and somebody waits. Threads that exited while the others wait at a
 * __syncthreads() are the common case and get the teaching message; anything else lists the
 * warps and where they wait. Under diagnosis, the waiters are released to find more. */
int ptx_bar_stalled(block_ctx *b)
{
    const ptx_insn *code = b->e->code;
    int waiting = 0, exited = 0, wait_pc = -1, exit_pc = -1, wait_tid = -1, exit_tid = -1;
    int wait_id = -1;
    bool one_place = true;
    for (int i = 0; i < b->nwarps; i++) {
        const warp *w = &b->warps[i];
        for (int lane = 0; lane < w->nlanes; lane++) {
            int pc = w->pc[lane] - 1;
            if (w->state[lane] == LANE_BAR) {
                if (wait_pc < 0) {
                    wait_pc = pc;
                    wait_tid = w->base + lane;
                    wait_id = w->bar_id[lane];
                }
                one_place &= w->bar_id[lane] == wait_id;
                waiting++;
            } else if (exit_pc < 0) {
                exit_pc = pc;
                exit_tid = w->base + lane;
                exited++;
            } else {
                exited++;
            }
        }
    }
    if (!waiting)
        return 0;
    char detail[400];
    if (exited && one_place && b->bars[wait_id].expected == b->nthreads) {
        snprintf(detail, sizeof detail, "__syncthreads() at line %d reached by %d of %d threads; "
                 "the other %d exited (at line %d) without reaching it", code[wait_pc].line,
                 waiting, waiting + exited, exited, exit_pc >= 0 ? code[exit_pc].line : 0);
    } else {
        int n = snprintf(detail, sizeof detail, "no thread can make progress:");
        for (int i = 0; i < b->nwarps && n < (int)sizeof detail - 80; i++) {
            const warp *w = &b->warps[i];
            for (int lane = 0; lane < w->nlanes; lane++) {
                if (w->state[lane] != LANE_BAR)
                    continue;
                int id = w->bar_id[lane];
                n += snprintf(detail + n, sizeof detail - (size_t)n, " warp %d waits at line %d "
                              "(barrier %d: %d of %d threads arrived);", i,
                              code[w->pc[lane] - 1].line, id, b->bars[id].arrived,
                              b->bars[id].expected);
                break;
            }
        }
        if (exited && n < (int)sizeof detail - 40)
            snprintf(detail + n, sizeof detail - (size_t)n, " %d threads exited", exited);
    }
    if (b->diag) {
        diag_finding(b->diag, DK_BARRIER_DIVERGENCE, b, &code[wait_pc],
                     exit_pc >= 0 ? &code[exit_pc] : NULL, wait_tid, exit_tid, detail);
        for (int id = 0; id < PTX_BARRIERS; id++)
            if (b->bars[id].arrived)
                complete(b, id);
        return 0;
    }
    return ptx_stopf(b, &code[wait_pc], "barrier divergence: %s", detail);
}
