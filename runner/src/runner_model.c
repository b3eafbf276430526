/* The performance model's prediction for a submission (perfmodel/): its captured work replayed
 * on the CPU backend with the counters on, a sample of each launch's blocks at the size asked,
 * registers from the build's cubin. Nothing the submission wrote is read: the counts come from
 * the interpreter, the registers from the cubin ptxas made. */
#include "runner.h"
#include "util.h"
#include "runner_model.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t u64_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

static uint64_t product3(const cJSON *o, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    uint64_t p = 1;
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        p *= cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 1;
    }
    return p;
}

static double model_slowdown(const runner_model_run *m)
{
    return m->slowdown > 0 ? m->slowdown : RUNNER_MODEL_SLOWDOWN;
}

double runner_model_busy_ms(const runner_model_run *m)
{
    if (m->busy_ms > 0)
        return m->busy_ms;
    /* No rubric: as far past the reference as the counts' limit lets any launch run, the
     * reference's time taken as the least its thread instructions could issue in. */
    tl_size s = m->data.size;
    double macs = (double)s.m * s.k * s.n;
    return RUNNER_MODEL_SLOWDOWN * pm_issue_floor_ms(RUNNER_CPU_REFERENCE_PER_MAC * macs);
}

bool runner_busy_limits_arg(double ms, char *out, size_t size)
{
    if (!(ms > 0))
        return false;
    pm_busy_limits b = pm_busy_limits_for(ms);
    snprintf(out, size, "%llu,%llu,%llu", (unsigned long long)b.warp_instructions,
             (unsigned long long)b.block_instructions, (unsigned long long)b.block_wavefronts);
    return true;
}

/* The launches of one replay, in order, from its diagnosis (NULL when it wrote none), and its
 * sampled blocks (*samples, NULL when none). */
static cJSON *replay_launches(const runner_config *c, const runner_program *p,
                              const runner_capture *cap, const tl_lab *lab,
                              const runner_model_run *m, bool baseline, bool last_only,
                              runner_result *res, cJSON **samples, tl_error *err)
{
    runner_config cpu = *c;
    cpu.backend = RUNNER_CPU;
    cpu.reps = 1;
    if (samples)
        *samples = NULL;
    char work[] = "/tmp/tilelab-model-XXXXXX";
    if (!mkdtemp(work)) {
        tl_error_set(err, "cannot make a folder under /tmp for the model's counts");
        return NULL;
    }
    char path[sizeof work + 16];
    snprintf(path, sizeof path, "%s/diag.json", work);
    runner_replay_opts opts = {.time = false, .baseline = baseline, .diagnose = path,
                               .launch_only = true,
                               .sample_blocks = RUNNER_MODEL_SAMPLE_BLOCKS,
                               .sample_last = last_only, .sample_seed = m->sample_seed,
                               .slowdown = model_slowdown(m),
                               .busy_ms = runner_model_busy_ms(m)};
    int rc = runner_replay(&cpu, p, cap, lab, &m->data, &opts, res, err);
    char *text = rc == 0 ? files_read(path, NULL) : NULL;
    cJSON *diag = text ? cJSON_Parse(text) : NULL;
    free(text);
    files_remove_tree(work);
    cJSON *launches = cJSON_DetachItemFromObjectCaseSensitive(diag, "launch_counts");
    if (samples)
        *samples = cJSON_DetachItemFromObjectCaseSensitive(diag, "samples");
    cJSON_Delete(diag);
    return launches;
}

/* A launch the counts stopped at a busy limit (`why`, the interpreter's words): slower than
 * busy_ms, which is all the grade needs to know. */
static void predict_slower(const char *why, double busy_ms, tl_size size, runner_prediction *out)
{
    out->ok = true;
    out->slower = true;
    out->ms = busy_ms;
    out->launches = 1;
    out->bound = strstr(why, "passes of its SM's L1") ? PM_BOUND_LSU : PM_BOUND_ISSUE;
    out->gflops = 2.0 * size.m * size.k * size.n / (out->ms * 1e6);
    snprintf(out->detail, sizeof out->detail, "predicted slower than %.1f ms: %.200s", busy_ms,
             why);
}

