/* A scratch folder for one test's files, and files written into it byte for byte. */
#ifndef TILELAB_TEST_SCRATCH_H
#define TILELAB_TEST_SCRATCH_H

#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_dir[64];

static inline void scratch_init(void)
{
    strcpy(scratch_dir, "/tmp/tilelab-test-XXXXXX");
    cr_assert_not_null(mkdtemp(scratch_dir), "mkdtemp: %s", strerror(errno));
}

static inline void scratch_fini(void)
{
    DIR *d = opendir(scratch_dir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", scratch_dir, e->d_name);
        if (unlink(path) != 0)
            rmdir(path); /* an empty folder a test made */
    }
    closedir(d);
    rmdir(scratch_dir);
}

/* The path of `name` in the scratch folder (a few stay valid at once). */
static inline const char *scratch_path(const char *name)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", scratch_dir, name);
    return p;
}

/* Writes `len` bytes to `name` in the scratch folder; returns its path. */
static inline const char *scratch_write(const char *name, const void *bytes, size_t len)
{
    const char *path = scratch_path(name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    return path;
}

/* A text file's contents (up to 1 MiB), NUL-ended; the caller frees it. */
static inline char *scratch_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    char *text = calloc(1, 1 << 20);
    cr_assert_not_null(text);
    size_t got = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[got] = '\0';
    return text;
}

#endif /* TILELAB_TEST_SCRATCH_H */
