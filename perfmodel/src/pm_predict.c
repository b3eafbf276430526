/* The model: the busiest SM's blocks (a grid that does not fill the last wave still waits for
 * it), each unit's time for them at its peak rate, slowed when too few warps are resident to
 * hide latency; L2 and DRAM are shared by all SMs. The units work at once but do not overlap
 * perfectly: their times combine as a p-norm, dominated by the slowest (the bound). */
#include "perfmodel.h"
#include "pm_h100.h"

#include <math.h>
#include <stddef.h>

static const char *const bound_names[PM_BOUND_COUNT] = {
    [PM_BOUND_ISSUE] = "instruction issue",
    [PM_BOUND_LSU] = "shared memory and L1 (LSU)",
    [PM_BOUND_L2] = "L2 bandwidth",
    [PM_BOUND_DRAM] = "DRAM bandwidth",
    [PM_BOUND_LAUNCH] = "launch overhead",
};

const char *pm_bound_name(pm_bound b) { return b < PM_BOUND_COUNT ? bound_names[b] : "?"; }

static int min_int(int a, int b) { return a < b ? a : b; }

/* Blocks of this launch one SM holds at once, and what limits them; 0 if none fits. */
static int blocks_per_sm(const pm_launch *l, int registers, const char **limiter)
{
    int warps = (l->threads_per_block + H100_WARP_SIZE - 1) / H100_WARP_SIZE;
    int per_warp = (registers * H100_WARP_SIZE + H100_REGISTER_ALLOCATION_UNIT - 1) /
                   H100_REGISTER_ALLOCATION_UNIT * H100_REGISTER_ALLOCATION_UNIT;
    int by_threads = H100_MAX_THREADS_PER_SM / l->threads_per_block;
    int by_warps = H100_MAX_WARPS_PER_SM / warps;
    int by_registers = H100_REGISTERS_PER_SM / (per_warp * warps);
    int by_shared = (int)(H100_SHARED_PER_SM / (l->shared_bytes + H100_SHARED_RESERVED_PER_BLOCK));
    int n = H100_MAX_BLOCKS_PER_SM;
    *limiter = "blocks per SM";
    if (min_int(by_threads, by_warps) < n) {
        n = min_int(by_threads, by_warps);
        *limiter = "threads per SM";
    }
    if (by_registers < n) {
        n = by_registers;
        *limiter = "registers";
    }
    if (by_shared < n) {
        n = by_shared;
        *limiter = "shared memory";
    }
    return n;
}

int pm_predict(const pm_launch *l, pm_prediction *out)
{
    *out = (pm_prediction){0};
    int registers = l->registers > 0 ? l->registers : PM_DEFAULT_REGISTERS;
    if (l->threads_per_block < 1 || l->threads_per_block > H100_MAX_THREADS_PER_BLOCK) {
        out->limiter = "threads per block";
        return -1;
    }
    if (registers > H100_MAX_REGISTERS_PER_THREAD) {
        out->limiter = "registers";
        return -1;
    }
    if (l->shared_bytes > H100_SHARED_PER_BLOCK_MAX) {
        out->limiter = "shared memory";
        return -1;
    }
    int resident = blocks_per_sm(l, registers, &out->limiter);
    if (resident < 1)
        return -1;
    out->blocks_per_sm = resident;
    double run = l->blocks_run ? (double)l->blocks_run : 1;
    /* The busiest SM's share of the grid, and the warps it holds at once. */
    double share = ceil((double)l->blocks / H100_SMS);
    int warps = (l->threads_per_block + H100_WARP_SIZE - 1) / H100_WARP_SIZE;
    double held = share < resident ? share : resident;
    out->warps_per_scheduler = held * warps / H100_SCHEDULERS_PER_SM;
    double hidden = out->warps_per_scheduler / PM_WARPS_TO_HIDE_LATENCY;
    hidden = hidden > 1 ? 1 : hidden;
    double issue = share * (double)l->warp_instructions / run * PM_SASS_PER_PTX_INSTRUCTION /
                   (H100_SCHEDULERS_PER_SM * H100_CLOCK_HZ);
    double lsu = share * (double)(l->shared_wavefronts + l->global_wavefronts) * PM_LSU_SHARE /
                 run / (H100_LSU_WAVEFRONTS_PER_CYCLE * H100_CLOCK_HZ);
    out->unit_ms[PM_BOUND_ISSUE] = issue / hidden * 1e3;
    out->unit_ms[PM_BOUND_LSU] = lsu / hidden * 1e3;
    out->unit_ms[PM_BOUND_L2] = (double)l->l2_sectors / run * (double)l->blocks *
                                H100_SECTOR_BYTES / H100_L2_BYTES_PER_S * 1e3;
    out->unit_ms[PM_BOUND_DRAM] = (double)l->dram_bytes / H100_DRAM_BYTES_PER_S * 1e3;
    out->unit_ms[PM_BOUND_LAUNCH] = H100_LAUNCH_S * 1e3;
    out->bound = PM_BOUND_LAUNCH;
    double sum = 0;
    for (int b = 0; b < PM_BOUND_COUNT; b++) {
        if (b != PM_BOUND_LAUNCH)
            sum += pow(out->unit_ms[b], PM_OVERLAP_NORM);
        if (out->unit_ms[b] > out->unit_ms[out->bound])
            out->bound = (pm_bound)b;
    }
    /* The units overlap, but not perfectly: the slowest plus some of the others. */
    out->ms = pow(sum, 1 / PM_OVERLAP_NORM) + out->unit_ms[PM_BOUND_LAUNCH];
    return 0;
}
