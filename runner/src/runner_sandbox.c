/* bubblewrap command lines, worker users and environments for the runner's children. */
#define _GNU_SOURCE /* mkdtemp */
#include "runner_sandbox.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sandbox_work_dir(char *out, size_t size, const char *kind)
{
    /* /tmp, not $TMPDIR: a worker slot's user must be able to pass through to its folder. */
    snprintf(out, size, "/tmp/tilelab-%s-XXXXXX", kind);
    return mkdtemp(out) ? 0 : -1;
}

const char *sandbox_which(const char *program, char *out, size_t size)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path && *path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, size, "%s/%s", d, program);
        if (access(out, X_OK) == 0)
            return out;
    }
    return NULL;
}

static char *keep(sandbox *s, const char *text)
{
    size_t n = strlen(text) + 1;
    if (s->used + n > sizeof s->store) {
        s->overflow = true;
        return NULL;
    }
    char *p = s->store + s->used;
    memcpy(p, text, n);
    s->used += n;
    return p;
}

static void arg(sandbox *s, const char *text)
{
    char *p = keep(s, text);
    if (!p || s->argc + 1 >= SANDBOX_MAX_ARGS) {
        s->overflow = true;
        return;
    }
    s->argv[s->argc++] = p;
}

void sandbox_begin(sandbox *s, const runner_config *c)
{
    memset(s, 0, sizeof *s);
    s->on = c->sandbox;
    if (!s->on)
        return;
    char bwrap[4096];
    arg(s, sandbox_which("bwrap", bwrap, sizeof bwrap) ? bwrap : "/usr/bin/bwrap");
    static const char *const fixed[] = {
        "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
        "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64",
        "/lib64", "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
        "--ro-bind-try", "/etc/ld.so.conf", "/etc/ld.so.conf",
        "--ro-bind-try", "/etc/ld.so.conf.d", "/etc/ld.so.conf.d",
        "--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
        "--proc", "/proc", "--dev-bind", "/dev/null", "/dev/null", NULL};
    for (int i = 0; fixed[i]; i++)
        arg(s, fixed[i]);
}

void sandbox_bind(sandbox *s, const char *from, const char *to, bool writable)
{
    if (!s->on)
        return;
    /* /usr is there already, read-only: binding into it again would meet its links. */
    if (!writable && strcmp(from, to) == 0 && strncmp(from, "/usr/", 5) == 0)
        return;
    arg(s, writable ? "--bind" : "--ro-bind");
    arg(s, from);
    arg(s, to);
}

void sandbox_tmp(sandbox *s, uint64_t bytes)
{
    if (!s->on)
        return;
    char size[32];
    snprintf(size, sizeof size, "%llu", (unsigned long long)bytes);
    arg(s, "--size");
    arg(s, size);
    arg(s, "--tmpfs");
    arg(s, "/tmp");
}

void sandbox_gpu(sandbox *s)
{
    if (!s->on)
        return;
    /* CUDA needs the device nodes and /sys (error 304 without it). */
    arg(s, "--ro-bind");
    arg(s, "/sys");
    arg(s, "/sys");
    glob_t g;
    if (glob("/dev/nvidia*", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            arg(s, "--dev-bind");
            arg(s, g.gl_pathv[i]);
            arg(s, g.gl_pathv[i]);
        }
        globfree(&g);
    }
    arg(s, "--ro-bind-try");
    arg(s, "/dev/dri");
    arg(s, "/dev/dri");
}

void sandbox_chdir(sandbox *s, const char *dir)
{
    if (!s->on)
        return;
    arg(s, "--chdir");
    arg(s, dir);
}

char *const *sandbox_command(sandbox *s, char *const *command)
{
    if (s->on)
        arg(s, "--");
    for (int i = 0; command[i]; i++)
        arg(s, command[i]);
    if (s->overflow)
        return NULL;
    s->argv[s->argc] = NULL;
    return s->argv;
}

void sandbox_slot_user(int slot, uid_t *uid, gid_t *gid)
{
    if (slot < 0)
        slot = runner_own_slot();
    *uid = (uid_t)(RUNNER_SLOT_UID_BASE + slot);
    *gid = (gid_t)(RUNNER_SLOT_UID_BASE + slot);
}

