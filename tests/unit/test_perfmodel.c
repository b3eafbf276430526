/* The performance model: each unit's time, the bound, residency limits, and the cubin reader
 * (on a cubin built from pm_kernels.cu, and on damaged copies of it). */
#include "perfmodel.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lab 02 reference at 2048^3 as the CPU backend counts it (8 of 16384 blocks of 16x16). */
static pm_launch tiled(void)
{
    return (pm_launch){.blocks = 16384, .blocks_run = 8, .threads_per_block = 256,
                       .registers = 32, .shared_bytes = 2048, .warp_instructions = 486400,
                       .shared_wavefronts = 278528, .global_wavefronts = 32896,
                       .l2_sectors = 65792, .dram_bytes = 3u * 2048 * 2048 * 4};
}

Test(perfmodel, a_tiled_kernel_is_bound_by_shared_memory)
{
    pm_launch l = tiled();
    pm_prediction p;
    cr_assert_eq(pm_predict(&l, &p), 0);
    cr_assert_eq(p.bound, PM_BOUND_LSU, "bound by %s", pm_bound_name(p.bound));
    /* Measured on an H100: 2.096 ms. */
    cr_assert(p.ms > 1.6 && p.ms < 2.6, "predicted %.3f ms", p.ms);
    cr_assert_eq(p.blocks_per_sm, 8); /* 2048 threads per SM / 256 */
    cr_assert_str_eq(p.limiter, "threads per SM");
}

Test(perfmodel, more_shared_wavefronts_take_longer_in_proportion)
{
    /* Shared wavefronts are most of this kernel's LSU work: twice as many, nearly twice the
     * time (the global lines stay as they were). */
    pm_launch l = tiled();
    pm_prediction a, b;
    cr_assert_eq(pm_predict(&l, &a), 0);
    l.shared_wavefronts *= 2;
    cr_assert_eq(pm_predict(&l, &b), 0);
    double ratio = b.unit_ms[PM_BOUND_LSU] / a.unit_ms[PM_BOUND_LSU];
    cr_assert(ratio > 1.7 && ratio < 2.0, "ratio %.3f", ratio);
    cr_assert(b.ms > 1.7 * (a.ms - a.unit_ms[PM_BOUND_LAUNCH]));
    cr_assert_float_eq(b.unit_ms[PM_BOUND_ISSUE], a.unit_ms[PM_BOUND_ISSUE], 1e-12);
}

Test(perfmodel, a_partial_last_wave_costs_a_whole_one)
{
    /* 133 blocks on 132 SMs: one SM runs two, so the launch takes as long as 264 blocks. */
    pm_launch l = tiled();
    l.blocks = 133;
    pm_prediction a, b;
    cr_assert_eq(pm_predict(&l, &a), 0);
    l.blocks = 264;
    cr_assert_eq(pm_predict(&l, &b), 0);
    cr_assert_float_eq(a.unit_ms[PM_BOUND_ISSUE], b.unit_ms[PM_BOUND_ISSUE], 1e-12);
    l.blocks = 132;
    pm_predict(&l, &b);
    cr_assert(b.unit_ms[PM_BOUND_ISSUE] < a.unit_ms[PM_BOUND_ISSUE]);
}

Test(perfmodel, registers_and_shared_memory_limit_residency)
{
    pm_launch l = tiled();
    pm_prediction p;
    l.threads_per_block = 256;
    l.registers = 128; /* 128 x 256 = 32768 registers: two blocks per SM */
    cr_assert_eq(pm_predict(&l, &p), 0);
    cr_assert_eq(p.blocks_per_sm, 2);
    cr_assert_str_eq(p.limiter, "registers");
    l.registers = 32;
    l.shared_bytes = 100 * 1024; /* two blocks of 101 KiB with the reserved share */
    cr_assert_eq(pm_predict(&l, &p), 0);
    cr_assert_eq(p.blocks_per_sm, 2);
    cr_assert_str_eq(p.limiter, "shared memory");
    l.shared_bytes = 240 * 1024;
    cr_assert_eq(pm_predict(&l, &p), -1);
    cr_assert_str_eq(p.limiter, "shared memory");
    l.shared_bytes = 0;
    l.threads_per_block = 1024;
    l.registers = 255; /* 255 x 1024 registers: more than an SM has */
    cr_assert_eq(pm_predict(&l, &p), -1);
}

