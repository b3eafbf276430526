/* Grading one submission: build, static checks, capture, a replay per dataset, the timed replay
 * on the performance dataset, the score. Every string that came from the submission is kept as
 * valid UTF-8 in the journal; the outputs make it inert for where it goes. */
#include "grader_context.h"
#include "outputs.h"

#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void grade_config(const grade_context *c, int slot, runner_config *out)
{
    runner_config_default(out, c->o->backend);
    out->sandbox = !c->o->no_sandbox;
    out->slot = slot;
    out->turns = c->turns;
    runner_config_set_timeout(out, c->o->timeout);
    out->reps = c->o->reps;
    out->compute_capability = c->compute_capability;
}

void grade_journal_path(const grade_context *c, const submission *s, char *out, size_t size)
{
    char name[256];
    grader_file_name(s->student, name, sizeof name);
    snprintf(out, size, "%.3000s/journal/%s.json", c->o->out, name);
}

void grade_key(const grade_context *c, const submission *s, char *out, size_t size)
{
    uint64_t h = grader_submission_hash(s) ^ c->rubric_hash;
    h ^= c->datasets_hash * UINT64_C(0x9e3779b97f4a7c15);
    h ^= (c->perf.seed + (uint64_t)c->perf.size.m * 31 + (uint64_t)c->perf.size.n) * 0x100000001b3u;
    h ^= c->o->backend == RUNNER_CPU ? 0x5bd1e995u : 0;
    h ^= (uint64_t)GRADE_RULES_VERSION * UINT64_C(0xc2b2ae3d27d4eb4f);
    snprintf(out, size, "%016" PRIx64, h);
}

void grade_add_text(cJSON *o, const char *key, const char *text)
{
    char *utf8 = tl_text_utf8(text ? text : "", text ? strlen(text) : 0);
    cJSON_AddStringToObject(o, key, utf8 ? utf8 : "");
    free(utf8);
}

cJSON *grade_item(const char *name, double score, double max, bool passed, const char *vis,
                  const char *output)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    /* Scores to the hundredth, as the gradebook shows them: the total is their sum, so the
     * gradebook's columns add up to its total exactly. */
    cJSON_AddNumberToObject(o, "score", round(score * 100) / 100);
    cJSON_AddNumberToObject(o, "max_score", max);
    cJSON_AddStringToObject(o, "status", passed ? "passed" : "failed");
    cJSON_AddStringToObject(o, "visibility", vis);
    grade_add_text(o, "output", output);
    return o;
}

void grade_add_performance(const grade_context *c, cJSON *items, cJSON *item, cJSON *e)
{
    bool graded = c->r.performance > 0;
    cJSON_AddBoolToObject(cJSON_GetObjectItem(e, "performance"), "graded", graded);
    if (graded)
        cJSON_AddItemToArray(items, item);
    else
        cJSON_Delete(item);
}

/* plain_cuda (checks_plain.c) on the build's products and the submission's files. Appends the
 * check; returns 1 (with what was found in `found`) when it fails. */
static int plain_cuda_check(const runner_program *p, const char *const *names,
                            const char *const *texts, int n, char *found, size_t size,
                            cJSON *checks)
{
    tl_error err;
    size_t len = 0;
    char detail[700];
    char *ptx = files_read_untrusted(p->ptx, GRADER_MAX_PTX_BYTES, &len, &err);
    char *own = files_read_untrusted(p->own_code, RUNNER_OWN_CODE_MAX_BYTES, &len, &err);
    char *headers = files_read(p->headers, &len);
    plain_cuda_input in = {ptx, own, names, texts, n, headers, runner_toolkit_headers()};
    int findings = ptx ? plain_cuda_findings(&in, detail, sizeof detail) : 1;
    if (!ptx)
        snprintf(detail, sizeof detail, "the compiled PTX could not be read: %.300s", err.msg);
    free(ptx);
    free(own);
    free(headers);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", "plain CUDA C: no tensor cores, no inline assembly of its own");
    cJSON_AddBoolToObject(o, "ok", findings == 0);
    grade_add_text(o, "detail", detail);
    cJSON_AddItemToArray(checks, o);
    if (findings)
        snprintf(found, size, "%s", detail);
    return findings != 0;
}

