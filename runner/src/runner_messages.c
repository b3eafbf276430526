/* The compiler's and linker's messages as a student should read them. nvcc's front end shows
 * each error with its copy of the line, which is the line after preprocessing (TILE_WIDTH
 * already 16, blanks squeezed): here the student's own line takes its place, with the caret
 * moved to the same token of it, and a hint from runner_hints.c. */
#include "runner.h"
#include "runner_config.h"
#include "runner_hints.h"
#include "runner_messages.h"

#include "util.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a student's line shown around the caret (a longer line is cut, with "...") */
#define SHOWN_LINE_MAX 200
#define TAB_STOP 8
/* Tokens of a line that are aligned with the compiler's copy (the rest are not) */
#define ALIGN_TOKENS_MAX 256
/* The compiler's lines kept with one diagnostic for its hint */
#define HINT_MESSAGE_MAX 2048
/* Files of the submission read for one build's messages */
#define FILES_MAX 16
/* Indented lines after a header that are read as its own */
#define FOLLOWING_MAX 32
/* Bytes of a header line parsed, and of the student's line a hint looks at */
#define HEADER_MAX 4096
#define HINT_LINE_MAX 1024
#define CARET_UNRELATED (-2)

/* ---- paths ---------------------------------------------------------------------------- */

/* Replaces every `from` in the malloc'd *text by `to`. */
static void replace_all(char **text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), count = 0;
    if (!*text || nf == 0)
        return;
    for (const char *q = strstr(*text, from); q; q = strstr(q + nf, from))
        count++;
    if (count == 0)
        return;
    char *out = malloc(strlen(*text) + count * (nt > nf ? nt - nf : 0) + 1), *w = out;
    if (!out)
        return;
    const char *r = *text;
    for (const char *q = strstr(r, from); q; q = strstr(r, from)) {
        memcpy(w, r, (size_t)(q - r));
        w += q - r;
        memcpy(w, to, nt);
        w += nt;
        r = q + nf;
    }
    strcpy(w, r);
    free(*text);
    *text = out;
}

/* Their own file names, no folder of the grading machine, no intermediate files.
 * "/usr/bin/ld: /out/keep/template.o: in function ..." and "template.cudafe1.cpp:(.text+0x199):
 * undefined reference" become "ld: template.cu: in function ..." and "template.cu: undefined
 * reference". */
static void student_paths(char **text, const char *source_name, const char *out_dir,
                          const char *src_dir)
{
    char stem[256], from[PATH_MAX + 300], to[300];
    snprintf(stem, sizeof stem, "%s", source_name);
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
    replace_all(text, "/usr/bin/ld: ", "ld: ");
    snprintf(to, sizeof to, "%s", source_name);
    snprintf(from, sizeof from, "/out/keep/%s.o", stem);
    replace_all(text, from, to);
    snprintf(from, sizeof from, "%s/keep/%s.o", out_dir, stem);
    replace_all(text, from, to);
    /* "template.cudafe1.cpp:(.text+0x1bd)" -> "template.cu" (the offset means nothing to them) */
    snprintf(from, sizeof from, "%s.cudafe1.cpp:(", stem);
    for (char *q = *text ? strstr(*text, from) : NULL; q; q = strstr(q, from)) {
        char *close = strchr(q + strlen(from), ')');
        if (!close)
            break;
        size_t keep = strlen(source_name);
        memcpy(q, source_name, keep);
        memmove(q + keep, close + 1, strlen(close + 1) + 1);
        q += keep;
    }
    snprintf(from, sizeof from, "%s/", RUNNER_HARNESS_INCLUDE);
    replace_all(text, from, "");
    replace_all(text, RUNNER_TOOLKIT_ROOT, "cuda");
    replace_all(text, "/out/keep/", "");
    snprintf(from, sizeof from, "%s/", src_dir);
    replace_all(text, from, "");
    snprintf(from, sizeof from, "%s/", out_dir);
    replace_all(text, from, "");
}

/* ---- the submission's files ----------------------------------------------------------- */

