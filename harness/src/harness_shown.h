/* Inside the harness library: the tokens of text files. File names and tokens quoted in error
 * messages, so that one message stays one readable line whatever bytes a file holds, and number
 * tokens read as float32 with the same complaints in every format. */
#ifndef TILELAB_HARNESS_SHOWN_H
#define TILELAB_HARNESS_SHOWN_H

#include "harness.h"

/* How much of a file name or token goes into a message. */
#define HARNESS_SHOW_MAX 200
#define HARNESS_SHOW_TOKEN_MAX 40
#define HARNESS_NAME_BUF (HARNESS_SHOW_MAX + 16)

/* Copies `s` (n bytes, not NUL-terminated) into buf for display, escaping bytes that could break
 * the line or a terminal (control characters, quotes, non-ASCII) and eliding past max_shown. */
const char *harness_show(char *buf, size_t size, const char *s, size_t n, size_t max_shown);
/* A file name for messages; NULL reads "<memory>". */
const char *harness_show_name(char buf[HARNESS_NAME_BUF], const char *name);

/* The shape of every complaint about one token of a text file:
 * "name:line:col: <what>, found "<token>"". Returns -1. */
int harness_token_error(tl_error *err, const char *nm, long long line, long long col,
                        const char *tok, size_t len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* Longest number token the text readers accept; the cap also bounds the copy made for strtof. */
#define HARNESS_TOKEN_MAX 64

/* Where a value is, for messages: `format` with two numbers ("value %lld of %lld", "row %lld,
 * column %lld"), formatted only when there is something to complain about. */
typedef struct harness_where {
    const char *format;
    long long a, b;
} harness_where;

/* One number token (len bytes at line:col) as a finite float32; -1 with harness_token_error's
 * message otherwise. */
int harness_parse_float(const char *nm, long long line, long long col, const char *tok,
                        size_t len, harness_where where, float *out, tl_error *err);

#endif /* TILELAB_HARNESS_SHOWN_H */
