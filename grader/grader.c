/* Grading a class: discovery, the reference timing, one worker process per submission (up to
 * --jobs at once), the journal that makes grading resumable, and the final outputs. */
#include "grader.h"

#include "files.h"
#include "outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_STUDENTS 4096
#define MAX_DATASETS 128

typedef struct submission {
    char student[128];
    char source[PATH_MAX]; /* "" when the folder holds no .cu file */
    char note[160];        /* e.g. "a stray .cu accepted" */
} submission;

typedef struct grade_dataset {
    char path[PATH_MAX];
    char name[64];
    bool hidden;
} grade_dataset;

typedef struct context {
    const grade_options *o;
    rubric r;
    grade_dataset ds[MAX_DATASETS];
    int nds;
    int perf_index;        /* the dataset performance is measured on */
    double reference_ms, cublas_ms;
    char device[128];
    uint64_t rubric_hash;
} context;

static uint64_t fnv(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const submission *)a)->student, ((const submission *)b)->student);
}

/* The .cu of one submission folder: the lab's file name, or a single other .cu (noted). */
static void find_source(const char *dir, submission *s)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/template.cu", dir);
    if (access(path, R_OK) == 0) {
        snprintf(s->source, sizeof s->source, "%s", path);
        return;
    }
    DIR *d = opendir(dir);
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 3 && strcmp(e->d_name + n - 3, ".cu") == 0) {
            if (count++ == 0)
                snprintf(s->source, sizeof s->source, "%.3000s/%.255s", dir, e->d_name);
        }
    }
    if (d)
        closedir(d);
    if (count == 1)
        snprintf(s->note, sizeof s->note, "no template.cu; the one .cu file found was graded");
    else if (count > 1) {
        s->source[0] = '\0';
        snprintf(s->note, sizeof s->note, "%d .cu files and no template.cu: nothing graded", count);
    } else {
        snprintf(s->note, sizeof s->note, "no .cu file in the submission");
    }
}

static int discover(const char *root, submission **out)
{
    submission *list = calloc(MAX_STUDENTS, sizeof *list);
    int n = 0;
    if (!list)
        return -1;
    /* A folder holding a .cu itself is one (Gradescope-style) submission. */
    submission probe;
    memset(&probe, 0, sizeof probe);
    find_source(root, &probe);
    if (probe.source[0]) {
        const char *base = strrchr(root, '/');
        snprintf(list[0].student, sizeof list[0].student, "%s", base && base[1] ? base + 1 : root);
        list[0] = probe;
        snprintf(list[0].student, sizeof list[0].student, "%s", base && base[1] ? base + 1 : root);
        *out = list;
        return 1;
    }
    DIR *d = opendir(root);
    for (struct dirent *e; d && (e = readdir(d)) && n < MAX_STUDENTS;) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.3000s/%.255s", root, e->d_name);
        if (e->d_name[0] == '.' || !is_dir(path))
            continue;
        snprintf(list[n].student, sizeof list[n].student, "%.127s", e->d_name);
        find_source(path, &list[n]);
        n++;
    }
    if (d)
        closedir(d);
    qsort(list, (size_t)n, sizeof *list, by_name);
    *out = list;
    return n;
}

static int numeric(const void *a, const void *b)
{
    return atoi(((const grade_dataset *)a)->name) - atoi(((const grade_dataset *)b)->name);
}

static int add_datasets(context *c, const char *root, bool hidden)
{
    DIR *d = opendir(root);
    if (!d)
        return -1;
    int first = c->nds;
    for (struct dirent *e; (e = readdir(d)) && c->nds < MAX_DATASETS;) {
        char probe[PATH_MAX];
        snprintf(probe, sizeof probe, "%.3000s/%.255s/input0.raw", root, e->d_name);
        if (e->d_name[0] == '.' || access(probe, R_OK) != 0)
            continue;
        grade_dataset *ds = &c->ds[c->nds++];
        snprintf(ds->path, sizeof ds->path, "%.3000s/%.255s", root, e->d_name);
        snprintf(ds->name, sizeof ds->name, "%.60s", e->d_name);
        ds->hidden = hidden;
    }
    closedir(d);
    qsort(c->ds + first, (size_t)(c->nds - first), sizeof *c->ds, numeric);
    return c->nds - first;
}

