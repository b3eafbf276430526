/* Replaying and checking: the runner gives tilelab-replay the inputs (never the expected
 * output), reads back every result matrix it produced, and checks each one itself against the
 * fp32 error bound. The verdict is the runner's. */
#include "replay_protocol.h"
#include "runner_config.h"
#include "runner_exec.h"
#include "runner_model.h"
#include "runner_sandbox.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* The calls each lab checks: lab 01's host side is checked from matmul_on_device, its kernel
 * (launch_matmul, timed) too. */
static bool has_host_call(const tl_lab *lab) { return lab->host_call; }
static bool has_baseline(const tl_lab *lab) { return lab->baseline; }

/* ---- reading the replayer's frames as they come ------------------------------------------ */

typedef struct frames {
    const tl_product_ref *ref;
    int rows, cols;
    runner_result *out;
    const char *save_output;
    char header[REPLAY_MAX_HEADER + 1];
    size_t header_len;
    bool in_result;
    char *result;
    size_t result_len;
    float *matrix;        /* the frame being received */
    size_t want, got;
    int call;             /* its call, -1 for none */
    char run[32];
    char protocol_error[200];
} frames;

static void protocol_error(frames *f, const char *what)
{
    if (!f->protocol_error[0])
        snprintf(f->protocol_error, sizeof f->protocol_error, "%s", what);
}

static void check_frame(frames *f)
{
    runner_call_result *c = &f->out->calls[f->call];
    tl_matrix got = {f->rows, f->cols, f->matrix};
    tl_check_report rep;
    tl_product_ref_check(f->ref, &got, &rep);
    bool first = c->runs_checked == 0;
    c->runs_checked++;
    if (first && strcmp(f->run, "check") == 0 && f->save_output &&
        (f->call == CAPLOG_CALL_HOST || (f->call == CAPLOG_CALL_LAUNCH && !f->out->calls[CAPLOG_CALL_HOST].run))) {
        tl_error err;
        tl_matrix_write(f->save_output, &got, TL_FORMAT_BINARY, &err);
    }
    if (first || (rep.pass == false && c->verdict == TL_VERDICT_PASS)) {
        c->check = rep;
        if (!rep.pass) {
            c->verdict = TL_VERDICT_WRONG;
            int n = snprintf(c->detail, sizeof c->detail, "%lld of %lld elements wrong",
                             (long long)rep.bad, (long long)rep.checked);
            if (rep.nonfinite && n > 0 && (size_t)n < sizeof c->detail)
                n += snprintf(c->detail + n, sizeof c->detail - (size_t)n, " (%lld NaN/Inf)",
                              (long long)rep.nonfinite);
            if (rep.shape_mismatch)
                snprintf(c->detail, sizeof c->detail, "the output is %d x %d, expected %d x %d",
                         rep.got_rows, rep.got_cols, rep.expected_rows, rep.expected_cols);
            else if (strcmp(f->run, "check") != 0 && n > 0 && (size_t)n < sizeof c->detail)
                snprintf(c->detail + n, sizeof c->detail - (size_t)n, " in %s, the first run "
                         "being right (every run is checked)", f->run);
        }
    }
}

static void header_done(frames *f)
{
    char name[64];
    int rows = 0, cols = 0;
    f->header[f->header_len] = '\0';
    if (sscanf(f->header, REPLAY_FRAME_OUTPUT " %63s %d %d", name, &rows, &cols) != 3 ||
        rows != f->rows || cols != f->cols) {
        protocol_error(f, "an output of the wrong shape");
        return;
    }
    char *colon = strchr(name, ':');
    f->call = -1;
    for (int k = 0; colon && k < CAPLOG_CALL_KINDS; k++)
        if ((size_t)(colon - name) == strlen(caplog_call_kind_name((caplog_call_kind)k)) &&
            strncmp(name, caplog_call_kind_name((caplog_call_kind)k), (size_t)(colon - name)) == 0)
            f->call = k;
    if (f->call < 0) {
        protocol_error(f, "an output of an unknown call");
        return;
    }
    snprintf(f->run, sizeof f->run, "%.31s", colon + 1);
    f->want = sizeof(float) * (size_t)rows * (size_t)cols;
    f->got = 0;
}

