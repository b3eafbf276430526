/* Reading whole files into memory, for every reader of the harness (harness_import.h). */
#include "harness_import.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A pipe reports no size: its reads start with this much room. */
#define PIPE_FIRST_READ 65536

ssize_t harness_read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int harness_read_rest(int fd, const char *nm, const struct stat *st, char **buf, size_t *len,
                      tl_error *err)
{
    *buf = NULL;
    *len = 0;
    /* The size is only a hint (pipes report 0, files may grow): read until end of file, with a
     * spare byte so a file of exactly the hinted size needs no second pass (and the NUL fits). */
    size_t cap = S_ISREG(st->st_mode) ? (size_t)st->st_size + 1 : PIPE_FIRST_READ, n = 0;
    char *data = NULL;
    for (;;) {
        char *bigger = realloc(data, cap);
        if (!bigger) {
            free(data);
            return tl_error_set(err, "%s: cannot read: out of memory for %zu bytes", nm, cap);
        }
        data = bigger;
        ssize_t r = harness_read_full(fd, data + n, cap - n);
        if (r < 0 || (n + (size_t)r == cap && cap > SIZE_MAX / 2)) {
            int why = r < 0 ? errno : EFBIG;
            free(data);
            return tl_error_set(err, "%s: cannot read: %s", nm, strerror(why));
        }
        n += (size_t)r;
        if (n < cap)
            break;
        cap *= 2;
    }
    data[n] = '\0';
    *buf = data;
    *len = n;
    return 0;
}

int harness_read_all(const char *path, const char *nm, char **buf, size_t *len, tl_error *err)
{
    *buf = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return tl_error_set(err, "%s: cannot open: %s", nm, strerror(errno));
    struct stat st;
    int rc = fstat(fd, &st) == 0 ? harness_read_rest(fd, nm, &st, buf, len, err)
                                 : tl_error_set(err, "%s: cannot read: %s", nm, strerror(errno));
    close(fd);
    return rc;
}
