/* When a submission was handed in, for the leaderboard's ties: only ever from the instructor's
 * side (a roster's `submitted` column, Gradescope's submission_metadata.json), never from
 * anything in the submission's folder, whose files and their times the student controls. */
#ifndef TILELAB_GRADER_SUBMITTED_H
#define TILELAB_GRADER_SUBMITTED_H

#include "harness.h"

/* Room for a time as grader_time_format writes it, with its NUL. */
#define GRADER_TIME_TEXT_MAX 40
/* The largest submission_metadata.json read (Gradescope's is a few KiB). */
#define GRADER_METADATA_MAX_BYTES (1u << 20)
/* What a time may look like, for error messages. */
#define GRADER_TIME_FORMS "an ISO 8601 time with a zone (2026-11-20T23:59:00Z, " \
                          "2026-11-20T18:59:00-05:00) or \"YYYY-MM-DD HH:MM[:SS]\" in UTC"

/* Seconds since 1970-01-01T00:00:00Z of `text`: YYYY-MM-DDTHH:MM[:SS[.fraction]] followed by Z
 * or an offset (+HH:MM, +HHMM, +HH), or the same with a space for the T, whose time without a
 * zone is UTC. Surrounding spaces are allowed. 0, or -1 when it is none of these or names no
 * real date (2026-02-30). */
int grader_time_parse(const char *text, double *seconds);
/* `seconds` as ISO 8601 in UTC: 2026-11-21T04:59:00Z, with the fraction of a second when it
 * has one (to the microsecond, trailing zeros dropped). */
void grader_time_format(double seconds, char out[GRADER_TIME_TEXT_MAX]);
/* Gradescope's submission_metadata.json: its `created_at`. 0, or -1 with err naming the file
 * and what is wrong with it. */
int grader_submitted_from_metadata(const char *path, double *seconds, tl_error *err);

#endif /* TILELAB_GRADER_SUBMITTED_H */