typedef struct source_file {
    char name[256];
    char *text; /* NULL: not a file of the submission */
    size_t len;
} source_file;

typedef struct sources {
    source_file files[FILES_MAX];
    int n;
    messages_reader read;
    void *ctx;
} sources;

/* Line `number` (from 1) of file `name`: its start and length without the line break; false
 * when the file is not the submission's or has no such line. */
static bool source_line(sources *s, const char *name, long number, const char **line,
                        size_t *len)
{
    source_file *f = NULL;
    for (int i = 0; i < s->n && !f; i++)
        if (strcmp(s->files[i].name, name) == 0)
            f = &s->files[i];
    if (!f) {
        if (s->n == FILES_MAX || strlen(name) >= sizeof f->name)
            return false;
        f = &s->files[s->n++];
        snprintf(f->name, sizeof f->name, "%s", name);
        f->text = s->read(name, &f->len, s->ctx);
    }
    if (!f->text || number < 1)
        return false;
    const char *p = f->text, *end = f->text + f->len;
    for (long n = 1; n < number; n++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return false;
        p = nl + 1;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    *line = p;
    *len = n;
    return true;
}

/* ---- the caret on the student's line --------------------------------------------------- */

typedef struct token {
    int start, len;
} token;

static bool word_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c >= 0x80;
}

/* C tokens, roughly but the same way for both lines: words and numbers, quoted literals, and
 * every other character alone; comments and blanks skipped. */
static int tokenize(const char *s, int len, token *t, int max)
{
    int n = 0;
    for (int i = 0; i < len && n < max;) {
        unsigned char c = (unsigned char)s[i];
        int start = i;
        if (isspace(c)) {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '/')
            break;
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            for (i += 2; i < len && !(s[i - 1] == '*' && s[i] == '/'); i++)
                ;
            i++;
            continue;
        }
        if (word_char(c)) {
            while (i < len && word_char((unsigned char)s[i]))
                i++;
        } else if (c == '"' || c == '\'') {
            for (i++; i < len && s[i] != (char)c; i++)
                if (s[i] == '\\')
                    i++;
            i = i < len ? i + 1 : len;
        } else {
            i++;
        }
        t[n++] = (token){start, i - start};
    }
    return n;
}

static bool same_token(const char *a, token ta, const char *b, token tb)
{
    return ta.len == tb.len && memcmp(a + ta.start, b + tb.start, (size_t)ta.len) == 0;
}

/* The byte of `line` that the compiler's caret at column `col` of its copy `copy` stands for:
 * the two lines' tokens are matched (longest common subsequence); a token of the copy that
 * matches gives its partner, one that came from a macro gives the first unmatched token of the
 * student's line between the matched neighbours (the macro's name). -1 when there is none,
 * CARET_UNRELATED when the lines have no token in common (a #line directive numbered the lines
 * otherwise: the student's line is not the one the compiler means). */
static int caret_in_line(const char *copy, int copy_len, int col, const char *line, int len)
{
    token *e = malloc(2 * ALIGN_TOKENS_MAX * sizeof *e), *o = e + ALIGN_TOKENS_MAX;
    unsigned short *lcs = malloc((ALIGN_TOKENS_MAX + 1) * (ALIGN_TOKENS_MAX + 1) * sizeof *lcs);
    int at = -1;
    if (!e || !lcs)
        goto done;
    int m = tokenize(copy, copy_len, e, ALIGN_TOKENS_MAX), n = tokenize(line, len, o, ALIGN_TOKENS_MAX);
    const int w = n + 1;
    for (int i = m; i >= 0; i--)
        for (int j = n; j >= 0; j--)
            lcs[i * w + j] = i == m || j == n ? 0
                             : same_token(copy, e[i], line, o[j]) ? lcs[(i + 1) * w + j + 1] + 1
                             : lcs[(i + 1) * w + j] > lcs[i * w + j + 1] ? lcs[(i + 1) * w + j]
                                                                        : lcs[i * w + j + 1];
    if (m > 0 && lcs[0] == 0) {
        at = CARET_UNRELATED;
        goto done;
    }
    int target = 0;
    while (target < m && e[target].start + e[target].len <= col)
        target++;
    if (target == m) {
        at = len; /* past the last token: the end of the line */
        goto done;
    }
    int before = -1; /* the student's token matched to the last matched copy token before target */
    for (int i = 0, j = 0; i < m && j < n;) {
        if (same_token(copy, e[i], line, o[j]) && lcs[i * w + j] == lcs[(i + 1) * w + j + 1] + 1) {
            if (i == target) {
                at = o[j].start;
                goto done;
            }
            if (i > target) {
                /* target came between matches: the student's tokens there are what it came from */
                at = before + 1 < j ? o[before + 1].start : -1;
                goto done;
            }
            before = j;
            i++, j++;
        } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
            i++;
        } else {
            j++;
        }
    }
    at = before + 1 < n ? o[before + 1].start : -1;