/* Launches [from, to) of `launches` predicted one by one and added up into `out`; each
 * launch's object gains its registers, predicted time and bound. */
static void predict_range(const runner_program *p, cJSON *launches, int from, int to,
                          tl_size size, double busy_ms, runner_prediction *out)
{
    memset(out, 0, sizeof *out);
    double longest = -1;
    for (int i = from; i < to; i++) {
        cJSON *l = cJSON_GetArrayItem(launches, i);
        const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(l, "kernel");
        const cJSON *busy = cJSON_GetObjectItemCaseSensitive(l, "busy");
        if (cJSON_IsString(busy)) {
            predict_slower(busy->valuestring, busy_ms, size, out);
            return;
        }
        char msg[256];
        int regs = cJSON_IsString(kernel)
                       ? pm_cubin_registers(p->image, kernel->valuestring, msg, sizeof msg)
                       : 0;
        pm_launch in = {
            .blocks = u64_of(l, "blocks"),
            .blocks_run = u64_of(l, "blocks_run"),
            .threads_per_block = (int)product3(l, "block"),
            .registers = regs > 0 ? regs : 0,
            .shared_bytes = u64_of(l, "static_shared") + u64_of(l, "dynamic_shared"),
            .dram_bytes = ((uint64_t)size.m * size.k + (uint64_t)size.k * size.n +
                           (uint64_t)size.m * size.n) * sizeof(float),
        };
        for (int c = 0; pm_count_name(c); c++)
            *pm_launch_count(&in, pm_count_name(c)) = u64_of(l, pm_count_name(c));
        in.max_block_warp_instructions = u64_of(l, "max_block_warp_instructions");
        pm_prediction pr;
        if (pm_predict(&in, &pr) != 0) {
            snprintf(out->detail, sizeof out->detail, "a launch of %.100s cannot run on an H100 "
                     "(%s)", cJSON_IsString(kernel) ? kernel->valuestring : "?", pr.limiter);
            out->ok = false;
            return;
        }
        cJSON_AddNumberToObject(l, "registers", in.registers);
        cJSON_AddNumberToObject(l, "predicted_ms", pr.ms);
        cJSON_AddStringToObject(l, "bound", pm_bound_name(pr.bound));
        out->ms += pr.ms;
        out->launches++;
        if (pr.ms > longest) {
            longest = pr.ms;
            out->bound = pr.bound;
            out->blocks_per_sm = pr.blocks_per_sm;
            out->registers = in.registers;
        }
    }
    out->ok = out->launches > 0;
    if (!out->ok)
        snprintf(out->detail, sizeof out->detail, "no kernel was launched");
    else
        out->gflops = 2.0 * size.m * size.k * size.n / (out->ms * 1e6);
}

/* Each sampled launch of `launches` gains "max_block_warp_instructions": the most any of its
 * sampled blocks issued (the model's spread of block costs). */
static void note_block_spread(cJSON *launches, const cJSON *samples)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, samples) {
        const cJSON *of = cJSON_GetObjectItemCaseSensitive(b, "launch");
        cJSON *l = cJSON_IsNumber(of) ? cJSON_GetArrayItem(launches, of->valueint) : NULL;
        if (!l)
            continue;
        uint64_t issued = u64_of(b, "warp_instructions");
        cJSON *most = cJSON_GetObjectItemCaseSensitive(l, "max_block_warp_instructions");
        if (!most)
            cJSON_AddNumberToObject(l, "max_block_warp_instructions", (double)issued);
        else if ((double)issued > most->valuedouble)
            cJSON_SetNumberValue(most, (double)issued);
    }
}

