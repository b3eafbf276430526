/* One dataset of a lab graded as whole libwb programs: the program is captured with stubs in
 * place of its input files (it learns only their shapes), the runner converts the dataset's
 * files into exactly what each of the program's imports would have returned, tilelab-replay
 * does the recorded work on those bytes, and every answer it sends back is checked here, by
 * tl_check_answer, against the expected output the replayer never saw. */
#include "replay_protocol.h"
#include "runner_config.h"
#include "runner_exec.h"
#include "runner_judge.h"
#include "runner_model.h"
#include "runner_program_inputs.h"
#include "runner_sandbox.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the replayer's frames ------------------------------------------------------------------- */

typedef struct received {
    char *bytes;
    size_t len, cap, limit;
    bool overflow;
} received;

static void on_bytes(void *ctx, const char *data, size_t n)
{
    received *r = ctx;
    if (r->overflow || r->len + n > r->limit) {
        r->overflow = true;
        return;
    }
    if (r->len + n > r->cap) {
        size_t cap = (r->len + n) * 2 < r->limit ? (r->len + n) * 2 : r->limit;
        char *grown = realloc(r->bytes, cap + 1);
        if (!grown) {
            r->overflow = true;
            return;
        }
        r->bytes = grown;
        r->cap = cap;
    }
    memcpy(r->bytes + r->len, data, n);
    r->len += n;
}

/* ---- checking an answer ------------------------------------------------------------------------ */


/* The answer in an hO as tl_check_answer takes it. */
static int answer_of(const program_check *pc, const uint8_t *out, tl_import *got, float *sum)
{
    const caplog_call *call = pc->call;
    const uint8_t *a = out + call->answer_offset;
    size_t bytes = call->answer_bytes;
    memset(got, 0, sizeof *got);
    got->channels = 1;
    if (pc->lab->answer == RUNNER_ANSWER_SUM) {
        double total = 0;
        for (size_t i = 0; i + 4 <= call->out_bytes; i += 4) {
            float v;
            memcpy(&v, out + i, 4);
            total += v;
        }
        *sum = (float)total;
        *got = (tl_import){sum, sizeof *sum, 1, 1, 1};
        return 0;
    }
    size_t element = pc->spec.type == TL_ANSWER_HISTOGRAM ? 1 : 4;
    size_t count = bytes / element;
    got->bytes = count * 4;
    got->data = malloc(got->bytes ? got->bytes : 1);
    if (!got->data)
        return -1;
    if (element == 1) /* unsigned char bins, held as int32 */
        for (size_t i = 0; i < count; i++)
            ((int32_t *)got->data)[i] = a[i];
    else
        memcpy(got->data, a, got->bytes);
    /* The program says only how many bytes: an answer of the expected size has its shape. */
    size_t expected = (size_t)pc->rows * (size_t)pc->cols * (size_t)pc->channels;
    got->rows = count == expected ? pc->rows : (int)count;
    got->cols = count == expected ? pc->cols : 1;
    got->channels = count == expected ? pc->channels : 1;
    return 0;
}

static void check_answer(const program_check *pc, const uint8_t *out, tl_check_report *rep,
                         tl_error *err, int *bad_input)
{
    tl_import got;
    float sum = 0;
    if (answer_of(pc, out, &got, &sum) != 0) {
        *bad_input = tl_error_set(err, "out of memory");
        return;
    }
    if (pc->ref) {
        tl_matrix m = {got.rows, got.cols, got.data};
        tl_product_ref_check(pc->ref, &m, rep);
    } else if (tl_check_answer(&pc->spec, &got, pc->expected, rep, err) != 0) {
        *bad_input = -1;
    }
    if (got.data != &sum)
        free(got.data);
}

/* ---- one dataset ------------------------------------------------------------------------------- */

/* What the reference's launch runs on the CPU backend, from the dataset's size (runner.h). */
static double cpu_work(int64_t elements, int64_t macs)
{
    return (double)elements * RUNNER_PROGRAM_REFERENCE_PER_ELEMENT +
           (double)macs * RUNNER_CPU_REFERENCE_PER_MAC;
}

/* The CPU backend's instruction limit per launch: a hundred times that (a backstop against
 * endless loops, never a speed test), times the threads' scale for a verdict (runner.h). */
