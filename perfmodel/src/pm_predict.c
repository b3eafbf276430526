/* The model: the busiest SM's blocks (a grid that does not fill the last wave still waits for
 * it), each unit's time for them at its peak rate, slowed when too few warps are resident to
 * hide latency; L2 and DRAM are shared by all SMs. The units work at once but do not overlap
 * perfectly: their times combine as a p-norm, dominated by the slowest (the bound). What does
 * not pass through a unit at a rate but waits (fences, sleeps, clock spins, atomics queued on
 * one address) is a time of its own in the same norm. */
#include "perfmodel.h"
#include "pm_h100.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

static const char *const bound_names[PM_BOUND_COUNT] = {
    [PM_BOUND_ISSUE] = "instruction issue",
    [PM_BOUND_FP64] = "the fp64 pipe",
    [PM_BOUND_XU] = "the special-function pipe",
    [PM_BOUND_LSU] = "shared memory and L1 (LSU)",
    [PM_BOUND_L2] = "L2 bandwidth",
    [PM_BOUND_DRAM] = "DRAM bandwidth",
    [PM_BOUND_ATOMIC] = "atomics on one address",
    [PM_BOUND_WAIT] = "waiting (fences, sleeps, clocks)",
    [PM_BOUND_LAUNCH] = "launch overhead",
};

const char *pm_bound_name(pm_bound b) { return b < PM_BOUND_COUNT ? bound_names[b] : "?"; }

#define COUNT(name) {#name, offsetof(pm_launch, name)}
static const struct {
    const char *name;
    size_t offset;
} counts[] = {
    COUNT(warp_instructions), COUNT(shared_wavefronts), COUNT(global_wavefronts),
    COUNT(l2_sectors), COUNT(issue_slots), COUNT(fp64_ops), COUNT(xu_ops),
    COUNT(local_wavefronts), COUNT(l2_store_sectors), COUNT(atomic_sectors),
    COUNT(atomic_address_max_block), COUNT(atomic_address_max_shared),
    COUNT(shared_atomic_address_max), COUNT(shared_atomic_wavefronts), COUNT(fences_cta),
    COUNT(fences_gpu), COUNT(fences_sys), COUNT(sleeps), COUNT(sleep_ns), COUNT(clock_reads),
    COUNT(store_load_waits),
};
#define NCOUNTS (sizeof counts / sizeof counts[0])

const char *pm_count_name(int i)
{
    return i >= 0 && (size_t)i < NCOUNTS ? counts[i].name : NULL;
}

uint64_t *pm_launch_count(pm_launch *l, const char *name)
{
    for (size_t i = 0; i < NCOUNTS; i++)
        if (strcmp(counts[i].name, name) == 0)
            return (uint64_t *)(void *)((char *)l + counts[i].offset);
    return NULL;
}

static int min_int(int a, int b) { return a < b ? a : b; }
static double max_d(double a, double b) { return a > b ? a : b; }

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

/* The busiest SM: its share of the grid's blocks, how many it holds at once, the warps those
 * have, and the launch's counts per block run. */
typedef struct sm_view {
    double share, held, warps, per_block;
} sm_view;

/* Seconds the busiest SM's warps spend waiting, each wait filled by the other resident warps'
 * work: fences, sleeps, and (a clock-reading kernel) its whole issue at a cycle an
 * instruction per wave of blocks, which is at least as long as any wait on the clock it timed
 * (the interpreter's clocks count the block's instructions). */
static double wait_s(const pm_launch *l, const sm_view *v)
{
    double fence_cycles = (double)l->fences_cta * H100_FENCE_CTA_CYCLES +
                          (double)l->fences_gpu * H100_FENCE_GPU_CYCLES +
                          (double)l->fences_sys * H100_FENCE_SYS_CYCLES +
                          (double)l->store_load_waits * H100_STORE_LOAD_WAIT_CYCLES;
    double sleep_ns = max_d((double)l->sleep_ns * H100_NANOSLEEP_SCALE,
                            (double)l->sleeps * H100_NANOSLEEP_MIN_NS);
    double waits = v->share * v->per_block *
                   (fence_cycles / H100_CLOCK_HZ + sleep_ns * 1e-9) / v->warps;
    double clock = 0;
    if (l->clock_reads)
        clock = ceil(v->share / v->held) * v->per_block * (double)l->warp_instructions /
                H100_CLOCK_HZ;
    return max_d(waits, clock);
}

/* Seconds atomics wait for each other on one address: L2 updates a global address once per
 * H100_SAME_ADDRESS_ATOMIC_S whoever sends them (an address several sampled blocks updated is
 * updated by the whole grid in proportion), and a block's updates of one shared word follow
 * each other, every resident block's at once. */
