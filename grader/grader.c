/* Grading a class: the datasets, the performance dataset made for this grading, the reference's
 * time, one worker process per submission (up to --jobs at once, each in a worker slot of its
 * own), the journal that makes grading resumable, and the final outputs. */
#include "grader_context.h"
#include "util.h"
#include "submitted.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int numeric(const void *a, const void *b)
{
    return atoi(((const grade_dataset *)a)->name) - atoi(((const grade_dataset *)b)->name);
}

/* The dataset folders under root: their sizes, and their files into the datasets' hash. */
static int add_datasets(grade_context *c, const char *root, bool hidden, tl_error *err)
{
    DIR *d = opendir(root);
    if (!d)
        return tl_error_set(err, "%s: cannot open the datasets folder", root);
    int first = c->nds;
    for (struct dirent *e; (e = readdir(d)) && c->nds < GRADE_MAX_DATASETS;) {
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
    for (int i = first; i < c->nds; i++) {
        grade_dataset *ds = &c->ds[i];
        static const char *const files[] = {"input0.raw", "input1.raw", "output.raw"};
        tl_matrix m[3];
        for (int f = 0; f < 3; f++) {
            char path[PATH_MAX + 16];
            snprintf(path, sizeof path, "%s/%s", ds->path, files[f]);
            if (tl_matrix_read(path, &m[f], err) != 0) {
                for (int k = 0; k < f; k++)
                    tl_matrix_free(&m[k]);
                return -1;
            }
            c->datasets_hash = tl_hash(c->datasets_hash, m[f].data,
                                     sizeof(float) * (size_t)m[f].rows * (size_t)m[f].cols);
        }
        ds->size = (tl_size){m[0].rows, m[0].cols, m[1].cols};
        bool product = m[0].cols == m[1].rows && m[2].rows == m[0].rows && m[2].cols == m[1].cols;
        for (int f = 0; f < 3; f++)
            tl_matrix_free(&m[f]);
        if (!product)
            return tl_error_set(err, "%s: the three files do not form a product", ds->path);
    }
    return c->nds - first;
}

/* The largest dataset file hashed: a float32 matrix of TL_MAX_ELEMENTS, written as text. */
#define GRADE_MAX_DATASET_FILE (TL_MAX_ELEMENTS * 16)

/* A file's bytes into the datasets' hash. */
static int hash_file(grade_context *c, const char *path, tl_error *err)
{
    size_t len = 0;
    char *bytes = files_read_untrusted(path, (size_t)GRADE_MAX_DATASET_FILE, &len, err);
    if (!bytes)
        return -1;
    c->datasets_hash = tl_hash(c->datasets_hash, bytes, len);
    free(bytes);
    return 0;
}

/* A described lab's dataset folders (those holding its first input) under root: every input
 * and the expected output read (bad input is found now, not once per student) and hashed. */
static int add_program_datasets(grade_context *c, const char *root, bool hidden, tl_error *err)
{
    const runner_program_lab *lab = runner_lab_described(c->o->lab);
    DIR *d = opendir(root);
    if (!d)
        return tl_error_set(err, "%s: cannot open the datasets folder", root);
    int first = c->nds;
    for (struct dirent *e; (e = readdir(d)) && c->nds < GRADE_MAX_DATASETS;) {
        char probe[PATH_MAX + 300];
        snprintf(probe, sizeof probe, "%.3000s/%.255s/%s", root, e->d_name, lab->inputs[0]);
        if (e->d_name[0] == '.' || access(probe, R_OK) != 0)
            continue;
        grade_dataset *ds = &c->ds[c->nds++];
        memset(ds, 0, sizeof *ds);
        snprintf(ds->path, sizeof ds->path, "%.3000s/%.255s", root, e->d_name);
        snprintf(ds->name, sizeof ds->name, "%.60s", e->d_name);
        ds->hidden = hidden;
    }
    closedir(d);
    qsort(c->ds + first, (size_t)(c->nds - first), sizeof *c->ds, numeric);
    tl_answer_type type;
    if (tl_answer_type_parse(lab->type, &type) != 0)
        return tl_error_set(err, "%s: unknown type \"%s\"", lab->name, lab->type);
    for (int i = first; i < c->nds; i++) {
        grade_dataset *ds = &c->ds[i];
        char path[PATH_MAX + 300];
        for (int f = 0; f < lab->ninputs; f++) {
            snprintf(path, sizeof path, "%s/%s", ds->path, lab->inputs[f]);
            if (hash_file(c, path, err) != 0)
                return -1;
        }
        snprintf(path, sizeof path, "%s/%s", ds->path, lab->output);
        tl_import expected;
        tl_import_kind kind = tl_answer_import_kind(type);
        if (hash_file(c, path, err) != 0 ||
            tl_import_file(path, kind == TL_IMPORT_INTEGER ? TL_IMPORT_REAL : kind, &expected,
                           err) != 0)
            return -1;
        if (type == TL_ANSWER_IMAGE)
            snprintf(ds->shape, sizeof ds->shape, "%dx%dx%d", expected.cols, expected.rows,
                     expected.channels);
        else if (expected.cols == 1 || expected.rows == 1)
            snprintf(ds->shape, sizeof ds->shape, "%d", expected.rows * expected.cols);
        else
            snprintf(ds->shape, sizeof ds->shape, "%dx%d", expected.rows, expected.cols);
        tl_import_free(&expected);
    }
    return c->nds - first;
}

/* The grading's secrets: the performance dataset's seed and the draw of the blocks the CPU
 * backend's model samples (runner_model_run). Fresh for a new grading, from /dev/urandom and
 * independent of each other (so nothing a kernel sees tells the draw), kept (0600, in the
 * output folder that no build or run can see) so a resumed grading times everyone on the same
 * data and the same blocks. A folder from before the draw existed gets one. */
static int grading_seeds(const grade_context *c, uint64_t seeds[2], tl_error *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/.performance-seed", c->o->out);
    FILE *f = fopen(path, "r");
    unsigned long long v[2];
    int have = f ? fscanf(f, "%llu %llu", &v[0], &v[1]) : 0;
    if (f)
        fclose(f);
    have = have < 0 ? 0 : have;
    for (int i = 0; i < have; i++)
        seeds[i] = v[i];
    if (have == 2)
        return 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t want = (size_t)(2 - have) * sizeof *seeds;
    if (fd < 0 || read(fd, seeds + have, want) != (ssize_t)want) {
        if (fd >= 0)
            close(fd);
        return tl_error_set(err, "cannot read /dev/urandom for the grading's seeds");
    }
    close(fd);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return tl_error_set(err, "%s: cannot write: %s", path, strerror(errno));
    char text[48];
    int n = snprintf(text, sizeof text, "%llu\n%llu\n", (unsigned long long)seeds[0],
                     (unsigned long long)seeds[1]);
    bool ok = write(fd, text, (size_t)n) == n;
    close(fd);
    return ok ? 0 : tl_error_set(err, "%s: cannot write", path);
}

/* The reference solution, replayed as every student is, on the performance dataset. */
int grade_time_reference(grade_context *c, tl_error *err)
{
    if (!runner_lab_shipped(c->o->lab))
        return 0; /* a described lab has no reference of tilelab's: no points for speed */
    char folder[PATH_MAX];
    const char *root = getenv("TILELAB_ROOT");
    snprintf(folder, sizeof folder, "%.3000s/solutions/%s", root ? root : ".", runner_lab_name(c->o->lab));
    runner_config cfg;
    grade_config(c, 0, &cfg);
    runner_program p;
    runner_outcome o;
    if (runner_build(&cfg, folder, "solution.cu", &p, &o) != 0 || o.verdict != TL_VERDICT_PASS) {
        tl_error_set(err, "%s/solution.cu: the reference solution does not build here (%s: %.300s)",
                     folder, tl_verdict_name(o.verdict), o.detail);
        runner_outcome_free(&o);
        return -1;
    }
    runner_capture cap;
    if (runner_capture_run(&cfg, &p, &c->perf.size, 1, &cap, &o) != 0 ||
        o.verdict != TL_VERDICT_PASS) {
        tl_error_set(err, "the reference solution cannot be captured: %.400s", o.detail);
        runner_outcome_free(&o);
        return -1;
    }
    if (c->o->backend == RUNNER_CPU) {
        /* No GPU: the reference's H100 time as the performance model predicts it, as every
         * student's will be. */
        runner_prediction pred[2];
        int rc = runner_predict_on(&cfg, &p, &cap, runner_lab_matrix(c->o->lab), &c->model, false, pred, NULL, err);
        runner_capture_free(&cap);
        runner_outcome_free(&o);
        if (rc != 0)
            return -1;
        if (!pred[0].ok)
            return tl_error_set(err, "the reference solution has no predicted time: %s",
                                pred[0].detail);
        c->reference_ms = pred[0].ms;
        c->model.busy_ms = grader_no_points_ms(&c->r, c->reference_ms);
        return 0;
    }
    runner_result r;
    runner_replay_opts opts = {.time = true};
    int rc = runner_replay(&cfg, &p, &cap, runner_lab_matrix(c->o->lab), &c->perf, &opts, &r, err);
    runner_capture_free(&cap);
    runner_outcome_free(&o);
    if (rc != 0)
        return -1;
    if (r.verdict != TL_VERDICT_PASS) {
        tl_error_set(err, "the reference solution does not pass the performance dataset: "
                     "%s: %.400s",
                     tl_verdict_name(r.verdict), r.detail);
        runner_result_free(&r);
        return -1;
    }
    const runner_call_result *t = &r.calls[CAPLOG_CALL_LAUNCH];
    if (t->implausible) {
        tl_error_set(err, "the reference solution's time is implausible (a run took %.4f ms, "
                     "less than the %.4f ms its work needs at the GPU's peak rates): the GPU or "
                     "its timer misbehaves", t->ms.min, t->floor_ms);
        runner_result_free(&r);
        return -1;
    }
    if (t->clock.throttled && !c->o->quiet)
        fprintf(stderr, "warning: the GPU was throttled (power or thermal) while the reference "
                "was timed, also when timed again: every speed ratio of this grading leans on "
                "that time\n");
    c->reference_ms = t->ms.median;
    runner_result_free(&r);
    return 0;
}

void grade_progress(const grade_context *c, int done, int total, int failures, double started,
                     const char *current)
{
    if (c->o->quiet)
        return;
    double elapsed = tl_clock_now() - started;
    double eta = done > 0 ? elapsed / done * (total - done) : 0;
    char *shown = tl_text_line(current, strlen(current));
    fprintf(stderr, "\r[%d/%d] %-24.24s  failures so far %d  elapsed %.0f s  ETA %.0f s   ", done,
            total, shown ? shown : "", failures, elapsed, eta);
    free(shown);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* The pool of workers grading a class: which slot grades which submission. */
typedef struct worker_pool {
    const grade_context *c;
    const submission *subs;
    int n, jobs, done, failures, running, next;
    double started;
    pid_t pids[RUNNER_MAX_SLOTS];
    int which[RUNNER_MAX_SLOTS];
    bool busy[RUNNER_MAX_SLOTS];
    runner_slots leased;
} worker_pool;

/* With root each worker runs as its slot's user: slots leased host-wide, so that another
 * grading on this host never shares their process limits; fewer workers where it holds most
 * of them. Without root the slots are only this pool's numbering. */
static void lease_slots(worker_pool *w)
{
    if (geteuid() == 0) {
        char why[512];
        if (runner_slots_lease(&w->leased, w->jobs, why, sizeof why) == 0)
            fprintf(stderr, "warning: no worker slots of its own (%s): gradings running at once "
                            "here may share process limits\n", why);
        else if (w->leased.count < w->jobs) {
            fprintf(stderr, "warning: %d of --jobs %d worker slots free on this host (other "
                            "gradings hold the rest): grading %d at once\n",
                    w->leased.count, w->jobs, w->leased.count);
            w->jobs = w->leased.count;
        }
    }
    if (w->leased.count == 0)
        for (int slot = 0; slot < w->jobs; slot++)
            w->leased.slot[slot] = slot;
}

static void finished(worker_pool *w, const submission *s)
{
    w->done++;
    w->failures += grade_has_failure(w->c, s);
    grade_progress(w->c, w->done, w->n, w->failures, w->started, s->student);
}

/* The next submission: its warning, then already journaled, or graded by a worker of its own
 * (here when no process can be spared). */
static void start_next(worker_pool *w)
{
    const grade_context *c = w->c;
    const submission *s = &w->subs[w->next++];
    /* A described lab's programs have no template.cu to be named after. */
    if (s->note[0] && !c->o->quiet && s->source[0] && !runner_lab_described(c->o->lab)) {
        char *shown = tl_text_line(s->student, strlen(s->student));
        fprintf(stderr, "\nwarning: %s: %s\n", shown ? shown : "", s->note);
        free(shown);
    }
    if (grade_journaled(c, s)) {
        finished(w, s);
        return;
    }
    int slot = 0;
    while (w->busy[slot])
        slot++;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        grade_one(c, s, w->leased.slot[slot]);
        _exit(0);
    }
    if (pid < 0) {
        grade_one(c, s, w->leased.slot[slot]); /* no process to spare: grade it here */
        w->done++;
        w->failures += grade_has_failure(c, s);
        return;
    }
    w->busy[slot] = true;
    w->pids[slot] = pid;
    w->which[slot] = (int)(s - w->subs);
    w->running++;
    grade_progress(c, w->done, w->n, w->failures, w->started, s->student);
}

/* A worker ended: its submission is done. */
static void reap_one(worker_pool *w)
{
    int status;
    pid_t pid = wait(&status);
    for (int slot = 0; slot < w->jobs; slot++) {
        if (!w->busy[slot] || w->pids[slot] != pid)
            continue;
        finished(w, &w->subs[w->which[slot]]);
        w->busy[slot] = false;
        w->running--;
        break;
    }
}

/* Every submission, up to `jobs` at once, each worker in a slot of its own. */
static void grade_all(const grade_context *c, const submission *subs, int n)
{
    worker_pool *w = calloc(1, sizeof *w);
    if (!w) {
        fprintf(stderr, "tilelab grade: out of memory for the workers\n");
        return;
    }
    w->c = c;
    w->subs = subs;
    w->n = n;
    w->started = tl_clock_now();
    int jobs = c->o->jobs;
    w->jobs = jobs < 1 ? 1 : jobs > RUNNER_MAX_SLOTS ? RUNNER_MAX_SLOTS : jobs;
    lease_slots(w);
    while (w->done < n) {
        while (w->running < w->jobs && w->next < n)
            start_next(w);
        if (w->running == 0)
            break;
        reap_one(w);
    }
    runner_slots_release(&w->leased);
    free(w);
}

int grade_prepare(grade_context *c, tl_error *err)
{
    const grade_options *o = c->o;
    char path[PATH_MAX];
    if (o->rubric)
        snprintf(path, sizeof path, "%s", o->rubric);
    else
        runner_lab_rubric(o->lab, TILELAB_RUBRICS, path, sizeof path);
    if (rubric_read(path, &c->r, err) != 0)
        return -1;
    if (!runner_lab_shipped(o->lab) && c->r.performance > 0)
        return tl_error_set(err, "%s: performance = %g, but lab %s (a lab.json) has no reference "
                            "solution to time the programs against: set performance = 0",
                            path, c->r.performance, runner_lab_name(o->lab));
    if (o->roster && grader_roster_read(o->roster, &c->roster, err) != 0)
        return -1;
    c->metadata_submitted = NAN;
    if (o->metadata &&
        grader_submitted_from_metadata(o->metadata, &c->metadata_submitted, err) != 0)
        return -1;
    char *rubric_text = files_read(path, NULL);
    c->rubric_hash = tl_hash(TL_HASH_SEED, rubric_text ? rubric_text : "",
                           rubric_text ? strlen(rubric_text) : 0);
    free(rubric_text);
    int (*add)(grade_context *, const char *, bool, tl_error *) =
        runner_lab_described(o->lab) ? add_program_datasets : add_datasets;
    if (add(c, o->datasets, false, err) <= 0)
        return err->msg[0] ? -1 : tl_error_set(err, "%s: no datasets (folders holding %s)",
                                               o->datasets, runner_lab_described(o->lab)
                                                   ? runner_lab_dataset_marker(o->lab)
                                                   : "input0.raw, input1.raw, output.raw");
    if (o->hidden && add(c, o->hidden, true, err) <= 0)
        return err->msg[0] ? -1 : tl_error_set(err, "%s: no hidden datasets", o->hidden);
    char why[300];
    if (!o->no_sandbox && !runner_sandbox_available(why, sizeof why))
        return tl_error_set(err, "%s; the grader runs every submission in a sandbox: install "
                            "bubblewrap (Debian: bubblewrap), or grade without one with "
                            "--no-sandbox only if you trust every submission", why);
    if (o->backend == RUNNER_GPU) {
        tl_device_name(c->device, sizeof c->device);
        c->compute_capability = tl_device_compute_capability();
    }
    else
        snprintf(c->device, sizeof c->device, "CPU backend (PTX interpreter)");
    runner_config cfg;
    grade_config(c, 0, &cfg);
    runner_sandbox_describe(&cfg, c->sandbox, sizeof c->sandbox);
    uint64_t seeds[2];
    if (grading_seeds(c, seeds, err) != 0)
        return -1;
    uint64_t seed = seeds[0];
    c->perf = (runner_dataset){.generated = true, .seed = seed, .size = o->perf_size};
    /* The model counts no further than a kernel that still earns speed points runs: twice
     * the work at the rubric's performance_zero. */
    double slowdown = c->r.performance_zero > 0 ? 2 / c->r.performance_zero : RUNNER_MODEL_SLOWDOWN_MAX;
    c->model = (runner_model_run){c->perf, seeds[1],
                                  slowdown < RUNNER_MODEL_SLOWDOWN ? RUNNER_MODEL_SLOWDOWN
                                  : slowdown > RUNNER_MODEL_SLOWDOWN_MAX   ? RUNNER_MODEL_SLOWDOWN_MAX
                                                                   : slowdown,
                                  0 /* set once the reference's time is known */};
    /* One more dataset, made for this grading: a small shape that no tile divides, replayed
     * with the safety checks on as every small dataset is. */
    if (c->nds < GRADE_MAX_DATASETS && runner_lab_matrix(o->lab)) {
        grade_dataset *ds = &c->ds[c->nds++];
        const tl_size z = runner_lab_matrix(o->lab)->safety;
        snprintf(ds->name, sizeof ds->name, "safety");
        ds->size = z;
        ds->generated = true;
        ds->seed = seed ^ UINT64_C(0x5afe5afe5afe5afe);
    }
    return 0;
}

/* The last line: how many were graded now and in how long, how many came from the journal. */
static void grade_print_done(const grade_context *c, int n, int reused, double seconds)
{
    static const char why[] = "graded before with the same files, rubric, datasets and backend";
    if (reused == 0)
        fprintf(stderr, "graded %d submission(s) in %.1f s", n, seconds);
    else if (reused == n)
        fprintf(stderr, "graded none: all %d submission(s) reused from the journal (%s)", n, why);
    else
        fprintf(stderr, "graded %d submission(s) in %.1f s; %d more reused from the journal (%s)",
                n - reused, seconds, reused, why);
    fprintf(stderr, "; gradebook %s/gradebook.csv, report %s/report.html\n", c->o->out,
            c->o->out);
}

int grade_class(const grade_options *opts, tl_error *err)
{
    grade_context *c = calloc(1, sizeof *c);
    if (!c)
        return tl_error_set(err, "out of memory");
    c->o = opts;
    err->msg[0] = '\0';
    if (files_make_dirs(opts->out) != 0) {
        free(c);
        return tl_error_set(err, "%s: cannot create the output folder: %s", opts->out,
                            strerror(errno));
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/journal", opts->out);
    mkdir(path, 0755);
    /* One grader per output folder: a second would interleave journals and outputs. */
    snprintf(path, sizeof path, "%.3000s/.lock", opts->out);
    int lock = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
        if (lock >= 0)
            close(lock);
        free(c);
        return tl_error_set(err, "%s: another grader is working on this folder (it holds %s); "
                            "wait for it or pick another --out", opts->out, path);
    }
    /* The replays take turns on a file of the grader's own, which no sandbox can see. */
    char turns_dir[] = "/tmp/tilelab-turns-XXXXXX";
    int rc = mkdtemp(turns_dir) ? 0 : tl_error_set(err, "cannot make a folder under /tmp");
    snprintf(c->turns, sizeof c->turns, "%s/lock", turns_dir);
    submission *subs = NULL;
    int n = 0;
    if (rc == 0)
        rc = grade_prepare(c, err);
    if (rc == 0) {
        n = grader_discover(opts->submissions, &subs, err);
        if (n <= 0)
            rc = n < 0 ? -1 : tl_error_set(err, "%s: no submissions (one folder per student "
                                           "holding template.cu)", opts->submissions);
    }
    if (rc == 0)
        rc = grade_match_ids(c, subs, n, err);
    if (rc == 0 && !opts->quiet && runner_lab_described(opts->lab))
        fprintf(stderr, "grading %d submission(s) of %s (whole libwb programs, -t %s) on %d "
                "dataset(s), %s backend, sandbox: %s\n", n, runner_lab_name(opts->lab),
                runner_lab_described(opts->lab)->type, c->nds, runner_backend_name(opts->backend), c->sandbox);
    else if (rc == 0 && !opts->quiet)
        fprintf(stderr, "grading %d submission(s) of %s on %d dataset(s) and a %dx%dx%d "
                "performance dataset made for this grading, %s backend, sandbox: %s\n", n,
                runner_lab_name(opts->lab), c->nds, c->perf.size.m, c->perf.size.k, c->perf.size.n,
                runner_backend_name(opts->backend), c->sandbox);
    /* With --slurm each task times the reference on its own node, next to the student it
     * grades: the main process may run where there is no GPU. */
    if (rc == 0 && !opts->slurm)
        rc = grade_time_reference(c, err);
    if (rc == 0) {
        /* What a resumed grading takes from the journal, counted before anything is graded:
         * the time printed is then the time of the others only. */
        int reused = 0;
        for (int i = 0; i < n; i++)
            reused += grade_journaled(c, &subs[i]);
        double started = tl_clock_now();
        if (opts->slurm)
            rc = grade_slurm(c, subs, n, err);
        else
            grade_all(c, subs, n);
        if (rc == 0)
            rc = grade_write_outputs(c, subs, n, err);
        if (rc == 0 && !opts->quiet)
            grade_print_done(c, n, reused, tl_clock_now() - started);
    }
    free(subs);
    grader_roster_match_free(&c->ids);
    grader_roster_free(&c->roster);
    unlink(c->turns);
    rmdir(turns_dir);
    flock(lock, LOCK_UN);
    close(lock);
    free(c);
    return rc;
}
