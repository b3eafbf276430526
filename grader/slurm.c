/* Grading a class through Slurm: one array job, a task per submission, each task grading its
 * submission as a local worker would (slurm_task.c) and writing its journal entry into the
 * shared output folder. This process submits what is neither graded nor still in Slurm's hands,
 * watches the journal and the array's state, and survives its own restart: what it submitted
 * is recorded in OUT/slurm/jobs.txt, so running the same command again watches those jobs
 * instead of submitting them again. */
#include "grader_context.h"
#include "outputs.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLURM_POLL_S 3          /* between two looks at the journal and the array's state */
#define SLURM_CMD_TIMEOUT_S 60  /* sbatch, squeue, sacct: a controller slower than this is down */
#define SLURM_OUTPUT_LIMIT (4u << 20)
#define SLURM_MAX_JOBS 256      /* jobs one output folder remembers */
/* A task seen ended with no journal entry is looked at once more before it counts as failed:
 * on a shared file system another node's new file may take a moment to show. */
#define SLURM_ENDED_LOOKS 2
#define SLURM_STATE_LEN 32
#define SLURM_NO_ANSWER "(squeue does not answer)" /* a state that is not an end */

typedef struct slurm_job {
    char id[32];
    int gen;                 /* its grading file: OUT/slurm/grading-GEN.json */
    int ntasks;              /* the students listed in its grading file */
    char (*state)[SLURM_STATE_LEN]; /* per task, "" when unknown */
    bool *in_array;          /* per task: submitted in this job's array */
    bool wanted;             /* some submission still waits on it */
} slurm_job;

typedef struct slurm_watch {
    const grade_context *c;
    char dir[PATH_MAX];      /* OUT/slurm */
    slurm_job jobs[SLURM_MAX_JOBS];
    int njobs;
    int *job_of, *task_of;   /* per submission: the latest job and task that graded it, or -1 */
} slurm_watch;

bool grade_slurm_on_path(const char *program)
{
    const char *path = getenv("PATH");
    char copy[8192];
    snprintf(copy, sizeof copy, "%s", path ? path : "/usr/bin:/bin");
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%.3000s/%s", d, program);
        if (access(full, X_OK) == 0)
            return true;
    }
    return false;
}

/* States after which a task will not write anything more. Any other (PENDING, RUNNING,
 * CONFIGURING, COMPLETING, REQUEUED, SUSPENDED ...) means Slurm still has it. */
static bool ended(const char *state)
{
    static const char *const done[] = {"COMPLETED", "FAILED", "TIMEOUT", "NODE_FAIL",
                                       "CANCELLED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY",
                                       "PREEMPTED", "SPECIAL_EXIT", "UNKNOWN"};
    for (size_t i = 0; i < sizeof done / sizeof *done; i++)
        if (strncmp(state, done[i], strlen(done[i])) == 0)
            return true;
    return false;
}

static int run_tool(char *const argv[], proc_result *res, tl_error *err)
{
    if (proc_run(argv, SLURM_CMD_TIMEOUT_S, SLURM_OUTPUT_LIMIT, res) != 0)
        return tl_error_set(err, "%s cannot be started", argv[0]);
    return 0;
}

/* Reads OUT/slurm/grading-GEN.json's student list into the job's task count and maps each task
 * to the submission of the same file name. */
static void map_job(slurm_watch *w, int j, const submission *subs, int n)
{
    slurm_job *job = &w->jobs[j];
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/grading-%d.json", w->dir, job->gen);
    char *text = files_read(path, NULL);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *students = cJSON_GetObjectItem(doc, "students");
    const cJSON *tasks = cJSON_GetObjectItem(doc, "tasks");
    job->ntasks = cJSON_GetArraySize(students);
    size_t count = job->ntasks > 0 ? (size_t)job->ntasks : 1;
    job->state = calloc(count, sizeof *job->state);
    job->in_array = calloc(count, sizeof *job->in_array);
    if (!job->in_array) {
        free(job->state);
        job->state = NULL;
    }
    for (const cJSON *t = tasks ? tasks->child : NULL; t && job->state; t = t->next) {
        const cJSON *name = cJSON_GetArrayItem(students, t->valueint);
        if (!cJSON_IsString(name))
            continue;
        job->in_array[t->valueint] = true;
        for (int i = 0; i < n; i++) {
            char mine[256];
            grader_file_name(subs[i].student, mine, sizeof mine);
            if (strcmp(mine, name->valuestring) == 0) {
                w->job_of[i] = j;
                w->task_of[i] = t->valueint;
            }
        }
    }
    cJSON_Delete(doc);
}

