/* Between the two halves of the capture runtime: capture_rt.c (the CUDA calls every call
 * records) and capture_program.c (what only a program call does: its imported inputs, its
 * device-to-host copies until wbSolution names the answer, its copies to module variables).
 * These functions are linked into the student's program, hence the capture_ prefix on every
 * name. */
#ifndef TILELAB_CAPTURE_RT_STATE_H
#define TILELAB_CAPTURE_RT_STATE_H

#include "capture_runtime.h"

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A host range whose bytes the open call may copy to the device, and its host buffer. */
typedef struct capture_host_matrix {
    const uint8_t *base;
    uint64_t bytes;
    int buf;
} capture_host_matrix;

/* Whether a call is open (between capture_begin and capture_end), and of which kind. */
bool capture_in_call(void);
caplog_call_kind capture_call_kind(void);

/* Registers host memory the open call may copy to the device, as host buffer `buf`; cleared
 * when the call ends. */
void capture_add_host_matrix(const void *base, uint64_t bytes, int buf);
/* The harness's host matrix a host range lies wholly in, if any. */
const capture_host_matrix *capture_host_ref(const void *ptr, size_t count, caplog_ref *ref);
/* The device buffer an address lies in, if any: a live one of this call. */
bool capture_device_ref(const void *ptr, caplog_ref *ref);
/* Whether `count` bytes from r lie within its device buffer. */
bool capture_in_bounds(caplog_ref r, size_t count);

/* Fails a call: the host code's next cudaGetLastError sees `e`. */
cudaError_t capture_fail(cudaError_t e);
/* Refuses a call: the reason goes into the log and the host code gets an error. */
cudaError_t capture_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Adds an operation to the open call (refused outside one). */
cudaError_t capture_record(const caplog_op *op);

/* A program's copy of host bytes to device memory (or a module variable) at `d`. */
cudaError_t capture_program_upload(caplog_ref d, const void *src, size_t count);
/* Device to host in a program: kept aside until wbSolution names the answer's memory. */
cudaError_t capture_program_download(caplog_ref s, void *dst, size_t count);

#endif /* TILELAB_CAPTURE_RT_STATE_H */
