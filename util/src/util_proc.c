/* Running a child: a time limit that ends its whole process group, stdout and stderr captured up
 * to a limit each, an optional result pipe, resource limits, another user, a chosen environment,
 * and nothing inherited but what is named. */
#define _GNU_SOURCE /* setgroups, pipe2 */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct sink {
    int fd;
    char *buf;
    size_t len, cap, limit;
    bool truncated;
    void (*stream)(void *ctx, const char *data, size_t n); /* instead of keeping the bytes */
    void *ctx;
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
    if (s->stream) {
        s->stream(s->ctx, chunk, (size_t)n);
        return true;
    }
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
    if (!s->buf)
        s->buf = calloc(1, 1);
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
}

/* Every descriptor above `keep`: the grader's journal files and locks stay the grader's. */
static void close_above(int keep)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        for (int fd = keep + 1; fd < 4096; fd++)
            close(fd);
        return;
    }
    int self = dirfd(d);
    int fds[1024], n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 1024;) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd > keep && fd != self)
            fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

/* The process groups of the children running now, for the interrupt handler: slots hold a pid
 * or 0, written with plain atomic stores so the handler may read them at any moment. */
#define MAX_LIVE_CHILDREN 256
static _Atomic pid_t live_children[MAX_LIVE_CHILDREN];

static void remember_child(pid_t pid)
{
    for (int i = 0; i < MAX_LIVE_CHILDREN; i++) {
        pid_t none = 0;
        if (atomic_compare_exchange_strong(&live_children[i], &none, pid))
            return;
    }
}

static void forget_child(pid_t pid)
{
    for (int i = 0; i < MAX_LIVE_CHILDREN; i++) {
        pid_t p = pid;
        if (atomic_compare_exchange_strong(&live_children[i], &p, 0))
            return;
    }
}

