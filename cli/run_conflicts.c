/* Lab 05's bank conflicts for run (run_conflicts.h). */
#include "run_conflicts.h"

#include "cli.h"
#include "report.h"
#include "ptx.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char conflict_metrics[] = "l1tex__data_bank_conflicts";

static void print_conflict(const ncu_row *r, void *ctx)
{
    (void)ctx;
    if (strncmp(r->metric, conflict_metrics, sizeof conflict_metrics - 1) != 0)
        return;
    printf(" %.*s %s %.0f;", (int)strcspn(r->kernel, "("), r->kernel,
           strstr(r->metric, "op_st") ? "st" : "ld", r->value);
}

/* The ncu CSV in the replayer's output, one "KERNEL ld|st N;" per kernel and metric. */
static void print_bank_conflicts(char *csv)
{
    printf("        bank conflicts (ncu):");
    ncu_csv_rows(csv, print_conflict, NULL);
    putchar('\n');
}

bool run_have_ncu(void)
{
    char *argv[] = {"ncu", "--version", NULL};
    proc_result r;
    if (proc_run(argv, 30, 4096, &r) != 0)
        return false;
    bool ok = r.exit_code == 0;
    proc_result_free(&r);
    return ok;
}

void run_ncu_conflicts(const session *s, const tl_lab *lab, const runner_loaded *d)
{
    char *wrapper[] = {"ncu", "--csv", "--clock-control", "none", "--metrics",
                       "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                       "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                       NULL};
    runner_replay_opts opts = {.time = false, .baseline = true, .wrapper = wrapper};
    runner_result r;
    tl_error err;
    if (runner_replay_loaded(&s->config, &s->program, &s->capture, lab, d, &opts, &r, &err) ==
            0 &&
        r.kernel_output)
        print_bank_conflicts(r.kernel_output);
    runner_result_free(&r);
}

/* Lab 05 on the CPU backend: the conflicts as the interpreter counts them, ncu's definition
 * (extra wavefronts of shared loads and stores), summed per kernel, in ncu_line's format. */
void run_counted_conflicts(const session *s, const tl_lab *lab, const runner_loaded *d)
{
    char work[] = "/tmp/tilelab-banks-XXXXXX";
    if (!mkdtemp(work))
        return;
    char path[sizeof work + 16];
    snprintf(path, sizeof path, "%s/diag.json", work);
    runner_replay_opts opts = {.time = false, .baseline = true, .diagnose = path};
    runner_result r;
    tl_error err;
    if (runner_replay_loaded(&s->config, &s->program, &s->capture, lab, d, &opts, &r, &err) == 0) {
        char *text = files_read(path, NULL);
        cJSON *diag = text ? cJSON_Parse(text) : NULL;
        enum { MAX_KERNELS = 8 };
        const char *names[MAX_KERNELS];
        bool baseline[MAX_KERNELS];
        double counts[MAX_KERNELS][2] = {{0}};
        int n = 0;
        const cJSON *in;
        cJSON_ArrayForEach(in, cJSON_GetObjectItem(diag, "instructions")) {
            const cJSON *kernel = cJSON_GetObjectItem(in, "kernel");
            const cJSON *extra = cJSON_GetObjectItem(in, "extra_wavefronts");
            bool given = cJSON_IsTrue(cJSON_GetObjectItem(in, "baseline"));
            if (!cJSON_IsString(kernel) || !cJSON_IsNumber(extra))
                continue;
            int k = 0;
            while (k < n && (strcmp(names[k], kernel->valuestring) != 0 || baseline[k] != given))
                k++;
            if (k == n && n == MAX_KERNELS)
                continue;
            if (k == n) {
                baseline[n] = given;
                names[n++] = kernel->valuestring;
            }
            bool load = strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(in, "op")), "load") == 0;
            counts[k][load ? 0 : 1] += extra->valuedouble;
        }
        if (n > 0) {
            printf("        bank conflicts (CPU backend's counters):");
            for (int k = 0; k < n; k++) {
                char shown[160], name[128];
                ptx_kernel_name(names[k], name, sizeof name);
                snprintf(shown, sizeof shown, "%s%s", name, baseline[k] ? CLI_BASELINE_LABEL : "");
                printf(" %s ld %.0f; %s st %.0f;", shown, counts[k][0], shown, counts[k][1]);
            }
            putchar('\n');
        }
        cJSON_Delete(diag);
        free(text);
    }
    runner_result_free(&r);
    files_remove_tree(work);
}