static void on_bytes(void *ctx, const char *data, size_t n)
{
    frames *f = ctx;
    while (n > 0 && !f->protocol_error[0]) {
        if (f->in_result) {
            size_t take = n;
            if (f->result && f->result_len + take > REPLAY_MAX_RESULT)
                take = REPLAY_MAX_RESULT - f->result_len;
            if (f->result) {
                memcpy(f->result + f->result_len, data, take);
                f->result_len += take;
            }
            return;
        }
        if (f->want > f->got) {
            size_t take = f->want - f->got < n ? f->want - f->got : n;
            memcpy((char *)f->matrix + f->got, data, take);
            f->got += take;
            data += take;
            n -= take;
            if (f->got == f->want) {
                check_frame(f);
                f->want = f->got = 0;
                f->header_len = 0;
            }
            continue;
        }
        char ch = *data++;
        n--;
        if (ch == '\n') {
            header_done(f);
            f->header_len = 0;
        } else if (f->header_len < REPLAY_MAX_HEADER) {
            f->header[f->header_len++] = ch;
            /* The summary is one long line: everything after its keyword is kept as it is. */
            if (f->header_len == 7 && memcmp(f->header, REPLAY_FRAME_RESULT " ", 7) == 0) {
                f->in_result = true;
                f->result = malloc(REPLAY_MAX_RESULT + 1);
                f->header_len = 0;
            }
        } else {
            protocol_error(f, "an over-long header");
        }
    }
}

/* ---- the replayer's summary ----------------------------------------------------------------- */

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A GPU's timed set: its clock record and, from its peak rates, the least time the matrix
 * product can take; a repetition faster than that is implausible (gpu_timing.h). */
static void read_clock(const cJSON *t, runner_call_result *c, tl_size shape)
{
    const cJSON *peaks = cJSON_GetObjectItem(t, "peaks");
    gpu_timing_clock_from_json(t, "clock", &c->clock);
    if (cJSON_IsObject(peaks) && !c->emulated) {
        gpu_peaks p = {num(peaks, "fp32_flops"), num(peaks, "dram_bytes")};
        c->floor_ms = gpu_timing_matmul_floor_ms(p, shape.m, shape.k, shape.n);
        c->implausible = gpu_timing_implausible(c->ms.min, c->floor_ms);
    }
}

static void read_summary(const cJSON *doc, const runner_replay_opts *opts, runner_result *out)
{
    snprintf(out->device, sizeof out->device, "%s", str(doc, "device"));
    replay_status status = replay_status_parse(str(doc, "status"));
    if (status != REPLAY_STATUS_OK) {
        out->verdict = replay_status_verdict(status);
        snprintf(out->detail, sizeof out->detail, "%s", str(doc, "detail"));
        return;
    }
    const cJSON *calls = cJSON_GetObjectItem(doc, "calls");
    for (const cJSON *item = calls ? calls->child : NULL; item; item = item->next) {
        int k = -1;
        for (int i = 0; i < CAPLOG_CALL_KINDS; i++)
            if (strcmp(str(item, "call"), caplog_call_kind_name((caplog_call_kind)i)) == 0)
                k = i;
        if (k < 0)
            continue;
        runner_call_result *c = &out->calls[k];
        replay_status st = replay_status_parse(str(item, "status"));
        tl_verdict v = replay_status_verdict(st);
        if (st == REPLAY_STATUS_MISSING) {
            c->verdict = TL_VERDICT_REFUSED;
            snprintf(c->detail, sizeof c->detail, "%s was never called: does the file define it?",
                     k == CAPLOG_CALL_HOST ? "matmul_on_device" : k == CAPLOG_CALL_BASELINE
                                                                  ? "launch_matmul_baseline"
                                                                  : "launch_matmul");
            continue;
        }
        if (v != TL_VERDICT_PASS && c->verdict != TL_VERDICT_WRONG) {
            c->verdict = v;
            snprintf(c->detail, sizeof c->detail, "%s", str(item, "detail"));
        } else if (v != TL_VERDICT_PASS) {
            c->verdict = tl_verdict_worst(c->verdict, v);
            snprintf(c->detail, sizeof c->detail, "%s", str(item, "detail"));
        }
        const cJSON *t = cJSON_GetObjectItem(item, "timing");
        if (cJSON_IsObject(t) && opts->time) {
            c->timed = true;
            c->emulated = cJSON_IsTrue(cJSON_GetObjectItem(t, "emulated"));
            c->ms.n = (int)num(t, "reps");
            c->ms.median = num(t, "median_ms");
            c->ms.min = num(t, "min_ms");
            c->ms.max = num(t, "max_ms");
            read_clock(t, c, out->shape);
        }
    }
}

