/* Replaying a libwb program's whole run (a capture log's program call). The program's inputs
 * are the runner's: each hI<n> is what the dataset's file gives the import the program made.
 * The replayer does the recorded allocations, uploads, launches and downloads on its own
 * buffers; what the downloads put in hO goes back to the runner, which checks the answer
 * against the expected output. No host code of the program runs here.
 *
 * As for the lab calls, the run is checked once and then repeated (warm-ups and timed runs),
 * each from the same state: allocations holding the NaN pattern, module variables as loaded, a
 * fresh hO; every run's hO goes back, so a program that only works once fails. */
#include "replay.h"
#include "replay_protocol.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 128

typedef struct program_replay {
    const replay_program_opts *o;
    const caplog_call *call;
    replay_addr *allocs;
    uint8_t *inputs[CAPLOG_MAX_INPUTS];
    uint8_t *outs[MAX_RUNS]; /* hO of the checked run, then of each warm-up and timed run */
    uint8_t *out;            /* the current run's */
    int first_launch, last_launch; /* the timed part of the run: the kernels, and the device
                                      work between them; uploads before and downloads after
                                      are done outside the timing, as the lab calls' are */
    int pending_tail;        /* a timed run whose downloads are still to do, or -1 */
    bool failed;
    tl_error step_err;
} program_replay;

static replay_addr address_of(const void *ctx, caplog_ref ref)
{
    const program_replay *p = ctx;
    return p->allocs[ref.buf - CAPLOG_BUF_ALLOC] + (uint64_t)ref.offset;
}

/* A download into the answer: in a sampled run only what the kernels stored is taken (the
 * rest of the sampled blocks' memory is not their work); where the answer must be computed,
 * nothing copied from an input is. */
static int keep_computed(program_replay *p, const caplog_op *op, tl_error *err)
{
    const replay_program_opts *o = p->o;
    if (!o->sampled && !o->answer_computed)
        return 0;
    return replay_keep_computed(o->be, o->dev, address_of(p, op->src), p->out + op->dst.offset,
                                op->count, o->sampled ? REPLAY_KEEP_STORED
                                                      : REPLAY_KEEP_NOT_INPUT, err);
}

/* Ops [from, to) of the call. */
static int run_ops(program_replay *p, int from, int to, tl_error *err)
{
    const replay_backend *be = p->o->be;
    replay_device *dev = p->o->dev;
    const caplog *log = p->o->log;
    for (int i = from; i < to; i++) {
        const caplog_op *op = &p->call->ops[i];
        int rc = 0;
        bool to_var = op->dst.buf >= CAPLOG_BUF_VAR;
        const char *var = to_var ? log->var_names[op->dst.buf - CAPLOG_BUF_VAR] : NULL;
        const uint8_t *from_host = op->src.buf >= CAPLOG_BUF_INPUT &&
                                           op->src.buf < CAPLOG_BUF_ANSWER
                                       ? p->inputs[op->src.buf - CAPLOG_BUF_INPUT] +
                                             op->src.offset
                                       : NULL;
        switch (op->kind) {
        case CAPLOG_MEMSET:
            rc = to_var ? be->write_variable(dev, var, (uint64_t)op->dst.offset, NULL, op->value,
                                             op->count, err)
                        : be->fill(dev, address_of(p, op->dst), op->value, op->count, err);
            break;
        case CAPLOG_COPY:
            if (op->dst.buf == CAPLOG_BUF_ANSWER) {
                rc = be->download(dev, p->out + op->dst.offset, address_of(p, op->src), op->count,
                                  err);
                rc = rc ? rc : keep_computed(p, op, err);
            } else if (to_var) {
                rc = be->write_variable(dev, var, (uint64_t)op->dst.offset, from_host, 0,
                                        op->count, err);
            } else if (from_host) {
                rc = be->upload(dev, address_of(p, op->dst), from_host, op->count, err);
            } else {
                rc = be->copy(dev, address_of(p, op->dst), address_of(p, op->src), op->count,
                              err);
            }
            break;
        case CAPLOG_LAUNCH:
            if (be->set_sampling)
                be->set_sampling(dev, p->o->sampled && (!p->o->sample_last || i == p->last_launch));
            rc = replay_launch(be, dev, log, op->launch, address_of, p, err);
            break;
        case CAPLOG_FREE:
            break; /* kept for the next run */
        }
        if (rc != 0)
            return -1;
    }
    return be->sync(dev, err);
}

