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

/* ---- measured or fitted ------------------------------------------------------------------------ */
/* The clock under load: SGEMM_CUDA's naive kernel (one L1 line per pass) and the kit's lab 02
 * reference (shared-memory bound) run at the rate the H100's 1.98 GHz boost clock gives. */
#define H100_CLOCK_HZ 1.98e9
#define H100_L2_BYTES_PER_S 1.0e13 /* fitted: never the bound of the calibration set */
#define H100_LAUNCH_S 4e-6         /* a launch's fixed cost */

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

#endif /* TILELAB_PM_H100_H */
