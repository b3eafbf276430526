/* Judging a GPU's timed set: whether the GPU ran at its clocks while it was timed (NVML's
 * throttle reasons, recorded before and after the set), and whether the times can be real (the
 * device's peak fp32 rate and DRAM bandwidth against the work). Pure functions: the replayer's
 * GPU backend measures (replay_gpu.c, replay_gpu_nvml.c), the runner and the grader decide with
 * these; nothing here needs CUDA or NVML (the record's JSON needs cJSON). */
#ifndef TILELAB_GPU_TIMING_H
#define TILELAB_GPU_TIMING_H

#include <stdbool.h>
#include <stdint.h>

/* NVML's clocks event reasons (nvmlDeviceGetCurrentClocksEventReasons, formerly "throttle
 * reasons"), a bit each. */
#define GPU_REASON_IDLE 0x1ull
#define GPU_REASON_APPLICATION_CLOCKS 0x2ull
#define GPU_REASON_SW_POWER_CAP 0x4ull
#define GPU_REASON_HW_SLOWDOWN 0x8ull
#define GPU_REASON_SYNC_BOOST 0x10ull
#define GPU_REASON_SW_THERMAL 0x20ull
#define GPU_REASON_HW_THERMAL 0x40ull
#define GPU_REASON_HW_POWER_BRAKE 0x80ull
#define GPU_REASON_DISPLAY_CLOCKS 0x100ull
/* The reasons that slow a timed set down: the power cap, thermal limits and the hardware's
 * slowdowns. Idle (between launches), the application clocks an administrator set, sync boost
 * and the display's clocks say nothing about this set. */
#define GPU_REASONS_THROTTLING                                                                     \
    (GPU_REASON_SW_POWER_CAP | GPU_REASON_HW_SLOWDOWN | GPU_REASON_SW_THERMAL |                    \
     GPU_REASON_HW_THERMAL | GPU_REASON_HW_POWER_BRAKE)

/* The GPU's state around one timed set. */
typedef struct gpu_clock_record {
    bool recorded;             /* NVML answered; false: the clock was not recorded */
    unsigned sm_mhz_before, sm_mhz_after, sm_mhz_max;
    uint64_t reasons_before, reasons_after;
    bool retimed;              /* the first set was throttled, and the set kept is a second */
    bool throttled;            /* the set kept was throttled (it was timed again, and still was) */
} gpu_clock_record;

bool gpu_timing_throttled(uint64_t reasons);

typedef enum gpu_set_action {
    GPU_SET_KEEP,   /* not throttled (or not recorded): the times stand */
    GPU_SET_RETIME, /* throttled the first time: time the set once more */
    GPU_SET_FLAG    /* throttled again: keep it, flagged */
} gpu_set_action;
/* What to do with the set `c` describes (its reasons before and after, and whether it is
 * already the second). */
gpu_set_action gpu_timing_after_set(const gpu_clock_record *c);

/* A device's peak rates, per second (0: unknown). */
typedef struct gpu_peaks {
    double flops; /* fp32: SMs x SM clock x GPU_FP32_LANES_PER_SM x 2 (a fused multiply-add) */
    double bytes; /* DRAM: memory clock x 2 (double data rate) x bus width / 8 */
} gpu_peaks;
#define GPU_FP32_LANES_PER_SM 128 /* Volta to Hopper */
/* From the device's SM count, highest SM clock, memory clock and bus width (0 where unknown). */
gpu_peaks gpu_timing_peaks(int sms, double sm_clock_mhz, double memory_clock_mhz, int bus_bits);

/* The least time a j x k x l matrix product can take at these peaks (ms): its 2jkl operations
 * at the fp32 rate, or its compulsory DRAM traffic (M and N read once, P written once, 4 bytes
 * each) at the DRAM rate, whichever is longer; 0 when the peaks are unknown. */
double gpu_timing_matmul_floor_ms(gpu_peaks p, int64_t j, int64_t k, int64_t l);
/* A time below GPU_TIMING_FLOOR_SHARE of the floor cannot be the work done (the share leaves
 * room for the clock reading and the events' resolution). */
#define GPU_TIMING_FLOOR_SHARE 0.95
bool gpu_timing_implausible(double ms, double floor_ms);

/* The record as JSON under `key` of `parent` (the replayer's result, run --json, the journal):
 * an object, or the string "not recorded"; and back (false, *c zeroed, when it is not an
 * object). */
struct cJSON;
void gpu_timing_clock_to_json(struct cJSON *parent, const char *key, const gpu_clock_record *c);
bool gpu_timing_clock_from_json(const struct cJSON *parent, const char *key, gpu_clock_record *c);

#endif /* TILELAB_GPU_TIMING_H */
