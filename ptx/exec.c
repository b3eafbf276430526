/* The interpreter: blocks of warps of 32 threads in lockstep.
 *
 * Each lane has its own program counter. A warp issues the instruction at the lowest program
 * counter among its running lanes, for every lane standing there (the others wait), so lanes
 * that took different sides of a branch run one side after the other and reconverge where the
 * sides meet. bar.sync parks a lane until every lane of the block that has not exited arrives;
 * bar.warp.sync one until the lanes of its mask arrive (warpsync.c).
 * Instructions are decoded once (parse.c); here each is one switch, then a loop over lanes. */
#include "diag.h"

#include <stdarg.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>


int ptx_stopf(block_ctx *b, const ptx_insn *in, const char *fmt, ...)
{
    char what[256], kernel[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ptx_kernel_name(b->e->name, kernel, sizeof kernel);
    snprintf(b->err->msg, sizeof b->err->msg, "%.200s:%d: %.200s (in %.100s, block (%u,%u,%u))",
             ptx_source_file(b->e->module, in), in->line, what, kernel, b->ctaid.x, b->ctaid.y,
             b->ctaid.z);
    return -1;
}

/* A block's warp instructions per nanosecond of %globaltimer under diagnosis: more than the
 * performance model charges a clock-reading block (one cycle each, 1.98 per ns: its clock
 * term), so that a wait for a time is predicted at least as long as it takes. */
#define PTX_TIMER_ISSUES_PER_NS 4

static uint64_t global_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
    /* The clocks count the warp instructions issued so far: they go up, and the same run gives
     * the same values, which a timing loop in a kernel needs and a test can rely on. */
    case SR_CLOCK: return (uint32_t)b->issued;
    case SR_CLOCK64: return b->issued;
    /* Under diagnosis the timer too follows the block's instructions: a wait for a time then
     * costs the performance model what it costs a GPU, or more (the real time would depend on
     * the interpreter's speed). */
    case SR_GLOBALTIMER:
        return b->diag ? b->timer_base + b->issued / PTX_TIMER_ISSUES_PER_NS : global_ns();
    case SR_LANEMASK_EQ: return UINT32_C(1) << lane;
    case SR_LANEMASK_LE: return (uint32_t)((UINT64_C(2) << lane) - 1);
    case SR_LANEMASK_LT: return (UINT32_C(1) << lane) - 1;
    case SR_LANEMASK_GE: return ~((UINT32_C(1) << lane) - 1);
    case SR_LANEMASK_GT: return (uint32_t)~((UINT64_C(2) << lane) - 1);
    case SR_SMID: case SR_GRIDID: return 0;
    case SR_RESERVED_SMEM_BEGIN: case SR_RESERVED_SMEM_OFFSET_0: case SR_RESERVED_SMEM_OFFSET_1:
        return b->reserved_offset;
    case SR_RESERVED_SMEM_END: return b->reserved_offset + PTX_RESERVED_SHARED_USED;
    case SR_RESERVED_SMEM_CAP: return b->reserved_offset + PTX_RESERVED_SHARED_CAP;
    case SR_NSMID: return 1;
    default: return 32; /* WARP_SZ */
    }
}

static inline uint64_t get(const block_ctx *b, const warp *w, const ptx_operand *o, int lane)
{
    if (o->kind == OPK_REG)
        return o->negate ? !w->regs[(size_t)o->reg * 32 + (size_t)lane]
                         : w->regs[(size_t)o->reg * 32 + (size_t)lane];
    if (o->kind == OPK_SREG)
        return special(b, w, lane, o->sreg);
    return (uint64_t)o->imm;
}

/* Under diagnosis, a read of a clock or of which SM or warp slot runs the kernel is a finding:
 * here those values are not a GPU's, so a kernel that branched on them could pass these checks
 * and do something else on a GPU. A graded matrix product never needs them. */
