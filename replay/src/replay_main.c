/* tilelab-replay: does the work a capture log describes, on the grader's own buffers, and sends
 * back every result matrix and the kernel times. It is the grader's program: it is never linked
 * with student code, it runs the student's kernels only (on a GPU or in the PTX interpreter),
 * and it never holds the expected output, so no kernel can find it here.
 *
 * Each call is run once to be checked, then (when timed) warm-up and timed repetitions, each
 * starting from the same state: M and N as loaded, P and the submission's allocations holding
 * the NaN pattern, module variables as loaded. So no repetition can reuse work an earlier one
 * left behind, and every repetition's result goes back to be checked. */
#include "datagen.h"
#include "replay.h"
#include "replay_protocol.h"
#include "runner_backend.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 100
#define MAX_WARMUP 5

static const char usage[] =
    "usage: tilelab-replay --backend gpu|cpu --log FILE --ptx FILE [--image FILE]\n"
    "                      (--inputs DIR | --generate SEED:JxKxL | --program DIR)\n"
    "                      [--calls launch,host,baseline]\n"
    "                      [--reps N] [--warmup N] [--no-time] [--diagnose FILE]\n"
    "                      [--sample-blocks N [--sample-launches all|last] [--sample-seed S]]\n"
    "                      [--result-fd FD] [--instruction-limit N] [--deadline S]\n"
    "                      [--work-macs N] [--answer-computed] [--busy-limits W,B,L]\n"
    "Does the work the capture log records for the problem's shape, on this program's own\n"
    "buffers, and writes every result matrix and the timings to FD (default 3) for the runner\n"
    "to check (runner/src/replay_protocol.h). The kernels' printf output goes to stdout.\n"
    "--sample-blocks N (CPU, with --diagnose): run N blocks of each launch, one drawn by the seed S\n"
    "from each of N equal stretches of the grid, for the performance model's counts; the words of\n"
    "P no kernel stored come back as NaN, and the diagnosis counts each sampled block's stores\n"
    "into P. --sample-launches last: sample only each call's last launch (the others run whole).\n"
    "--program DIR: replay a libwb program's whole run (the log's program call) with its inputs\n"
    "from DIR (hI0, hI1, ...: each input's bytes as the program imported them); every run's\n"
    "answer buffer goes back as an answer frame.\n"
    "--answer-computed (CPU, with --program and --diagnose): the words of the answer the program\n"
    "copied from an input come back as NaN: the answer must be the device's work.\n"
    "--instruction-limit N (CPU): a launch that runs more than N thread instructions is stopped\n"
    "(status timeout), with where its warps were and how many loop trips each had made.\n"
    "--deadline S (CPU): a launch still running S seconds after the start is stopped the same\n"
    "way (the runner's time limit, reported from inside); --work-macs N: the dataset's\n"
    "multiply-adds, by which that report tells loop trips that never end from ordinary ones.\n"
    "--busy-limits W,B,L (CPU, with --diagnose): a launch is stopped once one warp has issued\n"
    "more than W warp instructions, one block more than B, or one block's loads and stores more\n"
    "than L wavefronts; its counts say so (\"busy\") and the replay goes on (the performance\n"
    "model's proof that the launch is slower than it need measure).\n"
    "Exit status: 0 done (the outcome of each call is in the result), 2 bad usage.\n";

typedef struct options {
    const char *backend, *log, *ptx, *image, *inputs, *diagnose, *program;
    runner_backend kind; /* --backend's */
    bool generate, time;
    uint64_t seed;
    tl_size size;
    bool calls[CAPLOG_CALL_KINDS];
    int reps, warmup, fd, sample_blocks;
    uint64_t sample_seed;
    uint64_t instruction_limit;
    uint64_t busy[3]; /* --busy-limits: warp issue, block issue, block wavefronts */
    double deadline_s, work_macs;
    bool sample_last; /* sample only each call's last launch (those before make its inputs) */
    bool answer_computed; /* a program's answer may hold nothing copied from an input */
} options;

typedef struct replay {
    const options *o;
    const replay_backend *be;
    replay_device *dev;
    caplog log;
    ptx_outline *outline;
    tl_matrix A, B;
    int j, k, l;
    replay_addr M, N, M0, N0, *allocs, *P;
    int nP;
    float *host_P;
    const caplog_call *call; /* the call being stepped, and the P of this run */
    replay_addr current_P;
    bool failed;
    tl_error step_err;
} replay;