Test(perfmodel, too_few_warps_leave_latency_unhidden)
{
    /* Blocks of 4 warps: a full grid keeps 16 warps per scheduler; 132 blocks keep one, and
     * each block's work then takes twice as long (PM_WARPS_TO_HIDE_LATENCY is 2). */
    pm_launch l = tiled();
    l.threads_per_block = 128;
    pm_prediction full, starved;
    cr_assert_eq(pm_predict(&l, &full), 0);
    l.blocks = 132;
    cr_assert_eq(pm_predict(&l, &starved), 0);
    cr_assert_float_eq(full.warps_per_scheduler, 16, 1e-9);
    cr_assert_float_eq(starved.warps_per_scheduler, 1, 1e-9);
    double per_block_full = full.unit_ms[PM_BOUND_LSU] / ceil(16384.0 / 132);
    cr_assert_float_eq(starved.unit_ms[PM_BOUND_LSU], 2 * per_block_full, 1e-9);
}

Test(perfmodel, a_tiny_launch_is_launch_overhead)
{
    pm_launch l = {.blocks = 1, .blocks_run = 1, .threads_per_block = 32, .registers = 16,
                   .warp_instructions = 20, .global_wavefronts = 2, .l2_sectors = 8};
    pm_prediction p;
    cr_assert_eq(pm_predict(&l, &p), 0);
    cr_assert_eq(p.bound, PM_BOUND_LAUNCH);
    cr_assert(p.ms > 0 && p.ms < 0.02);
}

/* ---- the cost classes: each charged for what an H100 spends on it, not as one issue slot ----- */

/* The tiled launch's 131072 warp multiply-adds (8 blocks of 8 warps, 2048 each), each with one
 * more operation of a class: `plain` the time with that operation as a plain instruction. */
#define WARP_FMAS 131072u
static pm_prediction with_one_per_fma(const char *count, uint64_t per_fma, pm_prediction *plain)
{
    pm_launch l = tiled();
    l.warp_instructions += WARP_FMAS;
    l.issue_slots = l.warp_instructions;
    cr_assert_eq(pm_predict(&l, plain), 0);
    uint64_t *field = pm_launch_count(&l, count);
    cr_assert_not_null(field, "%s", count);
    *field += per_fma * WARP_FMAS;
    pm_prediction p;
    cr_assert_eq(pm_predict(&l, &p), 0);
    return p;
}

Test(perfmodel, every_count_has_a_field_of_its_own)
{
    pm_launch l = {0};
    int n = 0;
    for (; pm_count_name(n); n++) {
        uint64_t *f = pm_launch_count(&l, pm_count_name(n));
        cr_assert_not_null(f, "%s", pm_count_name(n));
        *f = (uint64_t)n + 1;
    }
    cr_assert_gt(n, 20);
    for (int i = 0; i < n; i++)
        cr_assert_eq(*pm_launch_count(&l, pm_count_name(i)), (uint64_t)i + 1, "%s shares a field",
                     pm_count_name(i));
    cr_assert_eq(l.warp_instructions, 1u);
    cr_assert_null(pm_launch_count(&l, "no_such_count"));
    cr_assert_null(pm_launch_count(&l, "blocks")); /* a shape, not a count */
}

Test(perfmodel, counts_a_diagnosis_lacks_change_nothing)
{
    /* A launch_counts object without the cost classes (an older diagnosis): the prediction is
     * the plain one. */
    pm_launch l = tiled();
    pm_prediction a, b;
    cr_assert_eq(pm_predict(&l, &a), 0);
    l.issue_slots = l.warp_instructions;
    cr_assert_eq(pm_predict(&l, &b), 0);
    cr_assert_float_eq(a.ms, b.ms, 1e-12);
}

Test(perfmodel, an_expansion_costs_its_slots)
{
    /* div.rn.f64 is 20 issue cycles: 19 more than a plain instruction, none of them shrunk by
     * the share of PTX the compiler keeps. */
    pm_prediction plain, p = with_one_per_fma("issue_slots", 19, &plain);
    double per_slot = ceil(16384.0 / 132) / 8 / (4 * 1.98e9) * 1e3;
    cr_assert_float_eq(p.unit_ms[PM_BOUND_ISSUE] - plain.unit_ms[PM_BOUND_ISSUE],
                       19.0 * WARP_FMAS * per_slot, 1e-9);
}

Test(perfmodel, the_slow_pipes_take_their_cycles)
{
    /* One fp64 instruction per multiply-add: 2 cycles of the scheduler's fp64 lanes each; one
     * on the special-function pipe: 8 or more. */
    double per_cycle = ceil(16384.0 / 132) / 8 / (4 * 1.98e9) * 1e3;
    pm_prediction plain, f = with_one_per_fma("fp64_ops", 1, &plain);
    cr_assert_float_eq(f.unit_ms[PM_BOUND_FP64], 2.0 * WARP_FMAS * per_cycle, 1e-9);
    pm_prediction x = with_one_per_fma("xu_ops", 2, &plain);
    cr_assert_geq(x.unit_ms[PM_BOUND_XU], 16.0 * WARP_FMAS * per_cycle);
    cr_assert_eq(x.bound, PM_BOUND_XU, "%s", pm_bound_name(x.bound));
    cr_assert(x.ms > 1.7 * plain.ms, "%.3f against %.3f", x.ms, plain.ms);
}

