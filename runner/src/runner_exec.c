/* Starting tilelab-replay in its sandbox (runner_exec.h). */
#include "runner_config.h"
#include "runner_exec.h"
#include "runner_sandbox.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define REPLAY_TMP_BYTES (64u << 20)

/* Takes the runner's turn on the lock file (a hung kernel elsewhere only delays this one). */
static int take_turn(const runner_config *c, bool timed)
{
    if (!c->turns || (!runner_backend_about(c->backend)->device && !timed))
        return -1;
    int fd = open(c->turns, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int runner_replay_exec(const runner_config *c, const runner_program *p, const char *cap_work,
                       const char *work, const char *writable, char *const *wrapper,
                       char *const *cmd, int timeout_s, bool timed,
                       void (*on_result)(void *ctx, const char *data, size_t n), void *ctx,
                       proc_result *r)
{
    runner_config bare = *c;
    char *wrapped[64];
    if (wrapper) {
        int w = 0;
        for (; wrapper[w] && w < 30; w++)
            wrapped[w] = wrapper[w];
        for (int i = 0; cmd[i] && w < 63; i++)
            wrapped[w++] = cmd[i];
        wrapped[w] = NULL;
        bare.sandbox = false;
        c = &bare;
    }
    sandbox s;
    sandbox_begin(&s, c);
    sandbox_tmp(&s, REPLAY_TMP_BYTES); /* first: a later tmpfs on /tmp would hide binds below it */
    sandbox_bind(&s, RUNNER_REPLAY_DIR, RUNNER_REPLAY_DIR, false);
    sandbox_bind(&s, RUNNER_TOOLKIT_ROOT, RUNNER_TOOLKIT_ROOT, false);
    sandbox_bind(&s, RUNNER_TOOLKIT_REAL_ROOT, RUNNER_TOOLKIT_REAL_ROOT, false);
    sandbox_bind(&s, p->dir, p->dir, false);
    sandbox_bind(&s, cap_work, cap_work, false);
    sandbox_bind(&s, work, work, false);
    if (writable)
        sandbox_bind(&s, writable, writable, true);
    bool gpu = runner_backend_about(c->backend)->device;
    const char *ld = getenv("LD_LIBRARY_PATH");
    char ld_copy[4096] = "";
    if (gpu) {
        sandbox_gpu(&s);
        /* The driver's libraries may live outside /usr (a container's /usr/local/nvidia). */
        snprintf(ld_copy, sizeof ld_copy, "%s", ld ? ld : "");
        for (char *save = NULL, *dir = strtok_r(ld_copy, ":", &save); dir;
             dir = strtok_r(NULL, ":", &save))
            if (dir[0] == '/' && access(dir, R_OK) == 0)
                sandbox_bind(&s, dir, dir, false);
    }
    char *const *argv = sandbox_command(&s, wrapper ? wrapped : cmd);
    if (!argv)
        return -1;
    char *const *base_env = sandbox_env(NULL, gpu);
    char *env[12];
    int ne = 0;
    for (; base_env[ne] && ne < 10; ne++)
        env[ne] = base_env[ne];
    char ld_env[4200];
    if (gpu && ld) {
        snprintf(ld_env, sizeof ld_env, "LD_LIBRARY_PATH=%.4000s", ld);
        env[ne++] = ld_env;
    }
    env[ne] = NULL;
    /* CUDA reserves a large address space: no memory limit on a GPU. The interpreter runs
     * blocks on every CPU, so its CPU time may reach the time limit times their number: the
     * limit on it must not stop a replay before the time limit does (the replayer reports that
     * one itself, with where the warps were). */
    long cpus = gpu ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
    unsigned long cpu_factor = gpu ? 1 : cpus > 2 ? (unsigned long)cpus : 2;
    proc_limits lim = {(unsigned long)timeout_s * cpu_factor + 10, 256ul << 20,
                       gpu ? 0 : 16ul << 30, 0, 256};
    proc_spec spec = {.argv = argv, .envp = wrapper ? NULL : env,
                      .timeout_s = timeout_s * (wrapper ? 4 : 1),
                      .capture_limit = RUNNER_OUTPUT_CAP, .limits = &lim,
                      .on_result = on_result, .result_ctx = ctx};
    int turn = take_turn(c, timed);
    int rc = proc_run_spec(&spec, r);
    if (turn >= 0)
        close(turn);
    return rc;
}

/* What the replayer leaves itself to report before the kill: a tenth of the time limit, at
 * least a second. */
#define DEADLINE_MARGIN_SHARE 0.1
#define DEADLINE_MARGIN_MIN_S 1.0

double runner_thread_scale(const caplog_call *call, double elements)
{
    double widest = 0;
    for (int i = 0; call && i < call->nops; i++) {
        const caplog_launch *l = call->ops[i].launch;
        if (call->ops[i].kind != CAPLOG_LAUNCH || !l)
            continue;
        double threads = (double)l->grid[0] * l->grid[1] * l->grid[2] * l->block[0] *
                         l->block[1] * l->block[2];
        widest = threads > widest ? threads : widest;
    }
    double scale = elements > 0 ? widest / elements : 1;
    return scale < 1 ? 1 : scale > RUNNER_CPU_LIMIT_MAX_THREAD_SCALE
                               ? RUNNER_CPU_LIMIT_MAX_THREAD_SCALE : scale;
}

double runner_replayer_deadline(int timeout_s)
{
    double margin = fmax(DEADLINE_MARGIN_MIN_S, DEADLINE_MARGIN_SHARE * timeout_s);
    return fmax(timeout_s - margin, timeout_s / 2.0);
}
