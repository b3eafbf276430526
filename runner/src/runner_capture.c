/* Capturing: the built program runs in a sandbox with no GPU, as the worker slot's own user, and
 * writes its capture log into a folder of its own; the runner reads the log back as hostile
 * input (no links, a size limit, the strict reader) and keeps its own copy for the replayer. */
#define _GNU_SOURCE /* mkdtemp */
#include "runner_config.h"
#include "runner_sandbox.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CAPTURE_TMP_BYTES (64u << 20)

static void first_line(const char *text, char *out, size_t size)
{
    size_t n = strcspn(text, "\n");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), text);
}

/* What a capture that produced no usable log says. */
static void judge_exit(const runner_config *c, const proc_result *r, const caplog *partial,
                       runner_outcome *o)
{
    char line[300];
    first_line(r->err, line, sizeof line);
    /* In a sandbox the program is bubblewrap's child: a signal shows as status 128 + signal. */
    int signal = r->signal ? r->signal : c->sandbox && r->exit_code > 128 ? r->exit_code - 128 : 0;
    for (int i = 0; partial && i < partial->ncalls; i++) {
        if (partial->calls[i].refused[0]) {
            o->verdict = TL_VERDICT_REFUSED;
            snprintf(o->detail, sizeof o->detail, "%s", partial->calls[i].refused);
            return;
        }
    }
    if (r->timed_out) {
        o->verdict = TL_VERDICT_TIMEOUT;
        snprintf(o->detail, sizeof o->detail, "the host code did not return within %d s when "
                 "captured (an endless loop on the host?)", c->capture_timeout_s);
    } else {
        o->verdict = TL_VERDICT_CRASH;
        if (signal)
            snprintf(o->detail, sizeof o->detail, "the host code was killed by signal %d (%s)%s%s",
                     signal, signal == 11 ? "a segmentation fault: host code cannot touch "
                     "device memory" : "a fault or a limit", line[0] ? ": " : "", line);
        else
            snprintf(o->detail, sizeof o->detail, "the host code ended the program (exit status "
                     "%d) before the lab's functions returned%s%s", r->exit_code,
                     line[0] ? ": " : "", line);
    }
}

/* A capture's folders: work (the runner's) and work/out, where the program writes its log. */
typedef struct capture_dirs {
    char work[PATH_MAX], out[PATH_MAX + 8], log_inside[PATH_MAX + 16];
    uid_t uid;
    gid_t gid;
    bool as_slot;
} capture_dirs;

static int make_dirs(const runner_config *c, capture_dirs *d)
{
    memset(d, 0, sizeof *d);
    if (sandbox_work_dir(d->work, sizeof d->work, "capture") != 0)
        return -1;
    snprintf(d->out, sizeof d->out, "%s/out", d->work);
    d->as_slot = geteuid() == 0;
    if (mkdir(d->out, 0700) != 0)
        return -1;
    if (d->as_slot) {
        sandbox_slot_user(c->slot, &d->uid, &d->gid);
        if (chown(d->out, d->uid, d->gid) != 0 || chmod(d->work, 0711) != 0)
            return -1;
    }
    snprintf(d->log_inside, sizeof d->log_inside, "%s/log", c->sandbox ? "/capture/out" : d->out);
    return 0;
}

static int run_and_read(const runner_config *c, const runner_program *p, capture_dirs *d,
                        char *const *cmd, char *const *envp, const char *in_dir,
                        runner_capture *cap, runner_outcome *o);

/* A program's whole run was recorded: a refusal, or an end before wbSolution, is its verdict. */
static void judge_program(const proc_result *r, const caplog *log, runner_outcome *o)
{
    const caplog_call *call = caplog_find_call(log, CAPLOG_CALL_PROGRAM, 1, 1, 1);
    if (call && call->refused[0]) {
        o->verdict = TL_VERDICT_REFUSED;
        snprintf(o->detail, sizeof o->detail, "%s", call->refused);
    } else if (!call || !call->answered) {
        char line[300];
        first_line(r->err, line, sizeof line);
        /* The log is complete, so the program ended through exit (or main's return), never
         * by a signal. */
        o->verdict = r->exit_code == 0 ? TL_VERDICT_WRONG : TL_VERDICT_CRASH;
        if (r->exit_code == 0)
            snprintf(o->detail, sizeof o->detail, "the program never called wbSolution, so it "
                     "gave no answer to check");
        else
            snprintf(o->detail, sizeof o->detail, "the program ended (exit status %d) before it "
                     "called wbSolution%s%s", r->exit_code, line[0] ? ": " : "", line);
    }
}

int runner_capture_run(const runner_config *c, const runner_program *p, const tl_size *shapes,
                       int nshapes, runner_capture *cap, runner_outcome *o)
{
    memset(cap, 0, sizeof *cap);
    memset(o, 0, sizeof *o);
    caplog_init(&cap->log);
    capture_dirs d;
    if (make_dirs(c, &d) != 0)
        return -1;
    char *cmd[8 + 2 * 300];
    char shape_text[300][40];
    int n = 0;
    cmd[n++] = (char *)p->capture;
    cmd[n++] = "--log";
    cmd[n++] = d.log_inside;
    cmd[n++] = "--ptx";
    cmd[n++] = (char *)p->ptx;
    for (int i = 0; i < nshapes && i < 300; i++) {
        snprintf(shape_text[i], sizeof shape_text[i], "%dx%dx%d", shapes[i].m, shapes[i].k,
                 shapes[i].n);
        cmd[n++] = "--shape";
        cmd[n++] = shape_text[i];
    }
    cmd[n] = NULL;
    return run_and_read(c, p, &d, cmd, sandbox_env(NULL, false), NULL, cap, o);
}

