/* A class roster (grade --roster FILE): a CSV file, a header row naming its columns, one of
 * them "id" (the submission folder's name), the others (name, email, SIS id, ...) joined into
 * the gradebook beside each student. */
#ifndef TILELAB_GRADER_ROSTER_H
#define TILELAB_GRADER_ROSTER_H

#include "harness.h"

#define GRADER_ROSTER_MAX_BYTES (16u << 20)
#define GRADER_ROSTER_MAX_COLUMNS 32

typedef struct grader_roster {
    int ncols;                               /* the columns other than id, in file order */
    char *cols[GRADER_ROSTER_MAX_COLUMNS];
    int nrows;
    char **ids;                              /* nrows ids */
    char **values;                           /* nrows * ncols cells, row by row */
    /* A column named "submitted": when each student handed in (submitted.h), seconds since
     * the epoch per row, NAN for an empty cell; NULL without such a column (or any row). */
    double *submitted;
} grader_roster;

/* Reads an RFC 4180 roster (quoted cells, CRLF or LF, a UTF-8 byte order mark allowed). Errors
 * name the file and line: no "id" column, a row with a different number of cells, an id twice,
 * an empty id, an unclosed quote, a "submitted" cell that is not a time (grader_time_parse). */
int grader_roster_read(const char *path, grader_roster *r, tl_error *err);
void grader_roster_free(grader_roster *r);
/* The row of `id`, or -1. */
int grader_roster_find(const grader_roster *r, const char *id);

#endif /* TILELAB_GRADER_ROSTER_H */
