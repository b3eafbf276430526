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

/* Where the header row put the columns the grader reads. */
typedef struct roster_layout {
    int ncells;        /* the header's cells: every row has as many */
    int id, submitted; /* their columns, -1 when absent */
} roster_layout;

/* The header row: the roster's own columns (every one but the id) go into r. */
static int read_header(cursor *c, grader_roster *r, roster_layout *l, const char *path,
                       tl_error *err)
{
    char *head[GRADER_ROSTER_MAX_COLUMNS + 1];
    int nhead = row(c, head, GRADER_ROSTER_MAX_COLUMNS + 1, path, err);
    *l = (roster_layout){nhead, -1, -1};
    for (int i = 0; i < nhead; i++) {
        if (strcasecmp(head[i], "id") == 0 && l->id < 0)
            l->id = i;
        else if (strcasecmp(head[i], "submitted") == 0 && l->submitted < 0)
            l->submitted = i;
    }
    int rc = 0;
    if (nhead < 0) {
        rc = -1;
    } else if (l->id < 0) {
        rc = tl_error_set(err, "%s:1: the header row names no \"id\" column (the submission "
                          "folders' names), found %d column(s)", path, nhead);
    }
    for (int i = 0; i < nhead; i++) {
        if (rc == 0 && i != l->id)
            r->cols[r->ncols++] = head[i];
        else
            free(head[i]);
    }
    return rc;
}

/* A row of n cells at `line` against the header and the rows before it; its time submitted
 * into *when (NAN when it has none). */
static int check_row(const grader_roster *r, const roster_layout *l, char **cells, int n,
                     int line, double *when, const char *path, tl_error *err)
{
    *when = NAN;
    if (n != l->ncells)
        return tl_error_set(err, "%s:%d: %d cell(s), the header has %d", path, line, n,
                            l->ncells);
    if (!cells[l->id][0])
        return tl_error_set(err, "%s:%d: the id is empty", path, line);
    if (grader_roster_find(r, cells[l->id]) >= 0)
        return tl_error_set(err, "%s:%d: id \"%.100s\" is in the roster twice", path, line,
                            cells[l->id]);
    if (l->submitted >= 0 && cells[l->submitted][0] &&
        grader_time_parse(cells[l->submitted], when) != 0)
        return tl_error_set(err, "%s:%d: submitted \"%.60s\" is not %s", path, line,
                            cells[l->submitted], GRADER_TIME_FORMS);
    return 0;
}

/* Appends a checked row, taking its cells. */
static int add_row(grader_roster *r, const roster_layout *l, char **cells, int n, double when,
                   const char *path, tl_error *err)
{
    size_t rows = (size_t)r->nrows + 1;
    char **ids = realloc(r->ids, rows * sizeof *ids);
    size_t nvalues = rows * (size_t)(r->ncols ? r->ncols : 1);
    char **values = ids ? realloc(r->values, nvalues * sizeof *values) : NULL;
    double *times = values && l->submitted >= 0 ? realloc(r->submitted, rows * sizeof *times)
                                                : NULL;
    if (ids)
        r->ids = ids;
    if (values)
        r->values = values;
    if (times)
        r->submitted = times;
    if (!ids || !values || (l->submitted >= 0 && !times)) {
        for (int i = 0; i < n; i++)
            free(cells[i]);
        return tl_error_set(err, "%s: out of memory", path);
    }
    if (times)
        times[r->nrows] = when;
    r->ids[r->nrows] = cells[l->id];
    for (int i = 0, k = 0; i < n; i++)
        if (i != l->id)
            r->values[(size_t)r->nrows * (size_t)r->ncols + (size_t)k++] = cells[i];
    r->nrows++;
    return 0;
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
    roster_layout l;
    int rc = read_header(&c, r, &l, path, err);
    while (rc == 0 && c.p < c.end) {
        int line = c.line;
        char *cells[GRADER_ROSTER_MAX_COLUMNS + 1];
        int n = row(&c, cells, GRADER_ROSTER_MAX_COLUMNS + 1, path, err);
        if (n < 0) {
            rc = -1;
            break;
        }
        double when;
        bool blank = n == 1 && cells[0][0] == '\0';
        rc = blank ? 0 : check_row(r, &l, cells, n, line, &when, path, err);
        if (rc != 0 || blank) {
            for (int i = 0; i < n; i++)
                free(cells[i]);
            continue;
        }
        rc = add_row(r, &l, cells, n, when, path, err);
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
