/* A source's preprocessing directives, found where the preprocessor finds them.
 *
 * The text is first cleaned as the compiler's first phases do (line splices removed, CR and
 * CRLF read as line ends), keeping each character's physical line. A directive is a '#' (or the
 * digraph %:, or the trigraph ??=, which nvcc's preprocessor ignores but costs nothing to read)
 * first on a line, where comments count as blanks: a block comment spanning lines does not end
 * the directive it is in, nor start a new line for one. Literals and comments never hold one.
 * A raw string literal's lines reach the preprocessed output as they are, so one of them that
 * reads as a line marker is reported with the line control. */
#include "checks_source.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct clean {
    const char *src;
    size_t srcn;
    char *c;      /* the text without splices, every line end one '\n' */
    int *line;    /* the physical line of each character of c */
    size_t *orig; /* its offset in src */
    size_t n;
} clean;

typedef struct found {
    source_directive *d;
    int n, cap;
    bool failed;
} found;

#define RAW_DELIMITER_MAX 16 /* the standard's limit on a raw string's delimiter */

static size_t line_end(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return 0;
    if (s[i] == '\n')
        return 1;
    if (s[i] == '\r')
        return i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
    return 0;
}

static bool blank_char(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f';
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '$' || (unsigned char)ch >= 0x80;
}

static int clean_text(const char *src, clean *x)
{
    size_t n = strlen(src);
    *x = (clean){src, n, malloc(n + 1), malloc((n + 1) * sizeof(int)),
                 malloc((n + 1) * sizeof(size_t)), 0};
    if (!x->c || !x->line || !x->orig)
        return -1;
    int line = 1;
    size_t j = 0;
    for (size_t i = 0; i < n;) {
        if (src[i] == '\\') { /* a splice: a backslash, blanks the compiler forgives, a line end */
            size_t k = i + 1;
            while (k < n && (src[k] == ' ' || src[k] == '\t'))
                k++;
            size_t e = line_end(src, n, k);
            if (e) {
                line++;
                i = k + e;
                continue;
            }
        }
        size_t e = line_end(src, n, i);
        x->line[j] = line;
        x->orig[j] = i;
        x->c[j++] = e ? '\n' : src[i];
        line += e != 0;
        i += e ? e : 1;
    }
    x->c[j] = '\0';
    x->line[j] = line;
    x->orig[j] = n;
    x->n = j;
    return 0;
}

static void add(found *f, source_directive d)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        source_directive *more = realloc(f->d, (size_t)cap * sizeof *more);
        if (!more) {
            f->failed = true;
            return;
        }
        f->d = more;
        f->cap = cap;
    }
    f->d[f->n++] = d;
}

static size_t skip_comment(const clean *x, size_t i)
{
    if (i + 1 >= x->n || x->c[i] != '/')
        return i;
    if (x->c[i + 1] == '/') {
        while (i < x->n && x->c[i] != '\n')
            i++;
        return i;
    }
    if (x->c[i + 1] != '*')
        return i;
    const char *end = strstr(x->c + i + 2, "*/");
    return end ? (size_t)(end - x->c) + 2 : x->n;
}

/* Blanks and comments within a line (a block comment may span lines: it is one blank). */
static size_t skip_blanks(const clean *x, size_t i)
{
    for (;;) {
        while (i < x->n && blank_char(x->c[i]))
            i++;
        size_t k = skip_comment(x, i);
        if (k == i)
            return i;
        i = k;
    }
}

/* A "..." or '...' literal: to its closing quote or, unterminated, to the end of its line. */
static size_t skip_literal(const clean *x, size_t open)
{
    size_t k = open + 1;
    while (k < x->n && x->c[k] != x->c[open] && x->c[k] != '\n')
        k += x->c[k] == '\\' && k + 1 < x->n && x->c[k + 1] != '\n' ? 2 : 1;
    return k < x->n && x->c[k] == x->c[open] ? k + 1 : k;
}