static void size_of(const char *dataset, char *out, size_t size)
{
    char path[PATH_MAX];
    tl_matrix A, B;
    tl_error err;
    snprintf(path, sizeof path, "%.3000s/input0.raw", dataset);
    if (tl_matrix_read(path, &A, &err) != 0) {
        snprintf(out, size, "?");
        return;
    }
    snprintf(path, sizeof path, "%.3000s/input1.raw", dataset);
    if (tl_matrix_read(path, &B, &err) != 0) {
        tl_matrix_free(&A);
        snprintf(out, size, "?");
        return;
    }
    snprintf(out, size, "%dx%dx%d", A.rows, A.cols, B.cols);
    tl_matrix_free(&A);
    tl_matrix_free(&B);
}

static cJSON *item(const char *name, double score, double max, bool passed, const char *vis,
                   const char *output)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddNumberToObject(o, "score", score);
    cJSON_AddNumberToObject(o, "max_score", max);
    cJSON_AddStringToObject(o, "status", passed ? "passed" : "failed");
    cJSON_AddStringToObject(o, "visibility", vis);
    cJSON_AddStringToObject(o, "output", output);
    return o;
}

static int write_atomic(const char *path, const char *text)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    bool ok = fputs(text, f) >= 0;
    ok = fflush(f) == 0 && fsync(fileno(f)) == 0 && ok;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void journal_path(const context *c, const char *student, char *out, size_t size)
{
    snprintf(out, size, "%.3000s/journal/%.200s.json", c->o->out, student);
}

/* The fingerprint of what a journal entry was graded against: the source, the rubric, each
 * dataset (path, size and time of its expected output) and the backend. */
static void grading_key(const context *c, const char *hash, char *out, size_t size)
{
    uint64_t h = fnv(hash) ^ c->rubric_hash;
    for (int i = 0; i < c->nds; i++) {
        char stamp[PATH_MAX + 64];
        struct stat st;
        snprintf(stamp, sizeof stamp, "%.3000s/output.raw", c->ds[i].path);
        if (stat(stamp, &st) == 0)
            snprintf(stamp + strlen(stamp), 64, ":%lld:%lld", (long long)st.st_size,
                     (long long)st.st_mtime);
        h ^= fnv(stamp) + (uint64_t)i * 0x9e3779b97f4a7c15u;
    }
    h ^= fnv(c->o->backend == LAB_BACKEND_CPU ? "cpu" : "gpu");
    snprintf(out, size, "%016" PRIx64, h);
}

