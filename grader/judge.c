/* Running one submission on one dataset in the sandbox, and judging its result.
 *
 * The submission's program runs in judge mode: it reads only input0.raw and input1.raw and
 * writes its results as files. The expected output stays with the grader, which checks those
 * files against it. With bubblewrap the program sees a private filesystem: the system's /usr,
 * its own folder, the two inputs and an empty folder for its results, all read-only but the
 * last; no network, no other processes. Without bubblewrap it still runs as an unprivileged
 * user with resource limits, but can see the filesystem (docs/grader.md). */
#include "grader.h"

#include "files.h"
#include "lab_build_config.h"

#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OUTPUT_CAP (64 * 1024)

static int bwrap_state = -1; /* -1 unknown, 0 absent or broken, 1 works */

static bool have_bwrap(void)
{
    if (bwrap_state < 0) {
        char *argv[] = {"bwrap", "--ro-bind", "/", "/", "--unshare-all", "true", NULL};
        proc_result r;
        proc_spec spec = {.argv = argv, .timeout_s = 20, .capture_limit = 4096, .set_uid = true,
                          .uid = 65534, .gid = 65534};
        bwrap_state = proc_run_spec(&spec, &r) == 0 && r.exit_code == 0;
        if (bwrap_state >= 0 && r.out)
            proc_result_free(&r);
    }
    return bwrap_state == 1;
}

const char *judge_sandbox_kind(void)
{
    return have_bwrap() ? "bubblewrap (private filesystem, no network), unprivileged user, "
                          "resource limits"
                        : "unprivileged user and resource limits only (bubblewrap not found: "
                          "the program can see the filesystem)";
}

static void dir_of(const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash)
        *slash = '\0';
}

/* Builds the command: bwrap around the program, or the program alone. */
static int command(const grade_options *o, const lab_program *program, const char *inputs,
                   const char *results, char **argv, char *store, size_t store_size)
{
    static char reps[16], prog_dir[PATH_MAX], cjson_dir[PATH_MAX];
    snprintf(reps, sizeof reps, "%d", o->reps);
    dir_of(program->path, prog_dir, sizeof prog_dir);
    dir_of(TILELAB_CJSON_LIB, cjson_dir, sizeof cjson_dir);
    int n = 0;
    size_t used = 0;
    if (have_bwrap()) {
        const char *fixed[] = {"bwrap", "--unshare-all", "--die-with-parent", "--new-session",
                               "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
                               "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                               "--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
                               "--ro-bind-try", "/etc/ld.so.conf", "/etc/ld.so.conf",
                               "--ro-bind-try", "/etc/ld.so.conf.d", "/etc/ld.so.conf.d",
                               "--proc", "/proc", "--dev", "/dev", "--ro-bind", "/sys", "/sys",
                               "--tmpfs", "/tmp", NULL};
        for (int i = 0; fixed[i]; i++)
            argv[n++] = (char *)fixed[i];
        /* The GPU's device nodes, on GPU machines. */
        glob_t g;
        if (o->backend == LAB_BACKEND_GPU && glob("/dev/nvidia*", 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc && n < 90; i++) {
                size_t len = strlen(g.gl_pathv[i]) + 1;
                if (used + len > store_size)
                    break;
                char *p = store + used;
                memcpy(p, g.gl_pathv[i], len);
                used += len;
                argv[n++] = "--dev-bind";
                argv[n++] = p;
                argv[n++] = p;
            }
            globfree(&g);
        }
        const char *binds[][3] = {{"--ro-bind", prog_dir, prog_dir},
                                  {"--ro-bind-try", cjson_dir, cjson_dir},
                                  {"--ro-bind", inputs, "/judge/inputs"},
                                  {"--bind", results, "/judge/out"}};
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                argv[n++] = (char *)binds[i][k];
        if (o->timing_lock) {
            argv[n++] = "--bind";
            argv[n++] = (char *)o->timing_lock;
            argv[n++] = "/judge/timing.lock";
        }
        argv[n++] = "--chdir";
        argv[n++] = "/judge/out";
        argv[n++] = (char *)program->path;
        argv[n++] = "--judge";
        argv[n++] = "/judge/out";
        if (o->timing_lock) {
            argv[n++] = "--lock";
            argv[n++] = "/judge/timing.lock";
        }
        argv[n++] = "--reps";
        argv[n++] = reps;
        argv[n++] = "/judge/inputs";
    } else {
        argv[n++] = (char *)program->path;
        argv[n++] = "--judge";
        argv[n++] = (char *)results;
        if (o->timing_lock) {
            argv[n++] = "--lock";
            argv[n++] = (char *)o->timing_lock;
        }
        argv[n++] = "--reps";
        argv[n++] = reps;
        argv[n++] = (char *)inputs;
    }
    argv[n] = NULL;
    return 0;
}

static void cap_copy(char **dst, const char *src)
{
    size_t n = strlen(src);
    if (n > OUTPUT_CAP)
        n = OUTPUT_CAP;
    *dst = malloc(n + 1);
    if (*dst) {
        memcpy(*dst, src, n);
        (*dst)[n] = '\0';
    }
}

/* Checks one result file against the expected output. */
static int check_file(const char *path, const tl_matrix *A, const tl_matrix *B,
                      const tl_matrix *E, tl_check_report *rep, char *detail, size_t size)
{
    tl_matrix got;
    tl_error err;
    if (tl_matrix_read(path, &got, &err) != 0) {
        snprintf(detail, size, "no usable result: %.400s", err.msg);
        return -1;
    }
    int rc = tl_check_product(A, B, E, &got, rep, &err);
    tl_matrix_free(&got);
    if (rc != 0) {
        snprintf(detail, size, "%.450s", err.msg);
        return -1;
    }
    return 0;
}

