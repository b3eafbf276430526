#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>

static const char *const level_names[] = {"fatal", "error", "warn", "info", "debug", "trace"};

/* The threshold starts unset so that TILELAB_LOG is read once, on first use; without it the
 * default applies (info, or what a layer such as libwb's set as its default). */
static int threshold = -1;
static bool threshold_set;
static tl_log_level default_level = TL_LOG_INFO;
static FILE *log_stream;

int tl_log_parse_level(const char *name, tl_log_level *out)
{
    if (!name)
        return -1;
    for (int i = 0; i <= TL_LOG_TRACE; i++) {
        if (strcasecmp(name, level_names[i]) == 0) {
            *out = (tl_log_level)i;
            return 0;
        }
    }
    if (strcasecmp(name, "warning") == 0) {
        *out = TL_LOG_WARN;
        return 0;
    }
    return -1;
}

const char *tl_log_level_name(tl_log_level level)
{
    if ((int)level < 0 || level > TL_LOG_TRACE)
        return "?";
    return level_names[level];
}

tl_log_level tl_log_get_level(void)
{
    if (threshold < 0) {
        tl_log_level from_env;
        threshold = tl_log_parse_level(getenv("TILELAB_LOG"), &from_env) == 0 ? (int)from_env
                                                                              : (int)default_level;
    }
    return (tl_log_level)threshold;
}

void tl_log_set_level(tl_log_level level)
{
    threshold = (int)level;
    threshold_set = true;
}

void tl_log_set_default_level(tl_log_level level)
{
    default_level = level;
    if (!threshold_set)
        threshold = -1; /* read again: TILELAB_LOG still wins */
}

void tl_log_set_stream(FILE *stream)
{
    log_stream = stream;
}

void tl_log(tl_log_level level, const char *fmt, ...)
{
    if (level > tl_log_get_level())
        return;
    FILE *out = log_stream ? log_stream : stderr;
    fprintf(out, "[%s] ", tl_log_level_name(level));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
    fflush(out);
}