static int int_at(const cJSON *array, int i)
{
    const cJSON *v = cJSON_GetArrayItem(array, i);
    return cJSON_IsNumber(v) ? v->valueint : -1;
}

/* A block on the grid's far edge in some dimension (its tile may stick out of P, or lie wholly
 * past it where a grid was rounded up): it may store less of P than the others. */
static bool edge_block(const cJSON *block, const cJSON *grid)
{
    for (int d = 0; d < 3; d++)
        if (int_at(grid, d) > 1 && int_at(block, d) == int_at(grid, d) - 1)
            return true;
    return false;
}

/* The sampled blocks must have done their part of the product (docs/grader.md, "The CPU
 * backend's performance points"): every word of P a kernel stored is right, and each sampled
 * block did its whole share. A block's share is told from the sample itself: the blocks a
 * kernel tiles P with store the same number of words each (those on the grid's far edge may
 * store fewer), and that many words from every block of the grid must cover P. A kernel that
 * does part of its work, or its work in some blocks only, fails one or the other; which blocks
 * were sampled is the grading's secret, so it cannot choose where. */
static bool sample_checks(const runner_call_result *launch, const cJSON *launches,
                          const cJSON *samples, int from, int to, char *why, size_t size)
{
    const tl_check_report *c = &launch->check;
    int64_t written = c->checked - c->nonfinite;
    if (c->shape_mismatch || c->bad > c->nonfinite) {
        snprintf(why, size, "no prediction: at this size the sampled blocks' results were "
                 "wrong (%lld of %lld elements they wrote)", (long long)(c->bad - c->nonfinite),
                 (long long)written);
        return false;
    }
    double covered = 0;
    bool sampled = false;
    for (int i = from; i < to; i++) {
        const cJSON *l = cJSON_GetArrayItem(launches, i);
        uint64_t blocks = u64_of(l, "blocks");
        if (u64_of(l, "blocks_run") >= blocks)
            continue; /* run whole: its part of P is checked as it is */
        sampled = true;
        const cJSON *grid = cJSON_GetObjectItemCaseSensitive(l, "grid");
        const cJSON *first = NULL, *most = NULL;
        uint64_t share = 0;
        const cJSON *b;
        cJSON_ArrayForEach(b, samples) {
            const cJSON *of = cJSON_GetObjectItemCaseSensitive(b, "launch");
            if (!cJSON_IsNumber(of) || of->valueint != i)
                continue;
            uint64_t words = u64_of(b, "answer_words");
            const cJSON *where = cJSON_GetObjectItemCaseSensitive(b, "block");
            if (!most || words > u64_of(most, "answer_words"))
                most = b;
            if (edge_block(where, grid))
                continue;
            if (!first) {
                first = b;
                share = words;
            } else if (words != share) {
                const cJSON *w1 = cJSON_GetObjectItemCaseSensitive(first, "block");
                snprintf(why, size, "no prediction: at this size the sampled blocks did different "
                         "shares of P: block (%d,%d,%d) stored %llu elements, block (%d,%d,%d) "
                         "%llu (blocks that tile P store the same number each)",
                         int_at(w1, 0), int_at(w1, 1), int_at(w1, 2), (unsigned long long)share,
                         int_at(where, 0), int_at(where, 1), int_at(where, 2),
                         (unsigned long long)words);
                return false;
            }
        }
        if (!first && most)
            share = u64_of(most, "answer_words");
        covered += (double)share * (double)blocks;
    }
    double elements = (double)c->checked;
    if (!sampled) {
        if (written < c->checked) {
            snprintf(why, size, "no prediction: at this size the kernels left %lld of %lld "
                     "elements of P unwritten", (long long)(c->checked - written),
                     (long long)c->checked);
            return false;
        }
        return true;
    }
    if (covered < elements) {
        snprintf(why, size, "no prediction: at this size each sampled block stored a part of P "
                 "that, over every block of the grid, covers %.0f of its %.0f elements",
                 covered, elements);
        return false;
    }
    return true;
}

