/* Untrusted text made inert: whatever bytes a submission produced (its id, the compiler's
 * messages about it, its program's output) become valid UTF-8 in which no control character,
 * escape sequence or bidirectional override can act on a terminal, a spreadsheet or a page. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

typedef struct out_buf {
    char *p;
    size_t len, cap;
    bool failed;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->failed)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = (o->len + n + 1) * 2;
        char *grown = realloc(o->p, cap);
        if (!grown) {
            o->failed = true;
            return;
        }
        o->p = grown;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void put_escape(out_buf *o, uint32_t cp)
{
    char esc[16];
    int n = cp < 0x100 ? snprintf(esc, sizeof esc, "\\x%02x", (unsigned)cp)
                       : snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
    put(o, esc, (size_t)n);
}

/* The next code point of s[0..len) at *i, advancing *i; invalid UTF-8 (overlong, surrogate,
 * past U+10FFFF, truncated, a stray continuation byte) gives U+FFFD for one byte. */
static uint32_t next_code_point(const unsigned char *s, size_t len, size_t *i)
{
    unsigned char c = s[*i];
    int need = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
    if (need == 0) {
        (*i)++;
        return c;
    }
    if (need < 0 || *i + (size_t)need >= len) {
        (*i)++;
        return 0xfffd;
    }
    uint32_t cp = need == 1 ? (c & 0x1fu) : need == 2 ? (c & 0x0fu) : (c & 0x07u);
    for (int k = 1; k <= need; k++) {
        if ((s[*i + (size_t)k] & 0xc0) != 0x80) {
            (*i)++;
            return 0xfffd;
        }
        cp = cp << 6 | (s[*i + (size_t)k] & 0x3fu);
    }
    static const uint32_t min_of[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_of[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        (*i)++;
        return 0xfffd;
    }
    *i += (size_t)need + 1;
    return cp;
}

static void put_code_point(out_buf *o, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | cp >> 12);
        b[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (char)(0xf0 | cp >> 18);
        b[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        b[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    put(o, b, n);
}

typedef enum mode { MODE_UTF8, MODE_TERMINAL, MODE_LINE } mode;

static bool is_bidi_control(uint32_t cp)
{
    return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
           cp == 0x200f || cp == 0x061c;
}

static char *inert(const char *s, size_t len, mode m)
{
    out_buf o = {NULL, 0, 0, false};
    put(&o, "", 0);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        uint32_t cp = next_code_point(u, len, &i);
        bool control = cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
        if (cp == 0)
            put_code_point(&o, 0xfffd);
        else if (m != MODE_UTF8 && (cp == '\n' || cp == '\t'))
            m == MODE_LINE ? put(&o, cp == '\n' ? "\\n" : "\\t", 2) : put_code_point(&o, cp);
        else if (m != MODE_UTF8 && cp == '\r')
            put(&o, "\\r", 2);
        else if (m != MODE_UTF8 && (control || is_bidi_control(cp)))
            put_escape(&o, cp);
        else
            put_code_point(&o, cp);
    }
    if (o.failed) {
        free(o.p);
        return NULL;
    }
    return o.p;
}

char *tl_text_utf8(const char *s, size_t len) { return inert(s, len, MODE_UTF8); }

char *tl_text_terminal(const char *s, size_t len) { return inert(s, len, MODE_TERMINAL); }

char *tl_text_line(const char *s, size_t len) { return inert(s, len, MODE_LINE); }

void tl_html_write(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

char *tl_text_csv_cell(const char *s, size_t len)
{
    char *line = inert(s, len, MODE_LINE);
    if (!line)
        return NULL;
    /* A spreadsheet runs a cell that starts like a formula: a quote makes it text. */
    bool formula = (len > 0 && strchr("=+-@\t\r", s[0]) && s[0]) ||
                   (line[0] && strchr("=+-@", line[0]));
    if (!formula)
        return line;
    size_t n = strlen(line);
    char *quoted = malloc(n + 2);
    if (quoted) {
        quoted[0] = '\'';
        memcpy(quoted + 1, line, n + 1);
    }
    free(line);
    return quoted;
}