/* ---- running the replayer -------------------------------------------------------------------- */

static int write_inputs(const char *dir, const tl_matrix *A, const tl_matrix *B, tl_error *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.4000s/input0.raw", dir);
    if (tl_matrix_write(path, A, TL_FORMAT_BINARY, err) != 0)
        return -1;
    snprintf(path, sizeof path, "%.4000s/input1.raw", dir);
    return tl_matrix_write(path, B, TL_FORMAT_BINARY, err);
}

/* The thread instructions a launch may run on the CPU backend (runner.h). */
static double round_up(int n, int to) { return (double)((n + to - 1) / to) * to; }

static double cpu_instruction_limit(const runner_config *c, const runner_capture *cap, tl_size s,
                                    double slowdown)
{
    double macs = (double)s.m * s.k * s.n;
    double tiled = round_up(s.m, RUNNER_CPU_LIMIT_TILE) * round_up(s.k, RUNNER_CPU_LIMIT_PHASE) *
                   round_up(s.n, RUNNER_CPU_LIMIT_TILE);
    double work = (slowdown > 0 ? slowdown : REPLAY_CPU_SLOWDOWN) * RUNNER_CPU_REFERENCE_PER_MAC *
                      macs +
                  RUNNER_CPU_LIMIT_PER_TILE_MAC * tiled;
    /* A verdict's limit grows with the threads of the widest call of the shape (runner.h). */
    double scale = 1;
    double elements = (double)s.m * s.k + (double)s.k * s.n + (double)s.m * s.n;
    for (int kind = 0; slowdown <= 0 && kind < CAPLOG_CALL_KINDS; kind++) {
        double k = runner_thread_scale(caplog_find_call(&cap->log, (caplog_call_kind)kind, s.m,
                                                        s.k, s.n), elements);
        scale = k > scale ? k : scale;
    }
    return REPLAY_LIMIT_FLOOR + work * scale * (c->device_debug ? RUNNER_CPU_LIMIT_DEBUG_FACTOR : 1);
}

static int spawn(const runner_config *c, const runner_program *p, const runner_capture *cap,
                 const tl_lab *lab, const runner_dataset *d, const runner_replay_opts *opts,
                 const char *work, int timeout_s, frames *f, proc_result *r)
{
    char in[PATH_MAX + 8], reps[16], generate[96], calls[64], limit[32], deadline[32], macs[32];
    snprintf(in, sizeof in, "%s/in", work);
    snprintf(reps, sizeof reps, "%d", c->reps);
    snprintf(calls, sizeof calls, "launch%s%s",
             has_host_call(lab) && !opts->launch_only ? ",host" : "",
             opts->baseline && has_baseline(lab) ? ",baseline" : "");
    char *cmd[40];
    int n = 0;
    cmd[n++] = RUNNER_REPLAY;
    cmd[n++] = "--backend";
    cmd[n++] = (char *)runner_backend_name(c->backend);
    cmd[n++] = "--log";
    cmd[n++] = (char *)cap->log_path;
    cmd[n++] = "--ptx";
    cmd[n++] = (char *)p->ptx;
    cmd[n++] = "--image";
    cmd[n++] = (char *)p->image;
    cmd[n++] = "--calls";
    cmd[n++] = calls;
    cmd[n++] = "--reps";
    cmd[n++] = reps;
    if (!opts->time)
        cmd[n++] = "--no-time";
    if (c->backend == RUNNER_CPU) {
        tl_size s = f->out->shape;
        snprintf(limit, sizeof limit, "%.0f", cpu_instruction_limit(c, cap, s, opts->slowdown));
        snprintf(deadline, sizeof deadline, "%.1f", runner_replayer_deadline(timeout_s));
        snprintf(macs, sizeof macs, "%.0f", (double)s.m * s.k * s.n);
        cmd[n++] = "--instruction-limit";
        cmd[n++] = limit;
        cmd[n++] = "--deadline";
        cmd[n++] = deadline;
        cmd[n++] = "--work-macs";
        cmd[n++] = macs;
    }
    if (d->generated) {
        snprintf(generate, sizeof generate, "%llu:%dx%dx%d", (unsigned long long)d->seed,
                 d->size.m, d->size.k, d->size.n);
        cmd[n++] = "--generate";
        cmd[n++] = generate;
    } else {
        cmd[n++] = "--inputs";
        cmd[n++] = in;
    }
    if (opts->diagnose) {
        cmd[n++] = "--diagnose";
        cmd[n++] = (char *)opts->diagnose;
    }
    char sample[24], seed[24], busy[80];
    if (c->backend == RUNNER_CPU && opts->diagnose &&
        runner_busy_limits_arg(opts->busy_ms, busy, sizeof busy)) {
        cmd[n++] = "--busy-limits";
        cmd[n++] = busy;
    }
    if (opts->diagnose && opts->sample_blocks > 0) {
        snprintf(sample, sizeof sample, "%d", opts->sample_blocks);
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)opts->sample_seed);
        cmd[n++] = "--sample-blocks";
        cmd[n++] = sample;
        cmd[n++] = "--sample-launches";
        cmd[n++] = opts->sample_last ? "last" : "all";
        cmd[n++] = "--sample-seed";
        cmd[n++] = seed;
    }
    cmd[n] = NULL;
    char diag_dir[PATH_MAX] = "";
    if (opts->diagnose) {
        snprintf(diag_dir, sizeof diag_dir, "%s", opts->diagnose);
        char *slash = strrchr(diag_dir, '/');
        if (slash)
            *slash = '\0';
    }
    return runner_replay_exec(c, p, cap->work, work, diag_dir[0] ? diag_dir : NULL, opts->wrapper,
                              cmd, timeout_s, opts->time, on_bytes, f, r);
}