/* The static checks read exactly the files the build compiled: the runner's copies. */
static int run_static_checks(const grade_context *c, const submission *s,
                             const runner_program *p, bool built, cJSON *checks, char *forbidden,
                             size_t size)
{
    const char *names[RUNNER_MAX_INCLUDES];
    char *texts[RUNNER_MAX_INCLUDES];
    int n = 0;
    tl_error err;
    char path[PATH_MAX + 300];
    size_t len = 0;
    const char *hidden = NULL; /* a file whose NUL byte would hide the rest from the checks */
    if (built) {
        for (int i = 0; i < p->nfiles; i++) {
            snprintf(path, sizeof path, "%.3800s/src/%.255s", p->dir, p->files[i]);
            texts[n] = files_read_untrusted(path, RUNNER_MAX_SOURCE_BYTES, &len, &err);
            names[n] = p->files[i];
            if (texts[n] && strlen(texts[n]) != len)
                hidden = p->files[i];
            n += texts[n] != NULL;
        }
    } else if (s->source[0]) {
        snprintf(path, sizeof path, "%.3800s/%.255s", s->folder, s->source);
        texts[0] = files_read_untrusted(path, RUNNER_MAX_SOURCE_BYTES, &len, &err);
        names[0] = s->source;
        n = texts[0] != NULL;
        if (n && strlen(texts[0]) != len)
            hidden = s->source;
    }
    int failed = n ? static_checks_files(names, (const char *const *)texts, n, &c->r, checks) : 1;
    if (built && c->r.plain_cuda)
        failed += plain_cuda_check(p, names, (const char *const *)texts, n, forbidden, size, checks);
    if (hidden) {
        /* nvcc skips NUL bytes; the checks would stop at the first one. */
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", "no NUL bytes in the source");
        cJSON_AddBoolToObject(o, "ok", false);
        grade_add_text(o, "detail", hidden);
        cJSON_AddItemToArray(checks, o);
        failed++;
    }
    if (n == 0) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", "the source could be read");
        cJSON_AddBoolToObject(o, "ok", false);
        cJSON_AddStringToObject(o, "detail", "no readable source file");
        cJSON_AddItemToArray(checks, o);
    }
    for (int i = 0; i < n; i++)
        free(texts[i]);
    return failed;
}

void grade_dataset_shape(const grade_dataset *d, char *out, size_t size)
{
    if (d->shape[0])
        snprintf(out, size, "%s", d->shape);
    else
        snprintf(out, size, "%dx%dx%d", d->size.m, d->size.k, d->size.n);
}

cJSON *grade_dataset_json(const grade_dataset *d, tl_verdict v, const char *detail,
                          const char *output)
{
    char size[48];
    grade_dataset_shape(d, size, sizeof size);
    cJSON *dj = cJSON_CreateObject();
    cJSON_AddStringToObject(dj, "name", d->name);
    cJSON_AddStringToObject(dj, "size", size);
    cJSON_AddBoolToObject(dj, "hidden", d->hidden);
    cJSON_AddStringToObject(dj, "verdict", tl_verdict_name(v));
    grade_add_text(dj, "detail", detail);
    cJSON_AddNumberToObject(dj, "kernel_ms", 0);
    cJSON_AddNumberToObject(dj, "gflops", 0);
    grade_add_text(dj, "stdout", output);
    cJSON_AddStringToObject(dj, "stderr", "");
    return dj;
}

const char *grade_performance_visibility(const grade_context *c)
{
    for (int i = 0; i < c->nds; i++)
        if (c->ds[i].hidden)
            return c->r.hidden_visibility;
    return "visible";
}

void grade_dataset_record(const grade_context *c, const grade_dataset *d, const runner_result *res,
                          const explanation *x, double per, cJSON *dsets, cJSON *items)
{
    cJSON *dj = grade_dataset_json(d, res->verdict, res->detail, res->kernel_output);
    cJSON *why = explain_json(x);
    if (why && why->child)
        cJSON_AddItemToObject(dj, "explain", why);
    else
        cJSON_Delete(why);
    cJSON_AddItemToArray(dsets, dj);
    char name[160], shape[48];
    grade_dataset_shape(d, shape, sizeof shape);
    snprintf(name, sizeof name, "%sdataset %s (%s)", d->hidden ? "hidden " : "", d->name, shape);
    char *text = explain_student_text(x, d->hidden);
    bool pass = res->verdict == TL_VERDICT_PASS;
    cJSON_AddItemToArray(items, grade_item(name, pass ? per : 0, per, pass,
                                           d->hidden ? c->r.hidden_visibility : "visible",
                                           text ? text : tl_verdict_name(res->verdict)));
    free(text);
}


