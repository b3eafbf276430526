/* The compiler's and linker's messages about a submission, as its student should read them:
 * their own file names, their own lines as they wrote them, and hints for the classic slips. */
#ifndef TILELAB_RUNNER_MESSAGES_H
#define TILELAB_RUNNER_MESSAGES_H

#include <stddef.h>

/* A file of the submission by the name a message gives it: its text (malloc'd, *len bytes), or
 * NULL when that name is not one of the submission's files. */
typedef char *(*messages_reader)(const char *name, size_t *len, void *ctx);

/* Every diagnostic about a file `read` knows, "F(LINE): error: ..." (nvcc's front end) or
 * "F:LINE:COL: error: ..." (the host compiler and preprocessor), shown with the student's own
 * line instead of the compiler's copy (which has the macros expanded), made inert, a caret
 * under the place the compiler points at, and a hint when one applies. The rest of the text is
 * left as it is. Returns a new text (malloc'd), or NULL when memory runs out. */
char *messages_annotate(const char *text, messages_reader read, void *ctx);

/* Rewrites *text (malloc'd nvcc and linker output) for the student: no folder of the grading
 * machine (out_dir, the sandbox's), no intermediate file, then messages_annotate with the
 * submission's files as staged in src_dir. */
void messages_for_student(char **text, const char *source_name, const char *out_dir,
                          const char *src_dir);

#endif /* TILELAB_RUNNER_MESSAGES_H */
