/* Inside the replayer's GPU backend: the SM clock and the throttle reasons of the device being
 * timed, from the driver's NVML library, loaded when the backend opens (dlopen of
 * libnvidia-ml.so.1, so that the replayer builds without NVML and still runs where it is
 * missing: the clock is then not recorded). */
#ifndef TILELAB_REPLAY_GPU_NVML_H
#define TILELAB_REPLAY_GPU_NVML_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gpu_nvml gpu_nvml;

/* NVML for the device whose PCI bus id is `pci_bus_id` (cudaDeviceGetPCIBusId's), or NULL
 * when the library, one of its functions or the device cannot be had. */
gpu_nvml *gpu_nvml_open(const char *pci_bus_id);
void gpu_nvml_close(gpu_nvml *n);
/* The SM clock now and its highest (MHz) and the current throttle reasons; false when NVML
 * did not answer. */
bool gpu_nvml_read(gpu_nvml *n, unsigned *sm_mhz, unsigned *sm_mhz_max, uint64_t *reasons);

#endif /* TILELAB_REPLAY_GPU_NVML_H */