Test(perfmodel, local_memory_costs_more_than_a_wavefront)
{
    /* 32 lines of a lane-indexed local array per multiply-add (cost_local_array: 106 ms on an
     * H100, 50x the tiled reference). */
    pm_prediction plain, p = with_one_per_fma("local_wavefronts", 32, &plain);
    cr_assert_eq(p.bound, PM_BOUND_LSU);
    cr_assert(p.ms > 40 * plain.ms, "%.3f against %.3f", p.ms, plain.ms);
    pm_launch l = tiled();
    l.global_wavefronts += 32u * WARP_FMAS;
    pm_prediction g;
    cr_assert_eq(pm_predict(&l, &g), 0);
    cr_assert(p.unit_ms[PM_BOUND_LSU] > 3 * g.unit_ms[PM_BOUND_LSU]);
}

Test(perfmodel, atomics_on_one_address_wait_for_each_other)
{
    /* Every multiply-add of the grid adds into one address: the sampled blocks' 8 * 256 * 2048
     * updates stand for 2048 times as many, one after another. */
    pm_launch l = tiled();
    l.atomic_address_max_shared = 8u * 256 * 2048;
    pm_prediction p;
    cr_assert_eq(pm_predict(&l, &p), 0);
    cr_assert_eq(p.bound, PM_BOUND_ATOMIC);
    double updates = 16384.0 * 256 * 2048;
    cr_assert(p.unit_ms[PM_BOUND_ATOMIC] > updates * 1.5e-9 * 1e3, "%.1f ms", p.unit_ms[PM_BOUND_ATOMIC]);
    /* The same count on an address only one block updated is that block's own. */
    l.atomic_address_max_block = l.atomic_address_max_shared;
    l.atomic_address_max_shared = 0;
    pm_prediction own;
    cr_assert_eq(pm_predict(&l, &own), 0);
    cr_assert_float_eq(own.unit_ms[PM_BOUND_ATOMIC] * 2048, p.unit_ms[PM_BOUND_ATOMIC], 1e-6);
}

Test(perfmodel, a_fence_waits_by_its_scope)
{
    pm_prediction plain, cta = with_one_per_fma("fences_cta", 1, &plain);
    pm_prediction gpu = with_one_per_fma("fences_gpu", 1, &plain);
    pm_prediction sys = with_one_per_fma("fences_sys", 1, &plain);
    cr_assert(cta.ms > 2 * plain.ms && gpu.ms > 2.5 * cta.ms && sys.ms > 3 * gpu.ms,
              "%.3f %.3f %.3f %.3f", plain.ms, cta.ms, gpu.ms, sys.ms);
    cr_assert_eq(sys.bound, PM_BOUND_WAIT);
    /* Fewer resident warps hide less of it: with 128 registers a thread, 2 blocks of 8 warps
     * fit on an SM instead of 8, and the same fences take 4 times as long. */
    pm_launch l = tiled();
    l.warp_instructions += WARP_FMAS;
    l.fences_sys = WARP_FMAS;
    l.registers = 128;
    pm_prediction p;
    cr_assert_eq(pm_predict(&l, &p), 0);
    cr_assert_eq(p.blocks_per_sm, 2);
    cr_assert_float_eq(p.unit_ms[PM_BOUND_WAIT], 4 * sys.unit_ms[PM_BOUND_WAIT], 1e-9);
}

Test(perfmodel, a_sleep_lasts_at_least_a_minimum)
{
    pm_prediction plain, asked = with_one_per_fma("sleep_ns", 1000, &plain);
    cr_assert(asked.ms > 10 * plain.ms, "%.3f against %.3f", asked.ms, plain.ms);
    /* Sleeps of 0 ns still park the warp. */
    pm_prediction zero = with_one_per_fma("sleeps", 1, &plain);
    cr_assert(zero.ms > 2 * plain.ms, "%.3f against %.3f", zero.ms, plain.ms);
}

Test(perfmodel, a_load_after_a_store_waits_for_it)
{
    pm_prediction plain, p = with_one_per_fma("store_load_waits", 1, &plain);
    cr_assert(p.ms > 3 * plain.ms, "%.3f against %.3f", p.ms, plain.ms);
}

