/* util: the kit's own small helpers, the one header of util/. Whole files (read through the
 * harness's reader; atomic writes are the harness's tl_write_file_atomic), folders and copies
 * (util_files.c), the hashes of cache keys (util_hash.c), files a submission controls
 * (util_files_untrusted.c) and child processes (util_proc.c). Plain C, for the runner, the
 * grader, the commands and the tests; never linked into a lab program. */
#ifndef TILELAB_UTIL_H
#define TILELAB_UTIL_H

#include "harness.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The whole file as a NUL-terminated string (malloc'd; *len gets its length when not NULL),
 * or NULL when it cannot be read. */
char *files_read(const char *path, size_t *len);
/* Creates a folder and the folders above it that are missing (mode 0755), as mkdir -p does;
 * 0, or -1 with errno set. */
int files_make_dirs(const char *dir);
/* Removes a folder and everything in it (symbolic links are removed, not followed). */
void files_remove_tree(const char *dir);
/* Copies a file; 0 on success. */
int files_copy(const char *from, const char *to);

/* ---- hashing (util_hash.c): cache keys, with harness.h's tl_hash, from TL_HASH_SEED ---- */
/* A text and its terminating NUL (so "ab","c" and "a","bc" differ). */
uint64_t util_hash_text(uint64_t h, const char *text);
/* A file the kit builds with (a library, a header, the compiler): its size, its modification
 * time and its path, so that a rebuilt library changes the key as much as the source would. */
uint64_t util_hash_stamp(uint64_t h, const char *path);
/* A file's whole content; 0, or -1 when it cannot be read. */
int util_hash_file(uint64_t *h, const char *path);
/* A folder, in name order (names starting with '.' skipped): each entry's name and kind
 * (st_mode), a regular file's content (its size instead when it is over max_file_bytes or
 * cannot be read), a folder's entries when it is at most max_depth levels below `dir`; links
 * count as what they are, unfollowed (read as files_read_untrusted reads). 0, or -1 when `dir`
 * itself cannot be read. */
int util_hash_tree(uint64_t *h, const char *dir, int max_depth, size_t max_file_bytes);

/* ---- files a submission controls (util_files_untrusted.c) ------------------------------- */
/* Messages name the path made inert (tl_text_line): a submission chooses its file names. */

/* A regular file of at most max_bytes, NUL-terminated (malloc'd; *len gets its length when not
 * NULL). A symbolic link, FIFO, socket, device or folder is refused without being opened for
 * reading, a larger file without being read. NULL with err naming the path and why. */
char *files_read_untrusted(const char *path, size_t max_bytes, size_t *len, tl_error *err);
/* Copies a submission folder into `to` (created when missing): regular files (made 0644) and
 * folders (0755) at most 4 levels below `from`; names starting with '.' are skipped. A link,
 * FIFO, socket or device anywhere, more than max_files files and folders, or more than
 * max_total_bytes in all is refused, naming the offending path. No link is followed, even one
 * swapped in while the copy runs. On failure `to` may hold part of the copy. */
int files_copy_tree_untrusted(const char *from, const char *to, size_t max_total_bytes,
                              int max_files, tl_error *err);

/* ---- child processes (util_proc.c) ------------------------------------------------------ */
typedef struct proc_limits {
    unsigned long cpu_seconds;
    unsigned long file_bytes;    /* largest file it may write */
    unsigned long address_bytes; /* virtual memory */
    unsigned long processes;     /* of its user */
    unsigned long open_files;
} proc_limits;

typedef struct proc_spec {
    char *const *argv;           /* argv[0] looked up on PATH */
    char *const *envp;           /* NULL: this process's environment; else exactly this one */
    double timeout_s;            /* <= 0: none */
    size_t capture_limit;        /* bytes kept of stdout and of stderr */
    const proc_limits *limits;   /* NULL: none */
    bool set_uid;                /* run as uid/gid (only when this process is root) */
    uid_t uid;
    gid_t gid;
    /* The child's descriptor 3 is a pipe whose bytes go to on_result as they come; without a
     * callback the child gets only 0 (/dev/null), 1 and 2, and nothing else is inherited. */
    void (*on_result)(void *ctx, const char *data, size_t n);
    void *result_ctx;
    const char *cwd;             /* NULL: this process's */
} proc_spec;

typedef struct proc_result {
    int exit_code;   /* the child's exit status, or -1 when a signal ended it */
    int signal;      /* the signal that ended it, or 0 */
    bool timed_out;  /* killed at the time limit */
    bool truncated;  /* some output was past the limit and dropped */
    char *out, *err; /* NUL-terminated captures; release with proc_result_free */
    double seconds;
} proc_result;

/* Runs a child in its own process group (a time limit ends the whole group). Returns -1 only
 * when it could not be started. The calling process becomes a child subreaper and reaps, after
 * each child, any of its children's children left over (a sandbox whose monitor went with the
 * group): so it must start no children of its own that it waits for with wait(-1) while a
 * proc_run_spec is under way. */
int proc_run_spec(const proc_spec *spec, proc_result *res);
/* The kit's own tools (nvcc, ncu): environment inherited, no limits. */
int proc_run(char *const argv[], double timeout_s, size_t limit, proc_result *res);
/* From now on an interrupt (Ctrl-C: SIGINT), SIGTERM or SIGHUP to this process also ends every
 * child proc_run started that is still running, with all it started (each child has a process
 * group of its own, which the terminal's signal does not reach), then this process as the
 * signal would have. */
void proc_end_children_on_interrupt(void);
void proc_result_free(proc_result *res);

#endif /* TILELAB_UTIL_H */
