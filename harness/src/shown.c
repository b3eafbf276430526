/* File names and tokens quoted in one-line error messages (harness_shown.h). */
#include "harness_shown.h"

#include <stdarg.h>
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
