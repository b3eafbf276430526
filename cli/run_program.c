/* `run` for a whole libwb program: a lab described by a lab.json (the Teaching Kit's labs), or
 * a matrix lab's file that has its own main. Each dataset is captured, replayed and checked as
 * the grader does it (runner_program_run); one line per dataset. */
#include "cli.h"
#include "explain.h"
#include "run_program.h"

#include "runner.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROGRAM_DATASETS 256

/* Datasets sort by the number that names their folder. */
static int by_number(const void *a, const void *b)
{
    const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');
    int i = atoi(x ? x + 1 : *(char *const *)a), j = atoi(y ? y + 1 : *(char *const *)b);
    return (i > j) - (i < j);
}

int run_program_datasets(const runner_program_lab *lab, char ***out)
{
    return run_dataset_folders(lab->datasets, lab->inputs[0], false, out);
}

int run_dataset_folders(const char *dir, const char *marker, bool numbered, char ***out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **list = NULL;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_PROGRAM_DATASETS;) {
        if (e->d_name[0] == '.' || (numbered && (e->d_name[0] < '0' || e->d_name[0] > '9')))
            continue;
        char path[PATH_MAX], first[PATH_MAX + 300];
        snprintf(path, sizeof path, "%.3500s/%.255s", dir, e->d_name);
        snprintf(first, sizeof first, "%s/%s", path, marker);
        if (access(first, R_OK) != 0)
            continue;
        char **grown = realloc(list, (size_t)(n + 1) * sizeof *list);
        if (!grown)
            break;
        list = grown;
        list[n++] = strdup(path);
    }
    closedir(d);
    if (n > 1)
        qsort(list, (size_t)n, sizeof *list, by_number);
    *out = list;
    return n;
}

/* An unsafe dataset's causes, as `run` gives a lab file's, and where the whole report is. */
static void print_causes(const run_program_options *o, const char *dataset, const runner_result *r)
{
    explanation x;
    explain_result(&x, r, NULL);
    if (x.ncauses > 0) {
        explain_print_causes(stdout, &x, "        ");
        printf("        (./tilelab diagnose %s --source %s --dataset %s for the whole report)\n",
               cli_shown(o->lab_arg), cli_shown(o->source), cli_shown(dataset));
    }
    explain_free(&x);
}

static void print_result(const runner_result *r)
{
    const runner_call_result *c = &r->calls[CAPLOG_CALL_PROGRAM];
    printf("%-12s", tl_verdict_label(r->verdict));
    if (c->timed && r->verdict == TL_VERDICT_PASS)
        printf(" %9.3f ms (kernels)", c->ms.median);
    putchar('\n');
    if (r->verdict == TL_VERDICT_PASS)
        return;
    char *detail = tl_text_line(r->detail, strlen(r->detail));
    printf("        %s", detail ? detail : "");
    free(detail);
    const tl_check_report *k = &c->check;
    if (r->verdict == TL_VERDICT_WRONG && !k->shape_mismatch && k->has_worst)
        printf("; worst at (row %d, col %d): got %.9g, expected %.9g", k->worst.row, k->worst.col,
               (double)k->worst.got, (double)k->worst.expected);
    putchar('\n');
    if (r->hint[0])
        printf("        hint: %s\n", r->hint);
}

static cJSON *result_json(const char *dir, const runner_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dataset", dir);
    cJSON_AddStringToObject(o, "verdict", tl_verdict_name(r->verdict));
    cJSON_AddStringToObject(o, "detail", r->detail);
    const runner_call_result *c = &r->calls[CAPLOG_CALL_PROGRAM];
    if (c->runs_checked > 0) {
        cJSON *check = tl_check_report_json(&c->check);
        if (check)
            cJSON_AddItemToObject(o, "check", check);
    }
    cJSON_AddNumberToObject(o, "runs_checked", c->runs_checked);
    if (c->timed)
        cJSON_AddNumberToObject(o, "kernel_ms", c->ms.median);
    return o;
}

enum { EXIT_NO_DEVICE = 4 };

/* The backend and repetitions where not given; -1 with the exit status when there is no GPU
 * for --backend gpu. */
static int choose_backend(run_program_options *o, int *status)
{
    char device[256];
    bool gpu = runner_backend_default(&o->backend, o->backend_given, device, sizeof device);
    if (!o->reps_given)
        o->reps = runner_backend_about(o->backend)->reps;
    if (o->backend == RUNNER_GPU && !gpu && !o->build_only) {
        fprintf(stderr, "tilelab: --backend gpu needs a CUDA device and there is none here [%s]; "
                        "--backend cpu runs the kernels in the PTX interpreter\n", device);
        *status = EXIT_NO_DEVICE;
        return -1;
    }
    return 0;
}