static int run_all(program_replay *p, tl_error *err)
{
    return run_ops(p, 0, p->call->nops, err);
}

static void step_failed(program_replay *p, const tl_error *err)
{
    if (!p->failed)
        p->step_err = *err;
    p->failed = true;
}

/* The state the program's run starts from, and `out` as its hO. */
static void reset(program_replay *p, uint8_t *out)
{
    tl_error err;
    const caplog *log = p->o->log;
    int rc = 0;
    for (int i = 0; rc == 0 && i < log->nallocs; i++)
        if (p->allocs[i]) /* 0: one the run does not use, never made */
            rc = p->o->be->poison(p->o->dev, p->allocs[i], log->alloc_sizes[i], &err);
    rc = rc ? rc : p->o->be->restore_variables(p->o->dev, &err);
    if (rc != 0)
        step_failed(p, &err);
    memset(out, 0xff, p->call->out_bytes);
    p->out = out;
}

/* The downloads of the last timed run, into its own hO. */
static void finish_tail(program_replay *p)
{
    tl_error err;
    if (p->pending_tail >= 0 && !p->failed) {
        p->out = p->outs[p->pending_tail];
        if (run_ops(p, p->last_launch + 1, p->call->nops, &err) != 0)
            step_failed(p, &err);
    }
    p->pending_tail = -1;
}

static void before_run(void *ctx, int rep)
{
    program_replay *p = ctx;
    finish_tail(p);
    int index = rep < 0 ? -rep : 1 + p->o->warmup + rep;
    reset(p, p->outs[index]);
    tl_error err;
    if (!p->failed && run_ops(p, 0, p->first_launch, &err) != 0)
        step_failed(p, &err);
    p->pending_tail = index;
}

static void run_step(void *ctx, int rep)
{
    (void)rep;
    program_replay *p = ctx;
    tl_error err;
    if (!p->failed && run_ops(p, p->first_launch, p->last_launch + 1, &err) != 0)
        step_failed(p, &err);
}

static void send_answer(const program_replay *p, const char *run, const uint8_t *out)
{
    char header[REPLAY_MAX_HEADER];
    int n = snprintf(header, sizeof header, "%s program:%s %llu\n", REPLAY_FRAME_ANSWER, run,
                     (unsigned long long)p->call->out_bytes);
    replay_send(p->o->fd, header, (size_t)n);
    replay_send(p->o->fd, out, p->call->out_bytes);
}

static int read_inputs(program_replay *p, tl_error *err)
{
    for (int i = 0; i < p->call->ninputs; i++) {
        char path[4096];
        size_t len = 0;
        snprintf(path, sizeof path, "%.4000s/hI%d", p->o->inputs, i);
        uint64_t want = p->call->input_bytes[i];
        p->inputs[i] = (uint8_t *)replay_read_file(path, (size_t)want, &len, err);
        if (!p->inputs[i])
            return -1;
        if (len != want)
            return tl_error_set(err, "%s: %zu bytes, the program imported %llu", path, len,
                                (unsigned long long)want);
    }
    return 0;
}

static int setup(program_replay *p, int runs, tl_error *err)
{
    const caplog *log = p->o->log;
    p->allocs = calloc((size_t)log->nallocs + 1, sizeof *p->allocs);
    if (!p->allocs)
        return tl_error_set(err, "out of memory");
    for (int i = 0; i < runs; i++)
        if (!(p->outs[i] = malloc(p->call->out_bytes ? p->call->out_bytes : 1)))
            return tl_error_set(err, "out of memory");
    /* Only the allocations the run uses (copies, memsets and launches name them). */
    bool *used = calloc((size_t)log->nallocs + 1, sizeof *used);
    if (!used)
        return tl_error_set(err, "out of memory");
    caplog_call_allocs(log, p->call, used);
    int rc = 0;
    for (int i = 0; rc == 0 && i < log->nallocs; i++)
        if (used[i])
            rc = p->o->be->alloc(p->o->dev, log->alloc_sizes[i], NULL, &p->allocs[i], err);
    free(used);
    if (rc != 0)
        return -1;
    /* Sampled: each block's stores into the memory the answer comes from are counted. */
    for (int i = 0; p->o->sampled && p->o->be->count_stores && i < p->call->nops; i++) {
        const caplog_op *op = &p->call->ops[i];
        if (op->kind == CAPLOG_COPY && op->dst.buf == CAPLOG_BUF_ANSWER &&
            op->src.buf >= CAPLOG_BUF_ALLOC && op->src.buf < CAPLOG_BUF_VAR &&
            p->o->be->count_stores(p->o->dev, address_of(p, op->src), 0, err) != 0)
            return -1;
    }
    if (read_inputs(p, err) != 0)
        return -1;
    return p->o->be->save_variables(p->o->dev, err);
}


