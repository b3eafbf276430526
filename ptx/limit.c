/* The instruction limit and the deadline of a launch (ptx_env.max_thread_instructions,
 * deadline_ns): a kernel that runs far more instructions than its work needs, or still runs at
 * the caller's time limit, is stopped, with where each warp was and how often it had gone round
 * a loop, so that an endless loop (warps at one line, trips in the millions) reads differently
 * from warps that wait at a barrier, and from a slow kernel whose loops make ordinary progress.
 * And its busy limits (ptx_env.max_warp_issue, ...): a block past them is no fault, only as slow
 * as the caller needs to know. */
#include "exec.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Thread instructions a block runs before it adds them to the launch's count: the shared count
 * is touched now and then, not at every instruction. */
#define LIMIT_BATCH 65536
/* Groups of warps the report names; it counts the rest. */
#define LIMIT_REPORT_GROUPS 4

static uint64_t monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

bool ptx_over_limit(block_ctx *b)
{
    uint64_t now = b->stats->thread_instructions;
    b->instructions_pending += now - b->instructions_seen;
    b->instructions_seen = now;
    if (b->instructions_pending < LIMIT_BATCH)
        return false;
    uint64_t total = atomic_fetch_add(b->launch_instructions, b->instructions_pending) +
                     b->instructions_pending;
    b->instructions_pending = 0;
    if (b->max_thread_instructions && total > b->max_thread_instructions)
        return true;
    b->past_deadline = b->deadline_ns && monotonic_ns() >= b->deadline_ns;
    return b->past_deadline;
}

/* Where a warp is: the line of its first running lane's next instruction (waiting = false), or
 * of the barrier its lanes wait at (waiting = true); 0 when every lane has exited. */
static int warp_line(const block_ctx *b, const warp *w, bool *waiting)
{
    int run_pc = -1, bar_pc = -1;
    for (int lane = 0; lane < w->nlanes; lane++) {
        if (w->state[lane] == LANE_RUN && (run_pc < 0 || w->pc[lane] < run_pc))
            run_pc = w->pc[lane];
        /* A lane at a barrier has moved past it. */
        if (w->state[lane] == LANE_BAR && bar_pc < 0)
            bar_pc = w->pc[lane] - 1;
    }
    *waiting = run_pc < 0 && bar_pc >= 0;
    int pc = run_pc >= 0 ? run_pc : bar_pc;
    if (pc < 0)
        return 0;
    if (pc >= b->e->ncode)
        pc = b->e->ncode - 1;
    return b->e->code[pc].line;
}

