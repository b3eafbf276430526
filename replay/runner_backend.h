/* The backends kernels are replayed on: one row each, and everything a command needs to know of
 * one read from its row (its name, whether it needs a CUDA device, whether its times are the
 * interpreter's, its repetitions), never from comparing names. Header-only, so that
 * tilelab-replay, which links nothing of the runner's library, reads the same names; runner.h
 * includes it, and runner_backend_default (runner.h) picks a command's backend once.
 *
 * A backend is a row of RUNNER_BACKEND_ROWS (docs/contributing.md, "Adding a backend"). A test
 * adds a toy one by defining RUNNER_EXTRA_BACKEND_ROWS(X) before it includes this header. */
#ifndef TILELAB_RUNNER_BACKEND_H
#define TILELAB_RUNNER_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* X(enumerator, name, device, emulated, reps):
 *   name      what --backend takes and outputs say
 *   device    it runs kernels on a CUDA device, and needs one
 *   emulated  its kernel times are the interpreter's, not a GPU's: performance comes from the
 *             performance model's prediction (docs/perfmodel.md), and no speed-up is drawn from
 *             its times
 *   reps      timed repetitions unless a command is told otherwise */
#define RUNNER_BACKEND_ROWS(X)                                                                    \
    X(RUNNER_GPU, "gpu", true, false, 10) /* kernels replayed on the CUDA device */              \
    X(RUNNER_CPU, "cpu", false, true, 3)  /* kernels replayed in the PTX interpreter */

#ifndef RUNNER_EXTRA_BACKEND_ROWS
#define RUNNER_EXTRA_BACKEND_ROWS(X)
#endif

#define RUNNER_BACKEND_ENUMERATOR(id, name, device, emulated, reps) id,
typedef enum runner_backend {
    RUNNER_BACKEND_ROWS(RUNNER_BACKEND_ENUMERATOR)
    RUNNER_EXTRA_BACKEND_ROWS(RUNNER_BACKEND_ENUMERATOR)
    RUNNER_BACKEND_COUNT
} runner_backend;
#undef RUNNER_BACKEND_ENUMERATOR

typedef struct runner_backend_info {
    const char *name;
    bool device;
    bool emulated;
    int reps;
} runner_backend_info;

/* The row of `b` (of the first backend for a value that names none). */
static inline const runner_backend_info *runner_backend_about(runner_backend b)
{
#define RUNNER_BACKEND_ROW(id, name, device, emulated, reps) {name, device, emulated, reps},
    static const runner_backend_info rows[] = {RUNNER_BACKEND_ROWS(RUNNER_BACKEND_ROW)
                                                   RUNNER_EXTRA_BACKEND_ROWS(RUNNER_BACKEND_ROW)};
#undef RUNNER_BACKEND_ROW
    return &rows[(unsigned)b < RUNNER_BACKEND_COUNT ? (unsigned)b : 0];
}

static inline const char *runner_backend_name(runner_backend b)
{
    return runner_backend_about(b)->name;
}

/* A backend's name as run, grade, bench and tilelab-replay take it (exactly a row's name):
 * false, and *out untouched, for anything else. */
static inline bool runner_backend_parse(const char *text, runner_backend *out)
{
    for (int i = 0; text && i < RUNNER_BACKEND_COUNT; i++)
        if (strcmp(text, runner_backend_name((runner_backend)i)) == 0) {
            *out = (runner_backend)i;
            return true;
        }
    return false;
}

/* The names for a message: "gpu or cpu" ("gpu, cpu or toy" with a third), cut to fit `size`.
 * Returns `out`. */
static inline const char *runner_backend_names(char *out, size_t size)
{
    size_t at = 0;
    for (int i = 0; i < RUNNER_BACKEND_COUNT; i++) {
        const char *parts[] = {i == 0 ? "" : i == RUNNER_BACKEND_COUNT - 1 ? " or " : ", ",
                               runner_backend_name((runner_backend)i)};
        for (int p = 0; p < 2; p++)
            for (const char *c = parts[p]; *c && at + 1 < size; c++)
                out[at++] = *c;
    }
    if (size)
        out[at] = '\0';
    return out;
}
#define RUNNER_BACKEND_NAMES_SIZE 128

#endif /* TILELAB_RUNNER_BACKEND_H */