/* Async-signal-safe: kill, signal and raise only. */
static void end_children(int sig)
{
    for (int i = 0; i < MAX_LIVE_CHILDREN; i++) {
        pid_t p = atomic_load(&live_children[i]);
        if (p > 0)
            kill(-p, SIGKILL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void proc_end_children_on_interrupt(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = end_children;
    sigemptyset(&sa.sa_mask);
    const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        /* A signal ignored from the start (a background job, nohup) stays ignored. */
        struct sigaction old;
        if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(signals[i], &sa, NULL);
    }
}

static void child(const proc_spec *s, int out, int err, int result)
{
    /* Its own process group, so a timeout can end it and everything it started. */
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
        (result >= 0 && dup2(result, 3) < 0))
        _exit(126);
    close_above(result >= 0 ? 3 : 2);
    if (s->limits)
        apply_limits(s->limits);
    if (s->cwd && chdir(s->cwd) != 0)
        _exit(126);
    if (s->set_uid && geteuid() == 0) {
        if (setgroups(0, NULL) != 0 || setgid(s->gid) != 0 || setuid(s->uid) != 0) {
            fprintf(stderr, "cannot switch to uid %ld\n", (long)s->uid);
            _exit(126);
        }
    }
    if (s->envp && s->argv[0][0] != '/')
        fprintf(stderr, "cannot run %s: a program given its own environment needs a full path\n",
                s->argv[0]);
    else if (s->envp)
        execve(s->argv[0], s->argv, s->envp);
    else
        execvp(s->argv[0], s->argv);
    fprintf(stderr, "cannot run %s: %s\n", s->argv[0], strerror(errno));
    _exit(127);
}

/* The children's own children that outlive them (bubblewrap's sandbox process, when its
 * monitor is killed with the group before it reaped it) are reparented to the nearest
 * subreaper, or to the machine's init. Not every init reaps (a container's may not), and a
 * zombie that nobody reaps counts against its user's process limit for good: enough of them and
 * a worker slot's next sandbox cannot fork. So a process that runs children is their subreaper
 * and reaps what they leave behind. The flag is per process (fork does not pass it on). */
static void adopt_orphans(void)
{
    static pid_t adopted_in;
    if (adopted_in != getpid() && prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
        adopted_in = getpid();
}

static void reap_orphans(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

/* The child's stdout, stderr and (with a result callback) result pipe, closed on exec. */
static int open_pipes(const proc_spec *s, int out[2], int err[2], int result[2])
{
    if (pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0 &&
        (!s->on_result || pipe2(result, O_CLOEXEC) == 0))
        return 0;
    int *all[] = {out, err, result};
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < 2; i++)
            if (all[p][i] >= 0)
                close(all[p][i]);
    return -1;
}

/* Forks the child into its own process group and remembers it; -1 when fork failed. An
 * interrupt between the fork and remember_child would miss the child: held till then. */
static pid_t start_child(const proc_spec *s, int out, int err, int result)
{
    fflush(stdout);
    fflush(stderr);
    sigset_t interrupts, before;
    sigemptyset(&interrupts);
    sigaddset(&interrupts, SIGINT);
    sigaddset(&interrupts, SIGTERM);
    sigaddset(&interrupts, SIGHUP);
    sigprocmask(SIG_BLOCK, &interrupts, &before);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigprocmask(SIG_SETMASK, &before, NULL);
        child(s, out, err, result);
    }
    if (pid > 0) {
        setpgid(pid, pid);
        remember_child(pid);
    }
    sigprocmask(SIG_SETMASK, &before, NULL);
    return pid;
}

/* Reads the child's pipes until they all close, or until the time limit, which kills its whole
 * group (res->timed_out). */
static void pump(const proc_spec *s, pid_t pid, double start, sink sinks[3], proc_result *res)
{
    bool open_[3] = {true, true, sinks[2].fd >= 0};
    while (open_[0] || open_[1] || open_[2]) {
        double left = s->timeout_s - (tl_clock_now() - start);
        if (s->timeout_s > 0 && left <= 0) {
            res->timed_out = true;
            kill(-pid, SIGKILL);
            break;
        }
        struct pollfd fds[3];
        for (int i = 0; i < 3; i++)
            fds[i] = (struct pollfd){open_[i] ? sinks[i].fd : -1, POLLIN, 0};
        int wait_ms = s->timeout_s > 0 ? (int)(left * 1000) + 1 : -1;
        if (wait_ms > 1000 || wait_ms < 0)
            wait_ms = 1000;
        int n = poll(fds, 3, wait_ms);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; n > 0 && i < 3; i++)
            if (open_[i] && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                open_[i] = drain(&sinks[i]);
    }
}

/* Ends what is left of the child's group, reaps it, and fills the rest of `res`. */
static void collect(pid_t pid, double start, sink sinks[3], proc_result *res)
{
    for (int i = 0; i < 3; i++)
        if (sinks[i].fd >= 0)
            close(sinks[i].fd);
    /* What the child started may hold on: the whole group goes with it. */
    kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    forget_child(pid);
    reap_orphans();
    res->seconds = tl_clock_now() - start;
    res->out = finish(&sinks[0]);
    res->err = finish(&sinks[1]);
    res->truncated = sinks[0].truncated || sinks[1].truncated;
    if (WIFEXITED(status)) {
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->exit_code = -1;
        res->signal = WTERMSIG(status);
    }
}

int proc_run_spec(const proc_spec *s, proc_result *res)
{
    memset(res, 0, sizeof *res);
    adopt_orphans();
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, res_pipe[2] = {-1, -1};
    if (open_pipes(s, out_pipe, err_pipe, res_pipe) != 0)
        return -1;
    double start = tl_clock_now();
    pid_t pid = start_child(s, out_pipe[1], err_pipe[1], res_pipe[1]);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (res_pipe[1] >= 0)
        close(res_pipe[1]);
    sink sinks[3] = {{out_pipe[0], NULL, 0, 0, s->capture_limit, false, NULL, NULL},
                     {err_pipe[0], NULL, 0, 0, s->capture_limit, false, NULL, NULL},
                     {res_pipe[0], NULL, 0, 0, 0, false, s->on_result, s->result_ctx}};
    if (pid < 0) {
        for (int i = 0; i < 3; i++)
            if (sinks[i].fd >= 0)
                close(sinks[i].fd);
        return -1;
    }
    pump(s, pid, start, sinks, res);
    collect(pid, start, sinks, res);
    return 0;
}

int proc_run(char *const argv[], double timeout_s, size_t limit, proc_result *res)
{
    proc_spec s = {.argv = argv, .timeout_s = timeout_s, .capture_limit = limit};
    return proc_run_spec(&s, res);
}

void proc_result_free(proc_result *res)
{
    free(res->out);
    free(res->err);
    res->out = res->err = NULL;
}
