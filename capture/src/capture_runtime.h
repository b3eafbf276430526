/* Between the capture runtime (capture_rt.c and capture_program.c, standing in for libcudart)
 * and the main of a capture program (capture_main.c) or its libwb layer (capture_wb.c). */
#ifndef TILELAB_CAPTURE_RUNTIME_H
#define TILELAB_CAPTURE_RUNTIME_H

#include "capture_log.h"

/* Device addresses handed to the host code are fake: buffer b lives at
 * CAPTURE_ADDRESS_BASE + b * CAPTURE_BUFFER_SPAN, where no host mapping is, so host code that
 * dereferences one faults exactly as it would on a GPU machine, and any 8-byte kernel argument
 * in that range names its buffer and offset without doubt. */
#define CAPTURE_ADDRESS_BASE UINT64_C(0x100000000000)
#define CAPTURE_BUFFER_SPAN CAPLOG_MAX_ALLOC_BYTES

/* The log being recorded. */
caplog *capture_log(void);
/* Reads the kernels' parameter sizes from the module's PTX (the build wrote it beside the
 * program). */
int capture_load_outline(const char *ptx_path, tl_error *err);
/* The fake device address of a buffer. */
void *capture_address(int buf);
/* Lab 01: the host matrices of the next host call (the only host memory whose bytes may be
 * copied to the device, and the only host memory a copy to is recorded). */
void capture_set_host_matrices(const void *m, const void *n, const void *p, uint64_t m_bytes,
                               uint64_t n_bytes, uint64_t p_bytes);
void capture_begin(caplog_call_kind kind, int j, int k, int l);
void capture_end(void);

/* Program calls (capture_program.c, called by capture_wb.c). A host input the program imported: its bytes may be copied to
 * the device. Returns its index (hI<n>), or -1 with the refusal recorded. */
int capture_add_host_input(const void *base, uint64_t bytes, int file, caplog_input_kind kind);
/* The memory the program hands to wbSolution: the device-to-host copies into it become copies
 * into hO, the others are dropped. -1 when there is no program call or it already answered. */
int capture_answer(const void *data, uint64_t bytes);
/* Ends the program call (its downloads dropped when it never answered). */
void capture_program_end(void);

#endif /* TILELAB_CAPTURE_RUNTIME_H */