done:
    free(e);
    free(lcs);
    return at;
}

/* The byte of `line` at display column `col` (from 1, tabs to TAB_STOP, one column per
 * character), as the host compiler counts; -1 past the end of the line. */
static int byte_at_column(const char *line, int len, long col)
{
    long c = 1;
    for (int i = 0; i < len; i++) {
        if (c >= col)
            return i;
        unsigned char b = (unsigned char)line[i];
        if (b == '\t')
            c += TAB_STOP - (c - 1) % TAB_STOP;
        else if ((b & 0xc0) != 0x80)
            c++;
    }
    return c >= col ? len : -1;
}

/* The first whole-word `word` in line, -1 if none. */
static int word_at(const char *line, int len, const char *word)
{
    int wl = (int)strlen(word);
    for (int i = 0; wl > 0 && i + wl <= len; i++)
        if (memcmp(line + i, word, (size_t)wl) == 0 &&
            (i == 0 || !word_char((unsigned char)line[i - 1])) &&
            (i + wl == len || !word_char((unsigned char)line[i + wl])))
            return i;
    return -1;
}

/* line[from, to) with tabs expanded and made inert (the line is the student's own text). */
static char *shown(const char *line, int from, int to)
{
    char buf[SHOWN_LINE_MAX * TAB_STOP + 1];
    size_t n = 0;
    for (int i = from; i < to && n + TAB_STOP < sizeof buf; i++) {
        if (line[i] == '\t')
            do
                buf[n++] = ' ';
            while (n % TAB_STOP != 0);
        else
            buf[n++] = line[i];
    }
    return tl_text_line(buf, n);
}

static size_t columns(const char *utf8)
{
    size_t n = 0;
    for (; *utf8; utf8++)
        n += ((unsigned char)*utf8 & 0xc0) != 0x80;
    return n;
}

/* "   12 | the line" and, when `at` >= 0, "      | ^" under it. */
static void print_line(FILE *out, long number, const char *line, int len, int at)
{
    int from = 0, to = len;
    if (len > SHOWN_LINE_MAX) {
        if (at > SHOWN_LINE_MAX / 2)
            from = at - SHOWN_LINE_MAX / 2;
        while (from > 0 && ((unsigned char)line[from] & 0xc0) == 0x80)
            from--;
        to = from + SHOWN_LINE_MAX < len ? from + SHOWN_LINE_MAX : len;
        while (to < len && ((unsigned char)line[to] & 0xc0) == 0x80)
            to++;
    }
    const char *more_before = from > 0 ? "..." : "", *more_after = to < len ? "..." : "";
    char *text = shown(line, from, to);
    fprintf(out, "%5ld | %s%s%s\n", number, more_before, text ? text : "", more_after);
    free(text);
    if (at < from || at > to)
        return;
    char *before = shown(line, from, at);
    size_t pad = columns(before ? before : "") + strlen(more_before);
    free(before);
    fprintf(out, "      | %*s^\n", (int)pad, "");
}

/* ---- the messages ---------------------------------------------------------------------- */