/* One try: the student's call replayed with every launch sampled, or (`last_only`) only its
 * last, the launches before it run whole (a pipeline: a transpose, then the product, reads
 * what the first made). Returns 0 with out set (ok false and why when no prediction;
 * *sample_failed when the sampled blocks' part of P was not right), -1 when the kit failed;
 * *launches gets the counts. */
static int try_predict(const runner_config *c, const runner_program *p, const runner_capture *cap,
                       const tl_lab *lab, const runner_model_run *m, bool last_only,
                       runner_prediction *out, cJSON **launches, bool *sample_failed,
                       tl_error *err)
{
    *sample_failed = false;
    runner_result res;
    cJSON *samples = NULL;
    tl_size size = m->data.size;
    *launches = replay_launches(c, p, cap, lab, m, false, last_only, &res, &samples, err);
    tl_verdict v = res.verdict;
    runner_call_result launch = res.calls[CAPLOG_CALL_LAUNCH];
    char why[sizeof res.detail];
    snprintf(why, sizeof why, "%s", res.detail);
    runner_result_free(&res);
    if (!*launches && v == TL_VERDICT_ERROR) {
        cJSON_Delete(samples);
        return -1;
    }
    /* The sample leaves most of P unwritten, so a wrong result says nothing by itself; a
     * kernel that stopped, hung or was refused has no time to predict. */
    if (v != TL_VERDICT_PASS && v != TL_VERDICT_WRONG) {
        memset(out, 0, sizeof *out);
        snprintf(out->detail, sizeof out->detail, "no prediction: %s: %.200s",
                 tl_verdict_name(v), why);
        cJSON_Delete(samples);
        return 0;
    }
    int n = cJSON_GetArraySize(*launches);
    note_block_spread(*launches, samples);
    predict_range(p, *launches, 0, n, size, runner_model_busy_ms(m), out);
    if (out->ok && !out->slower &&
        !sample_checks(&launch, *launches, samples, 0, n, out->detail, sizeof out->detail)) {
        out->ok = false;
        *sample_failed = true;
    }
    cJSON_Delete(samples);
    return 0;
}

runner_model_run runner_model_fixed(tl_size size)
{
    return (runner_model_run){{.generated = true, .seed = RUNNER_MODEL_SEED, .size = size},
                              RUNNER_MODEL_SEED, RUNNER_MODEL_SLOWDOWN, 0};
}

int runner_predict(const runner_config *c, const runner_program *p, const runner_capture *cap,
                   const tl_lab *lab, tl_size size, bool baseline, runner_prediction out[2],
                   char **counts, tl_error *err)
{
    runner_model_run m = runner_model_fixed(size);
    return runner_predict_on(c, p, cap, lab, &m, baseline, out, counts, err);
}

int runner_predict_on(const runner_config *c, const runner_program *p, const runner_capture *cap,
                      const tl_lab *lab, const runner_model_run *m, bool baseline,
                      runner_prediction out[2], char **counts, tl_error *err)
{
    tl_size size = m->data.size;
    memset(out, 0, 2 * sizeof *out);
    if (counts)
        *counts = NULL;
    cJSON *mine = NULL;
    bool sampled_short = false;
    if (try_predict(c, p, cap, lab, m, false, &out[0], &mine, &sampled_short, err) != 0)
        return -1;
    if (!out[0].ok && sampled_short && cJSON_GetArraySize(mine) > 1) {
        cJSON *whole = NULL;
        runner_prediction again;
        bool unused;
        if (try_predict(c, p, cap, lab, m, true, &again, &whole, &unused, err) != 0) {
            cJSON_Delete(mine);
            return -1;
        }
        if (again.ok) {
            out[0] = again;
            cJSON_Delete(mine);
            mine = whole;
        } else {
            cJSON_Delete(whole);
        }
    }
    int n = cJSON_GetArraySize(mine);
    if (baseline) {
        runner_result res;
        cJSON *both = replay_launches(c, p, cap, lab, m, true, false, &res, NULL, err);
        runner_result_free(&res);
        runner_prediction mine_checked = out[0];
        predict_range(p, both, 0, n, size, runner_model_busy_ms(m), &out[0]);
        if (!mine_checked.ok)
            out[0] = mine_checked;
        predict_range(p, both, n, cJSON_GetArraySize(both), size, runner_model_busy_ms(m),
                      &out[1]);
        cJSON_Delete(mine);
        mine = both;
    }
    if (counts && mine)
        *counts = cJSON_PrintUnformatted(mine);
    cJSON_Delete(mine);
    return 0;
}