/* The number at i; a quote between its digits is a separator (1'000), not a literal. */
static size_t skip_number(const clean *x, size_t i)
{
    char prev = 0;
    while (i < x->n) {
        char ch = x->c[i];
        bool sign = (ch == '+' || ch == '-') && prev && strchr("eEpP", prev);
        bool separator = ch == '\'' && i + 1 < x->n && ident_char(x->c[i + 1]);
        if (!ident_char(ch) && ch != '.' && !sign && !separator)
            break;
        prev = ch;
        i++;
    }
    return i;
}

/* Whether the text at s (within a line) reads as line control: optional blanks, then # or %:,
 * blanks, then a digit or the word line. */
static bool reads_as_line_control(const char *s, size_t n)
{
    size_t k = 0;
    while (k < n && blank_char(s[k]))
        k++;
    if (k < n && s[k] == '#')
        k++;
    else if (k + 1 < n && s[k] == '%' && s[k + 1] == ':')
        k += 2;
    else
        return false;
    while (k < n && blank_char(s[k]))
        k++;
    return (k < n && isdigit((unsigned char)s[k])) ||
           (k + 4 <= n && strncmp(s + k, "line", 4) == 0 && (k + 4 == n || !ident_char(s[k + 4])));
}

/* The lines of a raw string's text (from..to in c) as the preprocessed output shows them: the
 * physical lines of the source, splices and all. */
static void raw_string_lines(const clean *x, size_t from, size_t to, found *f)
{
    const char *s = x->src;
    size_t a = x->orig[from], b = x->orig[to];
    int line = x->line[from];
    for (size_t i = a; i < b; i++) {
        size_t e = line_end(s, x->srcn, i);
        if (!e)
            continue;
        line++;
        i += e;
        size_t stop = i;
        while (stop < b && !line_end(s, x->srcn, stop))
            stop++;
        if (reads_as_line_control(s + i, stop - i))
            add(f, (source_directive){.kind = SOURCE_LINE_CONTROL, .line = line,
                                      .in_raw_string = true});
        i--;
    }
}

/* A raw string literal whose quote is at `quote` (R"delim(...)delim"); a malformed one is read
 * as an ordinary string. */
static size_t skip_raw_string(const clean *x, size_t quote, found *f)
{
    size_t k = quote + 1, d = 0;
    while (k < x->n && d <= RAW_DELIMITER_MAX && !strchr(" ()\\\t\v\f\n\"", x->c[k]))
        k++, d++;
    if (k >= x->n || x->c[k] != '(' || d > RAW_DELIMITER_MAX)
        return skip_literal(x, quote);
    const char *delim = x->c + quote + 1;
    size_t end = x->n;
    for (size_t e = k + 1; e < x->n; e++)
        if (x->c[e] == ')' && e + 1 + d < x->n && memcmp(x->c + e + 1, delim, d) == 0 &&
            x->c[e + 1 + d] == '"') {
            end = e + 2 + d;
            break;
        }
    raw_string_lines(x, quote, end, f);
    return end;
}

/* Past the identifier at i, and the raw string it prefixes (R, u8R, uR, UR, LR). */
static size_t skip_identifier(const clean *x, size_t i, found *f)
{
    size_t start = i;
    while (i < x->n && ident_char(x->c[i]))
        i++;
    static const char *const raw_prefixes[] = {"R", "u8R", "uR", "UR", "LR"};
    for (size_t p = 0; i < x->n && x->c[i] == '"' && p < sizeof raw_prefixes / sizeof *raw_prefixes; p++)
        if (i - start == strlen(raw_prefixes[p]) && memcmp(x->c + start, raw_prefixes[p], i - start) == 0)
            return skip_raw_string(x, i, f);
    return i;
}

/* One token or blank of a directive's rest, or of a line of code. */
static size_t skip_token(const clean *x, size_t i, found *f)
{
    char ch = x->c[i];
    size_t k = skip_comment(x, i);
    if (k != i)
        return k;
    if (ch == '"' || ch == '\'')
        return skip_literal(x, i);
    if (isdigit((unsigned char)ch) || (ch == '.' && i + 1 < x->n && isdigit((unsigned char)x->c[i + 1])))
        return skip_number(x, i);
    if (ident_char(ch))
        return skip_identifier(x, i, f);
    return i + 1;
}

