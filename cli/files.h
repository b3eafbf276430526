/* Small file helpers shared by the commands and the grader. */
#ifndef TILELAB_FILES_H
#define TILELAB_FILES_H

#include "harness.h"

#include <stddef.h>

/* The whole file as a NUL-terminated string (malloc'd; *len gets its length when not NULL),
 * or NULL when it cannot be read. */
char *files_read(const char *path, size_t *len);
/* Removes a folder and everything in it (symbolic links are removed, not followed). */
void files_remove_tree(const char *dir);
/* Copies a file; 0 on success. */
int files_copy(const char *from, const char *to);

/* ---- files a submission controls (files_untrusted.c) ------------------------------------ */
/* A regular file of at most max_bytes, NUL-terminated (malloc'd): a symbolic link, FIFO,
 * device or folder is refused without being opened for reading, a larger file without being
 * read. NULL with err naming the path and why. */
char *files_read_untrusted(const char *path, size_t max_bytes, size_t *len, tl_error *err);
/* Copies a submission folder: regular files and folders only (at most 4 deep, names starting
 * with '.' skipped); a link or special file anywhere, more than max_files files or more than
 * max_total_bytes in all is refused, naming the offending path. */
int files_copy_tree_untrusted(const char *from, const char *to, size_t max_total_bytes,
                              int max_files, tl_error *err);

#endif /* TILELAB_FILES_H */