static double cpu_limit(const runner_config *c, const caplog_call *call, int64_t elements,
                        int64_t macs, double slowdown)
{
    double scale = slowdown > 0 ? 1 : runner_thread_scale(call, (double)elements);
    return REPLAY_LIMIT_FLOOR + (slowdown > 0 ? slowdown : REPLAY_CPU_SLOWDOWN) *
                                    cpu_work(elements, macs) * scale *
                                    (c->device_debug ? RUNNER_CPU_LIMIT_DEBUG_FACTOR : 1);
}

/* A summed answer's words that hold the NaN pattern: partial results no kernel computed (the
 * checked replay blanks what was copied from an input, and memory nothing wrote holds it). */
static uint64_t not_computed(const program_check *pc, const uint8_t *out)
{
    if (pc->lab->answer != RUNNER_ANSWER_SUM)
        return 0;
    uint64_t n = 0;
    for (size_t i = 0; i + 4 <= pc->call->out_bytes; i += 4)
        n += out[i] == 0xff && out[i + 1] == 0xff && out[i + 2] == 0xff && out[i + 3] == 0xff;
    return n;
}

static void judge_frames(const program_check *pc, const received *rx, runner_result *out,
                         tl_error *err, int *bad_input, cJSON **doc)
{
    runner_call_result *call = &out->calls[CAPLOG_CALL_PROGRAM];
    size_t at = 0;
    while (at < rx->len && !*doc) {
        const char *nl = memchr(rx->bytes + at, '\n', rx->len - at);
        if (strncmp(rx->bytes + at, REPLAY_FRAME_RESULT " ", 7) == 0) {
            *doc = cJSON_ParseWithLength(rx->bytes + at + 7, rx->len - at - 7);
            break;
        }
        char run[40];
        unsigned long long n = 0;
        if (!nl || sscanf(rx->bytes + at, REPLAY_FRAME_ANSWER " program:%39s %llu", run, &n) != 2 ||
            n != pc->call->out_bytes || (size_t)(nl - rx->bytes) + 1 + n > rx->len)
            break;
        tl_check_report rep;
        check_answer(pc, (const uint8_t *)nl + 1, &rep, err, bad_input);
        if (*bad_input)
            return;
        bool first = call->runs_checked++ == 0;
        if (first || (!rep.pass && call->verdict == TL_VERDICT_PASS)) {
            call->check = rep;
            call->verdict = rep.pass ? TL_VERDICT_PASS : TL_VERDICT_WRONG;
            if (!rep.pass && rep.shape_mismatch)
                snprintf(call->detail, sizeof call->detail, "the answer has %d values, the "
                         "expected output %d", rep.got_rows * rep.got_cols,
                         rep.expected_rows * rep.expected_cols);
            else if (!rep.pass && not_computed(pc, (const uint8_t *)nl + 1) > 0)
                snprintf(call->detail, sizeof call->detail, "%llu of the %llu partial results "
                         "the program copied back were not computed by a kernel (copied from "
                         "an input, or never written): the answer must be the device's work",
                         (unsigned long long)not_computed(pc, (const uint8_t *)nl + 1),
                         (unsigned long long)(pc->call->out_bytes / 4));
            else if (!rep.pass)
                snprintf(call->detail, sizeof call->detail, "%lld of %lld values wrong%s%s",
                         (long long)rep.bad, (long long)rep.checked,
                         strcmp(run, "check") ? " in " : "", strcmp(run, "check") ? run : "");
        }
        at = (size_t)(nl - rx->bytes) + 1 + n;
    }
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The replayer's summary: the device, and the run's status and timing. */
static void read_summary(const cJSON *doc, runner_result *out)
{
    snprintf(out->device, sizeof out->device, "%s", str(doc, "device"));
    runner_call_result *call = &out->calls[CAPLOG_CALL_PROGRAM];
    const char *status = str(doc, "status");
    const cJSON *item = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "calls"), 0);
    const char *st = item ? str(item, "status") : status;
    tl_verdict v = replay_status_verdict(replay_status_parse(st));
    if (v != TL_VERDICT_PASS) {
        call->verdict = call->verdict == TL_VERDICT_WRONG ? tl_verdict_worst(TL_VERDICT_WRONG, v)
                                                          : v;
        snprintf(call->detail, sizeof call->detail, "%s", str(item ? item : doc, "detail"));
    }
    const cJSON *t = item ? cJSON_GetObjectItem(item, "timing") : NULL;
    if (cJSON_IsObject(t)) {
        call->timed = true;
        call->emulated = cJSON_IsTrue(cJSON_GetObjectItem(t, "emulated"));
        call->ms.n = cJSON_GetObjectItem(t, "reps")->valueint;
        call->ms.median = cJSON_GetObjectItem(t, "median_ms")->valuedouble;
        call->ms.min = cJSON_GetObjectItem(t, "min_ms")->valuedouble;
        call->ms.max = cJSON_GetObjectItem(t, "max_ms")->valuedouble;
    }
}