static size_t word(const clean *x, size_t i, char *out, size_t size)
{
    size_t len = 0;
    for (; i < x->n && ident_char(x->c[i]); i++)
        if (len + 1 < size)
            out[len++] = x->c[i];
    out[len] = '\0';
    return i;
}

static bool directive_end(const clean *x, size_t i)
{
    return i >= x->n || x->c[i] == '\n';
}

/* The directive whose introducer (# %: ??=) is at i; returns where its line ends. */
static size_t directive(const clean *x, size_t i, found *f)
{
    source_directive d = {.kind = SOURCE_OTHER, .line = x->line[i]};
    size_t j = skip_blanks(x, i + (x->c[i] == '#' ? 1 : x->c[i] == '%' ? 2 : 3));
    char name[16];
    if (j < x->n && isdigit((unsigned char)x->c[j])) {
        d.kind = SOURCE_LINE_CONTROL;
    } else if (j < x->n && ident_char(x->c[j])) {
        j = word(x, j, name, sizeof name);
        if (!strcmp(name, "line")) {
            d.kind = SOURCE_LINE_CONTROL;
        } else if (!strcmp(name, "define") || !strcmp(name, "undef")) {
            d.kind = name[0] == 'd' ? SOURCE_DEFINE : SOURCE_UNDEF;
            j = skip_blanks(x, j);
            size_t start = j;
            j = word(x, j, d.name, sizeof d.name);
            d.long_name = j - start >= sizeof d.name;
            if (d.kind == SOURCE_DEFINE && !(j < x->n && x->c[j] == '(')) {
                /* Object-like: plain when its replacement is nothing or one number. */
                j = skip_blanks(x, j);
                if (!directive_end(x, j) && (isdigit((unsigned char)x->c[j]) || x->c[j] == '.'))
                    j = skip_blanks(x, skip_number(x, j));
                d.plain = directive_end(x, j);
            }
        } else if (!strcmp(name, "include") || !strcmp(name, "include_next") ||
                   !strcmp(name, "import")) {
            d.kind = SOURCE_INCLUDE;
            j = skip_blanks(x, j);
            char close = j < x->n && x->c[j] == '<' ? '>' : j < x->n && x->c[j] == '"' ? '"' : 0;
            size_t k = j + 1;
            while (close && k < x->n && x->c[k] != close && x->c[k] != '\n')
                k++;
            if (close && k < x->n && x->c[k] == close && k - j + 2 <= sizeof d.name) {
                memcpy(d.name, x->c + j, k - j + 1);
                d.name[k - j + 1] = '\0';
                j = k + 1;
            }
        }
    }
    if (d.kind != SOURCE_OTHER)
        add(f, d);
    while (!directive_end(x, j))
        j = skip_token(x, j, f);
    return j;
}

int source_directives(const char *src, source_directive **out)
{
    *out = NULL;
    clean x;
    found f = {0};
    if (clean_text(src, &x) == 0) {
        bool line_start = true;
        for (size_t i = 0; i < x.n && !f.failed;) {
            char ch = x.c[i];
            if (ch == '\n') {
                line_start = true;
                i++;
                continue;
            }
            if (blank_char(ch)) {
                i++;
                continue;
            }
            size_t k = skip_comment(&x, i);
            if (k != i) { /* a comment is a blank: a directive may follow it */
                i = k;
                continue;
            }
            bool introducer = ch == '#' || (ch == '%' && x.c[i + 1] == ':') ||
                              (ch == '?' && x.c[i + 1] == '?' && x.c[i + 2] == '=');
            if (line_start && introducer)
                i = directive(&x, i, &f);
            else
                i = skip_token(&x, i, &f);
            line_start = false;
        }
    } else {
        f.failed = true;
    }
    free(x.c);
    free(x.line);
    free(x.orig);
    if (f.failed) {
        free(f.d);
        return -1;
    }
    *out = f.d;
    return f.n;
}
