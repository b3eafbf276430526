/* Judging a GPU's timed set: which throttle reasons slow it, when a set is timed again or
 * flagged, the device's peak rates and the least time a matrix product can take at them,
 * which times are implausible, and the clock record's JSON. */
#include "gpu_timing.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>

Test(gpu_timing, power_thermal_and_hardware_slowdowns_throttle)
{
    uint64_t slowing[] = {GPU_REASON_SW_POWER_CAP, GPU_REASON_HW_SLOWDOWN, GPU_REASON_SW_THERMAL,
                          GPU_REASON_HW_THERMAL, GPU_REASON_HW_POWER_BRAKE};
    for (size_t i = 0; i < sizeof slowing / sizeof *slowing; i++)
        cr_expect(gpu_timing_throttled(slowing[i] | GPU_REASON_IDLE), "reason 0x%llx",
                  (unsigned long long)slowing[i]);
    /* Idle between launches, an administrator's application clocks, sync boost, the display:
     * nothing about this set. */
    cr_expect(!gpu_timing_throttled(0));
    cr_expect(!gpu_timing_throttled(GPU_REASON_IDLE | GPU_REASON_APPLICATION_CLOCKS |
                                    GPU_REASON_SYNC_BOOST | GPU_REASON_DISPLAY_CLOCKS));
}

Test(gpu_timing, a_throttled_set_is_timed_again_once_then_flagged)
{
    gpu_clock_record c = {.recorded = true, .sm_mhz_before = 1980, .sm_mhz_after = 1980,
                          .sm_mhz_max = 1980, .reasons_before = GPU_REASON_IDLE};
    cr_expect_eq(gpu_timing_after_set(&c), GPU_SET_KEEP);
    c.reasons_after = GPU_REASON_SW_POWER_CAP; /* it ran into the power cap while timed */
    cr_expect_eq(gpu_timing_after_set(&c), GPU_SET_RETIME);
    c.retimed = true;
    cr_expect_eq(gpu_timing_after_set(&c), GPU_SET_FLAG);
    c.reasons_before = c.reasons_after = 0; /* the second set ran clean */
    cr_expect_eq(gpu_timing_after_set(&c), GPU_SET_KEEP);
    /* NVML missing: nothing to go by, the set stands (and says the clock was not recorded). */
    gpu_clock_record none = {.reasons_after = GPU_REASON_HW_THERMAL};
    cr_expect_eq(gpu_timing_after_set(&none), GPU_SET_KEEP);
}

Test(gpu_timing, peaks_and_the_least_time_of_a_product)
{
    /* An H100 SXM: 132 SMs at 1980 MHz, HBM3 at 2619 MHz on a 5120-bit bus. */
    gpu_peaks h100 = gpu_timing_peaks(132, 1980, 2619, 5120);
    cr_expect_float_eq(h100.flops, 132 * 1980e6 * 128 * 2, 1e3);
    cr_expect_float_eq(h100.bytes, 2619e6 * 2 * 5120 / 8, 1e3);
    /* 2048^3: compute-bound, 2 * 2048^3 FLOP at 66.9 TFLOP/s. */
    double floor = gpu_timing_matmul_floor_ms(h100, 2048, 2048, 2048);
    cr_expect_float_eq(floor, 1e3 * 2.0 * 2048 * 2048 * 2048 / h100.flops, 1e-9);
    cr_expect(floor > 0.25 && floor < 0.26, "%f", floor);
    /* One row times a 4096 x 4096 matrix: the matrix's 64 MiB read once dominates. */
    double gemv = gpu_timing_matmul_floor_ms(h100, 1, 4096, 4096);
    cr_expect_float_eq(gemv, 1e3 * 4.0 * (4096 + 4096.0 * 4096 + 4096) / h100.bytes, 1e-9);
    /* Unknown peaks: no floor. */
    cr_expect_eq(gpu_timing_matmul_floor_ms(gpu_timing_peaks(0, 1980, 2619, 5120), 64, 64, 64), 0);
}

Test(gpu_timing, faster_than_the_floor_is_implausible)
{
    double floor = 0.2568;
    cr_expect(!gpu_timing_implausible(2.3, floor), "the reference's time on an H100");
    cr_expect(!gpu_timing_implausible(floor, floor));
    cr_expect(!gpu_timing_implausible(0.96 * floor, floor), "within the reading's slack");
    cr_expect(gpu_timing_implausible(0.9 * floor, floor));
    cr_expect(gpu_timing_implausible(0.001, floor), "a kernel that did nothing, or a broken timer");
    cr_expect(gpu_timing_implausible(0, floor));
    cr_expect(!gpu_timing_implausible(0.001, 0), "no floor, nothing to judge");
}

Test(gpu_timing, the_clock_record_goes_through_json_and_back)
{
    cJSON *o = cJSON_CreateObject();
    gpu_clock_record c = {true, 1755, 1980, 1980, GPU_REASON_IDLE,
                          GPU_REASON_SW_POWER_CAP | GPU_REASON_HW_THERMAL, true, true};
    gpu_timing_clock_to_json(o, "clock", &c);
    gpu_clock_record back;
    cr_assert(gpu_timing_clock_from_json(o, "clock", &back));
    cr_expect(back.recorded && back.retimed && back.throttled);
    cr_expect_eq(back.sm_mhz_before, 1755);
    cr_expect_eq(back.sm_mhz_max, 1980);
    cr_expect_eq(back.reasons_after, c.reasons_after);
    /* Where NVML was missing the record says so, and reads back as not recorded. */
    gpu_clock_record none = {0};
    gpu_timing_clock_to_json(o, "missing", &none);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(o, "missing")), "not recorded");
    cr_expect(!gpu_timing_clock_from_json(o, "missing", &back));
    cr_expect(!back.recorded);
    cJSON_Delete(o);
}