/* What a passing dataset passed, as a lab file's detail says it: "all 1024 elements within the
 * fp32 error bound in 3 checked run(s)"; a summed answer's partial results are named. */
static void pass_detail(const program_check *pc, const runner_call_result *call, char *out,
                        size_t size)
{
    if (pc->lab->answer == RUNNER_ANSWER_SUM) {
        snprintf(out, size, "the sum of the %llu partial results %s in %d checked run(s)",
                 (unsigned long long)(pc->call->out_bytes / 4),
                 tl_check_rule_text(call->check.kind), call->runs_checked);
        return;
    }
    char rule[160];
    tl_check_pass_text(&call->check, rule, sizeof rule);
    snprintf(out, size, "%s in %d checked run(s)", rule, call->runs_checked);
}

/* What one replay of a captured program needs. */
typedef struct replay_job {
    const runner_config *c;
    const runner_program *p;
    const program_check *pc;
    const runner_capture *cap;
    const char *work, *in;
    bool time;
    const char *diagnose; /* CPU: write the checks' findings here (NULL: a plain replay) */
    int sample_blocks;    /* with diagnose: blocks run per launch (0: all) */
    bool sample_last;
    uint64_t sample_seed;
    double slowdown;      /* the instruction limit's times the reference's work (0: backstop) */
    bool answer_computed; /* with diagnose: what the answer copied from an input is not its */
    double busy_ms;       /* with diagnose: the model's busy limits' time (0: none) */
} replay_job;

/* The dataset's elements (inputs and answer) and multiply-adds (matrix labs), for the limits. */
static void job_size(const replay_job *j, const runner_loaded *g, int64_t *elements,
                     int64_t *macs)
{
    const program_check *pc = j->pc;
    *elements = (int64_t)pc->rows * pc->cols * pc->channels;
    for (int n = 0; n < pc->call->ninputs; n++)
        *elements += (int64_t)(pc->call->input_bytes[n] / 4);
    *macs = 0;
    if (pc->spec.type == TL_ANSWER_MATRIX)
        *macs = (int64_t)pc->rows * pc->cols *
                (pc->spec.A ? pc->spec.A->cols : g->from.generated ? g->A.cols : 1);
}

/* The replayer's command line for a job, and its time limit. */
typedef struct replay_command {
    char *argv[40];
    char reps[16], limit[32], deadline[32], work_macs[32], sample[16], seed[24], busy[80];
    int timeout_s;
} replay_command;

/* The time limit: the one asked for, or on the CPU backend twice what the reference's work
 * needs when that is more (the replayer reports it itself, a little before). */
static void add_time_limit(const replay_job *j, int64_t elements, int64_t macs,
                           replay_command *rc, int *k)
{
    const runner_config *c = j->c;
    int runs = 1 + (j->time ? 1 + c->reps : 0);
    rc->timeout_s = c->replay_timeout_s;
    if (c->backend != RUNNER_CPU)
        return;
    double need = 2.0 * cpu_work(elements, macs) / RUNNER_CPU_RATE_FLOOR * runs *
                  (j->diagnose ? RUNNER_PROGRAM_DIAGNOSE_SLOWDOWN : 1);
    rc->timeout_s = need > rc->timeout_s ? (int)need + 1 : rc->timeout_s;
    snprintf(rc->deadline, sizeof rc->deadline, "%.1f", runner_replayer_deadline(rc->timeout_s));
    snprintf(rc->work_macs, sizeof rc->work_macs, "%" PRId64, macs);
    rc->argv[(*k)++] = "--deadline";
    rc->argv[(*k)++] = rc->deadline;
    rc->argv[(*k)++] = "--work-macs";
    rc->argv[(*k)++] = rc->work_macs;
}

