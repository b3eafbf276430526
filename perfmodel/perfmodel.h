/* perfmodel: a kernel launch's time on an H100, predicted from what the CPU backend counts.
 *
 * The interpreter counts a launch's work exactly (warp instructions, shared-memory wavefronts,
 * global requests by 128-byte line, distinct sectors per block); the cubin gives its registers.
 * The model turns those into the time each of an SM's units would need, takes the slowest
 * (the bound), and corrects for the latency too few resident warps leave unhidden. Its
 * constants are the H100's and a few fitted to measurements (src/pm_h100.h says which and
 * how); docs/perfmodel.md has the table of predicted against measured times. */
#ifndef TILELAB_PERFMODEL_H
#define TILELAB_PERFMODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One launch as counted: its shape, its resources, and the counts of the blocks run (all of
 * them or a sample; the model scales by blocks / blocks_run). */
typedef struct pm_launch {
    uint64_t blocks, blocks_run;
    int threads_per_block;
    int registers;        /* per thread, from the cubin (0: unknown, taken as 32) */
    uint64_t shared_bytes; /* static and dynamic, per block */
    uint64_t warp_instructions;
    uint64_t shared_wavefronts;
    uint64_t global_wavefronts;
    uint64_t l2_sectors;
    uint64_t dram_bytes;  /* the launch's compulsory traffic (its inputs and outputs), or 0 */
    /* What the instructions cost beyond one issue slot each (ptx/diag_cost.c counts them; 0
     * where a count is missing): */
    uint64_t issue_slots;  /* issue cycles of the SASS the instructions become (0: unknown) */
    uint64_t fp64_ops, xu_ops; /* instructions on the fp64 and the special-function pipe */
    uint64_t local_wavefronts; /* ld/st.local: lines of local memory's interleaved layout */
    uint64_t l2_store_sectors; /* sectors of every global store (L1 writes through to L2) */
    uint64_t atomic_sectors;   /* global atomics: sectors sent to L2's atomic units */
    /* The most atomics on one global address that one sampled block updated alone, on one that
     * several did, and on one shared address of a block. */
    uint64_t atomic_address_max_block, atomic_address_max_shared, shared_atomic_address_max;
    uint64_t shared_atomic_wavefronts; /* passes of shared atomics, same-address lanes apart */
    uint64_t fences_cta, fences_gpu, fences_sys;
    uint64_t sleeps, sleep_ns; /* nanosleep: warp sleeps, and the longest lane's ns summed */
    uint64_t clock_reads;
    uint64_t store_load_waits; /* global loads after a global store of the same warp */
    /* The most warp instructions one block of the sample issued (0: unknown): where blocks
     * differ, the busiest SM may get the costliest as well as its share of the mean. */
    uint64_t max_block_warp_instructions;
} pm_launch;

/* The counts above from warp_instructions on, by the names the CPU backend's launch_counts
 * JSON gives them: the i-th name (NULL past the last), and where a name goes in a pm_launch
 * (NULL for none). The readers of those counts (runner, ./tilelab predict) fill a pm_launch
 * by this one list. */
const char *pm_count_name(int i);
uint64_t *pm_launch_count(pm_launch *l, const char *name);

typedef enum pm_bound {
    PM_BOUND_ISSUE = 0, /* instruction issue: the schedulers are busy every cycle */
    PM_BOUND_FP64,      /* the fp64 pipe */
    PM_BOUND_XU,        /* the special-function and conversion pipe */
    PM_BOUND_LSU,       /* the L1/shared data pipe: shared wavefronts, global and local lines */
    PM_BOUND_L2,        /* L2 bandwidth, and its atomic units */
    PM_BOUND_DRAM,      /* device memory bandwidth */
    PM_BOUND_ATOMIC,    /* atomics that wait for each other on one address */
    PM_BOUND_WAIT,      /* warps that wait: fences, sleeps, clock spins */
    PM_BOUND_LAUNCH,    /* too little work: launch overhead */
    PM_BOUND_COUNT
} pm_bound;

typedef struct pm_prediction {
    double ms;
    pm_bound bound;
    double unit_ms[PM_BOUND_COUNT]; /* each unit's time, latency correction included */
    int blocks_per_sm;              /* resident at once (occupancy) */
    double warps_per_scheduler;     /* resident warps per scheduler, on a busy SM */
    const char *limiter;            /* what limits residency: "registers", "shared memory", ... */
} pm_prediction;

/* 0, or -1 when the launch cannot run on an H100 (a block needs more registers, shared memory
 * or threads than an SM has; out->limiter says which). */
int pm_predict(const pm_launch *l, pm_prediction *out);

/* Counts past which a launch provably takes longer than a given time on an H100, whatever the
 * rest of it does (ptx_env's busy limits): a warp issues at most one instruction a clock, a
 * block's warps share one SM's schedulers and its L1, which passes one wavefront a clock. The
 * counts are the CPU backend's (PTX instructions, wavefronts as the diagnosis counts them),
 * taken as the least share of them the GPU's compiler could keep. */
typedef struct pm_busy_limits {
    uint64_t warp_instructions;  /* one warp's */
    uint64_t block_instructions; /* one block's warps' together */
    uint64_t block_wavefronts;   /* one block's global and shared wavefronts */
} pm_busy_limits;
pm_busy_limits pm_busy_limits_for(double ms);
/* The least time, in ms, of a launch's `thread_instructions` in full warps spread over every
 * scheduler of an H100 (the same floor of what the compiler keeps). */
double pm_issue_floor_ms(double thread_instructions);

/* "instruction issue", "the fp64 pipe", ..., "launch overhead". */
const char *pm_bound_name(pm_bound b);

/* Registers per thread of `kernel` (its mangled name) in a cubin, read from the ELF's
 * .nv.info section. Returns the count, 0 when the kernel or the section is not there, -1
 * when the file is not an ELF cubin it can read (msg says why). Every offset is checked: the
 * file comes from a submission's build. */
int pm_cubin_registers(const char *path, const char *kernel, char *msg, int msg_size);
/* The same on a cubin's bytes in memory (`path` only names it in msg). */
int pm_cubin_registers_in(const void *data, size_t size, const char *kernel, const char *path,
                          char *msg, int msg_size);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_PERFMODEL_H */