/* One try of a whole program's prediction (try_predict's twin). */
static int try_predict_program(const runner_config *c, const runner_program *p,
                               const runner_program_lab *lab, const runner_model_run *m,
                               bool last_only, runner_prediction *out, bool *sample_failed,
                               int *nlaunches, tl_error *err)
{
    *sample_failed = false;
    *nlaunches = 0;
    memset(out, 0, sizeof *out);
    char work[] = "/tmp/tilelab-model-XXXXXX";
    if (!mkdtemp(work))
        return tl_error_set(err, "cannot make a folder under /tmp for the model's counts");
    char path[sizeof work + 16];
    snprintf(path, sizeof path, "%s/diag.json", work);
    runner_program_opts opts = {.diagnose = path, .sample_blocks = RUNNER_MODEL_SAMPLE_BLOCKS,
                                .sample_last = last_only, .sample_seed = m->sample_seed,
                                .slowdown = model_slowdown(m),
                                .busy_ms = runner_model_busy_ms(m)};
    runner_result res;
    const runner_dataset *d = &m->data;
    int rc = runner_program_run(c, p, lab, d, &opts, &res, err);
    char *text = rc == 0 ? files_read(path, NULL) : NULL;
    cJSON *diag = text ? cJSON_Parse(text) : NULL;
    free(text);
    files_remove_tree(work);
    cJSON *launches = cJSON_GetObjectItemCaseSensitive(diag, "launch_counts");
    tl_verdict v = res.verdict;
    if (rc == 0 && v != TL_VERDICT_PASS && v != TL_VERDICT_WRONG) {
        snprintf(out->detail, sizeof out->detail, "no prediction: %s: %.200s",
                 tl_verdict_name(v), res.detail);
    } else if (rc == 0) {
        *nlaunches = cJSON_GetArraySize(launches);
        note_block_spread(launches, cJSON_GetObjectItemCaseSensitive(diag, "samples"));
        predict_range(p, launches, 0, *nlaunches, d->size, runner_model_busy_ms(m), out);
        if (out->ok && !out->slower && !sample_checks(&res.calls[CAPLOG_CALL_PROGRAM], launches,
                                      cJSON_GetObjectItemCaseSensitive(diag, "samples"), 0,
                                      *nlaunches, out->detail, sizeof out->detail)) {
            out->ok = false;
            *sample_failed = true;
        }
    }
    cJSON_Delete(diag);
    if (rc == 0)
        runner_result_free(&res);
    return rc;
}

int runner_program_predict(const runner_config *c, const runner_program *p,
                           const runner_program_lab *lab, const runner_model_run *d,
                           runner_prediction *out, tl_error *err)
{
    bool sampled_short = false;
    int n = 0;
    if (try_predict_program(c, p, lab, d, false, out, &sampled_short, &n, err) != 0)
        return -1;
    if (!out->ok && sampled_short && n > 1) {
        runner_prediction again;
        bool unused;
        if (try_predict_program(c, p, lab, d, true, &again, &unused, &n, err) != 0)
            return -1;
        if (again.ok)
            *out = again;
    }
    return 0;
}