/* The checks' and the model's options: findings, busy limits, the sampled blocks. */
static void add_diagnose(const replay_job *j, replay_command *rc, int *k)
{
    if (!j->diagnose)
        return;
    rc->argv[(*k)++] = "--diagnose";
    rc->argv[(*k)++] = (char *)j->diagnose;
    if (j->answer_computed)
        rc->argv[(*k)++] = "--answer-computed";
    if (runner_busy_limits_arg(j->busy_ms, rc->busy, sizeof rc->busy)) {
        rc->argv[(*k)++] = "--busy-limits";
        rc->argv[(*k)++] = rc->busy;
    }
    if (j->sample_blocks > 0) {
        snprintf(rc->sample, sizeof rc->sample, "%d", j->sample_blocks);
        snprintf(rc->seed, sizeof rc->seed, "%llu", (unsigned long long)j->sample_seed);
        rc->argv[(*k)++] = "--sample-blocks";
        rc->argv[(*k)++] = rc->sample;
        rc->argv[(*k)++] = "--sample-launches";
        rc->argv[(*k)++] = j->sample_last ? "last" : "all";
        rc->argv[(*k)++] = "--sample-seed";
        rc->argv[(*k)++] = rc->seed;
    }
}

static void make_command(const replay_job *j, int64_t elements, int64_t macs, replay_command *rc)
{
    const runner_config *c = j->c;
    snprintf(rc->reps, sizeof rc->reps, "%d", c->reps);
    double lim = cpu_limit(c, j->pc->call, elements, macs, j->slowdown) *
                 (j->diagnose ? RUNNER_PROGRAM_DIAGNOSE_SLOWDOWN : 1);
    snprintf(rc->limit, sizeof rc->limit, "%.0f", lim);
    int k = 0;
    char *fixed[] = {RUNNER_REPLAY, "--backend", (char *)runner_backend_name(c->backend),
                     "--log", (char *)j->cap->log_path, "--ptx", (char *)j->p->ptx, "--image",
                     (char *)j->p->image, "--program", (char *)j->in, "--reps", rc->reps};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        rc->argv[k++] = fixed[i];
    rc->argv[k++] = j->time ? "--warmup" : "--no-time";
    if (j->time)
        rc->argv[k++] = "1";
    if (c->backend == RUNNER_CPU) {
        rc->argv[k++] = "--instruction-limit";
        rc->argv[k++] = rc->limit;
    }
    add_diagnose(j, rc, &k);
    add_time_limit(j, elements, macs, rc, &k);
    rc->argv[k] = NULL;
}

/* A replay that sent its summary: the answer's verdict, what a pass passed, a wrong one's hint. */
static void conclude(const replay_job *j, const cJSON *doc, runner_result *out)
{
    const caplog_call *call = j->pc->call;
    runner_call_result *call_res = &out->calls[CAPLOG_CALL_PROGRAM];
    read_summary(doc, out);
    out->verdict = call_res->verdict;
    snprintf(out->detail, sizeof out->detail, "%s", call_res->detail);
    if (out->verdict == TL_VERDICT_PASS && call_res->runs_checked == 0) {
        out->verdict = TL_VERDICT_ERROR;
        snprintf(out->detail, sizeof out->detail, "the replayer sent no answer");
    } else if (out->verdict == TL_VERDICT_PASS) {
        pass_detail(j->pc, call_res, out->detail, sizeof out->detail);
    }
    if (out->verdict == TL_VERDICT_WRONG && tl_check_report_hint(&call_res->check))
        snprintf(out->hint, sizeof out->hint, "%s", tl_check_report_hint(&call_res->check));
    /* NaN in the answer where the program uploaded host bytes it made: that is the cause. */
    if (out->verdict == TL_VERDICT_WRONG && call->filler_bytes > 0 &&
        call_res->check.nonfinite > 0)
        snprintf(out->hint, sizeof out->hint, "the program copied %llu bytes of host memory "
                 "that wbImport did not return to the device; the grader puts the NaN "
                 "pattern there instead (nothing the host makes reaches the answer), so a "
                 "kernel that reads those values rather than overwriting them computes NaN",
                 (unsigned long long)call->filler_bytes);
}

