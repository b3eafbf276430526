/* Suggestions for the classic slips of a first CUDA program, drawn from one compiler message
 * and the student's line: a misspelt built-in ("did you mean __syncthreads?"), threadIdx used
 * as a number, a kernel called without <<< >>>. */
#ifndef TILELAB_RUNNER_HINTS_H
#define TILELAB_RUNNER_HINTS_H

#include <stdbool.h>
#include <stddef.h>

/* Room for one hint (one line). */
#define HINTS_TEXT_MAX 320

/* The edit distance between a and b (insertions, deletions and substitutions of one byte),
 * computed no further than `cap`: any distance above it is returned as cap + 1. */
int hints_distance(const char *a, const char *b, int cap);

/* The CUDA built-in `name` most likely stands for (a misspelling or a wrong case), or NULL when
 * none is close enough or `name` is one itself. */
const char *hints_closest_builtin(const char *name);

/* A hint for one compiler message. `message`: its text after "error: " (or "warning: "), the
 * compiler's further lines after a newline; `line`: the student's line it is about (NULL when
 * unknown); `at`: the byte of `line` the compiler points at, -1 when none. Writes one line of
 * plain ASCII into out and returns true, or returns false when there is nothing to suggest. */
bool hints_for(const char *message, const char *line, int at, char *out, size_t size);

#endif /* TILELAB_RUNNER_HINTS_H */