char *const *sandbox_env(const char *extra_path, bool gpu)
{
    static char path[4200], visible[256];
    static char *env[8];
    int n = 0;
    snprintf(path, sizeof path, "PATH=%s%s/usr/bin:/bin", extra_path ? extra_path : "",
             extra_path ? ":" : "");
    env[n++] = path;
    env[n++] = "HOME=/tmp";
    env[n++] = "TMPDIR=/tmp";
    env[n++] = "LANG=C";
    const char *devices = getenv("CUDA_VISIBLE_DEVICES");
    if (gpu && devices) {
        snprintf(visible, sizeof visible, "CUDA_VISIBLE_DEVICES=%.200s", devices);
        env[n++] = visible;
    }
    env[n] = NULL;
    return env;
}

bool runner_sandbox_available(char *why, size_t size)
{
    static int state = -1; /* unknown, 0 no, 1 yes */
    static char reason[256];
    if (state < 0) {
        runner_config c;
        runner_config_default(&c, RUNNER_CPU);
        sandbox s;
        sandbox_begin(&s, &c);
        char *true_cmd[] = {"/usr/bin/true", NULL};
        char *const *argv = sandbox_command(&s, true_cmd);
        proc_spec spec = {.argv = argv, .envp = sandbox_env(NULL, false), .timeout_s = 20,
                          .capture_limit = 4096};
        proc_result r;
        char bwrap[4096];
        if (!sandbox_which("bwrap", bwrap, sizeof bwrap)) {
            state = 0;
            snprintf(reason, sizeof reason, "bubblewrap (bwrap) is not installed");
        } else if (proc_run_spec(&spec, &r) != 0) {
            state = 0;
            snprintf(reason, sizeof reason, "bubblewrap could not be started");
        } else {
            state = r.exit_code == 0;
            snprintf(reason, sizeof reason, "bubblewrap does not work here: %.200s", r.err);
            for (char *p = reason; *p; p++)
                if (*p == '\n')
                    *p = ' ';
            proc_result_free(&r);
        }
    }
    if (why)
        snprintf(why, size, "%s", state == 1 ? "" : reason);
    return state == 1;
}

void runner_sandbox_describe(const runner_config *c, char *out, size_t size)
{
    if (!c->sandbox) {
        snprintf(out, size, "none (the sandbox was turned off)");
        return;
    }
    snprintf(out, size, "bubblewrap (no network, private filesystem and /tmp, no other "
             "processes, capabilities dropped)%s", geteuid() == 0 ? ", one unprivileged user per "
             "worker slot for builds and captures" : ", the grader's own user");
}

void runner_config_set_timeout(runner_config *c, int replay_timeout_s)
{
    c->replay_timeout_s = replay_timeout_s;
    c->capture_timeout_s = replay_timeout_s < RUNNER_CAPTURE_MAX_S ? replay_timeout_s
                                                                   : RUNNER_CAPTURE_MAX_S;
}

bool runner_config_after_timeout(runner_config *c)
{
    if (c->replay_timeout_s <= RUNNER_TIMEOUT_AFTER_A_TIMEOUT_S)
        return false;
    c->replay_timeout_s = RUNNER_TIMEOUT_AFTER_A_TIMEOUT_S;
    return true;
}

void runner_config_default(runner_config *c, runner_backend backend)
{
    memset(c, 0, sizeof *c);
    c->backend = backend;
    c->sandbox = true;
    c->build_timeout_s = RUNNER_BUILD_TIMEOUT_S;
    runner_config_set_timeout(c, RUNNER_REPLAY_TIMEOUT_S);
    c->reps = runner_backend_about(backend)->reps;
    /* A slot of this process's own, leased when a sandbox first needs its user: commands run at
     * the same time (a test suite's, say) would otherwise count their sandboxes against one
     * user's process limit together. The grader gives each worker its slot. */
    c->slot = RUNNER_SLOT_OWN;
}

bool runner_backend_default(runner_backend *backend, bool given, char *device, size_t size)
{
    bool here = tl_device_name(device, size);
    if (!given)
        *backend = here ? RUNNER_GPU : RUNNER_CPU;
    return here;
}
