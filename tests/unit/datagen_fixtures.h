/* Helpers shared by the datagen tests: temporary dataset folders and generation. */
#ifndef TILELAB_TEST_DATAGEN_FIXTURES_H
#define TILELAB_TEST_DATAGEN_FIXTURES_H

#include <criterion/criterion.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datagen.h"

static inline void make_temp_dir(char *out, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(out, size, "%s/tilelab-datagen-XXXXXX", base && *base ? base : "/tmp");
    cr_assert_not_null(mkdtemp(out), "mkdtemp failed for %s", out);
}

static inline void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                    continue;
                char child[4096];
                int len = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
                if (len > 0 && (size_t)len < sizeof child)
                    remove_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static inline void path_in(char *out, size_t size, const char *dir, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

static inline tl_gen_options options(uint64_t seed, tl_format format)
{
    tl_gen_options o = {seed, format, false, 2, false};
    return o;
}

static inline void generate_ok(const char *dir, int index, tl_size size,
                               const tl_gen_options *o, tl_write_outcome expected)
{
    tl_gen_result res;
    tl_error err = {""};
    cr_assert_eq(tl_dataset_generate(dir, index, size, o, &res, &err), 0, "%s", err.msg);
    cr_assert_eq(res.outcome, expected, "outcome %d, expected %d", res.outcome, expected);
    cr_assert_geq(res.seconds, 0.0);
}

#endif /* TILELAB_TEST_DATAGEN_FIXTURES_H */