static int replay_once(const replay_job *j, int64_t elements, int64_t macs, runner_result *out,
                       tl_error *err)
{
    const caplog_call *call = j->pc->call;
    replay_command cmd;
    make_command(j, elements, macs, &cmd);
    int runs = 1 + (j->time ? 1 + j->c->reps : 0);
    received rx = {.limit = (size_t)runs * (call->out_bytes + REPLAY_MAX_HEADER) +
                            REPLAY_MAX_RESULT + 4096};
    proc_result r;
    memset(&r, 0, sizeof r);
    char diag_dir[PATH_MAX] = "";
    if (j->diagnose) {
        snprintf(diag_dir, sizeof diag_dir, "%s", j->diagnose);
        char *slash = strrchr(diag_dir, '/');
        if (slash)
            *slash = '\0';
    }
    int rc = runner_replay_exec(j->c, j->p, j->cap->work, j->work, diag_dir[0] ? diag_dir : NULL,
                                NULL, cmd.argv, cmd.timeout_s, j->time, on_bytes, &rx, &r);
    cJSON *doc = NULL;
    int bad_input = 0;
    tl_error bad;
    if (rc == 0 && !r.timed_out && !rx.overflow)
        judge_frames(j->pc, &rx, out, &bad, &bad_input, &doc);
    if (rc != 0) {
        tl_error_set(err, "cannot start the replayer");
    } else if (bad_input) {
        out->verdict = TL_VERDICT_BAD_INPUT;
        snprintf(out->detail, sizeof out->detail, "%s", bad.msg);
    } else if (r.timed_out) {
        out->verdict = TL_VERDICT_TIMEOUT;
        snprintf(out->detail, sizeof out->detail, "stopped after %d s, before a kernel "
                 "finished (an endless loop, a __syncthreads() that not every thread reaches, "
                 "or far more work than the dataset needs)", cmd.timeout_s);
    } else if (!doc) {
        out->verdict = TL_VERDICT_CRASH;
        snprintf(out->detail, sizeof out->detail, "the replay ended without its result%s",
                 rx.overflow ? " (more output than the answers make)" : "");
    } else {
        conclude(j, doc, out);
    }
    if (r.out && r.out[0]) {
        free(out->kernel_output);
        out->kernel_output = r.out;
        r.out = NULL;
    }
    cJSON_Delete(doc);
    proc_result_free(&r);
    free(rx.bytes);
    return rc;
}

/* The safety checks' replay: the CPU backend with every check on, its findings judged as a lab
 * file's (runner_safety_judge). */
static int checked_replay(const replay_job *job, const runner_program_lab *lab, int64_t elements,
                          int64_t macs, runner_result *out, tl_error *err)
{
    runner_config cpu = *job->c;
    cpu.backend = RUNNER_CPU;
    cpu.reps = 1;
    char diag[PATH_MAX + 16];
    snprintf(diag, sizeof diag, "%.4000s/diag.json", job->work);
    replay_job checked = *job;
    checked.c = &cpu;
    checked.time = false;
    checked.diagnose = diag;
    checked.sample_blocks = 0;
    /* A reduction's partial results are summed: the input copied back would add up to the
     * answer, so what came from an input is not taken for the device's. */
    checked.answer_computed = lab->answer == RUNNER_ANSWER_SUM;
    int rc = replay_once(&checked, elements, macs, out, err);
    char *text = rc == 0 ? files_read(diag, NULL) : NULL;
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    runner_safety_judge(text, doc, out);
    cJSON_Delete(doc);
    return rc;
}

/* The model's counts or diagnose's report: one replay on the CPU backend, nothing else. */
static replay_job counting_job(const replay_job *job, const runner_config *counted,
                               const runner_program_lab *lab, const runner_program_opts *opts)
{
    replay_job j = {counted, job->p, job->pc, job->cap, job->work, job->in, false,
                    opts->diagnose, opts->sample_blocks, opts->sample_last, opts->sample_seed,
                    opts->slowdown, false, opts->busy_ms};
    /* Unsampled: diagnose's report, whose verdict is the answer's, judged as the safety
     * checks judge it. */
    j.answer_computed = opts->sample_blocks == 0 && lab->answer == RUNNER_ANSWER_SUM;
    return j;
}

