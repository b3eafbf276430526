/* The rules a GPU's timed set is judged by (gpu_timing.h). */
#include "gpu_timing.h"

#include <cjson/cJSON.h>
#include <math.h>

#define FMA_FLOPS 2.0
#define DDR_TRANSFERS_PER_CLOCK 2.0
#define BITS_PER_BYTE 8.0
#define FLOAT_BYTES 4.0

bool gpu_timing_throttled(uint64_t reasons)
{
    return (reasons & GPU_REASONS_THROTTLING) != 0;
}

gpu_set_action gpu_timing_after_set(const gpu_clock_record *c)
{
    if (!c->recorded || !gpu_timing_throttled(c->reasons_before | c->reasons_after))
        return GPU_SET_KEEP;
    return c->retimed ? GPU_SET_FLAG : GPU_SET_RETIME;
}

gpu_peaks gpu_timing_peaks(int sms, double sm_clock_mhz, double memory_clock_mhz, int bus_bits)
{
    gpu_peaks p = {0, 0};
    if (sms > 0 && sm_clock_mhz > 0)
        p.flops = sms * sm_clock_mhz * 1e6 * GPU_FP32_LANES_PER_SM * FMA_FLOPS;
    if (memory_clock_mhz > 0 && bus_bits > 0)
        p.bytes = memory_clock_mhz * 1e6 * DDR_TRANSFERS_PER_CLOCK * bus_bits / BITS_PER_BYTE;
    return p;
}

double gpu_timing_matmul_floor_ms(gpu_peaks p, int64_t j, int64_t k, int64_t l)
{
    if (!(p.flops > 0) || !(p.bytes > 0) || j <= 0 || k <= 0 || l <= 0)
        return 0;
    double flops = FMA_FLOPS * (double)j * (double)k * (double)l;
    double bytes = FLOAT_BYTES * ((double)j * k + (double)k * l + (double)j * l);
    return 1e3 * fmax(flops / p.flops, bytes / p.bytes);
}

bool gpu_timing_implausible(double ms, double floor_ms)
{
    return floor_ms > 0 && ms < GPU_TIMING_FLOOR_SHARE * floor_ms;
}

void gpu_timing_clock_to_json(cJSON *parent, const char *key, const gpu_clock_record *c)
{
    if (!c || !c->recorded) {
        cJSON_AddStringToObject(parent, key, "not recorded");
        return;
    }
    cJSON *o = cJSON_AddObjectToObject(parent, key);
    cJSON_AddNumberToObject(o, "sm_mhz_before", c->sm_mhz_before);
    cJSON_AddNumberToObject(o, "sm_mhz_after", c->sm_mhz_after);
    cJSON_AddNumberToObject(o, "sm_mhz_max", c->sm_mhz_max);
    /* NVML's bit masks, exact in a double */
    cJSON_AddNumberToObject(o, "reasons_before", (double)c->reasons_before);
    cJSON_AddNumberToObject(o, "reasons_after", (double)c->reasons_after);
    cJSON_AddBoolToObject(o, "retimed", c->retimed);
    cJSON_AddBoolToObject(o, "throttled", c->throttled);
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 ? v->valuedouble : 0;
}

bool gpu_timing_clock_from_json(const cJSON *parent, const char *key, gpu_clock_record *c)
{
    *c = (gpu_clock_record){0};
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!cJSON_IsObject(o))
        return false;
    c->recorded = true;
    c->sm_mhz_before = (unsigned)number(o, "sm_mhz_before");
    c->sm_mhz_after = (unsigned)number(o, "sm_mhz_after");
    c->sm_mhz_max = (unsigned)number(o, "sm_mhz_max");
    c->reasons_before = (uint64_t)number(o, "reasons_before");
    c->reasons_after = (uint64_t)number(o, "reasons_after");
    c->retimed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "retimed"));
    c->throttled = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "throttled"));
    return true;
}
