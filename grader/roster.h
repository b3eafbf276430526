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

/* How the outputs (the gradebook's `roster` column, the report, the table) say what the roster
 * knows of a student: a roster id without a folder, a folder without a roster id, and the
 * start of "matched folder \"s02\"" for a folder matched ignoring case or spaces. */
#define GRADER_NO_SUBMISSION "no submission"
#define GRADER_NOT_IN_ROSTER "not in the roster"
#define GRADER_MATCHED_FOLDER "matched folder "

/* Which submission folder is which roster id (roster_match.c). An instructor's roster and the
 * folders a platform or the students made seldom agree byte for byte ("S02" and "s02", "S02 "),
 * so a folder is matched, in this order:
 *  1. exactly: its name is a roster id. An exact match always wins, so no folder can take a
 *     roster id by a spelling that differs when the id's own folder is there;
 *  2. ignoring ASCII case and surrounding spaces, when that pairs it with one roster id that
 *     no folder matched exactly and no other folder left pairs with too (a warning names both
 *     spellings; the outputs then know the student by the roster's);
 * and otherwise not at all: folders left that compare equal this way to each other or to more
 * than one roster id are ambiguous, each is graded as a student of its own under its folder's
 * name, and none takes a roster row (a warning names them all). Every folder not in the roster
 * and every roster id without a folder is warned about. Folders that differ only in case are
 * two students, with or without a roster (warned about: a file system or a platform that folds
 * case would make them one). */
typedef struct grader_roster_match {
    int *row;        /* per folder: its roster row, -1 when none */
    int *folder;     /* per roster row: its folder, -1 when none */
    bool *relaxed;   /* per folder: matched ignoring case or spaces (its warning was given) */
    int nwarnings;
    char **warnings; /* one line each, the ids in them made inert (tl_text_line): the matches
                        ignoring case and the ambiguities in folder order, the folders only
                        case tells apart, then the folders missing from the roster, then the
                        roster ids without a folder */
} grader_roster_match;

/* Matches `n` folder names against the roster (NULL or empty: no roster, only the folders'
 * own ambiguities are warned about). 0, or -1 with err when memory runs out. */
int grader_roster_match_folders(const grader_roster *r, const char *const *folders, int n,
                                grader_roster_match *m, tl_error *err);
void grader_roster_match_free(grader_roster_match *m);

#endif /* TILELAB_GRADER_ROSTER_H */