int runner_capture_program(const runner_config *c, const runner_program *p, const char *stubs,
                           int ninputs, const char *type, runner_capture *cap,
                           runner_outcome *o)
{
    memset(cap, 0, sizeof *cap);
    memset(o, 0, sizeof *o);
    caplog_init(&cap->log);
    capture_dirs d;
    if (ninputs < 1 || ninputs > CAPLOG_MAX_INPUTS || make_dirs(c, &d) != 0)
        return -1;
    const char *in = c->sandbox ? "/capture/in" : stubs;
    char inputs[CAPLOG_MAX_INPUTS * (PATH_MAX + 8)] = "", expected[PATH_MAX + 16];
    for (int i = 0; i < ninputs; i++)
        snprintf(inputs + strlen(inputs), sizeof inputs - strlen(inputs), "%s%.4000s/%d",
                 i ? "," : "", in, i);
    snprintf(expected, sizeof expected, "%.4000s/expected", in);
    char *cmd[] = {(char *)p->capture, "-i", inputs, "-e", expected, "-t", (char *)type, NULL};
    /* The log and the module's PTX are named in the environment: the arguments are the
     * program's, as the kit runs it. */
    static char log_env[PATH_MAX + 64], ptx_env[PATH_MAX + 64];
    snprintf(log_env, sizeof log_env, "%s=%s", CAPLOG_ENV_LOG, d.log_inside);
    snprintf(ptx_env, sizeof ptx_env, "%s=%s", CAPLOG_ENV_PTX, p->ptx);
    char *envp[16];
    int n = 0;
    for (char *const *e = sandbox_env(NULL, false); *e && n < 13; e++)
        envp[n++] = *e;
    envp[n++] = log_env;
    envp[n++] = ptx_env;
    envp[n] = NULL;
    return run_and_read(c, p, &d, cmd, envp, stubs, cap, o);
}

static int run_and_read(const runner_config *c, const runner_program *p, capture_dirs *d,
                        char *const *cmd, char *const *envp, const char *in_dir,
                        runner_capture *cap, runner_outcome *o)
{
    const char *work = d->work, *out = d->out;
    sandbox s;
    sandbox_begin(&s, c);
    sandbox_tmp(&s, CAPTURE_TMP_BYTES); /* first: a later tmpfs on /tmp would hide binds below it */
    sandbox_bind(&s, p->dir, p->dir, false);
    sandbox_bind(&s, RUNNER_CJSON_DIR, RUNNER_CJSON_DIR, false);
    sandbox_bind(&s, out, "/capture/out", true);
    if (in_dir)
        sandbox_bind(&s, in_dir, "/capture/in", false);
    sandbox_chdir(&s, "/tmp");
    char *const *argv = sandbox_command(&s, cmd);
    if (!argv) {
        files_remove_tree(work);
        return -1;
    }
    proc_limits lim = {(unsigned long)c->capture_timeout_s + 5, 64ul << 20, 8ul << 30, 64, 64};
    proc_spec spec = {.argv = argv, .envp = envp,
                      .timeout_s = c->capture_timeout_s, .capture_limit = RUNNER_OUTPUT_CAP,
                      .limits = &lim, .set_uid = d->as_slot, .uid = d->uid, .gid = d->gid};
    proc_result r;
    if (proc_run_spec(&spec, &r) != 0) {
        files_remove_tree(work);
        return -1;
    }
    cap->out = r.out;
    cap->err = r.err;
    o->verdict = TL_VERDICT_PASS;
    char log_path[PATH_MAX + 16];
    snprintf(log_path, sizeof log_path, "%s/log", out);
    tl_error err;
    size_t len = 0;
    char *text = files_read_untrusted(log_path, CAPLOG_MAX_BYTES, &len, &err);
    caplog partial;
    caplog_init(&partial);
    bool parsed = text && caplog_parse("capture log", text, len, &partial, &err) == 0;
    if (!text && !r.timed_out && r.exit_code == 0) {
        o->verdict = TL_VERDICT_BAD_INPUT;
        snprintf(o->detail, sizeof o->detail, "%s", err.msg);
    } else if (text && !parsed) {
        /* The log is the program's output: one the reader refuses is the program's doing. */
        o->verdict = TL_VERDICT_REFUSED;
        snprintf(o->detail, sizeof o->detail, "the capture log is not one the capture runtime "
                 "writes (%.600s)", err.msg);
    } else if (parsed && partial.refused[0]) {
        o->verdict = TL_VERDICT_REFUSED;
        snprintf(o->detail, sizeof o->detail, "%s", partial.refused);
    } else if (!parsed || !partial.complete || r.timed_out) {
        judge_exit(c, &r, parsed ? &partial : NULL, o);
    } else if (in_dir) {
        judge_program(&r, &partial, o);
    }
    if (o->verdict == TL_VERDICT_PASS) {
        /* The runner's own copy: nothing the program left behind is read again. */
        snprintf(cap->log_path, sizeof cap->log_path, "%.4000s/log.txt", work);
        FILE *f = fopen(cap->log_path, "w");
        if (!f || fwrite(text, 1, len, f) != len) {
            if (f)
                fclose(f);
            free(text);
            caplog_free(&partial);
            files_remove_tree(work);
            return -1;
        }
        fclose(f);
        chmod(cap->log_path, 0644);
        cap->log = partial;
    } else {
        caplog_free(&partial);
    }
    free(text);
    files_remove_tree(out);
    snprintf(cap->work, sizeof cap->work, "%s", work);
    return 0;
}

void runner_capture_free(runner_capture *cap)
{
    caplog_free(&cap->log);
    free(cap->out);
    free(cap->err);
    cap->out = cap->err = NULL;
    if (cap->work[0])
        files_remove_tree(cap->work);
    cap->work[0] = '\0';
}
