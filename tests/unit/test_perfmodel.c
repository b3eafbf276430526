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