enum { RUNNER_DIAGNOSE_SLOWDOWN = 10, RUNNER_SAMPLED_GRID_BLOCKS = 1024 };

/* Seconds a correct kernel may need for this dataset on the CPU backend (0 on a GPU): every
 * replayed run of every call, at the pessimistic rate of RUNNER_CPU_RATE_FLOOR. */
static double cpu_expected_seconds(const runner_config *c, const tl_lab *lab, tl_size shape,
                                   const runner_replay_opts *opts)
{
    if (c->backend != RUNNER_CPU)
        return 0;
    /* Each call runs once to be checked, then warm-up and timed runs (tilelab-replay's default
     * warm-up is one run). */
    int runs = 1 + (opts->time ? 1 + c->reps : 0);
    int calls = 1 + (has_host_call(lab) && !opts->launch_only ? 1 : 0) +
                (opts->baseline && has_baseline(lab) ? 1 : 0);
    double macs = (double)shape.m * (double)shape.k * (double)shape.n;
    double seconds = runs * calls * macs * RUNNER_CPU_REFERENCE_PER_MAC / RUNNER_CPU_RATE_FLOOR;
    /* With the checks or the counters on, about ten times slower; the performance model's
     * sample runs a few blocks of a grid of a thousand or more. */
    if (opts->diagnose)
        seconds *= RUNNER_DIAGNOSE_SLOWDOWN;
    if (opts->sample_blocks > 0 && !opts->sample_last)
        seconds *= (double)opts->sample_blocks / RUNNER_SAMPLED_GRID_BLOCKS;
    return seconds;
}

/* The replay's time limit: the one asked for, or on the CPU backend twice what the reference's
 * work needs when that is more. A kernel that never ends is stopped by the instruction limit or
 * by this, whichever comes first; a slow one that finishes only by this. */
static int replay_timeout(const runner_config *c, double expected_s)
{
    double scaled = 2 * expected_s;
    return scaled > c->replay_timeout_s ? (int)scaled + 1 : c->replay_timeout_s;
}

/* The verdict of the dataset: the call that is checked (lab 01's host call, else the launch),
 * and the timed launch call, which every lab checks too. */
