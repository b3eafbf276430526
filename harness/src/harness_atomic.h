/* Inside the harness library: writing a file so that a reader never sees half of it. */
#ifndef TILELAB_HARNESS_ATOMIC_H
#define TILELAB_HARNESS_ATOMIC_H

#include "harness.h"

/* Writes the file's content to `f`; returns 0, or -1 with errno set when a write failed. */
typedef int (*harness_body_fn)(FILE *f, const void *ctx);

/* body(f, ctx) goes to a temporary file in the target's folder, which is then renamed over
 * `path`; a failure leaves the old file as it was. The file gets the permissions a plain fopen
 * would give it, or keeps those of the file it replaces. `shown` names the file in messages. */
int harness_write_atomic(const char *path, const char *shown, harness_body_fn body,
                         const void *ctx, tl_error *err);

#endif /* TILELAB_HARNESS_ATOMIC_H */