static runner_dataset dataset_of(const grade_dataset *d)
{
    if (d->generated)
        return (runner_dataset){.generated = true, .seed = d->seed, .size = d->size};
    return (runner_dataset){.dir = d->path};
}

/* A dataset judged as `run` judges it (runner_judge), but untimed: the safety checks, then on
 * a GPU its own replay. The P of the replay that gave the verdict is saved at `saved`, for the
 * map of a wrong one. */
static int judge_dataset(const grade_state *g, const runner_loaded *data, const char *saved,
                         runner_result *res)
{
    runner_judge_opts opts = {.safety = true, .time = false, .save_output = saved};
    tl_error err;
    return runner_judge(&g->cfg, &g->p, &g->cap, runner_lab_matrix(g->c->o->lab), data, &opts, res, &err);
}

/* ---- the steps of a grading ---------------------------------------------------------------- */

/* The journal entry's head: who, what, how and when. */
static void start_entry(grade_state *g)
{
    const grade_context *c = g->c;
    const grade_options *o = c->o;
    const submission *s = g->s;
    cJSON *e = g->e = cJSON_CreateObject();
    char file_name[256], key[32];
    grader_file_name(s->student, file_name, sizeof file_name);
    grade_key(c, s, key, sizeof key);
    grade_add_text(e, "student", s->student);
    cJSON_AddStringToObject(e, "file_name", file_name);
    cJSON_AddStringToObject(e, "lab", runner_lab_name(c->o->lab));
    grade_add_text(e, "source", s->source);
    cJSON_AddStringToObject(e, "grading_key", key);
    cJSON_AddStringToObject(e, "backend", runner_backend_name(o->backend));
    cJSON_AddStringToObject(e, "device", c->device);
    cJSON_AddBoolToObject(e, "predicted_time", o->backend == RUNNER_CPU);
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(e, "graded_at", when);
    const char *note = s->refused[0] ? s->refused : runner_lab_described(o->lab) && s->source[0] ? "" : s->note;
    grade_add_text(e, "note", note);
    cJSON_AddStringToObject(e, "sandbox", c->sandbox);
    g->items = cJSON_CreateArray();
}

/* What the kit did for the file to build goes beside the submission's own note. */
static void add_build_notes(grade_state *g)
{
    const char *was = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(g->e, "note"));
    char note[sizeof g->s->note + RUNNER_NOTES_MAX + 8];
    snprintf(note, sizeof note, "%s%s%s", was ? was : "", was && *was ? "; " : "", g->p.notes);
    char *utf8 = tl_text_utf8(note, strlen(note));
    cJSON_ReplaceItemInObjectCaseSensitive(g->e, "note", cJSON_CreateString(utf8 ? utf8 : ""));
    free(utf8);
}

/* The build, its journal entry and the compile item. */
static void build(grade_state *g)
{
    const submission *s = g->s;
    runner_outcome *built = &g->built;
    built->verdict = TL_VERDICT_REFUSED;
    if (s->refused[0])
        snprintf(built->detail, sizeof built->detail, "%s", s->refused);
    else if (!s->source[0])
        snprintf(built->detail, sizeof built->detail, "%s", s->note);
    else if (runner_build(&g->cfg, s->folder, s->source, &g->p, built) != 0) {
        built->verdict = TL_VERDICT_ERROR;
        snprintf(built->detail, sizeof built->detail, "the build could not be run");
    }
    bool ok = built->verdict == TL_VERDICT_PASS;
    if (ok && g->p.notes[0])
        add_build_notes(g);
    cJSON *b = cJSON_AddObjectToObject(g->e, "build");
    cJSON_AddBoolToObject(b, "ok", ok);
    cJSON_AddStringToObject(b, "verdict", tl_verdict_name(built->verdict));
    grade_add_text(b, "detail", built->detail);
    grade_add_text(b, "messages", built->messages ? built->messages : (ok ? "" : built->detail));
    double points = g->c->r.compile;
    const char *said = ok ? "builds"
                       : built->verdict == TL_VERDICT_BUILD_FAILED
                           ? "does not build (see the compiler's messages)"
                           : built->detail;
    cJSON_AddItemToArray(g->items, grade_item("compile", ok ? points : 0, points, ok, "visible",
                                              said));
}