void replay_program(const replay_program_opts *o, cJSON *calls)
{
    cJSON *item = cJSON_CreateObject();
    cJSON_AddItemToArray(calls, item);
    cJSON_AddStringToObject(item, "call", caplog_call_kind_name(CAPLOG_CALL_PROGRAM));
    program_replay p = {.o = o, .call = caplog_find_call(o->log, CAPLOG_CALL_PROGRAM, 1, 1, 1),
                        .pending_tail = -1};
    char why[CAPLOG_MAX_REFUSAL + 200];
    if (!p.call || !p.call->answered) {
        if (p.call)
            replay_add_status(item, REPLAY_STATUS_UNANSWERED,
                              "the program never called wbSolution");
        else
            replay_add_status(item, REPLAY_STATUS_MISSING, "the capture has no program call");
        return;
    }
    if (replay_call_problem(o->log, o->outline, p.call, why, sizeof why)) {
        replay_add_status(item, REPLAY_STATUS_REFUSED, why);
        return;
    }
    p.first_launch = p.call->nops;
    p.last_launch = -1;
    for (int i = 0; i < p.call->nops; i++)
        if (p.call->ops[i].kind == CAPLOG_LAUNCH) {
            p.first_launch = i < p.first_launch ? i : p.first_launch;
            p.last_launch = i;
        }
    if (p.last_launch < 0)
        p.first_launch = p.last_launch = p.call->nops - 1; /* no kernel: nothing to time */
    int runs = 1 + (o->time ? o->warmup + o->reps : 0);
    tl_error err;
    int rc = runs <= MAX_RUNS ? setup(&p, runs, &err) : tl_error_set(&err, "too many runs");
    bool internal = rc != 0; /* a setup failure is the kit's or the dataset's, not the program's */
    if (rc == 0) {
        reset(&p, p.outs[0]);
        rc = p.failed ? -1 : run_all(&p, &err);
        if (rc == 0)
            send_answer(&p, "check", p.outs[0]);
        if (p.failed)
            err = p.step_err, rc = -1;
    }
    if (rc == 0 && o->time) {
        double ms[MAX_RUNS];
        bool emulated = false;
        gpu_clock_record clock = {0};
        gpu_peaks peaks = {0, 0};
        rc = o->be->time(o->dev, o->warmup, o->reps, before_run, run_step, &p, ms, &emulated,
                         &clock, &peaks, &err);
        finish_tail(&p);
        if (p.failed)
            err = p.step_err, rc = -1;
        for (int i = 1; rc == 0 && i < runs; i++) {
            char run[32];
            if (i <= o->warmup)
                snprintf(run, sizeof run, "warmup%d", i - 1);
            else
                snprintf(run, sizeof run, "rep%d", i - 1 - o->warmup);
            send_answer(&p, run, p.outs[i]);
        }
        if (rc == 0)
            replay_add_timing(item, ms, o->reps, emulated, &clock, peaks);
    }
    replay_status status = rc == 0 ? REPLAY_STATUS_OK : internal ? REPLAY_STATUS_ERROR
                                   : replay_failure_status(o->be->failure(o->dev));
    replay_add_status(item, status, rc == 0 ? "" : err.msg);
    for (int i = 0; i < CAPLOG_MAX_INPUTS; i++)
        free(p.inputs[i]);
    for (int i = 0; i < runs && i < MAX_RUNS; i++)
        free(p.outs[i]);
    free(p.allocs);
}
