/* Inside the grader's outputs (not a public header): reading journal entries, in which every
 * field may be missing or null, and writing files atomically, made inert on the way. Shared by
 * outputs.c and outputs_entry.c. */
#ifndef TILELAB_GRADER_OUTPUTS_ENTRY_H
#define TILELAB_GRADER_OUTPUTS_ENTRY_H

#include "explain.h"
#include "outputs.h"

#include <stdbool.h>
#include <stdio.h>
/* The performance model stopped counting once the kernel was past the time that earns speed
 * points: its student_ms is a bound ("slower than"), not a time, and it is never ranked. */
bool entry_slower(const cJSON *e);

/* ---- reading entries ----------------------------------------------------------------------- */
const cJSON *entry_field(const cJSON *o, const char *key); /* NULL-safe */
const char *entry_str(const cJSON *o, const char *key);    /* NULL unless a string */
bool entry_num(const cJSON *o, const char *key, double *out); /* finite numbers only */
bool entry_positive(const cJSON *o, const char *key, double *out);
const char *entry_student(const cJSON *e);                 /* "" when missing */
bool entry_visible(const char *visibility);
bool entry_item_passed(const cJSON *item);
/* Whether o's "verdict" is v's name (tl_verdict_parse): an unknown or missing one is no verdict. */
bool entry_verdict_is(const cJSON *o, tl_verdict v);
bool entry_dataset_passed(const cJSON *d);
bool entry_predicted(const cJSON *e);
bool entry_dataset_shown(const cJSON *e, const cJSON *d);
/* A roster's student without a submission (grader_absent_entry). */
bool entry_absent(const cJSON *e);
/* Whether the student sees the performance now: its item's visibility is "visible" (the grader
 * gives it the hidden datasets' when there are any, since its points depend on them), or there
 * is no such item. Its ratio, times and leaderboard values are shown only then. */
bool entry_performance_shown(const cJSON *e);
/* A dataset's explanation (its verdict, detail and "explain" object); explain_free it. */
void entry_explanation(const cJSON *d, explanation *x);

typedef struct dataset_stats {
    int passed, total;
    double gflops; /* best over the passing ones: a wrong kernel must not top a leaderboard */
} dataset_stats;

dataset_stats entry_stats(const cJSON *e, bool shown_only);
double entry_ratio(const cJSON *e);

/* ---- the leaderboard (outputs_board.c) ---------------------------------------------------- */
/* Whether the entry has a "leaderboard" object; its rank and position, 0 when unranked. */
bool entry_board(const cJSON *e, int *rank, int *position);
bool board_any(cJSON *const *entries, int n);
/* The report's "Leaderboard" section: ranked entries in order, then the unranked and why. */
void report_leaderboard(FILE *f, cJSON *const *entries, int n);

/* Bytes of the compiler's messages a student is shown (feedback, results.json, their page) */
#define OUT_MESSAGES_SHOWN_MAX 8000

/* ---- writing ------------------------------------------------------------------------------- */
const char *out_fmt_num(char out[40], double v);
int out_check_entries(const char *path, cJSON *const *entries, int n, tl_error *err);

/* How a composed file is made inert before it is written: whatever a submission put in its
 * strings (escape sequences, invalid UTF-8, bidirectional overrides) cannot act where the file
 * is read. The grader's own text is plain UTF-8 and passes unchanged. */
typedef enum inert_rule {
    INERT_NONE,     /* every cell already made safe (the CSV) */
    INERT_UTF8,     /* valid UTF-8 (JSON: cJSON escapes the control characters itself) */
    INERT_TERMINAL  /* for text shown on terminals and in pages */
} inert_rule;

/* A file composed in memory (open_memstream), then written to a temporary file and renamed. */
typedef struct membuf {
    char *buf;
    size_t len;
    FILE *f;
    inert_rule rule; /* INERT_TERMINAL unless changed after out_open */
} membuf;

int out_open(membuf *m, const char *path, tl_error *err);
int out_commit(membuf *m, const char *path, tl_error *err);

typedef struct keyed {
    const char *key;
    int index;
} keyed;

/* Entry indices sorted by student id (malloc'd), NULL when memory runs out. */
keyed *out_sorted_by_student(cJSON *const *entries, int n);

#endif /* TILELAB_GRADER_OUTPUTS_ENTRY_H */
