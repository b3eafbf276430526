/* `diagnose` for a whole libwb program: the program's own main is run under the capture's libwb
 * layer with its libwb arguments (-i, -e, -t), as the grader runs it, never with the options of
 * a lab file's capture; the replay that follows has the checks on (runner_program_run). */
#include "diagnose_program.h"

#include "cli.h"
#include "run_program.h"
#include "util.h"
#include "session.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The description the lab's whole programs are run by, its datasets the kit's or its own. */
static void whole_of(const runner_lab *lab, runner_program_lab *out)
{
    char datasets[PATH_MAX];
    runner_lab_datasets(lab, cli_root(), datasets, sizeof datasets);
    runner_lab_whole(lab, datasets, out);
}

int diagnose_program_dataset(const runner_lab *lab, char *out, size_t size)
{
    runner_program_lab whole;
    whole_of(lab, &whole);
    char **found = NULL;
    int n = run_program_datasets(&whole, &found);
    if (n <= 0)
        return -1;
    snprintf(out, size, "%s", found[n / 2]);
    for (int i = 0; i < n; i++)
        free(found[i]);
    free(found);
    return 0;
}

bool diagnose_program_is_dataset(const runner_lab *of, const char *dir, tl_error *err)
{
    runner_program_lab whole, *lab = &whole;
    whole_of(of, &whole);
    char path[PATH_MAX];
    for (int i = 0; i <= lab->ninputs; i++) {
        const char *name = i < lab->ninputs ? lab->inputs[i] : lab->output;
        snprintf(path, sizeof path, "%.3000s/%.1000s", dir, name);
        if (access(path, R_OK) != 0) {
            tl_error_set(err, "%s: not a dataset folder of lab %s (no readable %s; expected "
                         "the lab's inputs and %s)", cli_shown(dir), lab->name, name, lab->output);
            return false;
        }
    }
    return true;
}

int diagnose_program(const runner_lab *of, const char *source, const char *dataset, bool quiet,
                     cJSON **diag, runner_result *result, runner_prediction *pred)
{
    runner_program_lab whole, *lab = &whole;
    whole_of(of, &whole);
    *diag = NULL;
    memset(result, 0, sizeof *result);
    runner_config c;
    runner_config_default(&c, RUNNER_CPU);
    c.program = true;
    runner_config_set_timeout(&c, RUNNER_TOOL_REPLAY_TIMEOUT_S);
    c.reps = 1;
    char why[300];
    if (!runner_sandbox_available(why, sizeof why)) {
        /* A student's own machine: the file is theirs, so it still runs, and says so. */
        c.sandbox = false;
        if (!quiet)
            fprintf(stderr, "note: running without a sandbox (%s)\n", why);
    }
    if (!quiet)
        fprintf(stderr, "building %s as a whole libwb program for the cpu backend ...",
                cli_shown(source));
    runner_program p;
    runner_outcome built;
    if (runner_build(&c, NULL, source, &p, &built) != 0) {
        if (!quiet)
            fputc('\n', stderr);
        return cli_fail("diagnose: the build could not be run (a folder under /tmp or the "
                        "cache could not be written)");
    }
    if (built.verdict != TL_VERDICT_PASS) {
        if (!quiet) {
            fprintf(stderr, " %s\n", built.verdict == TL_VERDICT_BUILD_FAILED
                                         ? "it does not build:" : "refused:");
            session_print_failure(&built, cli_shown(source));
        }
        int status = tl_verdict_exit_status(built.verdict);
        runner_outcome_free(&built);
        return status;
    }
    if (!quiet)
        fprintf(stderr, p.cached ? " ok (cached)\n" : " ok (%.1f s)\n", p.seconds);
    runner_outcome_free(&built);
    char work[] = "/tmp/tilelab-diagnose-XXXXXX";
    if (!mkdtemp(work))
        return cli_fail("diagnose: cannot make a folder under /tmp");
    char path[sizeof work + 16];
    snprintf(path, sizeof path, "%s/diag.json", work);
    runner_dataset d = {.dir = dataset};
    runner_program_opts opts = {.diagnose = path};
    tl_error err;
    int rc = runner_program_run(&c, &p, lab, &d, &opts, result, &err);
    char *text = rc == 0 ? files_read(path, NULL) : NULL;
    *diag = text ? cJSON_Parse(text) : NULL;
    free(text);
    files_remove_tree(work);
    if (rc != 0)
        return cli_fail("diagnose: %s", err.msg);
    if (!pred)
        return TL_EXIT_OK;
    memset(pred, 0, 2 * sizeof *pred);
    if (!runner_lab_matrix(of)) {
        snprintf(pred[0].detail, sizeof pred[0].detail, "no prediction: the model predicts the "
                 "matrix labs' kernels only");
    } else if (result->verdict == TL_VERDICT_TIMEOUT) {
        /* A kernel that did not finish on the dataset would not at the prediction's size
         * either: no time is spent counting it there. */
        snprintf(pred[0].detail, sizeof pred[0].detail, "no prediction: the kernel did not "
                 "finish on the dataset");
    } else {
        runner_model_run model = runner_model_fixed(runner_lab_perf_size(of));
        if (runner_program_predict(&c, &p, lab, &model, &pred[0], &err) != 0)
            snprintf(pred[0].detail, sizeof pred[0].detail, "no prediction: %.200s", err.msg);
    }
    return TL_EXIT_OK;
}
