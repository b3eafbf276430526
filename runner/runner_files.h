/* Files: the kit's own small helpers, and reading and copying files a submission controls. */
#ifndef TILELAB_RUNNER_FILES_H
#define TILELAB_RUNNER_FILES_H

#include "harness.h"

#include <stddef.h>

/* The whole file as a NUL-terminated string (malloc'd; *len gets its length when not NULL),
 * or NULL when it cannot be read. */
char *files_read(const char *path, size_t *len);
/* Creates a folder and the folders above it that are missing (mode 0755), as mkdir -p does;
 * 0, or -1 with errno set. */
int files_make_dirs(const char *dir);
/* Removes a folder and everything in it (symbolic links are removed, not followed). */
void files_remove_tree(const char *dir);
/* Copies a file; 0 on success. */
int files_copy(const char *from, const char *to);

/* ---- files a submission controls (files_untrusted.c) ------------------------------------ */
/* Messages name the path made inert (tl_text_line): a submission chooses its file names. */

/* A regular file of at most max_bytes, NUL-terminated (malloc'd; *len gets its length when not
 * NULL). A symbolic link, FIFO, socket, device or folder is refused without being opened for
 * reading, a larger file without being read. NULL with err naming the path and why. */
char *files_read_untrusted(const char *path, size_t max_bytes, size_t *len, tl_error *err);
/* Copies a submission folder into `to` (created when missing): regular files (made 0644) and
 * folders (0755) at most 4 levels below `from`; names starting with '.' are skipped. A link,
 * FIFO, socket or device anywhere, more than max_files files and folders, or more than
 * max_total_bytes in all is refused, naming the offending path. No link is followed, even one
 * swapped in while the copy runs. On failure `to` may hold part of the copy. */
int files_copy_tree_untrusted(const char *from, const char *to, size_t max_total_bytes,
                              int max_files, tl_error *err);

#endif /* TILELAB_RUNNER_FILES_H */
