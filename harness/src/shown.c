/* The tokens of text files: quoted in one-line error messages, read as numbers (harness_shown.h). */
#include "harness_shown.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *harness_show(char *buf, size_t size, const char *s, size_t n, size_t max_shown)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i >= max_shown || o + 8 >= size) {
            memcpy(buf + o, "...", 4);
            return buf;
        }
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
    }
    buf[o] = '\0';
    return buf;
}

const char *harness_show_name(char buf[HARNESS_NAME_BUF], const char *name)
{
    if (!name)
        name = "<memory>";
    return harness_show(buf, HARNESS_NAME_BUF, name, strlen(name), HARNESS_SHOW_MAX);
}

int harness_token_error(tl_error *err, const char *nm, long long line, long long col,
                        const char *tok, size_t len, const char *fmt, ...)
{
    char what[256], shown[HARNESS_SHOW_TOKEN_MAX * 4 + 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tl_error_set(err, "%s:%lld:%lld: %s, found \"%s\"", nm, line, col, what,
                        harness_show(shown, sizeof shown, tok, len, HARNESS_SHOW_TOKEN_MAX));
}

/* "expected a number (<where>)<detail>" for one token. */
static int not_a_number(const char *nm, long long line, long long col, const char *tok,
                        size_t len, harness_where at, const char *detail, tl_error *err)
{
    char where[96];
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    snprintf(where, sizeof where, at.format, at.a, at.b);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return harness_token_error(err, nm, line, col, tok, len, "expected a number (%s)%s", where,
                               detail);
}

int harness_parse_float(const char *nm, long long line, long long col, const char *tok,
                        size_t len, harness_where at, float *out, tl_error *err)
{
    if (len > HARNESS_TOKEN_MAX) {
        char detail[96];
        snprintf(detail, sizeof detail, ", but this token has %zu characters (at most %d)", len,
                 HARNESS_TOKEN_MAX);
        return not_a_number(nm, line, col, tok, len, at, detail, err);
    }
    char buf[HARNESS_TOKEN_MAX + 1], *end;
    memcpy(buf, tok, len);
    buf[len] = '\0';
    errno = 0;
    float v = strtof(buf, &end);
    /* Compared with the length, not *end, because a NUL byte inside a token would otherwise end
     * it early and pass. */
    if (end == buf || end != buf + len)
        return not_a_number(nm, line, col, tok, len, at, "", err);
    /* Underflow also sets ERANGE but gives a usable subnormal or zero: only infinity from a
     * finite spelling is out of range. */
    if (isinf(v) && errno == ERANGE)
        return harness_token_error(err, nm, line, col, tok, len, "value out of float32 range");
    if (!isfinite(v))
        return harness_token_error(err, nm, line, col, tok, len,
                                   "NaN/Inf is not allowed in an input matrix");
    *out = v;
    return 0;
}