/* OUT/slurm/jobs.txt: a line "JOBID GEN" per array job this folder submitted, oldest first. */
static void load_jobs(slurm_watch *w, const submission *subs, int n)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/jobs.txt", w->dir);
    FILE *f = fopen(path, "r");
    char line[128];
    while (f && w->njobs < SLURM_MAX_JOBS && fgets(line, sizeof line, f)) {
        slurm_job *job = &w->jobs[w->njobs];
        if (sscanf(line, "%31s %d", job->id, &job->gen) != 2)
            continue;
        map_job(w, w->njobs++, subs, n);
    }
    if (f)
        fclose(f);
}

/* Each task's state from squeue (which keeps ended tasks for the controller's MinJobAge), then
 * from sacct for those squeue no longer lists; "UNKNOWN" when neither knows it. */
static void refresh(slurm_watch *w)
{
    for (int j = 0; j < w->njobs; j++) {
        slurm_job *job = &w->jobs[j];
        if (!job->wanted || !job->state)
            continue;
        for (int t = 0; t < job->ntasks; t++)
            job->state[t][0] = '\0';
        char *squeue[] = {"squeue", "-h", "-r", "-j", job->id, "--states=all", "-o", "%K %T",
                          NULL};
        char *sacct[] = {"sacct", "-n", "-X", "-P", "-j", job->id, "-o", "JobID,State", NULL};
        char *const *tools[] = {squeue, sacct};
        for (int k = 0; k < 2; k++) {
            bool unknown = false;
            for (int t = 0; t < job->ntasks; t++)
                unknown |= job->in_array[t] && !job->state[t][0];
            if (!unknown)
                break;
            proc_result res;
            tl_error err;
            if (run_tool(tools[k], &res, &err) != 0)
                res = (proc_result){.exit_code = -1};
            /* squeue not answering is not the tasks ending: keep watching them. */
            if (k == 0 && res.exit_code != 0 && !(res.err && strstr(res.err, "Invalid job id"))) {
                for (int t = 0; t < job->ntasks; t++)
                    snprintf(job->state[t], SLURM_STATE_LEN, "%s", SLURM_NO_ANSWER);
                proc_result_free(&res);
                break;
            }
            char *save = NULL;
            for (char *l = res.exit_code == 0 && res.out ? strtok_r(res.out, "\n", &save) : NULL; l;
                 l = strtok_r(NULL, "\n", &save)) {
                int t;
                char state[SLURM_STATE_LEN];
                /* squeue: "TASK STATE"; sacct: "JOB_TASK|STATE" */
                char *task = k == 0 ? l : strchr(l, '_');
                if (k == 1 && (!task || !strchr(task, '|')))
                    continue;
                if (k == 1)
                    *strchr(task, '|') = ' ';
                if (sscanf(task + (k == 1), "%d %31s", &t, state) == 2 && t >= 0 &&
                    t < job->ntasks && !job->state[t][0])
                    snprintf(job->state[t], SLURM_STATE_LEN, "%s", state);
            }
            proc_result_free(&res);
        }
        for (int t = 0; t < job->ntasks; t++)
            if (!job->state[t][0])
                snprintf(job->state[t], SLURM_STATE_LEN, "UNKNOWN");
    }
}

static const char *state_of(const slurm_watch *w, int i)
{
    if (w->job_of[i] < 0)
        return NULL;
    const slurm_job *job = &w->jobs[w->job_of[i]];
    return job->state ? job->state[w->task_of[i]] : "UNKNOWN";
}

/* "0-3,7,9-10": the array's indices, runs shortened. */
static void array_spec(const int *tasks, int k, int limit, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int a = 0; a < k && len < size;) {
        int b = a;
        while (b + 1 < k && tasks[b + 1] == tasks[b] + 1)
            b++;
        len += (size_t)snprintf(out + len, size - len, b > a ? "%s%d-%d" : "%s%d", a ? "," : "",
                                tasks[a], tasks[b]);
        a = b + 1;
    }
    if (limit > 0 && len < size)
        snprintf(out + len, size - len, "%%%d", limit);
}