typedef struct diagnostic {
    char file[256];
    long line, col;      /* col 0: not given (nvcc's front end gives a caret instead) */
    bool hint;           /* an error or a warning, not a note */
    const char *message; /* after "error: " */
} diagnostic;

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "KIND[ #NNN-D]: " after the place: sets d->hint and d->message. */
static bool kind(const char *s, diagnostic *d)
{
    static const char *const kinds[] = {"error", "warning", "catastrophic error", "fatal error",
                                        "remark", "note"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!starts_with(s, kinds[i]))
            continue;
        const char *colon = strstr(s, ": ");
        if (!colon)
            return false;
        d->hint = strcmp(kinds[i], "remark") != 0 && strcmp(kinds[i], "note") != 0;
        d->message = colon + 2;
        return true;
    }
    return false;
}

/* "F(12): error: ..." or "F:12:5: error: ..." */
static bool parse_header(const char *s, diagnostic *d)
{
    memset(d, 0, sizeof *d);
    for (const char *p = s; *p && p - s < (long)sizeof d->file; p++) {
        char *end;
        if (p > s && *p == '(' && isdigit((unsigned char)p[1])) {
            d->line = strtol(p + 1, &end, 10);
            if (strncmp(end, "): ", 3) != 0 || !kind(end + 3, d))
                continue;
        } else if (p > s && *p == ':' && isdigit((unsigned char)p[1])) {
            d->line = strtol(p + 1, &end, 10);
            if (*end != ':' || !isdigit((unsigned char)end[1]))
                continue;
            d->col = strtol(end + 1, &end, 10);
            if (strncmp(end, ": ", 2) != 0 || !kind(end + 2, d))
                continue;
        } else {
            continue;
        }
        snprintf(d->file, sizeof d->file, "%.*s", (int)(p - s), s);
        return true;
    }
    return false;
}

static bool is_caret_line(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && s[i] == ' ')
        i++;
    return i < len && s[i] == '^' && i + 1 == len;
}

/* The host compiler's own copy of the line and its caret: "   12 | text", "      |   ^~~". */
static bool is_gutter_line(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && s[i] == ' ')
        i++;
    while (i < len && isdigit((unsigned char)s[i]))
        i++;
    if (i < len && s[i] == ' ')
        i++;
    return i > 0 && i < len && s[i] == '|';
}

typedef struct cursor {
    const char *p; /* the next line */
} cursor;

static bool next_line(cursor *c, const char **line, size_t *len)
{
    if (!*c->p)
        return false;
    const char *nl = strchr(c->p, '\n');
    *line = c->p;
    *len = nl ? (size_t)(nl - c->p) : strlen(c->p);
    c->p = nl ? nl + 1 : c->p + *len;
    return true;
}

/* What nvcc's front end prints after a header: indented further lines, then its copy of the
 * line and a caret under it. Returns how many lines were read (consumed from *c), *caret the
 * index of the caret's line among them (-1: none). */
static int front_end_lines(cursor *c, const char **lines, size_t *lens, int *caret)
{
    const char *l;
    size_t n;
    int k = 0;
    *caret = -1;
    for (cursor peek = *c; k < FOLLOWING_MAX && next_line(&peek, &l, &n) && n > 0 && l[0] == ' ';) {
        *c = peek;
        lines[k] = l;
        lens[k++] = n;
        if (is_caret_line(l, n)) {
            *caret = k - 1;
            break;
        }
    }
    return k;
}

static void print_hint(FILE *out, const diagnostic *d, const char *message, const char *line,
                       int at)
{
    char hint[HINTS_TEXT_MAX];
    if (d->hint && hints_for(message, line, at, hint, sizeof hint))
        fprintf(out, "      = hint: %s\n", hint);
}

/* One diagnostic about a line of the submission: the header is printed; what follows it of the
 * compiler's (its further lines, its copy of the line, its caret) is read from *c. */
