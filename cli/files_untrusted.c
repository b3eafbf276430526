/* Reading and copying files a submission controls: no symbolic links followed, nothing but
 * regular files and folders, sizes capped before anything is read. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_DIRECTORY, fdopendir */
#include "files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Reads an opened regular file of at most max bytes. */
static char *read_fd(int fd, const char *path, size_t max, size_t *len, tl_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        tl_error_set(err, "%.500s: refused: %s", path, kind_of(st.st_mode));
        return NULL;
    }
    if ((uint64_t)st.st_size > max) {
        tl_error_set(err, "%.500s: refused: %lld bytes, more than the %zu allowed", path,
                     (long long)st.st_size, max);
        return NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    while (buf && n <= (size_t)st.st_size) {
        ssize_t r = read(fd, buf + n, (size_t)st.st_size + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    if (!buf || n > (size_t)st.st_size) {
        free(buf);
        tl_error_set(err, "%.500s: refused: it changed while it was read", path);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

char *files_read_untrusted(const char *path, size_t max_bytes, size_t *len, tl_error *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            tl_error_set(err, "%.500s: refused: a symbolic link", path);
        else
            tl_error_set(err, "%.500s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    char *text = read_fd(fd, path, max_bytes, len, err);
    close(fd);
    return text;
}

typedef struct budget {
    size_t bytes_left;
    int files_left;
} budget;

static int copy_dir(int from_fd, const char *from_path, const char *to, int depth, budget *b,
                    tl_error *err)
{
    if (depth > 4)
        return tl_error_set(err, "%.500s: refused: folders nested more than 4 deep", from_path);
    if (mkdir(to, 0755) != 0 && errno != EEXIST)
        return tl_error_set(err, "%.500s: cannot create: %s", to, strerror(errno));
    int dup_fd = dup(from_fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return tl_error_set(err, "%.500s: cannot list the folder", from_path);
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char src[4096], dst[4096];
        snprintf(src, sizeof src, "%.3800s/%.255s", from_path, e->d_name);
        snprintf(dst, sizeof dst, "%.3800s/%.255s", to, e->d_name);
        struct stat st;
        if (fstatat(from_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = tl_error_set(err, "%.500s: cannot read: %s", src, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            int sub = openat(from_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            rc = sub < 0 ? tl_error_set(err, "%.500s: refused: %s", src, kind_of(st.st_mode))
                         : copy_dir(sub, src, dst, depth + 1, b, err);
            if (sub >= 0)
                close(sub);
        } else if (!S_ISREG(st.st_mode)) {
            rc = tl_error_set(err, "%.500s: refused: %s", src, kind_of(st.st_mode));
        } else if (--b->files_left < 0) {
            rc = tl_error_set(err, "%.500s: refused: more files than a submission may hold", src);
        } else {
            /* Opened without following links: a link swapped in since fstatat is refused. */
            int fd = openat(from_fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            size_t len = 0;
            char *text = fd >= 0 ? read_fd(fd, src, b->bytes_left, &len, err) : NULL;
            if (fd >= 0)
                close(fd);
            if (!text) {
                rc = fd < 0 ? tl_error_set(err, "%.500s: refused: %s", src, strerror(errno)) : -1;
                if (fd >= 0 && strstr(err->msg, "more than"))
                    tl_error_set(err, "%.500s: refused: the submission's files are larger than "
                                 "allowed", src);
            } else {
                b->bytes_left -= len;
                FILE *f = fopen(dst, "wb");
                if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0)
                    rc = tl_error_set(err, "%.500s: cannot write", dst);
                else
                    chmod(dst, 0644);
                free(text);
            }
        }
    }
    closedir(d);
    return rc;
}

int files_copy_tree_untrusted(const char *from, const char *to, size_t max_total_bytes,
                              int max_files, tl_error *err)
{
    int fd = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        if (lstat(from, &st) == 0)
            return tl_error_set(err, "%.500s: refused: %s", from, kind_of(st.st_mode));
        return tl_error_set(err, "%.500s: cannot open: %s", from, strerror(errno));
    }
    budget b = {max_total_bytes, max_files};
    int rc = copy_dir(fd, from, to, 0, &b, err);
    close(fd);
    return rc;
}
