/* Which removed runtime calls a submission makes (runner_removed.h). */
#include "runner_removed.h"

#include "runner.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The calls harness/cuda_removed.h defines, each as the call that replaced it: the runtime's
 * old thread-management group, which CUDA 13.0 removed. */
#define REMOVED_IN_CUDART 13000

typedef struct removed_call {
    const char *name, *now;
} removed_call;

static const removed_call removed[] = {
    {"cudaThreadSynchronize", "cudaDeviceSynchronize"},
    {"cudaThreadExit", "cudaDeviceReset"},
    {"cudaThreadSetLimit", "cudaDeviceSetLimit"},
    {"cudaThreadGetLimit", "cudaDeviceGetLimit"},
    {"cudaThreadSetCacheConfig", "cudaDeviceSetCacheConfig"},
    {"cudaThreadGetCacheConfig", "cudaDeviceGetCacheConfig"},
};
#define NREMOVED (sizeof removed / sizeof removed[0])

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The end of the string or character literal opened by the quote at `p`. */
static const char *skip_literal(const char *p)
{
    char quote = *p++;
    while (*p && *p != quote && *p != '\n') {
        if (*p == '\\' && p[1])
            p++;
        p++;
    }
    return *p == quote ? p + 1 : p;
}

/* "A, B and C": the names (`now`: their replacements) of the calls found. */
static size_t list(char *out, size_t size, const bool *found, int count, bool now)
{
    size_t len = 0;
    int k = 0;
    for (size_t i = 0; i < NREMOVED && len < size; i++) {
        if (!found[i])
            continue;
        k++;
        int n = snprintf(out + len, size - len, "%s%s", k == 1 ? "" : k == count ? " and " : ", ",
                         now ? removed[i].now : removed[i].name);
        len += n > 0 ? (size_t)n : 0;
    }
    return len;
}

int removed_calls_note(const char *own, int cudart_version, char *note, size_t size)
{
    if (size > 0)
        note[0] = '\0';
    if (cudart_version < REMOVED_IN_CUDART || !own)
        return 0;
    bool found[NREMOVED] = {false};
    int count = 0;
    char file[NAME_MAX + 1] = "", first_file[NAME_MAX + 1] = "";
    long line = 1, first_line = 0;
    bool line_start = true;
    for (const char *p = own; *p;) {
        if (line_start && *p == '#') {
            /* A line marker names the file and line of what follows; nothing else starts a
             * line of preprocessed code with '#'. */
            size_t n = strcspn(p, "\n");
            char text[PATH_MAX + 64];
            snprintf(text, sizeof text, "%.*s", (int)(n < sizeof text ? n : sizeof text - 1), p);
            long at;
            if (runner_line_marker(text, &at, file, sizeof file))
                line = at;
            p += n + (p[n] == '\n');
            continue;
        }
        line_start = false;
        if (*p == '\n') {
            line++;
            line_start = true;
            p++;
        } else if (*p == '"' || *p == '\'') {
            p = skip_literal(p);
        } else if (ident_char(*p)) {
            size_t n = 0;
            while (ident_char(p[n]))
                n++;
            for (size_t i = 0; i < NREMOVED; i++)
                if (!found[i] && strlen(removed[i].name) == n &&
                    strncmp(p, removed[i].name, n) == 0) {
                    found[i] = true;
                    if (count++ == 0) {
                        snprintf(first_file, sizeof first_file, "%s", file);
                        first_line = line;
                    }
                }
            p += n;
        } else {
            p++;
        }
    }
    if (count == 0 || size == 0)
        return count;
    size_t len = (size_t)snprintf(note, size, "this program calls ");
    if (len < size)
        len += list(note + len, size - len, found, count, false);
    if (len < size)
        len += (size_t)snprintf(note + len, size - len, ", removed in CUDA %d; the kit maps %s to ",
                                REMOVED_IN_CUDART / 1000, count == 1 ? "it" : "them");
    if (len < size)
        len += list(note + len, size - len, found, count, true);
    if (len < size && first_file[0])
        snprintf(note + len, size - len, " (first call at %s:%ld)", first_file, first_line);
    return count;
}
