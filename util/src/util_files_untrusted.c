/* Reading and copying files a submission controls: no symbolic link is followed, nothing but
 * regular files and folders is read, sizes are capped before anything is read, and the names
 * the submission chose are made inert before they reach a message. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_DIRECTORY, fdopendir, openat */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 4
#define COPY_CHUNK 65536

static const char *kind_of(mode_t m)
{
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISDIR(m))
        return "a folder";
    return "not a regular file";
}

/* "PATH: what", with PATH shown inertly: a submission picks its file names, escape sequences
 * and newlines included, and the message ends up on a terminal or in a gradebook. */
static int fail(tl_error *err, const char *path, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char *shown = tl_text_line(path, strlen(path));
    tl_error_set(err, "%.300s: %s", shown ? shown : "(a file)", what);
    free(shown);
    return -1;
}

/* Why open() with O_NOFOLLOW failed, in words: ELOOP means the name is a symbolic link (one
 * swapped in since it was looked at, when it was looked at first). */
static int open_failed(tl_error *err, const char *path)
{
    int e = errno;
    return e == ELOOP ? fail(err, path, "refused: a symbolic link")
                      : fail(err, path, "cannot open: %s", strerror(e));
}

/* Checks what an opened file is: a regular file, the one looked at before when `seen` is given,
 * no larger than `max`. Returns its size, or -1. */
static off_t checked_size(int fd, const struct stat *seen, size_t max, const char *path,
                          tl_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail(err, path, "cannot read: %s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return fail(err, path, "refused: %s", kind_of(st.st_mode));
    if (seen && (st.st_dev != seen->st_dev || st.st_ino != seen->st_ino))
        return fail(err, path, "refused: it was replaced while it was opened");
    if ((uintmax_t)st.st_size > max)
        return fail(err, path, "refused: %jd bytes, more than the %zu allowed",
                    (intmax_t)st.st_size, max);
    return st.st_size;
}

/* Reads up to `size` bytes, refusing a file that has grown since its size was taken. */
static char *read_exactly(int fd, off_t size, size_t *len, const char *path, tl_error *err)
{
    size_t cap = (size_t)size + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fail(err, path, "cannot read: out of memory");
        return NULL;
    }
    /* One byte more than the size is asked for: getting it means the file grew. */
    for (;;) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            fail(err, path, "cannot read: %s", strerror(errno));
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == cap) {
            fail(err, path, "refused: it grew while it was read");
            free(buf);
            return NULL;
        }
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *files_read_untrusted(const char *path, size_t max_bytes, size_t *len, tl_error *err)
{
    /* Looked at before opening, so a FIFO or a device is never opened at all: opening one can
     * block, or make a driver act. */
    struct stat seen;
    if (lstat(path, &seen) != 0) {
        fail(err, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    if (!S_ISREG(seen.st_mode)) {
        fail(err, path, "refused: %s", kind_of(seen.st_mode));
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        open_failed(err, path);
        return NULL;
    }
    off_t size = checked_size(fd, &seen, max_bytes, path, err);
    char *text = size < 0 ? NULL : read_exactly(fd, size, len, path, err);
    close(fd);
    return text;
}

/* ---- copying a folder ------------------------------------------------------------------- */
typedef struct budget {
    size_t bytes_left;
    int entries_left; /* files and folders together */
} budget;

static bool write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        buf += w;
        n -= (size_t)w;
    }
    return true;
}

/* Copies the regular file `name` of from_fd into to_fd, 0644. */
static int copy_file(int from_fd, int to_fd, const char *name, const struct stat *seen,
                     const char *path, budget *b, tl_error *err)
{
    int in = openat(from_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (in < 0)
        return open_failed(err, path);
    off_t size = checked_size(in, seen, SIZE_MAX, path, err);
    if (size >= 0 && (uintmax_t)size > b->bytes_left)
        size = fail(err, path, "refused: the submission's files come to more than allowed");
    int out = size < 0 ? -1
                       : openat(to_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                                0644);
    int rc = size < 0 ? -1 : 0;
    if (rc == 0 && (out < 0 || fchmod(out, 0644) != 0))
        rc = fail(err, path, "cannot copy: %s", strerror(errno));
    char buf[COPY_CHUNK];
    size_t copied = 0;
    while (rc == 0) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = r < 0 ? fail(err, path, "cannot read: %s", strerror(errno)) : 0;
            break;
        }
        copied += (size_t)r;
        if (copied > (size_t)size)
            rc = fail(err, path, "refused: it grew while it was copied");
        else if (!write_all(out, buf, (size_t)r))
            rc = fail(err, path, "cannot copy: %s", strerror(errno ? errno : EIO));
    }
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = fail(err, path, "cannot copy: %s", strerror(errno));
    close(in);
    if (rc == 0)
        b->bytes_left -= copied;
    return rc;
}