static void annotate_one(FILE *out, cursor *c, const diagnostic *d, const char *src, int src_len)
{
    char message[HINT_MESSAGE_MAX];
    snprintf(message, sizeof message, "%s", d->message);
    int at = -1;
    if (d->col > 0) {
        /* the host compiler: its copy of the line and its caret dropped, its column kept */
        const char *l;
        size_t n;
        cursor peek = *c;
        while (next_line(&peek, &l, &n) && is_gutter_line(l, n))
            *c = peek;
        at = byte_at_column(src, src_len, d->col);
    } else {
        const char *lines[FOLLOWING_MAX];
        size_t lens[FOLLOWING_MAX];
        int caret, k = front_end_lines(c, lines, lens, &caret), further = caret >= 1 ? caret - 1 : k;
        for (int i = 0; i < further; i++) {
            size_t used = strlen(message);
            snprintf(message + used, sizeof message - used, "\n%.*s", (int)lens[i], lines[i]);
        }
        if (caret >= 1)
            at = caret_in_line(lines[caret - 1], (int)lens[caret - 1],
                               (int)((const char *)memchr(lines[caret], '^', lens[caret]) -
                                     lines[caret]),
                               src, src_len);
        /* Not the line the compiler means: its own lines then, and a hint that needs no line. */
        int shown_as_is = at == CARET_UNRELATED ? k : further;
        for (int i = 0; i < shown_as_is; i++)
            fprintf(out, "%.*s\n", (int)lens[i], lines[i]);
        if (at == CARET_UNRELATED) {
            print_hint(out, d, message, NULL, -1);
            return;
        }
    }
    char name[NAME_MAX + 1];
    if (at < 0 && sscanf(d->message, "identifier \"%255[A-Za-z0-9_]\"", name) == 1)
        at = word_at(src, src_len, name);
    print_line(out, d->line, src, src_len, at);
    char line[HINT_LINE_MAX];
    snprintf(line, sizeof line, "%.*s", src_len, src);
    print_hint(out, d, message, line, at < (int)strlen(line) ? at : -1);
}

char *messages_annotate(const char *text, messages_reader read, void *ctx)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    sources *s = calloc(1, sizeof *s);
    char *header = malloc(HEADER_MAX);
    if (!out || !s || !header) {
        if (out)
            fclose(out);
        free(buf);
        free(s);
        free(header);
        return NULL;
    }
    s->read = read;
    s->ctx = ctx;
    cursor c = {text};
    const char *l, *src;
    size_t n, src_len;
    while (next_line(&c, &l, &n)) {
        fprintf(out, "%.*s\n", (int)n, l);
        snprintf(header, HEADER_MAX, "%.*s", (int)n, l);
        diagnostic d;
        if (parse_header(header, &d) && source_line(s, d.file, d.line, &src, &src_len))
            annotate_one(out, &c, &d, src, (int)src_len);
    }
    for (int i = 0; i < s->n; i++)
        free(s->files[i].text);
    free(s);
    free(header);
    if (fclose(out) != 0) {
        free(buf);
        return NULL;
    }
    /* as the compiler's text ended: with a line break or without */
    size_t len = strlen(text);
    if (size > 0 && (len == 0 || text[len - 1] != '\n'))
        buf[size - 1] = '\0';
    return buf;
}

/* A file of the submission as staged for the build, by the name the compiler gave it; nothing
 * outside that folder (a #line directive chooses the name). */
static char *read_staged(const char *name, size_t *len, void *ctx)
{
    const char *dir = ctx;
    if (name[0] == '/' || name[0] == '\0')
        return NULL;
    for (const char *p = name; *p;) {
        size_t part = strcspn(p, "/");
        if (part == 2 && p[0] == '.' && p[1] == '.')
            return NULL;
        p += part + (p[part] == '/');
    }
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return NULL;
    tl_error err;
    return files_read_untrusted(path, RUNNER_MAX_SOURCE_BYTES, len, &err);
}

void messages_for_student(char **text, const char *source_name, const char *out_dir,
                          const char *src_dir)
{
    student_paths(text, source_name, out_dir, src_dir);
    if (!*text)
        return;
    char *annotated = messages_annotate(*text, read_staged, (void *)src_dir);
    if (annotated) {
        free(*text);
        *text = annotated;
    }
}
