/* NVML through dlopen (replay_gpu_nvml.h). The few entry points used are declared here from
 * NVML's documented C interface: every one returns an nvmlReturn_t (0 is success), a device is
 * an opaque handle, a clock is asked for by its type (the SM's is 1). */
#define _GNU_SOURCE /* RTLD_LOCAL and dlopen's friends under _POSIX_C_SOURCE */
#include "replay_gpu_nvml.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define NVML_LIBRARY "libnvidia-ml.so.1"
#define NVML_SUCCESS 0
#define NVML_CLOCK_SM 1

typedef struct nvml_device_st *nvml_device;
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_shutdown_fn)(void);
typedef int (*nvml_by_pci_fn)(const char *bus_id, nvml_device *out);
typedef int (*nvml_clock_fn)(nvml_device d, int type, unsigned *mhz);
typedef int (*nvml_reasons_fn)(nvml_device d, unsigned long long *reasons);

struct gpu_nvml {
    void *library;
    nvml_device device;
    nvml_shutdown_fn shutdown;
    nvml_clock_fn clock, max_clock;
    nvml_reasons_fn reasons;
};

/* A function pointer from the library: dlsym's object pointer, converted through memcpy as
 * POSIX allows. */
static void *symbol(void *library, const char *name, size_t size, void *out)
{
    void *p = dlsym(library, name);
    if (p)
        memcpy(out, &p, size);
    return p;
}
#define SYMBOL(lib, name, out) symbol((lib), (name), sizeof *(out), (out))

gpu_nvml *gpu_nvml_open(const char *pci_bus_id)
{
    void *library = dlopen(NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!library)
        return NULL;
    gpu_nvml *n = calloc(1, sizeof *n);
    nvml_init_fn init = NULL;
    nvml_by_pci_fn by_pci = NULL;
    bool ok = n && SYMBOL(library, "nvmlInit_v2", &init) &&
              SYMBOL(library, "nvmlShutdown", &n->shutdown) &&
              SYMBOL(library, "nvmlDeviceGetHandleByPciBusId_v2", &by_pci) &&
              SYMBOL(library, "nvmlDeviceGetClockInfo", &n->clock) &&
              SYMBOL(library, "nvmlDeviceGetMaxClockInfo", &n->max_clock) &&
              (SYMBOL(library, "nvmlDeviceGetCurrentClocksEventReasons", &n->reasons) ||
               SYMBOL(library, "nvmlDeviceGetCurrentClocksThrottleReasons", &n->reasons));
    if (ok && init() != NVML_SUCCESS) {
        ok = false;
        n->shutdown = NULL;
    }
    if (ok && by_pci(pci_bus_id, &n->device) != NVML_SUCCESS)
        ok = false;
    if (!ok) {
        if (n && n->shutdown)
            n->shutdown();
        free(n);
        dlclose(library);
        return NULL;
    }
    n->library = library;
    return n;
}

void gpu_nvml_close(gpu_nvml *n)
{
    if (!n)
        return;
    n->shutdown();
    dlclose(n->library);
    free(n);
}

bool gpu_nvml_read(gpu_nvml *n, unsigned *sm_mhz, unsigned *sm_mhz_max, uint64_t *reasons)
{
    unsigned long long r = 0;
    if (!n || n->clock(n->device, NVML_CLOCK_SM, sm_mhz) != NVML_SUCCESS ||
        n->max_clock(n->device, NVML_CLOCK_SM, sm_mhz_max) != NVML_SUCCESS ||
        n->reasons(n->device, &r) != NVML_SUCCESS)
        return false;
    *reasons = r;
    return true;
}
