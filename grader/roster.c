/* The roster reader: RFC 4180 CSV, checked row by row, every error with its line. */
#include "roster.h"
#include "util.h"
#include "submitted.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct cursor {
    const char *p, *end;
    int line;
} cursor;

/* One cell into a new string; *row_end tells whether the row ended after it. NULL with err on
 * an unclosed quote. */
static char *cell(cursor *c, bool *row_end, const char *path, tl_error *err)
{
    size_t cap = 64, n = 0;
    char *out = malloc(cap);
    bool quoted = c->p < c->end && *c->p == '"';
    int start_line = c->line;
    if (quoted)
        c->p++;
    while (out) {
        if (c->p >= c->end) {
            if (quoted) {
                free(out);
                tl_error_set(err, "%s:%d: a quoted cell is never closed", path, start_line);
                return NULL;
            }
            *row_end = true;
            break;
        }
        char ch = *c->p;
        if (quoted && ch == '"') {
            if (c->p + 1 < c->end && c->p[1] == '"') {
                c->p += 2;
                ch = '"';
            } else {
                quoted = false;
                c->p++;
                continue;
            }
        } else if (!quoted && (ch == ',' || ch == '\n' || ch == '\r')) {
            *row_end = ch != ',';
            if (ch == '\r' && c->p + 1 < c->end && c->p[1] == '\n')
                c->p++;
            c->p++;
            if (*row_end)
                c->line++;
            break;
        } else {
            if (ch == '\n')
                c->line++;
            c->p++;
        }
        if (n + 2 > cap) {
            char *grown = realloc(out, cap *= 2);
            if (!grown) {
                free(out);
                out = NULL;
                break;
            }
            out = grown;
        }
        out[n++] = ch;
    }
    if (!out) {
        tl_error_set(err, "%s: out of memory", path);
        return NULL;
    }
    out[n] = '\0';
    return out;
}

/* One row's cells (at most max); the count, or -1 with err. */
static int row(cursor *c, char **cells, int max, const char *path, tl_error *err)
{
    int n = 0;
    bool end = false;
    int line = c->line;
    while (!end) {
        char *s = cell(c, &end, path, err);
        if (!s)
            break;
        if (n == max) {
            free(s);
            tl_error_set(err, "%s:%d: more than %d columns", path, line, max);
            break;
        }
        cells[n++] = s;
    }
    if (err->msg[0]) {
        for (int i = 0; i < n; i++)
            free(cells[i]);
        return -1;
    }
    return n;
}

int grader_roster_read(const char *path, grader_roster *r, tl_error *err)
{
    memset(r, 0, sizeof *r);
    err->msg[0] = '\0';
    size_t len = 0;
    char *text = files_read(path, &len);
    if (!text)
        return tl_error_set(err, "%s: cannot read the roster", path);
    if (len > GRADER_ROSTER_MAX_BYTES) {
        free(text);
        return tl_error_set(err, "%s: the roster is over %u bytes", path, GRADER_ROSTER_MAX_BYTES);
    }
    cursor c = {text, text + len, 1};
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        c.p += 3;
    char *head[GRADER_ROSTER_MAX_COLUMNS + 1];
    int nhead = row(&c, head, GRADER_ROSTER_MAX_COLUMNS + 1, path, err);
    int id_col = -1, submitted_col = -1;
    for (int i = 0; i < nhead; i++) {
        if (strcasecmp(head[i], "id") == 0 && id_col < 0)
            id_col = i;
        else if (strcasecmp(head[i], "submitted") == 0 && submitted_col < 0)
            submitted_col = i;
    }
    int rc = 0;
    if (nhead < 0) {
        rc = -1;
    } else if (id_col < 0) {
        rc = tl_error_set(err, "%s:1: the header row names no \"id\" column (the submission "
                          "folders' names), found %d column(s)", path, nhead);
    }
    for (int i = 0; i < nhead; i++) {
        if (rc == 0 && i != id_col)
            r->cols[r->ncols++] = head[i];
        else
            free(head[i]);
    }
    while (rc == 0 && c.p < c.end) {
        int line = c.line;
        char *cells[GRADER_ROSTER_MAX_COLUMNS + 1];
        int n = row(&c, cells, GRADER_ROSTER_MAX_COLUMNS + 1, path, err);
        if (n < 0) {
            rc = -1;
            break;
        }
        bool blank = n == 1 && cells[0][0] == '\0';
        if (!blank && n != nhead)
            rc = tl_error_set(err, "%s:%d: %d cell(s), the header has %d", path, line, n, nhead);
        else if (!blank && !cells[id_col][0])
            rc = tl_error_set(err, "%s:%d: the id is empty", path, line);
        else if (!blank && grader_roster_find(r, cells[id_col]) >= 0)
            rc = tl_error_set(err, "%s:%d: id \"%.100s\" is in the roster twice", path, line,
                              cells[id_col]);
        double when = NAN;
        if (rc == 0 && !blank && submitted_col >= 0 && cells[submitted_col][0] &&
            grader_time_parse(cells[submitted_col], &when) != 0)
            rc = tl_error_set(err, "%s:%d: submitted \"%.60s\" is not %s", path, line,
                              cells[submitted_col], GRADER_TIME_FORMS);
        if (rc != 0 || blank) {
            for (int i = 0; i < n; i++)
                free(cells[i]);
            continue;
        }
        char **ids = realloc(r->ids, (size_t)(r->nrows + 1) * sizeof *ids);
        char **values = ids ? realloc(r->values, (size_t)(r->nrows + 1) * (size_t)(r->ncols ? r->ncols : 1) * sizeof *values) : NULL;
        double *times = values && submitted_col >= 0
                            ? realloc(r->submitted, (size_t)(r->nrows + 1) * sizeof *times)
                            : NULL;
        if (ids)
            r->ids = ids;
        if (values)
            r->values = values;
        if (times)
            r->submitted = times;
        if (!ids || !values || (submitted_col >= 0 && !times)) {
            for (int i = 0; i < n; i++)
                free(cells[i]);
            rc = tl_error_set(err, "%s: out of memory", path);
            break;
        }
        if (times)
            times[r->nrows] = when;
        r->ids[r->nrows] = cells[id_col];
        for (int i = 0, k = 0; i < n; i++)
            if (i != id_col)
                r->values[(size_t)r->nrows * (size_t)r->ncols + (size_t)k++] = cells[i];
        r->nrows++;
    }
    free(text);
    if (rc != 0)
        grader_roster_free(r);
    return rc;
}

void grader_roster_free(grader_roster *r)
{
    for (int i = 0; i < r->ncols; i++)
        free(r->cols[i]);
    for (int i = 0; i < r->nrows; i++) {
        free(r->ids[i]);
        for (int k = 0; k < r->ncols; k++)
            free(r->values[(size_t)i * (size_t)r->ncols + (size_t)k]);
    }
    free(r->ids);
    free(r->values);
    free(r->submitted);
    memset(r, 0, sizeof *r);
}

int grader_roster_find(const grader_roster *r, const char *id)
{
    for (int i = 0; i < r->nrows; i++)
        if (strcmp(r->ids[i], id) == 0)
            return i;
    return -1;
}