static double read_median(const char *path)
{
    FILE *f = fopen(path, "r");
    double ms = 0;
    if (f) {
        if (fscanf(f, " { \"median_ms\": %lf", &ms) != 1)
            ms = 0;
        fclose(f);
    }
    return ms;
}

int judge_dataset(const grade_options *o, const lab_program *program, const char *dataset,
                  judged *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    char work[] = "/tmp/tilelab-judge-XXXXXX";
    if (!mkdtemp(work))
        return tl_error_set(err, "cannot make a folder under /tmp for the sandbox");
    char inputs[256], results[256], from[PATH_MAX], to[PATH_MAX];
    snprintf(inputs, sizeof inputs, "%s/inputs", work);
    snprintf(results, sizeof results, "%s/out", work);
    mkdir(inputs, 0755);
    mkdir(results, 0777);
    /* The program may run as nobody: its folders must be usable by it. */
    chmod(work, 0755);
    chmod(results, 0777);
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%.3000s/input%d.raw", dataset, i);
        snprintf(to, sizeof to, "%s/input%d.raw", inputs, i);
        if (files_copy(from, to) != 0) {
            files_remove_tree(work);
            return tl_error_set(err, "%s: cannot copy the dataset's inputs", dataset);
        }
        chmod(to, 0644);
    }
    char *argv[128], store[4096];
    command(o, program, inputs, results, argv, store, sizeof store);
    proc_limits lim = {(unsigned long)o->timeout + 10, 1ul << 30,
                       o->backend == LAB_BACKEND_CPU ? 16ul << 30 : 0, 512, 1024};
    proc_result r;
    proc_spec spec = {.argv = argv, .timeout_s = o->timeout, .capture_limit = OUTPUT_CAP,
                      .limits = &lim, .set_uid = true, .uid = 65534, .gid = 65534};
    if (proc_run_spec(&spec, &r) != 0) {
        files_remove_tree(work);
        return tl_error_set(err, "cannot start the submission's program");
    }
    cap_copy(&out->stdout_text, r.out);
    cap_copy(&out->stderr_text, r.err);
    if (r.timed_out) {
        snprintf(out->verdict, sizeof out->verdict, "timeout");
        snprintf(out->detail, sizeof out->detail, "stopped after %d s: the kernel never "
                 "finished (an endless loop, or a __syncthreads() not every thread reaches?)",
                 o->timeout);
    } else if (r.exit_code != 0) {
        bool bad = r.exit_code == TL_EXIT_BAD_INPUT;
        snprintf(out->verdict, sizeof out->verdict, "%s", bad ? "bad-input" : "crash");
        const char *first = r.err[0] ? r.err : "(no message)";
        snprintf(out->detail, sizeof out->detail, "%s (%s %d): %.400s",
                 bad ? "the program rejected its input" : "the program failed",
                 r.signal ? "signal" : "exit status", r.signal ? r.signal : r.exit_code, first);
    } else {
        tl_matrix A, B, E;
        tl_error e2;
        snprintf(from, sizeof from, "%.3000s/input0.raw", dataset);
        int rc = tl_matrix_read(from, &A, &e2);
        snprintf(from, sizeof from, "%.3000s/input1.raw", dataset);
        rc = rc ? rc : tl_matrix_read(from, &B, &e2);
        snprintf(from, sizeof from, "%.3000s/output.raw", dataset);
        rc = rc ? rc : tl_matrix_read(from, &E, &e2);
        if (rc != 0) {
            proc_result_free(&r);
            files_remove_tree(work);
            return tl_error_set(err, "%s", e2.msg);
        }
        tl_check_report first, again;
        snprintf(to, sizeof to, "%s/result.raw", results);
        bool ok = check_file(to, &A, &B, &E, &first, out->detail, sizeof out->detail) == 0 &&
                  first.pass;
        snprintf(to, sizeof to, "%s/after_timing.raw", results);
        bool timed = access(to, R_OK) == 0;
        if (ok && timed)
            ok = check_file(to, &A, &B, &E, &again, out->detail, sizeof out->detail) == 0 &&
                 again.pass;
        snprintf(out->verdict, sizeof out->verdict, "%s", ok ? "pass" : "fail");
        if (!out->detail[0]) {
            const tl_check_report *c = first.pass && timed ? &again : &first;
            if (c->pass)
                snprintf(out->detail, sizeof out->detail, "all %lld elements within the fp32 "
                         "error bound", (long long)c->checked);
            else if (c->shape_mismatch)
                snprintf(out->detail, sizeof out->detail, "output is %d x %d, expected %d x %d",
                         c->got_rows, c->got_cols, c->expected_rows, c->expected_cols);
            else
                snprintf(out->detail, sizeof out->detail, "%lld of %lld elements wrong%s; worst "
                         "at (row %d, col %d): got %.9g, expected %.9g",
                         (long long)c->bad, (long long)c->checked,
                         c == &again ? " after timing" : "", c->worst.row, c->worst.col,
                         (double)c->worst.got, (double)c->worst.expected);
        }
        snprintf(to, sizeof to, "%s/timing.json", results);
        out->kernel_ms = ok ? read_median(to) : 0;
        if (out->kernel_ms > 0)
            out->gflops = tl_gflops(A.rows, A.cols, B.cols, out->kernel_ms * 1e-3);
        tl_matrix_free(&A);
        tl_matrix_free(&B);
        tl_matrix_free(&E);
    }
    proc_result_free(&r);
    files_remove_tree(work);
    return 0;
}