/* ---- the result descriptor ------------------------------------------------------------------ */

static void send_output(const replay *r, const char *call, const char *run, const float *data)
{
    char header[REPLAY_MAX_HEADER];
    int n = snprintf(header, sizeof header, "%s %s:%s %d %d\n", REPLAY_FRAME_OUTPUT, call, run,
                     r->j, r->l);
    if (replay_write_all(r->o->fd, header, (size_t)n) != 0 ||
        replay_write_all(r->o->fd, data, sizeof(float) * (size_t)r->j * (size_t)r->l) != 0) {
        fprintf(stderr, "tilelab-replay: cannot write the results: %s\n", strerror(errno));
        exit(3);
    }
}

static void send_result(const replay *r, cJSON *doc)
{
    char *text = cJSON_PrintUnformatted(doc);
    if (!text || replay_write_all(r->o->fd, REPLAY_FRAME_RESULT " ", 7) != 0 ||
        replay_write_all(r->o->fd, text, strlen(text)) != 0 || replay_write_all(r->o->fd, "\n", 1) != 0) {
        fprintf(stderr, "tilelab-replay: cannot write the result\n");
        exit(3);
    }
    free(text);
}

/* ---- doing a call's operations -------------------------------------------------------------- */

static replay_addr address(const replay *r, caplog_ref ref)
{
    replay_addr base = 0;
    switch (ref.buf) {
    case CAPLOG_BUF_M: base = r->M; break;
    case CAPLOG_BUF_N: base = r->N; break;
    case CAPLOG_BUF_P: base = r->current_P; break;
    default: base = r->allocs[ref.buf - CAPLOG_BUF_ALLOC]; break;
    }
    return base + (uint64_t)ref.offset; /* a pointer before a buffer wraps, as on a GPU */
}

static replay_addr address_in(const void *ctx, caplog_ref ref) { return address(ctx, ref); }

static int do_launch(replay *r, const caplog_launch *l, tl_error *err)
{
    return replay_launch(r->be, r->dev, &r->log, l, address_in, r, err);
}