static const char *ordinal_suffix(uint64_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

static const char *file_name(const block_ctx *b)
{
    const ptx_module *m = b->e->module;
    for (int pc = 0; pc < b->e->ncode; pc++) {
        int f = b->e->code[pc].file;
        if (f > 0 && f < m->nfiles && m->files[f])
            return ptx_base_name(m->files[f]);
    }
    return m->name;
}

/* What stopped the launch, and what that suggests. At the limit, which is far past what the
 * work needs: loop trips beyond the ordinary ones suggest a loop that never ends; a block that
 * made no loop trip at all is never blamed on a loop (the launch's blocks, each doing a little,
 * add up: a grid far larger than the data); between the two, both are named. At the deadline,
 * trips beyond the ordinary ones suggest an endless loop, and within them a slow kernel. */
static int report_head(block_ctx *b, const char *kernel, char *msg, size_t size)
{
    const char *file = file_name(b);
    uint64_t most = 0;
    for (int i = 0; i < b->nwarps; i++)
        most = b->warps[i].trips > most ? b->warps[i].trips : most;
    double limit = (double)b->max_thread_instructions / 1e6;
    unsigned long long blocks = (unsigned long long)b->grid.x * b->grid.y * b->grid.z;
    if (!b->past_deadline && most == 0) {
        unsigned long long started = b->serial - (b->env ? b->env->block_serial : 0);
        return snprintf(msg, size, "%.200s: stopped at its limit of %.1f million instructions, "
                        "far more than the work needs, though no loop of the block that crossed "
                        "it had gone round: the launch's %llu blocks of %d threads together ran "
                        "past it (more blocks than the data needs?). In block (%u,%u,%u) of "
                        "%.100s, the %llu%s to start:", file, limit, blocks, b->nthreads,
                        b->ctaid.x, b->ctaid.y, b->ctaid.z, kernel, started,
                        ordinal_suffix(started));
    }
    if (!b->past_deadline && b->ordinary_trips && most <= b->ordinary_trips)
        return snprintf(msg, size, "%.200s: stopped at its limit of %.1f million instructions, "
                        "far more than the work needs: an endless loop, or more blocks than the "
                        "data needs (the launch has %llu blocks of %d threads)? In block (%u,%u,%u) of "
                        "%.100s:", file, limit, blocks, b->nthreads, b->ctaid.x, b->ctaid.y,
                        b->ctaid.z, kernel);
    if (!b->past_deadline)
        return snprintf(msg, size, "%.200s: stopped at its limit of %.1f million instructions, "
                        "far more than the work needs: an endless loop? In block (%u,%u,%u) of "
                        "%.100s:", file, limit, b->ctaid.x, b->ctaid.y, b->ctaid.z, kernel);
    double done = (double)atomic_load(b->launch_instructions) / 1e6;
    if (b->ordinary_trips && most > b->ordinary_trips)
        return snprintf(msg, size, "%.200s: stopped at the time limit, %.1f million "
                        "instructions into the launch, its warps far more often round a loop "
                        "than the work needs (over %llu trips): an endless loop? In block "
                        "(%u,%u,%u) of %.100s:", file, done,
                        (unsigned long long)b->ordinary_trips, b->ctaid.x, b->ctaid.y,
                        b->ctaid.z, kernel);
    if (b->ordinary_trips)
        return snprintf(msg, size, "%.200s: stopped at the time limit, %.1f million "
                        "instructions into the launch, before it finished; its loops had made "
                        "at most %llu trips, as many as the work can need (up to %llu): too "
                        "slow to finish in that time on the CPU backend, or a loop that ends "
                        "later than it should. In block (%u,%u,%u) of %.100s:", file, done,
                        (unsigned long long)most, (unsigned long long)b->ordinary_trips,
                        b->ctaid.x, b->ctaid.y, b->ctaid.z, kernel);
    return snprintf(msg, size, "%.200s: stopped at the time limit, %.1f million instructions "
                    "into the launch, before it finished. In block (%u,%u,%u) of %.100s:", file,
                    done, b->ctaid.x, b->ctaid.y, b->ctaid.z, kernel);
}

int ptx_limit_report(block_ctx *b)
{
    char *msg = b->err->msg;
    size_t size = sizeof b->err->msg;
    b->err->kind = PTX_ERROR_LIMIT;
    char kernel[128];
    ptx_kernel_name(b->e->name, kernel, sizeof kernel);
    int n = report_head(b, kernel, msg, size);
    if (n < 0 || (size_t)n >= size)
        return -1;
    int groups = 0, left = 0;
    for (int i = 0; i < b->nwarps;) {
        bool waiting;
        int line = warp_line(b, &b->warps[i], &waiting);
        uint64_t lo = b->warps[i].trips, hi = lo;
        int j = i + 1;
        for (; j < b->nwarps; j++) {
            bool w2;
            if (warp_line(b, &b->warps[j], &w2) != line || w2 != waiting)
                break;
            uint64_t t = b->warps[j].trips;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
        if (groups == LIMIT_REPORT_GROUPS) {
            left += j - i;
            i = j;
            continue;
        }
        char who[32], trips[64];
        if (j - i == 1)
            snprintf(who, sizeof who, "warp %d", i);
        else
            snprintf(who, sizeof who, "warps %d-%d", i, j - 1);
        if (hi == 0)
            snprintf(trips, sizeof trips, "before any loop trip");
        else if (lo == hi)
            snprintf(trips, sizeof trips, "after %llu loop trips%s", (unsigned long long)lo,
                     j - i > 1 ? " each" : "");
        else
            snprintf(trips, sizeof trips, "after %llu to %llu loop trips", (unsigned long long)lo,
                     (unsigned long long)hi);
        if (line == 0)
            n += snprintf(msg + n, size - (size_t)n, " %s finished;", who);
        else
            n += snprintf(msg + n, size - (size_t)n, " %s %s line %d %s;", who,
                          waiting ? "waiting at the __syncthreads() at" : "at", line, trips);
        groups++;
        i = j;
        if ((size_t)n >= size)
            break;
    }
    if (left > 0 && (size_t)n < size)
        snprintf(msg + n, size - (size_t)n, " %d more warps elsewhere", left);
    else if ((size_t)n < size && n > 0 && msg[n - 1] == ';')
        msg[n - 1] = '\0';
    return -1;
}

bool ptx_over_busy_limit(block_ctx *b, const warp *w)
{
    /* The limit is named, not the count at the check: which block crossed first depends on
     * the workers' timing, the message must not. */
    const char *what = NULL, *unit = "instructions";
    uint64_t limit = 0;
    if (b->max_warp_issue && w->issued > b->max_warp_issue)
        what = "one warp alone issues", limit = b->max_warp_issue;
    else if (b->max_block_issue && b->issued > b->max_block_issue)
        what = "one block's warps issue", limit = b->max_block_issue;
    else if (b->max_block_wavefronts && b->wavefronts > b->max_block_wavefronts)
        what = "one block's loads and stores take", limit = b->max_block_wavefronts,
        unit = "passes of its SM's L1";
    if (!what)
        return false;
    b->err->kind = PTX_ERROR_BUSY;
    char kernel[128];
    ptx_kernel_name(b->e->name, kernel, sizeof kernel);
    snprintf(b->err->msg, sizeof b->err->msg, "in %s, %s more than %llu %s", kernel, what,
             (unsigned long long)limit, unit);
    return true;
}