static void conclude(const tl_lab *lab, runner_result *out)
{
    bool host = has_host_call(lab) && out->calls[CAPLOG_CALL_HOST].run;
    runner_call_result *main = &out->calls[host ? CAPLOG_CALL_HOST : CAPLOG_CALL_LAUNCH];
    runner_call_result *launch = &out->calls[CAPLOG_CALL_LAUNCH];
    out->verdict = main->verdict;
    snprintf(out->detail, sizeof out->detail, "%s", main->detail);
    if (main != launch && main->verdict == TL_VERDICT_PASS && launch->verdict != TL_VERDICT_PASS) {
        out->verdict = launch->verdict;
        snprintf(out->detail, sizeof out->detail, "launch_matmul: %.700s", launch->detail);
    }
    if (out->verdict == TL_VERDICT_PASS && main->runs_checked == 0) {
        out->verdict = TL_VERDICT_ERROR;
        snprintf(out->detail, sizeof out->detail, "the replayer sent no result");
    }
    if (out->verdict == TL_VERDICT_PASS)
        snprintf(out->detail, sizeof out->detail, "all %lld elements within the fp32 error bound "
                 "in %d checked run(s)", (long long)main->check.checked,
                 main->runs_checked + (main != launch ? launch->runs_checked : 0));
    const char *hint = out->verdict == TL_VERDICT_WRONG
                           ? tl_check_report_hint(main->verdict == TL_VERDICT_WRONG ? &main->check
                                                                                    : &launch->check)
                           : NULL;
    snprintf(out->hint, sizeof out->hint, "%s", hint ? hint : "");
    if (launch->timed && launch->ms.median > 0 && out->verdict == TL_VERDICT_PASS)
        out->gflops = tl_gflops(out->shape.m, out->shape.k, out->shape.n, launch->ms.median * 1e-3);
}

/* A wrong result with elements never written, where the host code's launch failed (as it would
 * on a GPU, which no error check of the student's reported): the hint names that launch, which
 * is the cause, rather than guessing at the grid or the store. */
static void name_failed_launch(const tl_lab *lab, const runner_capture *cap,
                               const runner_replay_opts *opts, runner_result *out)
{
    bool host = has_host_call(lab) && !opts->launch_only;
    caplog_call_kind kind = host ? CAPLOG_CALL_HOST : CAPLOG_CALL_LAUNCH;
    const runner_call_result *main = &out->calls[kind];
    const caplog_call *c = caplog_find_call(&cap->log, kind, out->shape.m, out->shape.k,
                                            out->shape.n);
    if (!c || !c->launch_failed[0] || main->check.nonfinite == 0)
        return;
    /* The text came from the student's process: shown, never obeyed. */
    char *inert = tl_text_line(c->launch_failed, strlen(c->launch_failed));
    snprintf(out->hint, sizeof out->hint, "the launch of %.400s, so none of its blocks "
             "ran (on a GPU it fails with cudaErrorInvalidConfiguration, which "
             "cudaGetLastError() returns)", inert ? inert : "a kernel failed");
    free(inert);
}

/* A dataset the CPU backend would take too long on: not started (unsupported). */
static bool too_large(double expected_s, runner_result *out)
{
    if (expected_s <= RUNNER_CPU_MAX_SECONDS)
        return false;
    out->verdict = TL_VERDICT_UNSUPPORTED;
    snprintf(out->detail, sizeof out->detail, "a %dx%dx%d dataset is too large for the CPU "
             "backend: about %.0f minutes of interpretation at the slowest expected rate "
             "(%.0f M thread-instructions/s); run it on a GPU (--backend gpu), or with "
             "--no-time, or use a smaller dataset", out->shape.m, out->shape.k, out->shape.n,
             expected_s / 60, RUNNER_CPU_RATE_FLOOR / 1e6);
    return true;
}

/* The calls the replay checks: each passes until a result says otherwise. */
static void start_calls(const tl_lab *lab, const runner_replay_opts *opts, runner_result *out)
{
    for (int k = 0; k < CAPLOG_CALL_KINDS; k++)
        out->calls[k].verdict = TL_VERDICT_PASS;
    out->calls[CAPLOG_CALL_LAUNCH].run = true;
    out->calls[CAPLOG_CALL_HOST].run = has_host_call(lab) && !opts->launch_only;
    out->calls[CAPLOG_CALL_BASELINE].run = opts->baseline && has_baseline(lab);
}

/* The replayer run in a work folder of its own holding the inputs (a generated dataset's it
 * makes itself), every result frame checked against d's reference as it comes. */