static void grade_one(const context *c, const submission *s)
{
    const grade_options *o = c->o;
    const rubric *r = &c->r;
    double start = tl_clock_now();
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "student", s->student);
    cJSON_AddStringToObject(e, "lab", o->lab->id);
    cJSON_AddStringToObject(e, "source", s->source);
    char *text = s->source[0] ? files_read(s->source, NULL) : NULL;
    char hash[32], key[32];
    snprintf(hash, sizeof hash, "%016" PRIx64, fnv(text ? text : ""));
    grading_key(c, hash, key, sizeof key);
    cJSON_AddStringToObject(e, "source_hash", hash);
    cJSON_AddStringToObject(e, "grading_key", key);
    cJSON_AddStringToObject(e, "backend", o->backend == LAB_BACKEND_CPU ? "cpu" : "gpu");
    cJSON_AddStringToObject(e, "device", c->device);
    cJSON_AddBoolToObject(e, "emulated_time", o->backend == LAB_BACKEND_CPU);
    time_t now = time(NULL);
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(e, "graded_at", when);
    cJSON_AddStringToObject(e, "note", s->note);
    cJSON_AddStringToObject(e, "sandbox", judge_sandbox_kind());

    cJSON *items = cJSON_CreateArray();
    /* Static checks. */
    cJSON *checks = cJSON_AddArrayToObject(e, "static");
    int failed = text ? static_checks(text, r, checks) : 1;
    /* Build. */
    lab_program prog;
    char *messages = NULL;
    bool built = text && lab_build(s->source, o->backend, false, &prog, &messages) == LAB_BUILD_OK;
    cJSON *b = cJSON_AddObjectToObject(e, "build");
    cJSON_AddBoolToObject(b, "ok", built);
    cJSON_AddStringToObject(b, "messages", messages ? messages : (text ? "" : s->note));
    free(messages);
    cJSON_AddItemToArray(items, item("compile", built ? r->compile : 0, r->compile, built, "visible",
                                     built ? "builds" : "does not build (see the compiler's "
                                                        "messages)"));
    char detail[256];
    snprintf(detail, sizeof detail, "%d of %d static checks failed", failed,
             cJSON_GetArraySize(checks));
    cJSON_AddItemToArray(items, item("static checks", failed ? 0 : r->statics, r->statics, !failed,
                                     "visible", failed ? detail : "all passed"));
    /* Datasets. */
    cJSON *dsets = cJSON_AddArrayToObject(e, "datasets");
    double per = c->nds ? r->datasets / c->nds : 0, student_ms = 0;
    for (int i = 0; i < c->nds; i++) {
        const grade_dataset *d = &c->ds[i];
        judged j;
        memset(&j, 0, sizeof j);
        tl_error err;
        if (!built) {
            snprintf(j.verdict, sizeof j.verdict, "build");
            snprintf(j.detail, sizeof j.detail, "not run: the file does not build");
        } else {
            if (judge_dataset(o, &prog, d->path, &j, &err) != 0) {
                snprintf(j.verdict, sizeof j.verdict, "error");
                snprintf(j.detail, sizeof j.detail, "%.250s", err.msg);
            }
        }
        char size[48], name[128];
        size_of(d->path, size, sizeof size);
        bool pass = strcmp(j.verdict, "pass") == 0;
        if (i == c->perf_index && pass)
            student_ms = j.kernel_ms;
        cJSON *dj = cJSON_CreateObject();
        cJSON_AddStringToObject(dj, "name", d->name);
        cJSON_AddStringToObject(dj, "size", size);
        cJSON_AddBoolToObject(dj, "hidden", d->hidden);
        cJSON_AddStringToObject(dj, "verdict", j.verdict);
        cJSON_AddStringToObject(dj, "detail", j.detail);
        cJSON_AddNumberToObject(dj, "kernel_ms", j.kernel_ms);
        cJSON_AddNumberToObject(dj, "gflops", j.gflops);
        cJSON_AddStringToObject(dj, "stdout", j.stdout_text ? j.stdout_text : "");
        cJSON_AddStringToObject(dj, "stderr", j.stderr_text ? j.stderr_text : "");
        cJSON_AddItemToArray(dsets, dj);
        snprintf(name, sizeof name, "%sdataset %s (%s)", d->hidden ? "hidden " : "", d->name, size);
        char out_text[700];
        snprintf(out_text, sizeof out_text, "%s: %s", j.verdict, j.detail);
        cJSON_AddItemToArray(items, item(name, pass ? per : 0, per, pass,
                                         d->hidden ? r->hidden_visibility : "visible", out_text));
        free(j.stdout_text);
        free(j.stderr_text);
    }
    /* Performance, relative to the reference timed in this run on the same dataset. */
    double ratio = student_ms > 0 && c->reference_ms > 0 ? c->reference_ms / student_ms : 0;
    double frac = (ratio - r->performance_zero) / (r->performance_full - r->performance_zero);
    frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
    bool implausible = student_ms > 0 && c->cublas_ms > 0 && student_ms < 0.95 * c->cublas_ms;
    cJSON *perf = cJSON_AddObjectToObject(e, "performance");
    cJSON_AddNumberToObject(perf, "student_ms", student_ms);
    cJSON_AddNumberToObject(perf, "reference_ms", c->reference_ms);
    cJSON_AddNumberToObject(perf, "cublas_ms", c->cublas_ms);
    cJSON_AddNumberToObject(perf, "ratio", ratio);
    cJSON_AddBoolToObject(perf, "implausible", implausible);
    cJSON_AddBoolToObject(perf, "emulated", o->backend == LAB_BACKEND_CPU);
    cJSON_AddStringToObject(perf, "dataset", c->nds ? c->ds[c->perf_index].name : "");
    snprintf(detail, sizeof detail, "%s%.2fx the reference's speed on dataset %s%s%s",
             o->backend == LAB_BACKEND_CPU ? "emulated time (CPU backend): " : "", ratio,
             c->nds ? c->ds[c->perf_index].name : "-",
             implausible ? "; faster than cuBLAS at this size: implausible, under review" : "",
             student_ms > 0 ? "" : " (no passing timed run)");
    double perf_score = student_ms > 0 && !implausible ? r->performance * frac : 0;
    cJSON_AddItemToArray(items, item("performance", perf_score, r->performance, frac >= 1,
                                     "visible", detail));
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
    journal_path(c, s->student, path, sizeof path);
    char *json = cJSON_Print(e);
    if (!json || write_atomic(path, json) != 0)
        fprintf(stderr, "tilelab grade: cannot write %s\n", path);
    free(json);
    free(text);
    cJSON_Delete(e);
}