/* Static checks, on every file of the submission the build read, and their item: which failed,
 * and where (the item's output is what Gradescope shows the student). */
static void check_statics(grade_state *g)
{
    const runner_outcome *built = &g->built;
    cJSON *checks = cJSON_AddArrayToObject(g->e, "static");
    int failed = 1;
    if (built->verdict == TL_VERDICT_REFUSED || built->verdict == TL_VERDICT_ERROR) {
        /* A refused submission is not read further: its files are not the student's own. */
        cJSON *check = cJSON_CreateObject();
        cJSON_AddStringToObject(check, "name", "the submission could be checked");
        cJSON_AddBoolToObject(check, "ok", false);
        grade_add_text(check, "detail", built->detail);
        cJSON_AddItemToArray(checks, check);
    } else {
        failed = run_static_checks(g->c, g->s, &g->p, built->verdict == TL_VERDICT_PASS, checks,
                                   g->forbidden, sizeof g->forbidden);
    }
    char detail[900];
    int len = snprintf(detail, sizeof detail, "%d of %d static checks failed", failed,
                       cJSON_GetArraySize(checks));
    const cJSON *chk;
    cJSON_ArrayForEach(chk, checks) {
        const cJSON *okj = cJSON_GetObjectItem(chk, "ok");
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(chk, "name"));
        const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(chk, "detail"));
        if (cJSON_IsTrue(okj) || !name || len < 0 || (size_t)len >= sizeof detail)
            continue;
        len += snprintf(detail + len, sizeof detail - (size_t)len, "; %s%s%.200s", name,
                        why && *why ? ": " : "", why ? why : "");
    }
    double points = g->c->r.statics;
    cJSON_AddItemToArray(g->items, grade_item("static checks", failed ? 0 : points, points,
                                              !failed, "visible",
                                              failed ? detail : "all passed"));
}

/* Capture once, for every shape the replays will need. */
static void capture(grade_state *g)
{
    const grade_context *c = g->c;
    tl_size shapes[GRADE_MAX_DATASETS + 1];
    for (int i = 0; i < c->nds; i++)
        shapes[i] = c->ds[i].size;
    shapes[c->nds] = c->perf.size;
    g->captured = g->built;
    g->captured.messages = NULL;
    if (g->built.verdict != TL_VERDICT_PASS)
        return;
    if (runner_capture_run(&g->cfg, &g->p, shapes, c->nds + 1, &g->cap, &g->captured) != 0) {
        g->captured.verdict = TL_VERDICT_ERROR;
        snprintf(g->captured.detail, sizeof g->captured.detail, "the capture could not be run");
    } else {
        g->have_capture = true;
    }
    cJSON *cj = cJSON_AddObjectToObject(g->e, "capture");
    cJSON_AddStringToObject(cj, "verdict", tl_verdict_name(g->captured.verdict));
    grade_add_text(cj, "detail", g->captured.detail);
    grade_add_text(cj, "stdout", g->cap.out);
    grade_add_text(cj, "stderr", g->cap.err);
    g->replayable = g->have_capture && g->captured.verdict == TL_VERDICT_PASS;
}

