/* Capturing: the built program runs in a sandbox with no GPU, as the worker slot's own user, and
 * writes its capture log into a folder of its own; the runner reads the log back as hostile
 * input (no links, a size limit, the strict reader) and keeps its own copy for the replayer. */
#define _GNU_SOURCE /* mkdtemp */
#include "runner_config.h"
#include "runner_sandbox.h"

#include "runner_files.h"

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

int runner_capture_run(const runner_config *c, const runner_program *p, const tl_size *shapes,
                       int nshapes, runner_capture *cap, runner_outcome *o)
{
    memset(cap, 0, sizeof *cap);
    memset(o, 0, sizeof *o);
    caplog_init(&cap->log);
    char work[PATH_MAX], out[PATH_MAX + 8], log_inside[PATH_MAX + 16];
    if (sandbox_work_dir(work, sizeof work, "capture") != 0)
        return -1;
    snprintf(out, sizeof out, "%s/out", work);
    uid_t uid = 0;
    gid_t gid = 0;
    bool as_slot = geteuid() == 0;
    if (mkdir(out, 0700) != 0)
        return -1;
    if (as_slot) {
        sandbox_slot_user(c->slot, &uid, &gid);
        if (chown(out, uid, gid) != 0 || chmod(work, 0711) != 0)
            return -1;
    }
    snprintf(log_inside, sizeof log_inside, "%s/log", c->sandbox ? "/capture/out" : out);
    char *cmd[8 + 2 * 300];
    char shape_text[300][40];
    int n = 0;
    cmd[n++] = (char *)p->capture;
    cmd[n++] = "--log";
    cmd[n++] = log_inside;
    cmd[n++] = "--ptx";
    cmd[n++] = (char *)p->ptx;
    for (int i = 0; i < nshapes && i < 300; i++) {
        snprintf(shape_text[i], sizeof shape_text[i], "%dx%dx%d", shapes[i].m, shapes[i].k,
                 shapes[i].n);
        cmd[n++] = "--shape";
        cmd[n++] = shape_text[i];
    }
    cmd[n] = NULL;
    sandbox s;
    sandbox_begin(&s, c);
    sandbox_tmp(&s, CAPTURE_TMP_BYTES); /* first: a later tmpfs on /tmp would hide binds below it */
    sandbox_bind(&s, p->dir, p->dir, false);
    sandbox_bind(&s, RUNNER_CJSON_DIR, RUNNER_CJSON_DIR, false);
    sandbox_bind(&s, out, "/capture/out", true);
    sandbox_chdir(&s, "/tmp");
    char *const *argv = sandbox_command(&s, cmd);
    if (!argv) {
        files_remove_tree(work);
        return -1;
    }
    proc_limits lim = {(unsigned long)c->capture_timeout_s + 5, 64ul << 20, 8ul << 30, 64, 64};
    proc_spec spec = {.argv = argv, .envp = sandbox_env(NULL, false),
                      .timeout_s = c->capture_timeout_s, .capture_limit = RUNNER_OUTPUT_CAP,
                      .limits = &lim, .set_uid = as_slot, .uid = uid, .gid = gid};
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
        o->verdict = TL_VERDICT_BAD_INPUT;
        snprintf(o->detail, sizeof o->detail, "%s", err.msg);
    } else if (parsed && partial.refused[0]) {
        o->verdict = TL_VERDICT_REFUSED;
        snprintf(o->detail, sizeof o->detail, "%s", partial.refused);
    } else if (!parsed || !partial.complete || r.timed_out) {
        judge_exit(c, &r, parsed ? &partial : NULL, o);
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
