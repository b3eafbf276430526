/* Finding the submissions of a class and fingerprinting them. Nothing here follows a link or
 * reads more than a submission may hold. */
#define _GNU_SOURCE /* O_NOFOLLOW, O_DIRECTORY, fdopendir */
#include "grader.h"

#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_STUDENTS 4096
/* How many levels of folders below a submission count in its key (the journal's). */
#define SUBMISSION_HASH_DEPTH 4

static int by_student(const void *a, const void *b)
{
    return strcmp(((const submission *)a)->student, ((const submission *)b)->student);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n > m && strcmp(s + n - m, tail) == 0;
}

/* The .cu graded: the lab's file name, or the one .cu there is. Links are not looked through:
 * the build's copy refuses them. */
static void find_source(submission *s)
{
    DIR *d = opendir(s->folder);
    int count = 0;
    bool template_there = false;
    char first[NAME_MAX + 1] = "";
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".cu"))
            continue;
        if (strcmp(e->d_name, "template.cu") == 0)
            template_there = true;
        else if (count++ == 0)
            snprintf(first, sizeof first, "%s", e->d_name);
    }
    if (d)
        closedir(d);
    if (template_there) {
        snprintf(s->source, sizeof s->source, "template.cu");
    } else if (count == 1) {
        snprintf(s->source, sizeof s->source, "%s", first);
        snprintf(s->note, sizeof s->note, "no template.cu; the one .cu file found was graded");
    } else if (count > 1) {
        snprintf(s->note, sizeof s->note, "%d .cu files and no template.cu: nothing graded", count);
    } else {
        snprintf(s->note, sizeof s->note, "no .cu file in the submission");
    }
}

static bool holds_cu(const char *dir)
{
    DIR *d = opendir(dir);
    bool found = false;
    for (struct dirent *e; d && !found && (e = readdir(d));)
        found = e->d_name[0] != '.' && ends_with(e->d_name, ".cu");
    if (d)
        closedir(d);
    return found;
}

int grader_discover(const char *root, submission **out, tl_error *err)
{
    submission *list = calloc(MAX_STUDENTS, sizeof *list);
    if (!list)
        return tl_error_set(err, "out of memory");
    *out = list;
    struct stat st;
    if (lstat(root, &st) != 0 || !S_ISDIR(st.st_mode))
        return tl_error_set(err, "%s: not a folder", root);
    /* A folder holding a .cu itself is one (Gradescope-style) submission. */
    if (holds_cu(root)) {
        const char *base = strrchr(root, '/');
        snprintf(list[0].student, sizeof list[0].student, "%s", base && base[1] ? base + 1 : root);
        snprintf(list[0].folder, sizeof list[0].folder, "%s", root);
        find_source(&list[0]);
        return 1;
    }
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return tl_error_set(err, "%s: cannot list the folder", root);
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_STUDENTS;) {
        if (e->d_name[0] == '.' || fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
            continue;
        submission *s = &list[n++];
        snprintf(s->student, sizeof s->student, "%s", e->d_name);
        snprintf(s->folder, sizeof s->folder, "%.3800s/%.255s", root, e->d_name);
        if (S_ISLNK(st.st_mode))
            snprintf(s->refused, sizeof s->refused, "the submission folder is a symbolic link: "
                     "a submission is the student's own files");
        else
            find_source(s);
    }
    closedir(d);
    qsort(list, (size_t)n, sizeof *list, by_student);
    return n;
}

uint64_t grader_submission_hash(const submission *s)
{
    uint64_t h = TL_HASH_SEED;
    h = tl_hash(h, s->refused, strlen(s->refused));
    if (!s->refused[0])
        util_hash_tree(&h, s->folder, SUBMISSION_HASH_DEPTH, RUNNER_MAX_SOURCE_BYTES);
    return h;
}
