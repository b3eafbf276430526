/* Safety checks: one more replay of a dataset, on the CPU backend with the interpreter's checks
 * on, so that a race or an out-of-bounds read fails a submission on every backend, not only
 * where the hardware happened to show it. */
#include "runner.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "shared-memory race at mine.cu:31 and line 27 (block (0,0,0), thread (0,0,0))". */
static void describe(const runner_finding *f, int more, char *out, size_t size)
{
    char second[48] = "";
    if (f->line2 > 0 && f->line2 != f->line)
        snprintf(second, sizeof second, " and line %d", f->line2);
    char where[96] = "";
    if (f->has_where)
        snprintf(where, sizeof where, " (block (%d,%d,%d), thread (%d,%d,%d))", f->block[0],
                 f->block[1], f->block[2], f->thread[0], f->thread[1], f->thread[2]);
    char others[48] = "";
    if (more > 0)
        snprintf(others, sizeof others, "; %d more finding%s", more, more == 1 ? "" : "s");
    snprintf(out, size, "%s at %.128s:%d%s%s%s", f->kind, f->file, f->line, second, where,
             others);
}

bool runner_safety_applies(tl_size s)
{
    return (double)s.m * s.k * s.n <= RUNNER_SAFETY_MAX_MACS;
}

bool runner_safety_final(tl_verdict v)
{
    return v == TL_VERDICT_UNSAFE || v == TL_VERDICT_WRONG || v == TL_VERDICT_CRASH ||
           v == TL_VERDICT_REFUSED;
}

void runner_safety_incomplete(runner_result *out)
{
    size_t n = strlen(out->detail);
    snprintf(out->detail + n, sizeof out->detail - n, "%sthe safety checks are incomplete for "
             "this dataset: their CPU-backend replay stopped at its limits before the end",
             n ? "; " : "");
}

int runner_safety(const runner_config *c, const runner_program *p, const runner_capture *cap,
                  const tl_lab *lab, const runner_loaded *d, const char *save_output,
                  runner_result *out, tl_error *err)
{
    runner_config cpu = *c;
    cpu.backend = RUNNER_CPU;
    cpu.reps = 1;
    char work[] = "/tmp/tilelab-safety-XXXXXX";
    if (!mkdtemp(work)) {
        snprintf(err->msg, sizeof err->msg, "cannot make a folder under /tmp for the checks");
        return -1;
    }
    char path[sizeof work + 16];
    snprintf(path, sizeof path, "%s/diag.json", work);
    runner_replay_opts opts = {.time = false, .diagnose = path, .save_output = save_output};
    int rc = runner_replay_loaded(&cpu, p, cap, lab, d, &opts, out, err);
    char *text = rc == 0 ? files_read(path, NULL) : NULL;
    cJSON *diag = text ? cJSON_Parse(text) : NULL;
    files_remove_tree(work);
    if (rc != 0) {
        cJSON_Delete(diag);
        free(text);
        return -1;
    }
    runner_safety_judge(text, diag, out);
    cJSON_Delete(diag);
    return 0;
}

void runner_safety_judge(char *text, const cJSON *diag, runner_result *out)
{
    int n = runner_findings_count(diag);
    runner_finding first;
    if (n > 0) {
        runner_finding_get(diag, 0, &first); /* any finding is unsafe, even one unreadable */
        out->verdict = TL_VERDICT_UNSAFE;
        out->hint[0] = '\0'; /* the findings explain the result; a hint drawn from P would guess */
        free(out->diagnosis);
        out->diagnosis = text; /* so that they are shown without another replay */
        text = NULL;
        describe(&first, n - 1, out->detail, sizeof out->detail);
    }
    free(text);
}