static int run_ops(replay *r, const caplog_call *c, tl_error *err)
{
    int last_launch = -1;
    for (int i = 0; i < c->nops; i++)
        if (c->ops[i].kind == CAPLOG_LAUNCH)
            last_launch = i;
    for (int i = 0; i < c->nops; i++) {
        const caplog_op *op = &c->ops[i];
        int rc = 0;
        switch (op->kind) {
        case CAPLOG_MEMSET:
            rc = r->be->fill(r->dev, address(r, op->dst), op->value, op->count, err);
            break;
        case CAPLOG_COPY:
            if (op->dst.buf == CAPLOG_BUF_HOST_P)
                rc = r->be->download(r->dev, (uint8_t *)r->host_P + op->dst.offset,
                                     address(r, op->src), op->count, err);
            else if (op->src.buf == CAPLOG_BUF_HOST_M || op->src.buf == CAPLOG_BUF_HOST_N)
                rc = r->be->upload(r->dev, address(r, op->dst),
                                   (const uint8_t *)(op->src.buf == CAPLOG_BUF_HOST_M ? r->A.data
                                                                                      : r->B.data) +
                                       op->src.offset,
                                   op->count, err);
            else
                rc = r->be->copy(r->dev, address(r, op->dst), address(r, op->src), op->count, err);
            break;
        case CAPLOG_LAUNCH:
            if (r->be->set_sampling)
                r->be->set_sampling(r->dev, !r->o->sample_last || i == last_launch);
            rc = do_launch(r, op->launch, err);
            break;
        case CAPLOG_FREE:
            break; /* buffers live until the end: every repetition uses them again */
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* ---- repetitions ------------------------------------------------------------------------- */

static void step_failed(replay *r, const tl_error *err)
{
    if (!r->failed)
        r->step_err = *err;
    r->failed = true;
}

/* The state the call was first run in, and a fresh P (all NaN) of the run's own. */
static void reset(replay *r, replay_addr P)
{
    tl_error err;
    uint64_t m_bytes = sizeof(float) * (uint64_t)r->j * r->k;
    uint64_t n_bytes = sizeof(float) * (uint64_t)r->k * r->l;
    uint64_t p_bytes = sizeof(float) * (uint64_t)r->j * r->l;
    r->current_P = P;
    int rc = r->be->copy(r->dev, r->M, r->M0, m_bytes, &err);
    rc = rc ? rc : r->be->copy(r->dev, r->N, r->N0, n_bytes, &err);
    for (int i = 0; rc == 0 && i < r->log.nallocs; i++)
        if (r->allocs[i]) /* 0: one the replayed calls do not use, never made */
            rc = r->be->poison(r->dev, r->allocs[i], r->log.alloc_sizes[i], &err);
    rc = rc ? rc : r->be->restore_variables(r->dev, &err);
    rc = rc ? rc : r->be->poison(r->dev, P, p_bytes, &err);
    if (rc != 0)
        step_failed(r, &err);
}

/* Before a warm-up (rep < 0) or timed repetition: P[0] is the checked run's, then one P per
 * warm-up, then one per repetition. */
static void before_run(void *arg, int rep)
{
    replay *r = arg;
    reset(r, r->P[rep < 0 ? -rep : 1 + r->o->warmup + rep]);
}

static void run_step(void *arg, int rep)
{
    (void)rep;
    replay *r = arg;
    tl_error err;
    if (!r->failed && run_ops(r, r->call, &err) != 0)
        step_failed(r, &err);
}


/* One call: checked run, then the timed repetitions; every P goes back to the runner. */
static void replay_call(replay *r, caplog_call_kind kind, cJSON *calls)
{
    const char *name = caplog_call_kind_name(kind);
    cJSON *item = cJSON_CreateObject();
    cJSON_AddItemToArray(calls, item);
    cJSON_AddStringToObject(item, "call", name);
    const caplog_call *c = caplog_find_call(&r->log, kind, r->j, r->k, r->l);
    char why[CAPLOG_MAX_REFUSAL + 200] = "";
    if (!c) {
        replay_add_status(item, REPLAY_STATUS_MISSING,
                          "the capture has no such call for this shape");
        return;
    }
    if (replay_call_problem(&r->log, r->outline, c, why, sizeof why)) {
        replay_add_status(item, REPLAY_STATUS_REFUSED, why);
        return;
    }
    size_t p_count = (size_t)r->j * (size_t)r->l;
    float *host = malloc(sizeof(float) * p_count);
    tl_error err;
    if (r->be->set_baseline)
        r->be->set_baseline(r->dev, kind == CAPLOG_CALL_BASELINE);
    r->call = c;
    r->failed = false;
    int rc = host ? 0 : tl_error_set(&err, "out of memory");
    if (rc == 0 && kind == CAPLOG_CALL_HOST) {
        memset(host, 0xff, sizeof(float) * p_count);
        r->host_P = host;
        rc = run_ops(r, c, &err);
        rc = rc ? rc : r->be->sync(r->dev, &err);
        if (rc == 0)
            send_output(r, name, "check", host);
    } else if (rc == 0) {
        reset(r, r->P[0]);
        bool sampled = r->o->sample_blocks > 0;
        if (sampled && r->be->count_stores)
            rc = r->be->count_stores(r->dev, r->P[0], sizeof(float) * p_count, &err);
        rc = rc || r->failed ? -1 : run_ops(r, c, &err);
        rc = rc ? rc : r->be->sync(r->dev, &err);
        rc = rc ? rc : r->be->download(r->dev, host, r->P[0], sizeof(float) * p_count, &err);
        /* Sampled: only what a kernel stored counts as written. */
        if (rc == 0 && sampled)
            rc = replay_keep_computed(r->be, r->dev, r->P[0], host, sizeof(float) * p_count,
                                      REPLAY_KEEP_STORED, &err);
        if (rc == 0)
            send_output(r, name, "check", host);
        if (r->failed)
            err = r->step_err, rc = -1;
    }
    if (rc == 0 && r->o->time && kind != CAPLOG_CALL_HOST) {
        double ms[MAX_REPS];
        bool emulated = false;
        gpu_clock_record clock = {0};
        gpu_peaks peaks = {0, 0};
        rc = r->be->time(r->dev, r->o->warmup, r->o->reps, before_run, run_step, r, ms, &emulated,
                         &clock, &peaks, &err);
        if (r->failed)
            err = r->step_err, rc = -1;
        for (int i = 1; rc == 0 && i < 1 + r->o->warmup + r->o->reps; i++) {
            char run[32];
            if (i <= r->o->warmup)
                snprintf(run, sizeof run, "warmup%d", i - 1);
            else
                snprintf(run, sizeof run, "rep%d", i - 1 - r->o->warmup);
            rc = r->be->download(r->dev, host, r->P[i], sizeof(float) * p_count, &err);
            if (rc == 0)
                send_output(r, name, run, host);
        }
        if (rc == 0)
            replay_add_timing(item, ms, r->o->reps, emulated, &clock, peaks);
    }
    replay_status status = rc == 0 ? REPLAY_STATUS_OK
                                   : replay_failure_status(r->be->failure(r->dev));
    replay_add_status(item, status, rc == 0 ? "" : err.msg);
    free(host);
    r->host_P = NULL;
}

/* ---- setting up ----------------------------------------------------------------------- */

static int load_inputs(replay *r, tl_error *err)
{
    if (r->o->generate) {
        tl_size s = r->o->size;
        if (tl_matrix_alloc(&r->A, s.m, s.k, err) != 0 || tl_matrix_alloc(&r->B, s.k, s.n, err) != 0)
            return -1;
        tl_fill_inputs(r->o->seed, 0, s, &r->A, &r->B);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%.4000s/input0.raw", r->o->inputs);
        if (tl_matrix_read(path, &r->A, err) != 0)
            return -1;
        snprintf(path, sizeof path, "%.4000s/input1.raw", r->o->inputs);
        if (tl_matrix_read(path, &r->B, err) != 0)
            return -1;
        if (r->A.cols != r->B.rows)
            return tl_error_set(err, "input0 (%d x %d) and input1 (%d x %d) do not form a product",
                                r->A.rows, r->A.cols, r->B.rows, r->B.cols);
    }
    r->j = r->A.rows;
    r->k = r->A.cols;
    r->l = r->B.cols;
    return 0;
}

/* What the checks' messages call one of the replayer's matrices: "M (64x64 floats, 16384
 * bytes)". */
static void matrix_name(char *out, const char *what, int rows, int cols)
{
    unsigned long long bytes = sizeof(float) * (unsigned long long)rows * (unsigned long long)cols;
    snprintf(out, REPLAY_MAX_NAME, "%s (%dx%d floats, %llu bytes)", what, rows, cols, bytes);
}

static int setup_memory(replay *r, tl_error *err)
{
    const replay_backend *be = r->be;
    uint64_t m_bytes = sizeof(float) * (uint64_t)r->j * r->k;
    uint64_t n_bytes = sizeof(float) * (uint64_t)r->k * r->l;
    uint64_t p_bytes = sizeof(float) * (uint64_t)r->j * r->l;
    char m[REPLAY_MAX_NAME], n[REPLAY_MAX_NAME], m0[REPLAY_MAX_NAME], n0[REPLAY_MAX_NAME],
        p[REPLAY_MAX_NAME];
    /* M0 and N0 stay out of the submission's reach; an access that lands there is a stray one. */
    matrix_name(m, "M", r->j, r->k);
    matrix_name(n, "N", r->k, r->l);
    matrix_name(m0, "the replayer's own copy of M", r->j, r->k);
    matrix_name(n0, "the replayer's own copy of N", r->k, r->l);
    matrix_name(p, "P", r->j, r->l);
    r->allocs = calloc((size_t)r->log.nallocs + 1, sizeof *r->allocs);
    r->nP = 1 + (r->o->time ? r->o->warmup + r->o->reps : 0);
    r->P = calloc((size_t)r->nP, sizeof *r->P);
    if (!r->allocs || !r->P)
        return tl_error_set(err, "out of memory");
    if (be->alloc(r->dev, m_bytes, m, &r->M, err) || be->alloc(r->dev, n_bytes, n, &r->N, err) ||
        be->alloc(r->dev, m_bytes, m0, &r->M0, err) ||
        be->alloc(r->dev, n_bytes, n0, &r->N0, err) ||
        be->upload(r->dev, r->M0, r->A.data, m_bytes, err) ||
        be->upload(r->dev, r->N0, r->B.data, n_bytes, err))
        return -1;
    /* Only the allocations the replayed calls use: a capture holds every shape's calls. */
    bool *used = calloc((size_t)r->log.nallocs + 1, sizeof *used);
    bool *one = calloc((size_t)r->log.nallocs + 1, sizeof *one);
    if (!used || !one) {
        free(used);
        free(one);
        return tl_error_set(err, "out of memory");
    }
    for (int k = 0; k < CAPLOG_CALL_KINDS; k++) {
        const caplog_call *c = r->o->calls[k]
                                   ? caplog_find_call(&r->log, (caplog_call_kind)k, r->j, r->k, r->l)
                                   : NULL;
        if (c && !replay_call_problem(&r->log, r->outline, c, (char[8]){0}, 8)) {
            caplog_call_allocs(&r->log, c, one);
            for (int i = 0; i < r->log.nallocs; i++)
                used[i] = used[i] || one[i];
        }
    }
    free(one);
    int rc = 0;
    for (int i = 0; rc == 0 && i < r->log.nallocs; i++)
        if (used[i])
            rc = be->alloc(r->dev, r->log.alloc_sizes[i], NULL, &r->allocs[i], err);
    free(used);
    if (rc != 0)
        return -1;
    for (int i = 0; i < r->nP; i++)
        if (be->alloc(r->dev, p_bytes, p, &r->P[i], err) != 0)
            return -1;
    return be->save_variables(r->dev, err);
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->time = true;
    o->reps = 10;
    o->warmup = 1;
    o->fd = 3;
    o->calls[CAPLOG_CALL_LAUNCH] = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-time") == 0) {
            o->time = false;
            continue;
        }
        if (strcmp(a, "--answer-computed") == 0) {
            o->answer_computed = true;
            continue;
        }
        if (!v)
            return -1;
        i++;
        if (strcmp(a, "--backend") == 0)
            o->backend = v;
        else if (strcmp(a, "--log") == 0)
            o->log = v;
        else if (strcmp(a, "--ptx") == 0)
            o->ptx = v;
        else if (strcmp(a, "--image") == 0)
            o->image = v;
        else if (strcmp(a, "--inputs") == 0)
            o->inputs = v;
        else if (strcmp(a, "--program") == 0)
            o->program = v;
        else if (strcmp(a, "--diagnose") == 0)
            o->diagnose = v;
        else if (strcmp(a, "--reps") == 0)
            o->reps = atoi(v);
        else if (strcmp(a, "--sample-blocks") == 0)
            o->sample_blocks = atoi(v);
        else if (strcmp(a, "--sample-seed") == 0)
            o->sample_seed = strtoull(v, NULL, 10);
        else if (strcmp(a, "--instruction-limit") == 0)
            o->instruction_limit = strtoull(v, NULL, 10);
        else if (strcmp(a, "--busy-limits") == 0 &&
                 sscanf(v, "%" SCNu64 ",%" SCNu64 ",%" SCNu64, &o->busy[0], &o->busy[1],
                        &o->busy[2]) == 3)
            ;
        else if (strcmp(a, "--deadline") == 0)
            o->deadline_s = atof(v);
        else if (strcmp(a, "--work-macs") == 0)
            o->work_macs = atof(v);
        else if (strcmp(a, "--sample-launches") == 0 && (strcmp(v, "all") == 0 || strcmp(v, "last") == 0))
            o->sample_last = strcmp(v, "last") == 0;
        else if (strcmp(a, "--warmup") == 0)
            o->warmup = atoi(v);
        else if (strcmp(a, "--result-fd") == 0)
            o->fd = atoi(v);
        else if (strcmp(a, "--generate") == 0) {
            char size[64];
            unsigned long long seed;
            tl_error err;
            if (sscanf(v, "%llu:%63s", &seed, size) != 2 || tl_size_parse(size, &o->size, &err) != 0)
                return -1;
            o->seed = seed;
            o->generate = true;
        } else if (strcmp(a, "--calls") == 0) {
            memset(o->calls, 0, sizeof o->calls);
            for (int k = 0; k < CAPLOG_CALL_KINDS; k++)
                o->calls[k] = strstr(v, caplog_call_kind_name((caplog_call_kind)k)) != NULL;
        } else
            return -1;
    }
    if (!runner_backend_parse(o->backend, &o->kind) || !o->log || !o->ptx ||
        (!o->inputs + !o->generate + !o->program != 2) || o->reps < 1 ||
        o->reps > MAX_REPS || o->warmup < 0 || o->warmup > MAX_WARMUP || o->fd < 0 ||
        o->sample_blocks < 0 || (o->sample_blocks > 0 && !o->diagnose) ||
        (o->answer_computed && (!o->program || !o->diagnose)))
        return -1;
    return 0;
}

/* The monotonic time `seconds` from now (0: none), for --deadline. */
static uint64_t deadline_ns(double seconds)
{
    if (!(seconds > 0))
        return 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + (uint64_t)(seconds * 1e9);
}

/* Each of the runner's backends, as this program runs it. */
static const replay_backend *const backends[RUNNER_BACKEND_COUNT] = {
    [RUNNER_GPU] = &replay_gpu_backend,
    [RUNNER_CPU] = &replay_cpu_backend,
};

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    options o;
    if (parse_options(argc, argv, &o) != 0) {
        fputs(usage, stderr);
        return 2;
    }
    replay r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.be = backends[o.kind];
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "backend", runner_backend_name(o.kind));
    cJSON *calls = cJSON_AddArrayToObject(doc, "calls");
    tl_error err;
    replay_status status = REPLAY_STATUS_OK;
    size_t len = 0;
    char *text = replay_read_file(o.log, CAPLOG_MAX_BYTES, &len, &err);
    if (!text || caplog_parse("capture log", text, len, &r.log, &err) != 0)
        status = REPLAY_STATUS_BAD_INPUT;
    free(text);
    char *ptx = status == REPLAY_STATUS_OK
                    ? replay_read_file(o.ptx, REPLAY_MAX_MODULE, &len, &err) : NULL;
    ptx_error perr;
    if (ptx && !(r.outline = ptx_outline_read("module PTX", ptx, len, &perr)))
        tl_error_set(&err, "%s", perr.msg);
    free(ptx);
    if (status == REPLAY_STATUS_OK && !r.outline)
        status = REPLAY_STATUS_BAD_INPUT;
    if (status == REPLAY_STATUS_OK && !o.program && load_inputs(&r, &err) != 0)
        status = REPLAY_STATUS_BAD_INPUT;
    replay_failure why = REPLAY_INTERNAL;
    replay_module module = {.ptx = o.ptx, .image = o.image, .outline = r.outline,
                            .diagnose = o.diagnose, .sample_blocks = (uint64_t)o.sample_blocks,
                            .sample_seed = o.sample_seed,
                            .instruction_limit = o.instruction_limit,
                            .deadline_ns = deadline_ns(o.deadline_s), .work_macs = o.work_macs,
                            .busy = {o.busy[0], o.busy[1], o.busy[2]}};
    if (status == REPLAY_STATUS_OK && r.be->open(&module, &r.dev, &why, &err) != 0)
        status = replay_failure_status(why);
    if (status == REPLAY_STATUS_OK && !o.program && setup_memory(&r, &err) != 0)
        status = replay_failure_status(r.be->failure(r.dev));
    if (status == REPLAY_STATUS_OK && o.program) {
        char device[256];
        r.be->device_name(r.dev, device, sizeof device);
        cJSON_AddStringToObject(doc, "device", device);
        replay_program_opts po = {r.be, r.dev, &r.log, r.outline, o.program, o.fd, o.time,
                                  o.warmup, o.reps, o.sample_blocks > 0, o.sample_last,
                                  o.answer_computed};
        replay_program(&po, calls);
    } else if (status == REPLAY_STATUS_OK) {
        char device[256];
        r.be->device_name(r.dev, device, sizeof device);
        cJSON_AddStringToObject(doc, "device", device);
        for (int k = 0; k < CAPLOG_CALL_KINDS; k++)
            if (o.calls[k])
                replay_call(&r, (caplog_call_kind)k, calls);
    }
    replay_add_status(doc, status, status == REPLAY_STATUS_OK ? "" : err.msg);
    cJSON *shape = cJSON_AddObjectToObject(doc, "shape");
    cJSON_AddNumberToObject(shape, "m", r.j);
    cJSON_AddNumberToObject(shape, "k", r.k);
    cJSON_AddNumberToObject(shape, "n", r.l);
    fflush(stdout);
    send_result(&r, doc);
    cJSON_Delete(doc);
    if (r.dev)
        r.be->close(r.dev);
    caplog_free(&r.log);
    ptx_outline_free(r.outline);
    tl_matrix_free(&r.A);
    tl_matrix_free(&r.B);
    free(r.allocs);
    free(r.P);
    return 0;
}
