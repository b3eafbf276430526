/* Small file helpers shared by the commands and the grader. */
#ifndef TILELAB_FILES_H
#define TILELAB_FILES_H

#include <stddef.h>

/* The whole file as a NUL-terminated string (malloc'd; *len gets its length when not NULL),
 * or NULL when it cannot be read. */
char *files_read(const char *path, size_t *len);
/* Removes a folder and everything in it (symbolic links are removed, not followed). */
void files_remove_tree(const char *dir);
/* Copies a file; 0 on success. */
int files_copy(const char *from, const char *to);

#endif /* TILELAB_FILES_H */