static double atomic_s(const pm_launch *l, const sm_view *v)
{
    double global = max_d((double)l->atomic_address_max_block,
                          (double)l->atomic_address_max_shared * (double)l->blocks * v->per_block);
    double shared = ceil(v->share / v->held) * (double)l->shared_atomic_address_max *
                    H100_SHARED_ATOMIC_SERIAL_CYCLES / H100_CLOCK_HZ;
    return max_d(global * H100_SAME_ADDRESS_ATOMIC_S, shared);
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
    sm_view v;
    v.per_block = 1.0 / (l->blocks_run ? (double)l->blocks_run : 1);
    /* The busiest SM's share of the grid, and the warps it holds at once. */
    v.share = ceil((double)l->blocks / H100_SMS);
    int warps = (l->threads_per_block + H100_WARP_SIZE - 1) / H100_WARP_SIZE;
    v.held = v.share < resident ? v.share : resident;
    v.warps = v.held * warps;
    out->warps_per_scheduler = v.warps / H100_SCHEDULERS_PER_SM;
    double hidden = out->warps_per_scheduler / PM_WARPS_TO_HIDE_LATENCY;
    hidden = hidden > 1 ? 1 : hidden;
    /* Blocks that differ in cost: the busiest SM's share may hold the costliest block the
     * sample saw besides its share of the mean (one per SM, which is what a rare slow block
     * costs where a GPU's last blocks finish). Its own units scale by that much. */
    double mean = (double)l->warp_instructions * v.per_block;
    double spread = 1;
    if (mean > 0 && (double)l->max_block_warp_instructions > mean)
        spread = (v.share - 1 + (double)l->max_block_warp_instructions / mean) / v.share;
    /* Per scheduler: the PTX's instructions as the compiler keeps them, plus what the
     * expansions of multi-instruction ones add; the slow pipes at their rates. */
    double per_scheduler = spread * v.share * v.per_block /
                           (H100_SCHEDULERS_PER_SM * H100_CLOCK_HZ);
    double extra = l->issue_slots > l->warp_instructions
                       ? (double)(l->issue_slots - l->warp_instructions) : 0;
    double issue = ((double)l->warp_instructions * PM_SASS_PER_PTX_INSTRUCTION + extra) *
                   per_scheduler;
    double fp64 = (double)l->fp64_ops * H100_FP64_CYCLES_PER_WARP * per_scheduler;
    double xu = (double)l->xu_ops * PM_XU_CYCLES_PER_WARP * per_scheduler;
    double lsu_cycles = (double)l->shared_wavefronts * PM_LSU_SHARE +
                        (double)l->global_wavefronts * PM_GLOBAL_LSU_SHARE +
                        (double)l->local_wavefronts * PM_LOCAL_WAVEFRONT_CYCLES +
                        (double)l->shared_atomic_wavefronts * PM_SHARED_ATOMIC_PASS_WAVEFRONTS;
    double lsu = spread * v.share * v.per_block * lsu_cycles /
                 (H100_LSU_WAVEFRONTS_PER_CYCLE * H100_CLOCK_HZ);
    double grid = (double)l->blocks * v.per_block;
    out->unit_ms[PM_BOUND_ISSUE] = issue / hidden * 1e3;
    out->unit_ms[PM_BOUND_FP64] = fp64 / hidden * 1e3;
    out->unit_ms[PM_BOUND_XU] = xu / hidden * 1e3;
    out->unit_ms[PM_BOUND_LSU] = lsu / hidden * 1e3;
    out->unit_ms[PM_BOUND_L2] = ((double)(l->l2_sectors + l->l2_store_sectors) * grid *
                                     H100_SECTOR_BYTES / H100_L2_BYTES_PER_S +
                                 (double)l->atomic_sectors * grid / H100_L2_ATOMIC_SECTORS_PER_S) *
                                1e3;
    out->unit_ms[PM_BOUND_DRAM] = (double)l->dram_bytes / H100_DRAM_BYTES_PER_S * 1e3;
    out->unit_ms[PM_BOUND_ATOMIC] = atomic_s(l, &v) * 1e3;
    out->unit_ms[PM_BOUND_WAIT] = wait_s(l, &v) * 1e3;
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


pm_busy_limits pm_busy_limits_for(double ms)
{
    double cycles = ms * 1e-3 * H100_CLOCK_HZ;
    double issued = cycles / H100_LEAST_KEPT_INSTRUCTIONS;
    return (pm_busy_limits){
        .warp_instructions = (uint64_t)ceil(issued),
        .block_instructions = (uint64_t)ceil(issued * H100_SCHEDULERS_PER_SM),
        .block_wavefronts = (uint64_t)ceil(cycles * H100_LSU_WAVEFRONTS_PER_CYCLE /
                                           H100_LEAST_KEPT_WAVEFRONTS),
    };
}

double pm_issue_floor_ms(double thread_instructions)
{
    return thread_instructions / H100_WARP_SIZE * H100_LEAST_KEPT_INSTRUCTIONS /
           (H100_CLOCK_HZ * H100_SMS * H100_SCHEDULERS_PER_SM) * 1e3;
}