/* Writes grading-GEN.json and the task's batch script, submits the array, records its id. */
static int submit(slurm_watch *w, const submission *subs, int n, const int *todo, int k,
                  tl_error *err)
{
    const grade_options *o = w->c->o;
    if (w->njobs >= SLURM_MAX_JOBS)
        return tl_error_set(err, "%s/jobs.txt: %d jobs already; start a new --out", w->dir,
                            SLURM_MAX_JOBS);
    int gen = w->njobs ? w->jobs[w->njobs - 1].gen + 1 : 0;
    char grading[PATH_MAX + 32], script[PATH_MAX + 32], logs[PATH_MAX + 32];
    snprintf(grading, sizeof grading, "%s/grading-%d.json", w->dir, gen);
    snprintf(script, sizeof script, "%s/task-%d.sh", w->dir, gen);
    snprintf(logs, sizeof logs, "%s/logs/%%A_%%a.txt", w->dir);
    if (grade_slurm_write_grading(w->c, subs, n, todo, k, grading, err) != 0 ||
        grade_slurm_write_script(grading, script, err) != 0)
        return -1;
    char array[8192], array_opt[8300], output[PATH_MAX + 48], partition[300], gres[300],
        time_opt[300];
    array_spec(todo, k, o->array_limit, array, sizeof array);
    snprintf(array_opt, sizeof array_opt, "--array=%s", array);
    snprintf(output, sizeof output, "--output=%s", logs);
    char *argv[16] = {"sbatch", "--parsable", "--job-name=tilelab-grade", array_opt, output};
    int argc = 5;
    if (o->partition) {
        snprintf(partition, sizeof partition, "--partition=%s", o->partition);
        argv[argc++] = partition;
    }
    if (o->gres) {
        snprintf(gres, sizeof gres, "--gres=%s", o->gres);
        argv[argc++] = gres;
    }
    if (o->slurm_time) {
        snprintf(time_opt, sizeof time_opt, "--time=%s", o->slurm_time);
        argv[argc++] = time_opt;
    }
    argv[argc++] = script;
    proc_result res;
    if (run_tool(argv, &res, err) != 0)
        return -1;
    slurm_job *job = &w->jobs[w->njobs];
    bool ok = res.exit_code == 0 && sscanf(res.out, "%31[0-9]", job->id) == 1;
    if (!ok) {
        char *msg = tl_text_line(res.err, strlen(res.err));
        tl_error_set(err, "sbatch refused the array job (exit %d): %.600s", res.exit_code,
                     msg ? msg : "");
        free(msg);
        proc_result_free(&res);
        return -1;
    }
    proc_result_free(&res);
    job->gen = gen;
    char path[PATH_MAX + 16], line[64];
    snprintf(path, sizeof path, "%s/jobs.txt", w->dir);
    FILE *f = fopen(path, "a");
    int len = snprintf(line, sizeof line, "%s %d\n", job->id, gen);
    bool written = f && fwrite(line, 1, (size_t)len, f) == (size_t)len;
    written = f && fclose(f) == 0 && written;
    if (!written)
        return tl_error_set(err, "%s: cannot record job %s (cancel it with scancel %s)", path,
                            job->id, job->id);
    map_job(w, w->njobs++, subs, n);
    if (!o->quiet)
        fprintf(stderr, "submitted Slurm array job %s: %d task(s) (--array=%s); task logs in "
                "%s/logs\n", job->id, k, array, w->dir);
    return 0;
}

/* One look: submissions graded, failures among them, tasks Slurm still has, tasks ended
 * without an entry (their looks counted in `looks`). */
static void look(slurm_watch *w, const submission *subs, int n, int *looks, bool *graded,
                 int *done, int *failures, int *active, const char **current)
{
    *done = *failures = *active = 0;
    *current = "";
    for (int j = 0; j < w->njobs; j++)
        w->jobs[j].wanted = false;
    for (int i = 0; i < n; i++) {
        graded[i] = grade_journaled(w->c, &subs[i]);
        if (!graded[i] && w->job_of[i] >= 0)
            w->jobs[w->job_of[i]].wanted = true;
    }
    refresh(w);
    for (int i = 0; i < n; i++) {
        /* An entry written since the first look counts too. */
        if (graded[i] || grade_journaled(w->c, &subs[i])) {
            (*done)++;
            *failures += grade_has_failure(w->c, &subs[i]);
            continue;
        }
        const char *state = state_of(w, i);
        if (state && !ended(state)) {
            (*active)++;
            if (!**current || strcmp(state, "RUNNING") == 0)
                *current = subs[i].student;
            if (strcmp(state, SLURM_NO_ANSWER) == 0)
                *current = SLURM_NO_ANSWER;
            looks[i] = 0;
        } else if (looks[i] < SLURM_ENDED_LOOKS) {
            looks[i]++;
            (*active)++;
        }
    }
}

static void watch_free(slurm_watch *w)
{
    for (int j = 0; w && j < w->njobs; j++) {
        free(w->jobs[j].state);
        free(w->jobs[j].in_array);
    }
    if (w) {
        free(w->job_of);
        free(w->task_of);
    }
    free(w);
}