/* One dataset judged, explained (with the map of a wrong P saved at `saved`) and recorded. */
static void grade_one_dataset(grade_state *g, int i, double per, const char *saved,
                              cJSON *dsets)
{
    const grade_dataset *d = &g->c->ds[i];
    runner_result res;
    memset(&res, 0, sizeof res);
    res.verdict = g->captured.verdict;
    snprintf(res.detail, sizeof res.detail, "not run: %.700s", g->captured.detail);
    runner_loaded data;
    memset(&data, 0, sizeof data);
    tl_error err;
    runner_dataset rd = dataset_of(d);
    if (g->replayable && runner_loaded_read(&rd, &data, &err) != 0) {
        res.verdict = TL_VERDICT_BAD_INPUT;
        snprintf(res.detail, sizeof res.detail, "%s", err.msg);
    } else if (g->replayable && judge_dataset(g, &data, saved, &res) != 0) {
        res.verdict = TL_VERDICT_ERROR;
    }
    g->passed += res.verdict == TL_VERDICT_PASS;
    if (res.verdict == TL_VERDICT_UNSAFE && !g->unsafe[0])
        snprintf(g->unsafe, sizeof g->unsafe, "%.700s on dataset %.64s", res.detail, d->name);
    explanation x;
    explain_result(&x, &res, NULL);
    if (g->replayable)
        explain_add_map(&x, &data.ref, saved, &g->cap.log, &res);
    grade_dataset_record(g->c, d, &res, &x, per, dsets, g->items);
    explain_free(&x);
    runner_result_free(&res);
    runner_loaded_free(&data);
}

/* Datasets: checked, not timed. */
static void grade_datasets(grade_state *g)
{
    const grade_context *c = g->c;
    cJSON *dsets = cJSON_AddArrayToObject(g->e, "datasets");
    /* Each dataset's share in whole hundredths, the remainder spread over the first ones, so
     * the shares add up to the rubric's points exactly (60 over 11: 5.46 x 6 + 5.45 x 5). */
    long cents = lround(c->r.datasets * 100), base = c->nds ? cents / c->nds : 0;
    long extra = c->nds ? cents % c->nds : 0;
    /* Where each dataset's P goes: the grader's own folder, removed after the last. */
    char work[] = "/tmp/tilelab-grade-map-XXXXXX", saved[sizeof work + 16];
    bool have_work = g->replayable && mkdtemp(work) != NULL;
    snprintf(saved, sizeof saved, "%s/P.raw", work);
    for (int i = 0; i < c->nds; i++) {
        double per = (double)(base + (i < extra)) / 100;
        grade_one_dataset(g, i, per, have_work ? saved : NULL, dsets);
    }
    if (have_work)
        files_remove_tree(work);
}

static void finish(const grade_context *c, const submission *s, cJSON *e, cJSON *items,
                   double start);

void grade_one(const grade_context *c, const submission *s, int slot)
{
    grade_state *g = calloc(1, sizeof *g);
    if (!g) {
        fprintf(stderr, "tilelab grade: out of memory for %s\n", s->student);
        return;
    }
    g->c = c;
    g->s = s;
    g->start = tl_clock_now();
    grade_config(c, slot, &g->cfg);
    bool program = grade_is_program(c, s);
    g->cfg.program = program;
    start_entry(g);
    build(g);
    check_statics(g);
    if (program) {
        grade_program_datasets(c, &g->cfg, &g->p, &g->built, g->items, g->e);
    } else {
        capture(g);
        grade_datasets(g);
        grade_add_performance(c, g->items, grade_performance(g), g->e);
    }
    if (g->have_capture)
        runner_capture_free(&g->cap);
    runner_outcome_free(&g->built);
    finish(c, s, g->e, g->items, g->start);
    free(g);
}

/* The totals, and the entry into the journal. */
static void finish(const grade_context *c, const submission *s, cJSON *e, cJSON *items,
                   double start)
{
    /* Totals. */
    double total = 0, max = 0;
    for (const cJSON *it = items->child; it; it = it->next) {
        total += cJSON_GetObjectItem(it, "score")->valuedouble;
        max += cJSON_GetObjectItem(it, "max_score")->valuedouble;
    }
    cJSON *score = cJSON_AddObjectToObject(e, "score");
    cJSON_AddNumberToObject(score, "total", total);
    cJSON_AddNumberToObject(score, "max", max);
    cJSON_AddItemToObject(score, "items", items);
    cJSON_AddNumberToObject(e, "execution_time", tl_clock_now() - start);
    char path[PATH_MAX];
    grade_journal_path(c, s, path, sizeof path);
    char *json = cJSON_Print(e);
    if (!json || tl_write_file_durable(path, json, strlen(json), NULL) != 0)
        fprintf(stderr, "tilelab grade: cannot write %s\n", path);
    free(json);
    cJSON_Delete(e);
}
