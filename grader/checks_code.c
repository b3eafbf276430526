/* A source's code as the compiler reads it: comments and the contents of literals blanked out,
 * line splices joined, every line kept where it was. */
#include "checks_source.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The text keeps its offsets while it is scanned (what is removed becomes spaces, newlines
 * stay), so every line keeps its number; line splices are joined only at the end. */
typedef struct scan {
    const char *s;
    size_t n;
    char *out;
} scan;

/* The first index at or after i that does not start a line splice (a backslash ending a line,
 * CRLF too): the compiler joins such lines before it looks for comments or literals. */
static size_t unspliced(const char *s, size_t n, size_t i)
{
    while (i < n && s[i] == '\\') {
        if (i + 1 < n && s[i + 1] == '\n')
            i += 2;
        else if (i + 2 < n && s[i + 1] == '\r' && s[i + 2] == '\n')
            i += 3;
        else
            break;
    }
    return i;
}

static size_t next(const scan *c, size_t i)
{
    return unspliced(c->s, c->n, i + 1);
}

static void blank(scan *c, size_t from, size_t to)
{
    for (size_t k = from; k < to && k < c->n; k++)
        if (c->s[k] != '\n')
            c->out[k] = ' ';
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || (unsigned char)ch >= 0x80;
}

/* A "..." or '...' literal opening at `open`: its contents blanked unless `keep`. It ends at
 * its closing quote or, unterminated, at the end of its line, as it does for the compiler. */
static size_t skip_literal(scan *c, size_t open, bool keep)
{
    size_t k = next(c, open);
    while (k < c->n && c->s[k] != c->s[open] && c->s[k] != '\n') {
        if (c->s[k] == '\\')
            k = next(c, k); /* the escaped character, a quote say */
        if (k < c->n && c->s[k] != '\n')
            k = next(c, k);
    }
    if (!keep)
        blank(c, open + 1, k);
    return k < c->n && c->s[k] == c->s[open] ? next(c, k) : k;
}

/* A raw string literal whose quote is at `quote` (R"delim(...)delim"). Splices inside it do not
 * count, so it is read as written. A malformed one is read as an ordinary string. */
static size_t skip_raw_string(scan *c, size_t quote)
{
    const char *s = c->s;
    size_t k = quote + 1, d = 0;
    while (k < c->n && d <= 16 && s[k] != '(' && !strchr(" ()\\\t\v\f\r\n\"", s[k]))
        k++, d++;
    if (k >= c->n || s[k] != '(' || d > 16)
        return skip_literal(c, quote, false);
    const char *delim = s + quote + 1;
    for (size_t e = k + 1; e < c->n; e++) {
        if (s[e] == ')' && e + 1 + d < c->n && memcmp(s + e + 1, delim, d) == 0 &&
            s[e + 1 + d] == '"') {
            blank(c, quote + 1, e + 1 + d);
            return unspliced(s, c->n, e + 2 + d);
        }
    }
    blank(c, quote + 1, c->n);
    return c->n;
}

/* Past the identifier at i; a raw string it prefixes (R, u8R, uR, UR, LR) is skipped too. */
static size_t skip_identifier(scan *c, size_t i)
{
    char word[4];
    size_t len = 0;
    for (; i < c->n && ident_char(c->s[i]); i = next(c, i))
        if (len < sizeof word)
            word[len++] = c->s[i];
        else
            len = sizeof word + 1;
    static const char *const raw_prefixes[] = {"R", "u8R", "uR", "UR", "LR"};
    for (size_t p = 0; i < c->n && c->s[i] == '"' && p < 5; p++)
        if (len == strlen(raw_prefixes[p]) && memcmp(word, raw_prefixes[p], len) == 0)
            return skip_raw_string(c, i);
    return i;
}

/* Past the number at i. In C++ a quote between digits is a separator (1'000'000): it does not
 * start a character literal. */
static size_t skip_number(scan *c, size_t i)
{
    char prev = 0;
    while (i < c->n) {
        char ch = c->s[i];
        size_t after = next(c, i);
        bool exponent_sign = (ch == '+' || ch == '-') && prev && strchr("eEpP", prev);
        bool separator = ch == '\'' && after < c->n && ident_char(c->s[after]);
        if (!ident_char(ch) && ch != '.' && !exponent_sign && !separator)
            break;
        prev = ch;
        i = after;
    }
    return i;
}

/* Whether the directive after a '#' at i is #include (or #include_next, #import): its "name"
 * is a header name, not a string, and it stays for the checks to see (#include "cublas_v2.h"). */
static bool include_directive(const scan *c, size_t i)
{
    while (i < c->n && (c->s[i] == ' ' || c->s[i] == '\t'))
        i = next(c, i);
    char word[16];
    size_t len = 0;
    for (; i < c->n && ident_char(c->s[i]) && len + 1 < sizeof word; i = next(c, i))
        word[len++] = c->s[i];
    word[len] = '\0';
    return !strcmp(word, "include") || !strcmp(word, "include_next") || !strcmp(word, "import");
}

/* Joins the line splices left in the code; the newlines they held come back after the line
 * they joined, so the lines after it keep their numbers. */
static void join_splices(char *out, size_t n)
{
    size_t j = 0, pending = 0;
    for (size_t k = 0; k < n;) {
        size_t after = unspliced(out, n, k);
        if (after != k) {
            for (; k < after; k++)
                pending += out[k] == '\n';
            continue;
        }
        out[j++] = out[k];
        if (out[k++] == '\n')
            for (; pending; pending--)
                out[j++] = '\n';
    }
    while (pending--)
        out[j++] = '\n';
    out[j] = '\0';
}

/* The source without comments and without what is inside string and character literals, line
 * for line: a forbidden name in a comment does not count, a required one that appears only in
 * a string does not count either, and a call such as fopen("...") still shows as a call. */
char *source_code_only(const char *src)
{
    size_t n = strlen(src);
    scan c = {src, n, malloc(n + 1)};
    if (!c.out)
        return NULL;
    memcpy(c.out, src, n + 1);
    bool line_start = true, include_line = false;
    for (size_t i = unspliced(src, n, 0); i < n;) {
        char ch = src[i];
        size_t after = next(&c, i);
        if (ch == '/' && after < n && (src[after] == '/' || src[after] == '*')) {
            bool line_comment = src[after] == '/';
            size_t k = next(&c, after);
            while (k < n && (line_comment ? src[k] != '\n'
                                          : !(src[k] == '*' && next(&c, k) < n &&
                                              src[next(&c, k)] == '/')))
                k = next(&c, k);
            if (!line_comment && k < n)
                k = next(&c, k) + 1; /* past the closing slash */
            blank(&c, i, k);
            i = unspliced(src, n, k);
            continue;
        }
        if (ch == '\n') {
            line_start = true;
            include_line = false;
        } else if (!strchr(" \t\v\f\r", ch)) {
            if (line_start && ch == '#')
                include_line = include_directive(&c, after);
            line_start = false;
        }
        if (ch == '"' || ch == '\'')
            i = skip_literal(&c, i, include_line && ch == '"');
        else if (isdigit((unsigned char)ch) ||
                 (ch == '.' && after < n && isdigit((unsigned char)src[after])))
            i = skip_number(&c, i);
        else if (ident_char(ch))
            i = skip_identifier(&c, i);
        else
            i = after;
    }
    join_splices(c.out, n);
    return c.out;
}