static void machine_query(const block_ctx *b, const warp *w, const ptx_insn *in, uint32_t exec)
{
    static const char *const names[] = {
        [SR_WARPID] = "%warpid", [SR_NWARPID] = "%nwarpid", [SR_CLOCK] = "%clock",
        [SR_CLOCK64] = "%clock64", [SR_GLOBALTIMER] = "%globaltimer", [SR_SMID] = "%smid",
        [SR_NSMID] = "%nsmid", [SR_GRIDID] = "%gridid",
    };
    const char *name = "a special register";
    for (int i = 0; i < in->nops; i++)
        if (in->ops[i].kind == OPK_SREG && (size_t)in->ops[i].sreg < sizeof names / sizeof *names &&
            names[in->ops[i].sreg])
            name = names[in->ops[i].sreg];
    char detail[160];
    snprintf(detail, sizeof detail, "reads %s, whose value here is not a GPU's: a kernel that "
             "depends on it can behave differently under these checks", name);
    diag_finding(b->diag, DK_MACHINE_QUERY, b, in, NULL, w->base + __builtin_ctz(exec), -1, detail);
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

/* Backward branches a warp takes before the others get a turn. */
#define YIELD_AFTER_LOOPS 256

/* Runs a warp until none of its lanes can go on (all exited or at a barrier) or it has looped
 * YIELD_AFTER_LOOPS times (then spin.c looks whether it spins). The lanes at the lowest program
 * counter run straight-line code together until a branch, a barrier, an exit, or the point
 * where other lanes of the warp wait (which then join them). */
PTX_HOT static int run_warp(block_ctx *b, warp *w)
{
    const ptx_insn *code = b->e->code;
    const int ncode = b->e->ncode;
    int backward = 0;
    for (;;) {
        uint32_t mask;
        int other;
        int pc = pick(w, &mask, &other);
        if (pc < 0) {
            if (ptx_warp_sync_stalled(b, w))
                continue;
            return 0;
        }
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
            b->issued++;
            w->issued++;
            if (b->diag) {
                diag_issue(b->diag, in, exec);
                if (w->tainted)
                    ptx_taint_step(b, w, in, exec, mask, pc);
            }
            b->stats->thread_instructions += (uint64_t)(exec == mask ? lanes : __builtin_popcount(exec));
            int op = in->op;
            if (op == OP_BRA) {
                for (int lane = 0; lane < 32; lane++)
                    if (mask >> lane & 1)
                        w->pc[lane] = (exec >> lane & 1) ? in->target : pc + 1;
                /* Let the other warps run now and then: a warp that spins until another one
                 * sets a flag must see it set. */
                w->trips += exec && in->target <= pc;
                if (exec && in->target <= pc && ++backward == YIELD_AFTER_LOOPS) {
                    ptx_spin_check(b, w);
                    return 0;
                }
                break;
            }
            if (op == OP_BAR) {
                b->writes++;
                set_pcs(w, mask, pc + 1);
                if (exec && ptx_bar_arrive(b, w, in, exec) != 0)
                    return -1;
                break;
            }
            if (op == OP_CALL && in->ops[1].imm != PTX_FUNC_VPRINTF) {
                b->writes++; /* arguments into the callee's local memory */
                if (ptx_exec_call(b, w, in, exec, mask, pc) != 0)
                    return -1;
                break;
            }
            if (op == OP_RET) {
                b->writes++;
                if (ptx_exec_return(b, w, in, exec, mask, pc) != 0)
                    return -1;
                break;
            }
            if (op == OP_EXIT) {
                set_pcs(w, mask, pc + 1);
                for (int lane = 0; lane < 32; lane++)
                    if (exec >> lane & 1)
                        w->state[lane] = LANE_DONE;
                break;
            }
            int rc = 0;
            if (exec && op == OP_TRAP)
                return ptx_stopf(b, in, "trap: the kernel stopped itself (a failed assert, or "
                                 "__trap())");
            if (exec) {
                if (op == OP_LD || op == OP_ST) {
                    b->writes += op == OP_ST;
                    b->global_writes += op == OP_ST && in->space != SP_SHARED &&
                                        in->space != SP_LOCAL;
                    rc = ptx_exec_memory(b, w, in, exec, pc);
                }
                else if (op == OP_ATOM || op == OP_RED)
                    rc = ptx_exec_atomic(b, w, in, exec, pc);
                else if (op == OP_CALL)
                    rc = ptx_vprintf(b, w, in, exec);
                else if (op >= OP_POPC && op <= OP_MAD24)
                    rc = ptx_exec_bits(b, w, in, exec);
                else if (op >= OP_ACTIVEMASK && op <= OP_MATCH)
                    rc = ptx_exec_warp(b, w, in, exec);
                else if (op >= OP_CPASYNC)
                    rc = ptx_exec_async(b, w, in, exec, pc);
                else if (op == OP_WARPSYNC)
                    rc = ptx_warp_sync(b, w, in, exec);
                else
                    rc = ptx_exec_alu(b, w, in, exec);
                if (b->diag && (in->mods & MOD_MACHINE_QUERY))
                    machine_query(b, w, in, exec);
                if (b->diag && (op == OP_FMA || op == OP_MAD || op == OP_ADD || op == OP_SUB ||
                                op == OP_MUL) &&
                    (in->type == TY_F32 || in->type == TY_F64)) {
                    uint64_t lanes_run = (uint64_t)__builtin_popcount(exec);
                    bool fused = op == OP_FMA || op == OP_MAD;
                    diag_flops(b->diag, fused ? 2 * lanes_run : lanes_run, fused ? lanes_run : 0);
                }
            }
            if (rc != 0) {
                if (rc != PTX_YIELD && rc != PTX_WAITS)
                    return -1;
                set_pcs(w, mask, pc + 1);
                /* A wait that failed, or a sleep: the other warps run first. */
                if (rc == PTX_YIELD)
                    return 0;
                break; /* PTX_WAITS: lanes parked at a __syncwarp(); the others run on */
            }
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
    return ptx_stopf(b, in, "%s is not supported by the CPU backend", what);
}

static bool any_lane(const warp *w, int state)
{
    for (int lane = 0; lane < w->nlanes; lane++)
        if (w->state[lane] == state)
            return true;
    return false;
}

void ptx_block_begin(block_ctx *b, warp *warps)
{
    b->epoch = 0;
    b->timer_base = global_ns();
    b->warps = warps;
    memset(b->bars, 0, sizeof b->bars);
    ptx_shadow_reset(b);
    if (b->diag)
        ptx_taint_reset(b, warps);
    ptx_lane_clocks_reset(b);
    ptx_async_reset(b);
    ptx_spin_reset(warps, b->nwarps);
    b->global_writes_seen = b->global_writes;
    b->quiet_epoch = 0;
    b->wavefronts = 0;
    for (int i = 0; i < b->nwarps; i++)
        warps[i].issued = 0;
}

/* Barriers a block may pass without writing global memory before it is parked all the same:
 * far more than a kernel's loop over tiles has, and a wait that syncs every round (where the
 * spin check does not look) lets the other blocks run after it. */
#define QUIET_BARRIERS_BEFORE_PARKING 4096

static bool quiet_for_long(block_ctx *b)
{
    if (b->global_writes != b->global_writes_seen) {
        b->global_writes_seen = b->global_writes;
        b->quiet_epoch = b->epoch;
        return false;
    }
    if (b->epoch - b->quiet_epoch < QUIET_BARRIERS_BEFORE_PARKING)
        return false;
    b->quiet_epoch = b->epoch;
    return true;
}

/* Rounds over the warps until every lane has exited; a warp runs until its lanes wait at a
 * barrier, exit, or have looped for a while. A round in which every warp that ran was found
 * spinning parks the block: only another block can release it. */
int ptx_block_run(block_ctx *b)
{
    warp *warps = b->warps;
    /* The block may come back on another worker, whose count it adds to from here. */
    b->instructions_seen = b->stats->thread_instructions;
    for (;;) {
        bool ran = false, spinning = true;
        for (int i = 0; i < b->nwarps; i++) {
            if (!any_lane(&warps[i], LANE_RUN))
                continue;
            ran = true;
            warps[i].spinning = false;
            if (run_warp(b, &warps[i]) != 0)
                return -1;
            spinning &= warps[i].spinning;
            if ((b->max_thread_instructions || b->deadline_ns) && ptx_over_limit(b))
                return ptx_limit_report(b);
            if (ptx_over_busy_limit(b, &warps[i]))
                return -1;
        }
        if (ran && spinning)
            return PTX_BLOCK_PARKED;
        if (ran && quiet_for_long(b)) {
            /* Not found spinning: never taken for a block that cannot go on. */
            for (int i = 0; i < b->nwarps; i++)
                warps[i].spinning = false;
            return PTX_BLOCK_PARKED;
        }
        if (ran)
            continue;
        bool waiting = false;
        for (int i = 0; i < b->nwarps; i++)
            waiting |= any_lane(&warps[i], LANE_BAR);
        if (!waiting)
            return 0;
        if (ptx_bar_stalled(b) != 0)
            return -1;
    }
}