static int copy_dir(int from_fd, int to_fd, char *path, size_t path_len, int depth, budget *b,
                    tl_error *err);

/* Copies one entry of a folder, whatever it turns out to be. `path` names it for messages. */
static int copy_entry(int from_fd, int to_fd, const char *name, char *path, size_t path_len,
                      int depth, budget *b, tl_error *err)
{
    struct stat st;
    if (fstatat(from_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return fail(err, path, "cannot read: %s", strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return fail(err, path, "refused: %s", kind_of(st.st_mode));
    if (--b->entries_left < 0)
        return fail(err, path, "refused: more files and folders than a submission may hold");
    if (S_ISREG(st.st_mode))
        return copy_file(from_fd, to_fd, name, &st, path, b, err);
    if (depth >= MAX_DEPTH)
        return fail(err, path, "refused: folders nested more than %d deep", MAX_DEPTH);
    /* O_NOFOLLOW | O_DIRECTORY: a link swapped in for the folder since fstatat is refused. */
    int sub_from = openat(from_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub_from < 0)
        return open_failed(err, path);
    int rc = 0;
    if (mkdirat(to_fd, name, 0755) != 0 && errno != EEXIST)
        rc = fail(err, path, "cannot copy the folder: %s", strerror(errno));
    int sub_to = rc ? -1 : openat(to_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rc == 0 && (sub_to < 0 || fchmod(sub_to, 0755) != 0))
        rc = fail(err, path, "cannot copy the folder: %s", strerror(errno));
    if (rc == 0)
        rc = copy_dir(sub_from, sub_to, path, path_len, depth + 1, b, err);
    if (sub_to >= 0)
        close(sub_to);
    close(sub_from);
    return rc;
}

/* `path` (a PATH_MAX buffer holding path_len characters) names from_fd for messages. */
static int copy_dir(int from_fd, int to_fd, char *path, size_t path_len, int depth, budget *b,
                    tl_error *err)
{
    int listed = dup(from_fd);
    DIR *d = listed >= 0 ? fdopendir(listed) : NULL;
    if (!d) {
        if (listed >= 0)
            close(listed);
        return fail(err, path, "cannot list the folder: %s", strerror(errno));
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (errno = 0, e = readdir(d));) {
        if (e->d_name[0] == '.') /* ".", ".." and hidden files are not part of a submission */
            continue;
        /* A name too long for the buffer is only cut in messages; the copy uses the fds. */
        snprintf(path + path_len, PATH_MAX - path_len, "/%s", e->d_name);
        size_t sub_len = strlen(path);
        rc = copy_entry(from_fd, to_fd, e->d_name, path, sub_len, depth, b, err);
        path[path_len] = '\0';
    }
    if (rc == 0 && errno != 0)
        rc = fail(err, path, "cannot list the folder: %s", strerror(errno));
    closedir(d);
    return rc;
}

int files_copy_tree_untrusted(const char *from, const char *to, size_t max_total_bytes,
                              int max_files, tl_error *err)
{
    int from_fd = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (from_fd < 0) {
        struct stat st;
        if (lstat(from, &st) == 0 && !S_ISDIR(st.st_mode))
            return fail(err, from, "refused: %s", kind_of(st.st_mode));
        return fail(err, from, "cannot open: %s", strerror(errno));
    }
    int rc = 0;
    if (mkdir(to, 0755) != 0 && errno != EEXIST)
        rc = fail(err, to, "cannot create the folder: %s", strerror(errno));
    int to_fd = rc ? -1 : open(to, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rc == 0 && (to_fd < 0 || fchmod(to_fd, 0755) != 0))
        rc = fail(err, to, "cannot create the folder: %s", strerror(errno));
    if (rc == 0) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", from);
        budget b = {max_total_bytes, max_files};
        rc = copy_dir(from_fd, to_fd, path, strlen(path), 0, &b, err);
    }
    if (to_fd >= 0)
        close(to_fd);
    close(from_fd);
    return rc;
}
