/* Matching submission folders to roster ids: exactly, then ignoring case and surrounding
 * spaces when that is one to one (roster.h gives the rules), with a warning for every
 * spelling that differs and every student found on one side only. */
#include "roster.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest id a warning quotes in full; longer ones are cut (the outputs have them whole). */
#define SHOWN_ID_MAX 120
#define WARNING_MAX 1024
/* The most names one warning lists; the rest are counted. */
#define LISTED_MAX 8

static bool ascii_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* An id as the relaxed rule compares it: ASCII letters in lower case, no surrounding spaces.
 * Other bytes stay as they are: folding them would need an encoding nothing tells. */
static char *relaxed_key(const char *id)
{
    size_t a = 0, b = strlen(id);
    while (a < b && ascii_space(id[a]))
        a++;
    while (b > a && ascii_space(id[b - 1]))
        b--;
    char *key = malloc(b - a + 1);
    for (size_t i = a; key && i < b; i++)
        key[i - a] = id[i] >= 'A' && id[i] <= 'Z' ? (char)(id[i] - 'A' + 'a') : id[i];
    if (key)
        key[b - a] = '\0';
    return key;
}

/* The working state of one matching: the relaxed keys of both sides, and per folder whether a
 * warning already named it as ambiguous. */
typedef struct matcher {
    grader_roster_match *m;
    const grader_roster *r;
    const char *const *folders;
    int n, rows;
    char **fkey, **rkey;
    int *group_f, *group_r; /* scratch: the members of one group */
    bool *seen, *told;
    bool failed; /* out of memory */
} matcher;

