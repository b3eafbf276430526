/* Cache and journal keys: the kit's 64-bit FNV-1a (tl_hash) over texts, files, folders and the
 * stamps of files the kit builds with. */
#include "util.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

uint64_t util_hash_text(uint64_t h, const char *text)
{
    return tl_hash(h, text, strlen(text) + 1);
}

uint64_t util_hash_stamp(uint64_t h, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        int64_t parts[2] = {(int64_t)st.st_size, (int64_t)st.st_mtime};
        h = tl_hash(h, parts, sizeof parts);
    }
    return util_hash_text(h, path);
}

int util_hash_file(uint64_t *h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        *h = tl_hash(*h, buf, n);
    int failed = ferror(f);
    fclose(f);
    return failed ? -1 : 0;
}

static int hash_folder(uint64_t *h, const char *dir, int depth, int max_depth, size_t max_bytes)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.3800s/%.255s", dir, names[i]->d_name);
        struct stat st;
        if (names[i]->d_name[0] != '.' && lstat(path, &st) == 0) {
            *h = util_hash_text(*h, names[i]->d_name);
            *h = tl_hash(*h, &st.st_mode, sizeof st.st_mode);
            if (S_ISDIR(st.st_mode) && depth < max_depth) {
                hash_folder(h, path, depth + 1, max_depth, max_bytes);
            } else if (S_ISREG(st.st_mode)) {
                size_t len = 0;
                char *text = files_read_untrusted(path, max_bytes, &len, NULL);
                *h = text ? tl_hash(*h, text, len) : tl_hash(*h, &st.st_size, sizeof st.st_size);
                free(text);
            }
        }
        free(names[i]);
    }
    free(names);
    return n < 0 ? -1 : 0;
}

int util_hash_tree(uint64_t *h, const char *dir, int max_depth, size_t max_file_bytes)
{
    return hash_folder(h, dir, 0, max_depth, max_file_bytes);
}