static int run_replayer(const runner_config *c, const runner_program *p, const runner_capture *cap,
                        const tl_lab *lab, const runner_loaded *d, const runner_replay_opts *opts,
                        int timeout_s, frames *f, proc_result *r, tl_error *err)
{
    char work[PATH_MAX], in[PATH_MAX + 8];
    int rc = sandbox_work_dir(work, sizeof work, "replay");
    snprintf(in, sizeof in, "%s/in", work);
    if (rc == 0 && chmod(work, 0755) == 0 && mkdir(in, 0755) == 0 && !d->from.generated)
        rc = write_inputs(in, &d->A, &d->B, err);
    f->matrix = malloc(sizeof(float) * (size_t)d->A.rows * (size_t)d->B.cols);
    if (rc == 0 && f->matrix)
        rc = spawn(c, p, cap, lab, &d->from, opts, work, timeout_s, f, r);
    else
        rc = -1;
    free(f->matrix);
    f->matrix = NULL;
    files_remove_tree(work);
    return rc;
}

/* The verdict of a replay that ended: stopped at the time limit, ended without its result, or
 * its summary read. */
static void read_outcome(const tl_lab *lab, const runner_capture *cap,
                         const runner_replay_opts *opts, const frames *f, const proc_result *r,
                         const cJSON *doc, int timeout_s, double expected_s, runner_result *out)
{
    if (r->timed_out) {
        out->verdict = TL_VERDICT_TIMEOUT;
        if (expected_s > 0)
            snprintf(out->detail, sizeof out->detail, "stopped after %d s, before the kernel "
                     "finished (an endless loop, a __syncthreads() that not every thread "
                     "reaches, or far more work than the dataset needs); the reference needs "
                     "about %.0f s here on the CPU backend", timeout_s, expected_s);
        else
            snprintf(out->detail, sizeof out->detail, "stopped after %d s: the kernel never "
                     "finished (an endless loop, or a __syncthreads() that not every thread "
                     "reaches)", timeout_s);
    } else if (f->protocol_error[0] || !doc) {
        out->verdict = TL_VERDICT_CRASH;
        char line[300];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(r->err, "\n"), r->err);
        snprintf(out->detail, sizeof out->detail, "the replay ended without its result (%s%s%s)",
                 f->protocol_error[0] ? f->protocol_error : r->signal ? "killed by a signal" : "exit",
                 line[0] ? ": " : "", line);
    } else {
        read_summary(doc, opts, out);
        if (out->verdict == TL_VERDICT_PASS)
            conclude(lab, out);
        if (out->verdict == TL_VERDICT_WRONG)
            name_failed_launch(lab, cap, opts, out);
    }
}

int runner_replay_loaded(const runner_config *c, const runner_program *p,
                         const runner_capture *cap, const tl_lab *lab, const runner_loaded *d,
                         const runner_replay_opts *opts, runner_result *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    out->shape = d->shape;
    double expected_s = cpu_expected_seconds(c, lab, out->shape, opts);
    if (too_large(expected_s, out))
        return 0;
    int timeout_s = replay_timeout(c, expected_s);
    start_calls(lab, opts, out);
    frames f = {.ref = &d->ref, .rows = d->A.rows, .cols = d->B.cols, .out = out,
                .save_output = opts->save_output};
    proc_result r;
    memset(&r, 0, sizeof r);
    if (run_replayer(c, p, cap, lab, d, opts, timeout_s, &f, &r, err) != 0) {
        free(f.result);
        proc_result_free(&r);
        return err->msg[0] ? -1 : tl_error_set(err, "cannot start the replayer");
    }
    out->kernel_output = r.out;
    r.out = NULL;
    cJSON *doc = f.result && f.result_len ? cJSON_ParseWithLength(f.result, f.result_len) : NULL;
    free(f.result);
    read_outcome(lab, cap, opts, &f, &r, doc, timeout_s, expected_s, out);
    cJSON_Delete(doc);
    proc_result_free(&r);
    return 0;
}

int runner_replay(const runner_config *c, const runner_program *p, const runner_capture *cap,
                  const tl_lab *lab, const runner_dataset *d, const runner_replay_opts *opts,
                  runner_result *out, tl_error *err)
{
    runner_loaded data;
    if (runner_loaded_read(d, &data, err) != 0) {
        memset(out, 0, sizeof *out);
        out->verdict = TL_VERDICT_BAD_INPUT;
        snprintf(out->detail, sizeof out->detail, "%s", err->msg);
        return 0;
    }
    int rc = runner_replay_loaded(c, p, cap, lab, &data, opts, out, err);
    runner_loaded_free(&data);
    return rc;
}

void runner_result_free(runner_result *r)
{
    free(r->kernel_output);
    r->kernel_output = NULL;
    free(r->diagnosis);
    r->diagnosis = NULL;
}