/* Already graded with the same source and datasets: skip. */
static bool journaled(const context *c, const submission *s)
{
    char path[PATH_MAX], hash[32], key[32];
    journal_path(c, s->student, path, sizeof path);
    char *j = files_read(path, NULL);
    char *src = s->source[0] ? files_read(s->source, NULL) : NULL;
    snprintf(hash, sizeof hash, "%016" PRIx64, fnv(src ? src : ""));
    grading_key(c, hash, key, sizeof key);
    cJSON *doc = j ? cJSON_Parse(j) : NULL;
    const cJSON *k = doc ? cJSON_GetObjectItem(doc, "grading_key") : NULL;
    bool same = cJSON_IsString(k) && strcmp(k->valuestring, key) == 0;
    cJSON_Delete(doc);
    free(j);
    free(src);
    return same;
}

/* The reference solution, graded like a student in this run: its kernel time on the
 * performance dataset, and (on a GPU) cuBLAS's on the same buffers. */
static int time_reference(context *c, tl_error *err)
{
    char ref[PATH_MAX];
    snprintf(ref, sizeof ref, "%.3000s/solutions/%s/solution.cu", getenv("TILELAB_ROOT") ? getenv("TILELAB_ROOT") : ".", c->o->lab->id);
    lab_program prog;
    char *messages = NULL;
    if (lab_build(ref, c->o->backend, false, &prog, &messages) != LAB_BUILD_OK) {
        free(messages);
        return tl_error_set(err, "%s: the reference solution does not build", ref);
    }
    judged j;
    if (judge_dataset(c->o, &prog, c->ds[c->perf_index].path, &j, err) != 0)
        return -1;
    free(j.stdout_text);
    free(j.stderr_text);
    if (strcmp(j.verdict, "pass") != 0)
        return tl_error_set(err, "the reference solution does not pass dataset %s: %s",
                            c->ds[c->perf_index].name, j.detail);
    c->reference_ms = j.kernel_ms;
    if (c->o->backend == LAB_BACKEND_GPU &&
        lab_build(ref, LAB_BACKEND_GPU, true, &prog, &messages) == LAB_BUILD_OK) {
        char reps[16];
        snprintf(reps, sizeof reps, "%d", c->o->reps);
        char *argv[] = {prog.path, "--json", "--cublas", "--reps", reps, c->ds[c->perf_index].path, NULL};
        proc_result r;
        if (proc_run(argv, 600, 1 << 20, &r) == 0) {
            cJSON *doc = cJSON_Parse(r.out);
            const cJSON *others = doc ? cJSON_GetObjectItem(doc, "other_kernels") : NULL;
            for (const cJSON *k = others ? others->child : NULL; k; k = k->next)
                if (strcmp(cJSON_GetObjectItem(k, "name")->valuestring, "cublas") == 0 &&
                    cJSON_GetObjectItem(k, "median_ms"))
                    c->cublas_ms = cJSON_GetObjectItem(k, "median_ms")->valuedouble;
            cJSON_Delete(doc);
            proc_result_free(&r);
        }
    }
    free(messages);
    return 0;
}