/* The program built; -1 with the exit status when the run ends here (or with --build-only). */
static int build(const run_program_options *o, const runner_config *c, runner_program *p,
                 int *status)
{
    runner_outcome built;
    if (!o->json)
        fprintf(stderr, "building %s as a whole libwb program ...\n", cli_shown(o->source));
    if (runner_build(c, NULL, o->source, p, &built) != 0) {
        runner_outcome_free(&built);
        *status = cli_fail("run: the build could not be run");
        return -1;
    }
    bool ok = built.verdict == TL_VERDICT_PASS;
    if (!ok) {
        printf("%s: %s\n", tl_verdict_label(built.verdict), built.detail);
        if (built.messages) {
            char *inert = tl_text_terminal(built.messages, strlen(built.messages));
            printf("%s\n", inert ? inert : "");
            free(inert);
        }
    }
    *status = tl_verdict_exit_status(built.verdict);
    runner_outcome_free(&built);
    if (!ok || o->build_only)
        return -1;
    if (p->notes[0])
        fprintf(stderr, "note: %s\n", p->notes);
    return 0;
}

/* Every dataset judged (runner_program_run: the safety checks, then the replay where
 * runner_replay_again says so) and shown; the exit status of the worst. */
static int run_datasets(const run_program_options *o, const runner_config *c,
                        const runner_program *p, const char *const *datasets, int n)
{
    if (!o->json)
        printf("%s (%s, -t %s) on the %s backend, %d dataset(s)\n", cli_shown(o->source),
               o->lab.title, o->lab.type, runner_backend_name(o->backend), n);
    cJSON *all = cJSON_CreateArray();
    tl_verdict worst = TL_VERDICT_PASS;
    for (int i = 0; i < n; i++) {
        runner_dataset d = {.dir = datasets[i]};
        runner_result r;
        tl_error err;
        if (!o->json)
            printf("  %-40s ", cli_shown(datasets[i]));
        fflush(stdout);
        runner_program_opts ro = {.time = !o->no_time, .safety = o->safety};
        if (runner_program_run(c, p, &o->lab, &d, &ro, &r, &err) != 0) {
            r.verdict = TL_VERDICT_ERROR;
            snprintf(r.detail, sizeof r.detail, "%s", err.msg);
        }
        worst = tl_verdict_worst(worst, r.verdict);
        if (o->json)
            cJSON_AddItemToArray(all, result_json(datasets[i], &r));
        else
            print_result(&r);
        if (!o->json && o->lab_arg)
            print_causes(o, datasets[i], &r);
        runner_result_free(&r);
        if (o->fail_fast && r.verdict != TL_VERDICT_PASS)
            break;
    }
    if (o->json) {
        char *text = cJSON_Print(all);
        printf("%s\n", text ? text : "[]");
        free(text);
    }
    cJSON_Delete(all);
    return tl_verdict_exit_status(worst);
}

int run_program(const run_program_options *given)
{
    run_program_options opts = *given, *o = &opts;
    if (access(o->source, R_OK) != 0)
        return cli_fail("%s: cannot read the source file", cli_shown(o->source));
    int status = TL_EXIT_OK;
    if (choose_backend(o, &status) != 0)
        return status;
    char **found = NULL;
    const char *datasets[MAX_PROGRAM_DATASETS];
    int n = o->ndatasets;
    for (int i = 0; i < n; i++)
        datasets[i] = o->datasets[i];
    int nfound = 0;
    if (n == 0) {
        nfound = run_program_datasets(&o->lab, &found);
        if (nfound <= 0)
            return cli_fail("run: no dataset in %s (a folder per dataset, holding %s)",
                            cli_shown(o->lab.datasets), o->lab.inputs[0]);
        for (int i = 0; i < nfound; i++)
            datasets[n++] = found[i];
    }
    runner_config c;
    runner_config_default(&c, o->backend);
    c.program = true;
    c.sandbox = !o->no_sandbox;
    runner_config_set_timeout(&c, o->timeout);
    c.reps = o->reps;
    c.device_debug = o->device_debug;
    runner_program p;
    if (build(o, &c, &p, &status) == 0)
        status = run_datasets(o, &c, &p, datasets, n);
    for (int i = 0; i < nfound; i++)
        free(found[i]);
    free(found);
    return status;
}
