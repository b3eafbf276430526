/* The submission's own code as the compiler saw it: the lines of the device compilation's
 * preprocessed translation unit (nvcc -keep's .cpp1.ii) that came from the submission's own
 * files, with every macro expanded. The build keeps it (runner_program.own_code) so that a check
 * can tell what the student wrote from what the toolkit's headers brought in. */
#ifndef TILELAB_RUNNER_OWN_CODE_H
#define TILELAB_RUNNER_OWN_CODE_H

#include "runner.h"

#include <stdio.h>

/* Copies from `ii` (the preprocessor's output) to `out` the lines of the submission's files:
 * those under a line marker naming a relative path or a path below `inside` (the submission's
 * folder as the compiler saw it, ending in '/'). Each stretch copied starts with a line marker
 * `# LINE "NAME"`, NAME relative to the submission. Only gcc's own markers count: a '#' in
 * column 0 followed by a line number and a quoted name (a macro cannot put a '#' there: the
 * preprocessor writes a blank before it). Returns 0, 1 when more than RUNNER_OWN_CODE_MAX_BYTES would
 * be written, -1 on a write error. */
int own_code_copy(FILE *ii, const char *inside, FILE *out);

#endif /* TILELAB_RUNNER_OWN_CODE_H */
