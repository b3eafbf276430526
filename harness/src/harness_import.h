/* Inside the harness library: reading files (file_read.c), and what import.c (tl_import_file)
 * shares with the readers of each format, matrix_io.c, csv_io.c and image_io.c. */
#ifndef TILELAB_HARNESS_IMPORT_H
#define TILELAB_HARNESS_IMPORT_H

#include "harness.h"

#include <sys/stat.h>
#include <sys/types.h>

/* ---- file_read.c ---- */
/* Reads until n bytes or end of file; returns the count, or -1 with errno set. */
ssize_t harness_read_full(int fd, void *buf, size_t n);
/* The rest of an open file (a regular file or a pipe, st its fstat) in a malloc'd buffer with a
 * NUL after its `len` bytes. `nm` names it in messages. */
int harness_read_rest(int fd, const char *nm, const struct stat *st, char **buf, size_t *len,
                      tl_error *err);
/* The whole of `path`, as harness_read_rest. */
int harness_read_all(const char *path, const char *nm, char **buf, size_t *len, tl_error *err);

/* A CSV table (tl_import_kind's TL_IMPORT_REAL says which) of float32 values, fields separated
 * by `sep` (',' or '\t'); -1 with "name:line:col: ..." for anything else. */
int harness_csv_parse(const char *nm, const char *s, size_t len, char sep, tl_matrix *out,
                      tl_error *err);
/* True when the first line that is not blank holds a comma: a CSV table, not libwb raw text
 * (whose header is "rows cols"). */
bool harness_looks_like_csv(const char *s, size_t len);

/* A PPM or PGM image (TL_IMPORT_IMAGE) from bytes in memory. */
int harness_image_parse(const char *nm, const unsigned char *b, size_t len, tl_import *out,
                        tl_error *err);

#endif /* TILELAB_HARNESS_IMPORT_H */
