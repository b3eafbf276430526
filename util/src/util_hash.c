/* Cache keys: the kit's 64-bit FNV-1a (tl_hash) over texts, files and the stamps of files the
 * kit builds with. */
#include "util.h"

#include <stdio.h>
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
