/* Running a child program with a time limit and captured, capped output. */
#define _DEFAULT_SOURCE /* setgroups */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct sink {
    int fd;
    char *buf;
    size_t len, cap, limit;
    bool truncated;
} sink;

/* Reads what is there; returns false at end of file. Bytes past the limit are read and dropped
 * so a chatty child never blocks on a full pipe. */
static bool drain(sink *s)
{
    char chunk[65536];
    ssize_t n = read(s->fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    size_t keep = (size_t)n;
    if (s->len + keep > s->limit) {
        keep = s->limit > s->len ? s->limit - s->len : 0;
        s->truncated = true;
    }
    if (keep) {
        if (s->len + keep + 1 > s->cap) {
            size_t cap = (s->len + keep + 1) * 2;
            char *grown = realloc(s->buf, cap);
            if (!grown)
                return true;
            s->buf = grown;
            s->cap = cap;
        }
        memcpy(s->buf + s->len, chunk, keep);
        s->len += keep;
        s->buf[s->len] = '\0';
    }
    return true;
}

static char *finish(sink *s)
{
    if (!s->buf) {
        s->buf = calloc(1, 1);
    }
    return s->buf;
}

static void apply_limits(const proc_limits *lim)
{
    struct rlimit r;
    if (lim->cpu_seconds) {
        r.rlim_cur = lim->cpu_seconds;
        r.rlim_max = lim->cpu_seconds + 5;
        setrlimit(RLIMIT_CPU, &r);
    }
    if (lim->file_bytes) {
        r.rlim_cur = r.rlim_max = lim->file_bytes;
        setrlimit(RLIMIT_FSIZE, &r);
    }
    if (lim->address_bytes) {
        r.rlim_cur = r.rlim_max = lim->address_bytes;
        setrlimit(RLIMIT_AS, &r);
    }
    if (lim->processes) {
        r.rlim_cur = r.rlim_max = lim->processes;
        setrlimit(RLIMIT_NPROC, &r);
    }
    if (lim->open_files) {
        r.rlim_cur = r.rlim_max = lim->open_files;
        setrlimit(RLIMIT_NOFILE, &r);
    }
    if (lim->drop_to_nobody && geteuid() == 0) {
        struct passwd *pw = getpwnam("nobody");
        uid_t uid = pw ? pw->pw_uid : 65534;
        gid_t gid = pw ? pw->pw_gid : 65534;
        if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
            fprintf(stderr, "cannot drop to the unprivileged user nobody\n");
            _exit(126);
        }
    }
}

int proc_run(char *const argv[], double timeout_s, size_t limit, proc_result *res)
{
    return proc_run_limited(argv, timeout_s, limit, NULL, res);
}

int proc_run_limited(char *const argv[], double timeout_s, size_t limit, const proc_limits *lim,
                     proc_result *res)
{
    memset(res, 0, sizeof *res);
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) != 0)
        return -1;
    if (pipe(err_pipe) != 0) {
        close(out_pipe[0]);
        close(out_pipe[1]);
        return -1;
    }
    double start = tl_clock_now();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* Its own process group, so a timeout can end it and everything it started. */
        setpgid(0, 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        close(out_pipe[0]);
        close(err_pipe[0]);
        close(out_pipe[1]);
        close(err_pipe[1]);
        if (lim)
            apply_limits(lim);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(out_pipe[1]);
    close(err_pipe[1]);
    sink out = {out_pipe[0], NULL, 0, 0, limit, false};
    sink err = {err_pipe[0], NULL, 0, 0, limit, false};
    bool out_open = true, err_open = true;
    while (out_open || err_open) {
        double left = timeout_s - (tl_clock_now() - start);
        if (timeout_s > 0 && left <= 0) {
            res->timed_out = true;
            kill(-pid, SIGKILL);
            break;
        }
        struct pollfd fds[2] = {{out_open ? out.fd : -1, POLLIN, 0}, {err_open ? err.fd : -1, POLLIN, 0}};
        int wait_ms = timeout_s > 0 ? (int)(left * 1000) + 1 : -1;
        if (wait_ms > 1000)
            wait_ms = 1000;
        int n = poll(fds, 2, wait_ms);
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            out_open = drain(&out);
        if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            err_open = drain(&err);
    }
    close(out.fd);
    close(err.fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    res->seconds = tl_clock_now() - start;
    res->out = finish(&out);
    res->err = finish(&err);
    res->truncated = out.truncated || err.truncated;
    if (WIFEXITED(status)) {
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->exit_code = -1;
        res->signal = WTERMSIG(status);
    }
    return 0;
}

void proc_result_free(proc_result *res)
{
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}
