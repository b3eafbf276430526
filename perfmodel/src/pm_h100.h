/* The H100 (SXM5, 80 GB HBM3) the model predicts for, as named limits. Hardware figures come
 * from NVIDIA's Hopper tuning guide and whitepaper; the fitted ones were measured on the kit's
 * calibration set (perfmodel/calibration, docs/perfmodel.md: how). */
#ifndef TILELAB_PM_H100_H
#define TILELAB_PM_H100_H

/* ---- the hardware ---------------------------------------------------------------------------- */
#define H100_SMS 132
#define H100_SCHEDULERS_PER_SM 4        /* each issues one warp instruction per cycle */
#define H100_LSU_WAVEFRONTS_PER_CYCLE 1 /* L1/shared data pipe: 128 bytes per cycle per SM */
#define H100_MAX_THREADS_PER_SM 2048
#define H100_MAX_WARPS_PER_SM 64
#define H100_MAX_BLOCKS_PER_SM 32
#define H100_MAX_THREADS_PER_BLOCK 1024
#define H100_REGISTERS_PER_SM 65536
#define H100_MAX_REGISTERS_PER_THREAD 255
#define H100_REGISTER_ALLOCATION_UNIT 256 /* registers per warp are allocated in these steps */
#define H100_SHARED_PER_SM (228 * 1024)
#define H100_SHARED_PER_BLOCK_MAX (227 * 1024)
#define H100_SHARED_RESERVED_PER_BLOCK 1024 /* the runtime's share of each block */
#define H100_WARP_SIZE 32
#define H100_SECTOR_BYTES 32
#define H100_DRAM_BYTES_PER_S 3.35e12
/* The fp64 pipe: 64 lanes per SM against 128 fp32 ones (Hopper whitepaper: 33.5 against 67
 * TFLOP/s), so a warp instruction holds its scheduler's 16 for 2 cycles. */
#define H100_FP64_CYCLES_PER_WARP 2

/* ---- measured or fitted ------------------------------------------------------------------------ */
/* The clock under load: SGEMM_CUDA's naive kernel (one L1 line per pass) and the kit's lab 02
 * reference (shared-memory bound) run at the rate the H100's 1.98 GHz boost clock gives. */
#define H100_CLOCK_HZ 1.98e9
#define H100_L2_BYTES_PER_S 1.0e13 /* fitted: never the bound of the calibration set */
#define H100_LAUNCH_S 4e-6         /* a launch's fixed cost */
/* For bounds that must hold for every kernel (pm_busy_limits): the least share of its PTX
 * instructions a kernel's SASS keeps. ptxas fuses at most pairs (a multiply and an add into
 * IMAD, an address add into a load's offset), so half is a floor well under the share
 * measured on the calibration set (ncu: 1/1.2 of the PTX's instructions on SGEMM_CUDA's
 * kernels; PM_SASS_PER_PTX_INSTRUCTION below). */
#define H100_LEAST_KEPT_INSTRUCTIONS 0.5
/* ... and of its counted wavefronts: ptxas does not merge global requests (NVVM's merges are
 * in the PTX the interpreter counts), and the diagnosis merges neighbouring shared loads as
 * ptxas does; a floor under PM_LSU_SHARE for what it may still merge. */
#define H100_LEAST_KEPT_WAVEFRONTS 0.75

/* Fitted on the calibration set (docs/perfmodel.md: the table, and how to refit):
 * - the share of PTX instructions and of counted LSU wavefronts the GPU's final compiler keeps
 *   (it folds address arithmetic into loads; ncu counts 1/1.2 of the PTX's instructions on
 *   SGEMM_CUDA's kernels);
 * - the resident warps per scheduler below which latency is not hidden;
 * - how much the units overlap: the time is the units' times combined as a p-norm (p = 1 would
 *   add them, an infinite p take the slowest alone). */
#define PM_SASS_PER_PTX_INSTRUCTION 0.9
#define PM_LSU_SHARE 0.9
#define PM_WARPS_TO_HIDE_LATENCY 2.0
#define PM_OVERLAP_NORM 3.0
#define PM_DEFAULT_REGISTERS 32
/* A global request's line through L1 costs the pipe more than a shared wavefront (its tag
 * lookup): fitted on the untiled kernels (lab 01's solution, SGEMM_CUDA's kernels 1 and 2). */
#define PM_GLOBAL_LSU_SHARE 1.0

/* ---- the cost classes: measured on an H100 by perfmodel/calibration/cost_classes.cu -----------
 * (h100-cost-classes.tsv: lab 02's tiled loop with one operation after every multiply-add).
 * Each constant makes the model's time for its kernel the measured one or up to about 15 %
 * more, never less: the reference itself is predicted 8 % slow, so a class predicted exactly
 * would earn more performance points on the CPU backend than on a GPU. */
/* The special-function and conversion pipe: 16 units per SM (CUDA C++ Programming Guide,
 * arithmetic throughput: 16 results per clock per SM for reciprocals, square roots, exp2, log2,
 * sin, cos and conversions from and to 64-bit types), 8 cycles a warp, and a conversion's
 * extra pass (cvt_f64: 4.60 ms for two per multiply-add). */
#define PM_XU_CYCLES_PER_WARP 9.5
/* Local memory: L1 serves each line of an interleaved local request in about 3.3 cycles
 * (cost_local_array: 106.3 ms for 32 lines per multiply-add; local_uniform: 9.53 ms for 2). */
#define PM_LOCAL_WAVEFRONT_CYCLES 3.6
/* Global atomics at distinct addresses: sectors per second L2's atomic units update
 * (atomic_global_distinct: 13.69 ms for 1.07e9 sectors). */
#define H100_L2_ATOMIC_SECTORS_PER_S 7.0e10
/* Atomics on one global address are done one after another: 8.6e9 float adds in 15.07 s
 * (cost_atomic_same_address). */
#define H100_SAME_ADDRESS_ATOMIC_S 1.9e-9
/* A float atomic on shared memory is a compare-and-swap loop (LDS, FADD, ATOMS.CAST): each pass
 * of a warp's request costs the LSU this many wavefronts (atomic_shared_distinct: 5.79 ms), and
 * a block's updates of one word follow each other this many cycles apart, the losers retrying
 * (atomic_shared_same: 386.8 ms for 524288 updates of one word per block). */
#define PM_SHARED_ATOMIC_PASS_WAVEFRONTS 4.0
#define H100_SHARED_ATOMIC_SERIAL_CYCLES 100.0
/* A fence makes its warp wait this many cycles, which the other resident warps can fill
 * (fence_cta 5.56 ms, fence_gpu 17.67 ms, cost_threadfence_system 62.03 ms, 64 warps per SM). */
#define H100_FENCE_CTA_CYCLES 400.0
#define H100_FENCE_GPU_CYCLES 1250.0
#define H100_FENCE_SYS_CYCLES 4300.0
/* A global load after a global store of the same warp waits for the store to reach L2 (the
 * compiler cannot move the next trip's loads above a store that may alias them):
 * naive_store_every_trip, 9.89 ms against cost_naive's 3.18. */
#define H100_STORE_LOAD_WAIT_CYCLES 650.0
/* __nanosleep parks the warp for about the time asked (nanosleep_1000: 1.05 us a sleep), and
 * for some 200 ns however little is asked (nanosleep_0, cost_nanosleep's 100 ns). */
#define H100_NANOSLEEP_SCALE 1.15
#define H100_NANOSLEEP_MIN_NS 215.0

#endif /* TILELAB_PM_H100_H */