/* The watch of n submissions, none in a job yet; NULL when memory runs out. */
static slurm_watch *watch_new(const grade_context *c, int n)
{
    slurm_watch *w = calloc(1, sizeof *w);
    if (w) {
        w->job_of = malloc((size_t)n * sizeof *w->job_of);
        w->task_of = malloc((size_t)n * sizeof *w->task_of);
    }
    if (!w || !w->job_of || !w->task_of) {
        watch_free(w);
        return NULL;
    }
    w->c = c;
    for (int i = 0; i < n; i++)
        w->job_of[i] = w->task_of[i] = -1;
    snprintf(w->dir, sizeof w->dir, "%.3000s/slurm", c->o->out);
    return w;
}

/* Submits what is neither graded nor still in Slurm's hands: a restart submits nothing that a
 * task of an earlier run is about to grade. */
static int submit_remaining(slurm_watch *w, const submission *subs, int n, int *todo,
                            tl_error *err)
{
    int k = 0, still = 0;
    for (int j = 0; j < w->njobs; j++)
        w->jobs[j].wanted = true;
    refresh(w);
    for (int i = 0; i < n; i++) {
        if (grade_journaled(w->c, &subs[i]))
            continue;
        const char *state = state_of(w, i);
        if (state && !ended(state))
            still++;
        else
            todo[k++] = i;
    }
    if (still && !w->c->o->quiet)
        fprintf(stderr, "watching %d task(s) that Slurm still has from an earlier run "
                "(%s/jobs.txt); not submitting them again\n", still, w->dir);
    return k > 0 ? submit(w, subs, n, todo, k, err) : 0;
}

/* Every submission without a journal entry, named with its task and log. */
static void report_missing(slurm_watch *w, const submission *subs, int n, int done,
                           const char *logs)
{
    fputc('\n', stderr);
    for (int i = 0; i < n; i++) {
        if (grade_journaled(w->c, &subs[i]))
            continue;
        char *shown = tl_text_line(subs[i].student, strlen(subs[i].student));
        const slurm_job *job = w->job_of[i] >= 0 ? &w->jobs[w->job_of[i]] : NULL;
        const char *state = state_of(w, i);
        /* A pending task cancelled leaves squeue at once, and sacct needs accounting. */
        bool lost = state && strcmp(state, "UNKNOWN") == 0;
        if (job)
            fprintf(stderr, "tilelab: grade: %s: Slurm task %s_%d ended %s without a journal "
                    "entry (its log: %s/%s_%d.txt)\n", shown ? shown : "", job->id,
                    w->task_of[i], lost ? "(squeue and sacct no longer list it: cancelled "
                    "before it ran, or forgotten)" : state, logs, job->id, w->task_of[i]);
        else
            fprintf(stderr, "tilelab: grade: %s: never submitted\n", shown ? shown : "");
        free(shown);
    }
    fprintf(stderr, "tilelab: grade: %d of %d submission(s) have no journal entry; no "
            "outputs written. Run the same command again to resubmit them\n", n - done, n);
}

int grade_slurm(const grade_context *c, const submission *subs, int n, tl_error *err)
{
    slurm_watch *w = watch_new(c, n);
    int *todo = calloc((size_t)n, sizeof *todo), *looks = calloc((size_t)n, sizeof *looks);
    bool *graded = calloc((size_t)n, sizeof *graded);
    int rc = w && todo && looks && graded ? 0 : tl_error_set(err, "out of memory");
    char logs[PATH_MAX + 8];
    snprintf(logs, sizeof logs, "%s/logs", w ? w->dir : "");
    if (rc == 0 && ((mkdir(w->dir, 0755) != 0 && errno != EEXIST) ||
                    (mkdir(logs, 0755) != 0 && errno != EEXIST)))
        rc = tl_error_set(err, "%s: cannot create: %s", logs, strerror(errno));
    if (rc == 0) {
        load_jobs(w, subs, n);
        rc = submit_remaining(w, subs, n, todo, err);
    }
    double started = tl_clock_now();
    int done = 0, failures = 0, active = 0;
    const char *current = "";
    while (rc == 0) {
        look(w, subs, n, looks, graded, &done, &failures, &active, &current);
        grade_progress(c, done, n, failures, started, current);
        if (active == 0)
            break;
        sleep(SLURM_POLL_S);
    }
    if (rc == 0 && done < n) {
        report_missing(w, subs, n, done, logs);
        rc = GRADE_TASKS_FAILED;
    }
    watch_free(w);
    free(todo);
    free(looks);
    free(graded);
    return rc;
}