static void progress(const context *c, int done, int total, int failures, double started,
                     const char *current)
{
    if (c->o->quiet)
        return;
    double elapsed = tl_clock_now() - started;
    double eta = done > 0 ? elapsed / done * (total - done) : 0;
    fprintf(stderr, "\r[%d/%d] %-24.24s  failures so far %d  elapsed %.0f s  ETA %.0f s   ", done,
            total, current, failures, elapsed, eta);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

static bool has_failure(const context *c, const submission *s)
{
    char path[PATH_MAX];
    journal_path(c, s->student, path, sizeof path);
    char *j = files_read(path, NULL);
    cJSON *doc = j ? cJSON_Parse(j) : NULL;
    /* A failure: it does not build or some dataset does not pass. */
    const cJSON *build = doc ? cJSON_GetObjectItem(doc, "build") : NULL;
    bool fail = !build || !cJSON_IsTrue(cJSON_GetObjectItem(build, "ok"));
    const cJSON *ds = doc ? cJSON_GetObjectItem(doc, "datasets") : NULL;
    for (const cJSON *d = ds ? ds->child : NULL; d && !fail; d = d->next)
        fail = strcmp(cJSON_GetObjectItem(d, "verdict")->valuestring, "pass") != 0;
    cJSON_Delete(doc);
    free(j);
    return fail;
}

static int write_outputs(const context *c, const submission *subs, int n, tl_error *err)
{
    cJSON **entries = calloc((size_t)(n ? n : 1), sizeof *entries);
    int count = 0;
    for (int i = 0; entries && i < n; i++) {
        char path[PATH_MAX];
        journal_path(c, subs[i].student, path, sizeof path);
        char *j = files_read(path, NULL);
        cJSON *doc = j ? cJSON_Parse(j) : NULL;
        free(j);
        if (doc)
            entries[count++] = doc;
    }
    int rc = grader_write_all(c->o->out, entries, count, c->o->lab->id, err);
    if (rc == 0 && !c->o->quiet) {
        printf("%-16s %8s  %-7s %-7s %-9s %s\n", "student", "total", "builds", "static",
               "datasets", "speed vs reference");
        for (int i = 0; i < count; i++) {
            const cJSON *e = entries[i], *score = cJSON_GetObjectItem(e, "score");
            const cJSON *ds = cJSON_GetObjectItem(e, "datasets"), *perf = cJSON_GetObjectItem(e, "performance");
            int passed = 0, total = cJSON_GetArraySize(ds), static_ok = 1;
            for (const cJSON *d = ds ? ds->child : NULL; d; d = d->next)
                passed += strcmp(cJSON_GetObjectItem(d, "verdict")->valuestring, "pass") == 0;
            const cJSON *st = cJSON_GetObjectItem(e, "static");
            for (const cJSON *k = st ? st->child : NULL; k; k = k->next)
                static_ok &= cJSON_IsTrue(cJSON_GetObjectItem(k, "ok"));
            double ratio = cJSON_GetObjectItem(perf, "ratio")->valuedouble;
            char frac[16], speed[48];
            snprintf(frac, sizeof frac, "%d/%d", passed, total);
            snprintf(speed, sizeof speed, ratio > 0 ? "%.2fx%s" : "-", ratio,
                     cJSON_IsTrue(cJSON_GetObjectItem(perf, "emulated")) ? " (emulated)" : "");
            printf("%-16.16s %5.1f/%-3.0f %-7s %-7s %-9s %s\n",
                   cJSON_GetObjectItem(e, "student")->valuestring,
                   cJSON_GetObjectItem(score, "total")->valuedouble,
                   cJSON_GetObjectItem(score, "max")->valuedouble,
                   cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "build"), "ok")) ? "yes" : "NO",
                   static_ok ? "ok" : "FAILED", frac, speed);
        }
        fflush(stdout);
    }
    for (int i = 0; i < count; i++)
        cJSON_Delete(entries[i]);
    free(entries);
    return rc;
}

