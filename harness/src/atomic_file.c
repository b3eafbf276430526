/* Files written whole or not at all: a temporary file beside the target, renamed over it. */
#include "harness_atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files appear with the permissions a plain fopen would give them (mkstemp makes them 0600), or
 * keep those of the file they replace. */
static mode_t target_mode(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        return st.st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static int write_atomic(const char *path, const char *nm, harness_body_fn body, const void *ctx,
                        bool durable, tl_error *err)
{
    /* The temporary sits next to the target so that rename() replaces it atomically. */
    static const char suffix[] = ".tmp.XXXXXX";
    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof suffix);
    if (!tmp)
        return tl_error_set(err, "%s: cannot write: out of memory", nm);
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, suffix, sizeof suffix);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return tl_error_set(err, "%s: cannot create a temporary file in its folder: %s", nm,
                            strerror(e));
    }
    const char *step = "cannot write";
    int e = 0;
    FILE *f = fchmod(fd, target_mode(path)) == 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        e = errno;
        close(fd);
        goto fail;
    }
    errno = 0;
    if (body(f, ctx) != 0 || ferror(f)) {
        e = errno ? errno : EIO;
        fclose(f);
        goto fail;
    }
    /* The rename alone keeps readers from seeing half a file; a power cut may still leave the
     * new name with no data unless the data reached the disk first, which only what cannot be
     * made again (a grading's journal) pays for. */
    if (durable && (fflush(f) != 0 || fsync(fileno(f)) != 0)) {
        e = errno;
        fclose(f);
        goto fail;
    }
    if (fclose(f) != 0) {
        e = errno;
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        step = "cannot replace the file";
        goto fail;
    }
    free(tmp);
    return 0;
fail:
    unlink(tmp);
    free(tmp);
    return tl_error_set(err, "%s: %s: %s", nm, step, strerror(e));
}

int harness_write_atomic(const char *path, const char *nm, harness_body_fn body,
                         const void *ctx, tl_error *err)
{
    return write_atomic(path, nm, body, ctx, false, err);
}

typedef struct bytes {
    const void *data;
    size_t len;
} bytes;

static int write_bytes(FILE *f, const void *ctx)
{
    const bytes *b = ctx;
    return fwrite(b->data, 1, b->len, f) == b->len ? 0 : -1;
}

int tl_write_file_atomic(const char *path, const void *data, size_t len, tl_error *err)
{
    bytes b = {data, len};
    return write_atomic(path, path, write_bytes, &b, false, err);
}

int tl_write_file_durable(const char *path, const void *data, size_t len, tl_error *err)
{
    bytes b = {data, len};
    return write_atomic(path, path, write_bytes, &b, true, err);
}
