/* The performance model's policy that the replays carry out (runner_model.c). */
#ifndef TILELAB_RUNNER_MODEL_H
#define TILELAB_RUNNER_MODEL_H

#include <stdbool.h>
#include <stddef.h>

/* The replayer's --busy-limits argument for a busy limit of `ms` (perfmodel's
 * pm_busy_limits_for) into out; false (out untouched) when ms is 0: no limit. */
bool runner_busy_limits_arg(double ms, char *out, size_t size);

#endif