int grade_class(const grade_options *opts, tl_error *err)
{
    context *c = calloc(1, sizeof *c);
    if (!c)
        return tl_error_set(err, "out of memory");
    static grade_options copy;
    static char timing_lock[PATH_MAX];
    copy = *opts;
    const grade_options *o = &copy;
    c->o = o;
    int rc = TL_EXIT_OK;
    char path[PATH_MAX];
    if (o->rubric)
        snprintf(path, sizeof path, "%s", o->rubric);
    else
        snprintf(path, sizeof path, "%s/%s.rubric", TILELAB_RUBRICS, o->lab->id);
    if (rubric_read(path, &c->r, err) != 0) {
        free(c);
        return -1;
    }
    char *rubric_text = files_read(path, NULL);
    c->rubric_hash = fnv(rubric_text ? rubric_text : "");
    free(rubric_text);
    if (mkdir(o->out, 0755) != 0 && errno != EEXIST) {
        free(c);
        return tl_error_set(err, "%s: cannot create the output folder: %s", o->out, strerror(errno));
    }
    snprintf(path, sizeof path, "%.3000s/journal", o->out);
    mkdir(path, 0755);
    static char timing_dir[64];
    timing_dir[0] = '\0';
    if (o->jobs > 1) {
        /* Timed parts take turns on this file, on a GPU and on the CPU backend alike. It lives
         * in a folder of its own under /tmp because the program may run as nobody, who cannot
         * reach into the instructor's folders. */
        snprintf(timing_dir, sizeof timing_dir, "/tmp/tilelab-timing-XXXXXX");
        if (mkdtemp(timing_dir) && chmod(timing_dir, 0755) == 0) {
            snprintf(timing_lock, sizeof timing_lock, "%s/lock", timing_dir);
            int fd = open(timing_lock, O_CREAT | O_RDWR, 0666);
            if (fd >= 0) {
                fchmod(fd, 0666);
                close(fd);
                copy.timing_lock = timing_lock;
            }
        }
    }
    /* One grader per output folder: a second would interleave journals and outputs. */
    snprintf(path, sizeof path, "%.3000s/.lock", o->out);
    int lock = open(path, O_CREAT | O_RDWR, 0644);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
        if (lock >= 0)
            close(lock);
        free(c);
        return tl_error_set(err, "%s: another grader is working on this folder (it holds %s); "
                            "wait for it or pick another --out", o->out, path);
    }
    if (add_datasets(c, o->datasets, false) <= 0) {
        rc = tl_error_set(err, "%s: no datasets (folders holding input0.raw, input1.raw, "
                          "output.raw)", o->datasets);
        goto done;
    }
    /* Performance is measured on the largest visible dataset. */
    c->perf_index = c->nds - 1;
    if (o->hidden && add_datasets(c, o->hidden, true) <= 0) {
        rc = tl_error_set(err, "%s: no hidden datasets", o->hidden);
        goto done;
    }
    if (!tl_device_name(c->device, sizeof c->device) || o->backend == LAB_BACKEND_CPU)
        snprintf(c->device, sizeof c->device, "CPU backend (PTX interpreter)");
    submission *subs = NULL;
    int n = discover(o->submissions, &subs);
    if (n <= 0) {
        free(subs);
        rc = tl_error_set(err, "%s: no submissions (one folder per student holding template.cu)",
                          o->submissions);
        goto done;
    }
    if (!o->quiet)
        fprintf(stderr, "grading %d submission(s) of %s on %d dataset(s), %s backend, sandbox: %s\n",
                n, o->lab->id, c->nds, o->backend == LAB_BACKEND_CPU ? "CPU" : "GPU",
                judge_sandbox_kind());
    if (time_reference(c, err) != 0) {
        free(subs);
        rc = -1;
        goto done;
    }
    double started = tl_clock_now();
    int done_count = 0, failures = 0, running = 0, next = 0;
    pid_t pids[256];
    int which[256];
    int jobs = o->jobs < 1 ? 1 : o->jobs > 256 ? 256 : o->jobs;
    while (done_count < n) {
        while (running < jobs && next < n) {
            const submission *s = &subs[next];
            if (s->note[0] && !o->quiet && s->source[0])
                fprintf(stderr, "\nwarning: %s: %s\n", s->student, s->note);
            if (journaled(c, s)) {
                done_count++;
                failures += has_failure(c, s);
                progress(c, done_count, n, failures, started, s->student);
                next++;
                continue;
            }
            fflush(NULL);
            pid_t pid = fork();
            if (pid == 0) {
                grade_one(c, s);
                _exit(0);
            }
            if (pid < 0) {
                grade_one(c, s); /* no process to spare: grade it here */
                done_count++;
                failures += has_failure(c, s);
                next++;
                continue;
            }
            pids[running] = pid;
            which[running++] = next++;
            progress(c, done_count, n, failures, started, s->student);
        }
        if (running == 0)
            break;
        int status;
        pid_t pid = wait(&status);
        for (int i = 0; i < running; i++) {
            if (pids[i] != pid)
                continue;
            const submission *s = &subs[which[i]];
            done_count++;
            failures += has_failure(c, s);
            progress(c, done_count, n, failures, started, s->student);
            pids[i] = pids[running - 1];
            which[i] = which[running - 1];
            running--;
            break;
        }
    }
    if (write_outputs(c, subs, n, err) != 0)
        rc = -1;
    else if (!o->quiet)
        fprintf(stderr, "graded %d submission(s) in %.1f s; gradebook %s/gradebook.csv, report "
                        "%s/report.html\n", n, tl_clock_now() - started, o->out, o->out);
    free(subs);
done:
    if (copy.timing_lock) {
        unlink(copy.timing_lock);
        rmdir(timing_dir);
    }
    flock(lock, LOCK_UN);
    close(lock);
    free(c);
    return rc;
}
