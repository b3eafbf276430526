/* Runtime calls the toolkit removed that harness/cuda_removed.h supplies: which of them a
 * submission's own code calls, said in one line for the student ("this program calls
 * cudaThreadSynchronize, removed in CUDA 13; the kit maps it to cudaDeviceSynchronize"). The
 * build keeps the line in runner_program.notes; run and grade show it. */
#ifndef TILELAB_RUNNER_REMOVED_H
#define TILELAB_RUNNER_REMOVED_H

#include <stddef.h>

/* Writes to `note` (size bytes) the line for the calls `own` (the submission's own preprocessed
 * code: runner_program.own_code's text, line markers and all) makes to runtime functions that
 * toolkit version `cudart_version` (CUDART_VERSION: 13000 for 13.0) no longer has, with the
 * file and line of the first; "" when none. A name inside a string or character literal (a
 * message, a macro's #stmt) is not a call. Returns how many different calls were found. */
int removed_calls_note(const char *own, int cudart_version, char *note, size_t size);

#endif /* TILELAB_RUNNER_REMOVED_H */