static void warn(matcher *mt, const char *fmt, ...)
{
    char line[WARNING_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    grader_roster_match *m = mt->m;
    char **grown = realloc(m->warnings, (size_t)(m->nwarnings + 1) * sizeof *grown);
    char *copy = grown ? strdup(line) : NULL;
    if (grown)
        m->warnings = grown;
    if (!copy) {
        mt->failed = true;
        return;
    }
    m->warnings[m->nwarnings++] = copy;
}

/* "name" with the name made inert and cut to SHOWN_ID_MAX bytes, never inside a character. */
static void quoted(const char *id, char *out, size_t size)
{
    char *line = tl_text_line(id, strlen(id));
    size_t len = line ? strlen(line) : 0, cut = len;
    if (len > SHOWN_ID_MAX)
        for (cut = SHOWN_ID_MAX; cut > 0 && ((unsigned char)line[cut] & 0xC0) == 0x80; cut--)
            ;
    snprintf(out, size, "\"%.*s%s\"", (int)cut, line ? line : "?", cut < len ? "..." : "");
    free(line);
}

/* The names ids[which[0..k-1]] as "a", "a" and "b", "a", "b" and "c", ..., the list cut after
 * LISTED_MAX with how many more. */
static void listed(const char *const *ids, const int *which, int k, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < k && len < size; i++) {
        char name[SHOWN_ID_MAX + 16];
        if (i == LISTED_MAX) {
            snprintf(out + len, size - len, " and %d more", k - LISTED_MAX);
            return;
        }
        quoted(ids[which[i]], name, sizeof name);
        int w = snprintf(out + len, size - len, "%s%s",
                         i == 0 ? "" : i == k - 1 && k <= LISTED_MAX ? " and " : ", ", name);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* 1. Exactly. Roster ids are distinct (grader_roster_read), and so are folder names. */
static void match_exactly(matcher *mt)
{
    for (int i = 0; mt->rows > 0 && i < mt->n; i++) {
        int j = grader_roster_find(mt->r, mt->folders[i]);
        if (j >= 0)
            mt->m->row[i] = j, mt->m->folder[j] = i;
    }
}

/* 2. The folders left, ignoring case and spaces, where that pairs one folder with one roster id
 * left: a group of folders with one key against the roster ids left with that key. */
static void match_relaxed(matcher *mt)
{
    grader_roster_match *m = mt->m;
    char names[WARNING_MAX / 2], others[WARNING_MAX / 2];
    memset(mt->seen, 0, (size_t)(mt->n > 0 ? mt->n : 1) * sizeof *mt->seen);
    for (int i = 0; !mt->failed && mt->rows > 0 && i < mt->n; i++) {
        if (m->row[i] >= 0 || mt->seen[i])
            continue;
        int kf = 0, kr = 0;
        for (int t = i; t < mt->n; t++)
            if (m->row[t] < 0 && strcmp(mt->fkey[t], mt->fkey[i]) == 0)
                mt->group_f[kf++] = t, mt->seen[t] = true;
        for (int j = 0; j < mt->rows; j++)
            if (m->folder[j] < 0 && strcmp(mt->rkey[j], mt->fkey[i]) == 0)
                mt->group_r[kr++] = j;
        if (kr == 0)
            continue;
        if (kf == 1 && kr == 1) {
            int j = mt->group_r[0];
            m->row[i] = j, m->folder[j] = i, m->relaxed[i] = true;
            quoted(mt->folders[i], names, sizeof names);
            quoted(mt->r->ids[j], others, sizeof others);
            warn(mt, "folder %s is roster id %s (matched ignoring case and surrounding spaces)",
                 names, others);
            continue;
        }
        for (int k = 0; k < kf; k++)
            mt->told[mt->group_f[k]] = true;
        listed(mt->folders, mt->group_f, kf, names, sizeof names);
        listed((const char *const *)mt->r->ids, mt->group_r, kr, others, sizeof others);
        warn(mt, "ambiguous: folder%s %s and roster id%s %s differ only in case or surrounding "
             "spaces, not one to one, so none of them is matched (rename the folder%s as the "
             "roster spells the id%s)", kf > 1 ? "s" : "", names, kr > 1 ? "s" : "", others,
             kf > 1 ? "s" : "", kr > 1 ? "s" : "");
    }
}

/* Folders that only case or spaces tell apart, with or without a roster, unless the warning
 * of match_relaxed named them all. */
static void warn_twins(matcher *mt)
{
    char names[WARNING_MAX / 2];
    memset(mt->seen, 0, (size_t)(mt->n > 0 ? mt->n : 1) * sizeof *mt->seen);
    for (int i = 0; !mt->failed && i < mt->n; i++) {
        if (mt->seen[i])
            continue;
        int k = 0;
        bool all_told = true;
        for (int t = i; t < mt->n; t++)
            if (strcmp(mt->fkey[t], mt->fkey[i]) == 0) {
                mt->group_f[k++] = t, mt->seen[t] = true;
                all_told &= mt->told[t];
            }
        if (k < 2 || all_told)
            continue;
        listed(mt->folders, mt->group_f, k, names, sizeof names);
        warn(mt, "ambiguous: folders %s differ only in case or surrounding spaces: graded as %d "
             "students", names, k);
    }
}

int grader_roster_match_folders(const grader_roster *r, const char *const *folders, int n,
                                grader_roster_match *m, tl_error *err)
{
    memset(m, 0, sizeof *m);
    int rows = r ? r->nrows : 0;
    size_t nf = n > 0 ? (size_t)n : 1, nr = rows > 0 ? (size_t)rows : 1;
    matcher mt = {m, r, folders, n > 0 ? n : 0, rows, calloc(nf, sizeof(char *)),
                  calloc(nr, sizeof(char *)), malloc(nf * sizeof(int)), malloc(nr * sizeof(int)),
                  calloc(nf, sizeof(bool)), calloc(nf, sizeof(bool)), false};
    m->row = malloc(nf * sizeof *m->row);
    m->folder = malloc(nr * sizeof *m->folder);
    m->relaxed = calloc(nf, sizeof *m->relaxed);
    mt.failed = !m->row || !m->folder || !m->relaxed || !mt.fkey || !mt.rkey || !mt.group_f ||
                !mt.group_r || !mt.seen || !mt.told;
    for (int i = 0; !mt.failed && i < mt.n; i++) {
        m->row[i] = -1;
        mt.failed = !(mt.fkey[i] = relaxed_key(folders[i]));
    }
    for (int j = 0; !mt.failed && j < rows; j++) {
        m->folder[j] = -1;
        mt.failed = !(mt.rkey[j] = relaxed_key(r->ids[j]));
    }
    if (!mt.failed) {
        match_exactly(&mt);
        match_relaxed(&mt);
        warn_twins(&mt);
    }
    char name[SHOWN_ID_MAX + 16];
    for (int i = 0; !mt.failed && r && i < mt.n; i++) {
        if (m->row[i] >= 0)
            continue;
        quoted(folders[i], name, sizeof name);
        warn(&mt, "folder %s is not in the roster: graded, marked \"" GRADER_NOT_IN_ROSTER "\"",
             name);
    }
    for (int j = 0; !mt.failed && j < rows; j++) {
        if (m->folder[j] >= 0)
            continue;
        quoted(r->ids[j], name, sizeof name);
        warn(&mt, "roster id %s has no submission folder: 0 points, marked \""
             GRADER_NO_SUBMISSION "\"", name);
    }
    for (int i = 0; mt.fkey && i < mt.n; i++)
        free(mt.fkey[i]);
    for (int j = 0; mt.rkey && j < rows; j++)
        free(mt.rkey[j]);
    free(mt.fkey);
    free(mt.rkey);
    free(mt.group_f);
    free(mt.group_r);
    free(mt.seen);
    free(mt.told);
    if (mt.failed) {
        grader_roster_match_free(m);
        return tl_error_set(err, "matching the folders to the roster: out of memory");
    }
    return 0;
}

void grader_roster_match_free(grader_roster_match *m)
{
    for (int i = 0; i < m->nwarnings; i++)
        free(m->warnings[i]);
    free(m->warnings);
    free(m->row);
    free(m->folder);
    free(m->relaxed);
    memset(m, 0, sizeof *m);
}