/* A whole program's dataset, as the judge's steps see it. */
typedef struct program_judgement {
    const replay_job *job;
    const runner_program_lab *lab;
    int64_t elements, macs;
} program_judgement;

static int program_checked(void *ctx, runner_result *out, tl_error *err)
{
    const program_judgement *j = ctx;
    return checked_replay(j->job, j->lab, j->elements, j->macs, out, err);
}

static int program_plain(void *ctx, runner_result *out, tl_error *err)
{
    const program_judgement *j = ctx;
    return replay_once(j->job, j->elements, j->macs, out, err);
}

static void program_forget(void *ctx, runner_result *out)
{
    (void)ctx;
    runner_result_free(out);
    memset(out, 0, sizeof *out);
    out->calls[CAPLOG_CALL_PROGRAM].run = true;
    out->calls[CAPLOG_CALL_PROGRAM].verdict = TL_VERDICT_PASS;
}

/* Replay, and every answer checked, by the judge's rule (runner_judge_apply), as a lab file's
 * datasets are judged: first with the CPU backend's safety checks where the dataset is small
 * enough (a race or a stray access is unsafe on every backend), then on the backend asked for
 * where runner_replay_again says so. */
static int replay_program(const runner_config *c, const runner_program *p,
                          const runner_program_lab *lab, const runner_program_opts *opts,
                          program_run *pr, runner_result *out, tl_error *err)
{
    replay_job job = {c, p, &pr->pc, &pr->cap, pr->work, pr->in, opts->time, NULL, 0, false, 0,
                      0, false, 0};
    int64_t elements = 0, macs = 0;
    job_size(&job, &pr->g, &elements, &macs);
    runner_config counted = *c;
    counted.backend = RUNNER_CPU;
    counted.reps = 1;
    if (opts->diagnose) {
        job = counting_job(&job, &counted, lab, opts);
        return replay_once(&job, elements, macs, out, err);
    }
    program_judgement j = {&job, lab, elements, macs};
    runner_judge_steps steps = {
        .checks = opts->safety && elements <= RUNNER_PROGRAM_SAFETY_MAX_ELEMENTS &&
                  (double)macs <= RUNNER_SAFETY_MAX_MACS,
        .more = opts->time,
        .checked = program_checked, .plain = program_plain, .forget = program_forget, .ctx = &j};
    return runner_judge_apply(c->backend, &steps, out, err);
}

int runner_program_run(const runner_config *c, const runner_program *p,
                       const runner_program_lab *lab, const runner_dataset *d,
                       const runner_program_opts *opts, runner_result *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    runner_call_result *call_res = &out->calls[CAPLOG_CALL_PROGRAM];
    call_res->run = true;
    call_res->verdict = TL_VERDICT_PASS;
    program_run *pr = calloc(1, sizeof *pr);
    if (!pr)
        return tl_error_set(err, "out of memory");
    if (program_run_open(pr, err) != 0) {
        free(pr);
        return -1;
    }
    int rc = program_prepare(lab, d, pr, out, err);
    if (rc == 0 && out->verdict == TL_VERDICT_PASS)
        rc = program_capture(c, p, lab, pr, out, err);
    const caplog_call *call = pr->captured && out->verdict == TL_VERDICT_PASS
                                  ? caplog_find_call(&pr->cap.log, CAPLOG_CALL_PROGRAM, 1, 1, 1)
                                  : NULL;
    pr->pc.call = call;
    tl_error bad;
    const runner_loaded *made = pr->g.from.generated ? &pr->g : NULL;
    if (call && program_write_inputs(pr->in, lab, d, made, call, &bad) != 0) {
        program_bad_input(out, &bad);
        call = NULL;
    }
    if (call)
        rc = replay_program(c, p, lab, opts, pr, out, err);
    else if (out->verdict == TL_VERDICT_PASS && rc == 0) {
        out->verdict = TL_VERDICT_ERROR;
        snprintf(out->detail, sizeof out->detail, "the capture holds no program run");
    }
    out->shape = (tl_size){pr->pc.rows, 1, pr->pc.cols};
    program_run_free(pr);
    free(pr);
    return rc;
}
