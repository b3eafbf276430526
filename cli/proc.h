/* Running a child program: a time limit that ends its whole process group, and stdout/stderr
 * captured up to a limit each. */
#ifndef TILELAB_PROC_H
#define TILELAB_PROC_H

#include "harness.h"

typedef struct proc_result {
    int exit_code;   /* the child's exit status, or -1 when a signal ended it */
    int signal;      /* the signal that ended it, or 0 */
    bool timed_out;  /* killed at the time limit */
    bool truncated;  /* some output was past the limit and dropped */
    char *out, *err; /* NUL-terminated captures; release with proc_result_free */
    double seconds;
} proc_result;

/* Runs argv (argv[0] looked up on PATH) with no time limit when timeout_s <= 0. Returns -1 only
 * when the child could not be started. */
int proc_run(char *const argv[], double timeout_s, size_t limit, proc_result *res);

/* Limits the child takes on before it starts (0: leave that limit alone). */
typedef struct proc_limits {
    unsigned long cpu_seconds;
    unsigned long file_bytes;    /* largest file it may write */
    unsigned long address_bytes; /* virtual memory */
    unsigned long processes;     /* of its user */
    unsigned long open_files;
    bool drop_to_nobody;         /* when started as root: run as nobody */
} proc_limits;

int proc_run_limited(char *const argv[], double timeout_s, size_t limit, const proc_limits *lim,
                     proc_result *res);
void proc_result_free(proc_result *res);

#endif /* TILELAB_PROC_H */
