/* The lines of a preprocessed translation unit that the submission's own files wrote. */
#include "runner_own_code.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

bool runner_line_marker(const char *s, long *line, char *name, size_t size)
{
    if (s[0] != '#' || s[1] != ' ' || !isdigit((unsigned char)s[2]))
        return false;
    char *end = NULL;
    long n = strtol(s + 2, &end, 10);
    if (end[0] != ' ' || end[1] != '"' || n < 0 || n >= INT_MAX)
        return false;
    size_t len = 0;
    const char *p = end + 2;
    for (; *p && *p != '"'; p++) {
        char ch = *p;
        if (ch == '\\' && p[1] >= '0' && p[1] <= '7') {
            int v = 0, k = 0;
            for (; k < 3 && p[1] >= '0' && p[1] <= '7'; k++)
                v = v * 8 + (*++p - '0');
            ch = (char)v;
        } else if (ch == '\\' && p[1]) {
            ch = *++p;
        }
        if (len + 1 < size)
            name[len++] = ch;
    }
    name[len] = '\0';
    *line = n;
    return *p == '"';
}

/* A line marker for NAME, escaped as gcc escapes it; the bytes written, or -1. */
static int write_marker(FILE *out, long line, const char *name)
{
    int n = fprintf(out, "# %ld \"", line);
    for (const char *p = name; n >= 0 && *p; p++) {
        bool escaped = *p == '"' || *p == '\\';
        if ((escaped && fputc('\\', out) == EOF) || fputc(*p, out) == EOF)
            n = -1;
        else
            n += 1 + escaped;
    }
    return n < 0 || fputs("\"\n", out) == EOF ? -1 : n + 2;
}

int own_code_copy(FILE *ii, const char *inside, FILE *out)
{
    char *text = NULL, name[PATH_MAX], last[PATH_MAX] = "";
    size_t cap = 0, written = 0, inside_len = strlen(inside);
    long line = 1, expected = -1;
    bool own = false;
    int rc = 0;
    ssize_t n;
    while (rc == 0 && (n = getline(&text, &cap, ii)) > 0) {
        long at;
        if (runner_line_marker(text, &at, name, sizeof name)) {
            line = at;
            own = name[0] != '/' && name[0] != '<';
            if (!own && strncmp(name, inside, inside_len) == 0) {
                own = true;
                memmove(name, name + inside_len, strlen(name + inside_len) + 1);
            }
            if (own && strcmp(name, last) != 0) {
                snprintf(last, sizeof last, "%s", name);
                expected = -1;
            }
            continue;
        }
        if (own) {
            if (line != expected) {
                int m = write_marker(out, line, last);
                written += m > 0 ? (size_t)m : 0;
                rc = m < 0 ? -1 : 0;
            }
            written += (size_t)n;
            if (written > RUNNER_OWN_CODE_MAX_BYTES)
                rc = 1;
            else if (rc == 0 && fwrite(text, 1, (size_t)n, out) != (size_t)n)
                rc = -1;
            expected = line + 1;
        }
        line++;
    }
    free(text);
    return rc;
}