Test(perfmodel, a_clock_reading_kernel_is_charged_a_cycle_an_instruction)
{
    /* The interpreter's clocks count the block's instructions, so a wait on the clock is at
     * most that many cycles of each wave of blocks: the model charges all of them. */
    pm_launch l = tiled();
    l.clock_reads = 1;
    pm_prediction p;
    cr_assert_eq(pm_predict(&l, &p), 0);
    double waves = ceil(ceil(16384.0 / 132) / 8);
    cr_assert_float_eq(p.unit_ms[PM_BOUND_WAIT], waves * 486400.0 / 8 / 1.98e9 * 1e3, 1e-9);
}

Test(perfmodel, stores_reach_l2_every_time)
{
    /* A store of P after every multiply-add: 4 sectors written through to L2 each time, where
     * the distinct sectors a block touched are counted once. */
    pm_prediction plain, p = with_one_per_fma("l2_store_sectors", 4, &plain);
    cr_assert(p.unit_ms[PM_BOUND_L2] > 5 * plain.unit_ms[PM_BOUND_L2]);
    pm_prediction a = with_one_per_fma("atomic_sectors", 4, &plain);
    cr_assert(a.unit_ms[PM_BOUND_L2] > p.unit_ms[PM_BOUND_L2]);
}

/* ---- the cubin reader ----------------------------------------------------------------------- */

Test(perfmodel, registers_come_from_the_cubin)
{
    char msg[256];
    int few = pm_cubin_registers(TILELAB_TEST_CUBIN, "few", msg, sizeof msg);
    int many = pm_cubin_registers(TILELAB_TEST_CUBIN, "many", msg, sizeof msg);
    cr_assert(few > 0 && few <= 32, "few: %d", few);
    cr_assert(many > few + 16 && many <= 255, "many: %d, few: %d", many, few);
    cr_assert_eq(pm_cubin_registers(TILELAB_TEST_CUBIN, "absent", msg, sizeof msg), 0);
    cr_assert_eq(pm_cubin_registers("/nonexistent/x.cubin", "few", msg, sizeof msg), -1);
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    unsigned char *data = malloc(1 << 20);
    *n = fread(data, 1, 1 << 20, f);
    fclose(f);
    return data;
}

static int registers_of_copy(const unsigned char *data, size_t n)
{
    char path[] = "/tmp/tilelab-test-cubin-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(data, 1, n, f);
    fclose(f);
    char msg[256];
    int r = pm_cubin_registers(path, "many", msg, sizeof msg);
    remove(path);
    return r;
}

Test(perfmodel, a_damaged_cubin_is_read_safely)
{
    size_t n;
    unsigned char *data = read_all(TILELAB_TEST_CUBIN, &n);
    cr_assert(n > 64);
    /* Every truncation, and every byte of the header region flipped: an answer (a count, 0 or
     * -1), never a read outside the file (ASan runs this too). */
    for (size_t cut = 0; cut < n; cut += n / 97 + 1)
        cr_assert(registers_of_copy(data, cut) >= -1);
    cr_assert_eq(registers_of_copy(data, 10), -1);
    for (size_t i = 0; i < 64; i++) {
        unsigned char *copy = malloc(n);
        memcpy(copy, data, n);
        copy[i] ^= 0xff;
        cr_assert(registers_of_copy(copy, n) >= -1);
        free(copy);
    }
    free(data);
}

Test(perfmodel, a_costlier_block_in_the_sample_costs_the_busiest_sm)
{
    /* Blocks alike: the most one block issued is the mean, nothing changes. Blocks that differ:
     * the busiest SM (124 blocks of the 16384) gets the costliest besides its share. */
    pm_launch l = tiled();
    pm_prediction even, same, uneven;
    cr_assert_eq(pm_predict(&l, &even), 0);
    l.max_block_warp_instructions = l.warp_instructions / l.blocks_run;
    cr_assert_eq(pm_predict(&l, &same), 0);
    cr_assert_float_eq(same.ms, even.ms, 1e-9);
    /* One sampled block issued 50 times the mean's instructions. */
    l.max_block_warp_instructions = 50 * (l.warp_instructions / l.blocks_run);
    cr_assert_eq(pm_predict(&l, &uneven), 0);
    double share = ceil(16384.0 / 132);
    double want = (share - 1 + 50) / share; /* the LSU-bound time scales by this */
    cr_assert(uneven.ms > even.ms * (1 + 0.9 * (want - 1)), "%.3f ms, even %.3f ms, want x%.2f",
              uneven.ms, even.ms, want);
}
