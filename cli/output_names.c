/* Naming the results `run --save-outputs` writes, so that no dataset's result replaces another's
 * within one run. */
#define _DEFAULT_SOURCE /* realpath */
#include "output_names.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room kept at the end of a name for a "-N" suffix. */
#define SUFFIX_ROOM 12

typedef struct folder {
    char path[PATH_MAX]; /* the real path when the folder exists, so "." and "x/" have names */
    int depth;           /* how many of its last components the name takes */
    bool whole;          /* the name takes every component */
    bool grow;           /* shared with another folder's: take one more */
} folder;

static void name_of(folder *f, char *out, size_t size)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", f->path);
    const char *parts[PATH_MAX / 2];
    int n = 0;
    for (char *save = NULL, *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save))
        if (strcmp(p, ".") != 0)
            parts[n++] = p;
    f->whole = n <= f->depth;
    if (n == 0) {
        snprintf(out, size, "dataset");
        return;
    }
    size_t len = 0;
    out[0] = '\0';
    for (int i = n > f->depth ? n - f->depth : 0; i < n && len + 1 < size; i++)
        len += (size_t)snprintf(out + len, size - len, "%s%s", len ? "-" : "", parts[i]);
}

/* True when names[i] is another folder's name too (the same folder twice does not count: more
 * of its path would not tell them apart). */
static bool shared(const folder *f, char (*names)[OUTPUT_NAME_MAX], int n, int i)
{
    for (int j = 0; j < n; j++)
        if (j != i && strcmp(names[i], names[j]) == 0 && strcmp(f[i].path, f[j].path) != 0)
            return true;
    return false;
}

void output_names(const char *const *dirs, int n, char (*names)[OUTPUT_NAME_MAX])
{
    const size_t room = OUTPUT_NAME_MAX - SUFFIX_ROOM;
    folder *f = calloc((size_t)n + 1, sizeof *f);
    for (int i = 0; f && i < n; i++) {
        if (!realpath(dirs[i], f[i].path))
            snprintf(f[i].path, sizeof f[i].path, "%s", dirs[i]);
        f[i].depth = 1;
        name_of(&f[i], names[i], room);
    }
    /* Every name another folder shares takes one more folder above, until none is shared or the
     * paths have no more to give. */
    for (bool longer = f != NULL; longer;) {
        longer = false;
        for (int i = 0; i < n; i++)
            f[i].grow = !f[i].whole && shared(f, names, n, i);
        for (int i = 0; i < n; i++) {
            if (f[i].grow) {
                f[i].depth++;
                name_of(&f[i], names[i], room);
                longer = true;
            }
        }
    }
    if (!f) /* no memory: the folders' own names, numbered below */
        for (int i = 0; i < n; i++)
            snprintf(names[i], room, "dataset");
    free(f);
    /* The same folder twice, or names cut short: number the later ones. */
    for (int i = 1; i < n; i++) {
        char base[OUTPUT_NAME_MAX];
        snprintf(base, sizeof base, "%s", names[i]);
        for (int suffix = 2, clash = 1; clash; suffix++) {
            clash = 0;
            for (int j = 0; j < i && !clash; j++)
                clash = strcmp(names[i], names[j]) == 0;
            if (clash)
                snprintf(names[i], OUTPUT_NAME_MAX, "%.*s-%d", (int)room, base, suffix);
        }
    }
}
