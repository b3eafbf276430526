/* bench's datasets and GPU timing of a lab file (bench_lab.h). */
#include "bench_lab.h"

#include "cli.h"
#include "runner.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_SEED 1
#define BENCH_PROGRAM_TIMEOUT_S 900
#define BENCH_OUTPUT_LIMIT (1 << 22)

int bench_dataset(tl_size size, int threads, char *dir, size_t dir_size, tl_error *err)
{
    snprintf(dir, dir_size, "%s/build/bench-datasets/%dx%dx%d", cli_root(), size.m, size.k,
             size.n);
    tl_gen_options g = {BENCH_SEED, TL_FORMAT_BINARY, true, threads, false};
    tl_gen_result res;
    return tl_dataset_generate(dir, 0, size, &g, &res, err);
}

static double json_number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int bench_time_on_gpu(const char *label, const char *source, const char *dataset, int reps,
                      bench_timing *out)
{
    memset(out, 0, sizeof *out);
    lab_program prog;
    char *messages = NULL;
    if (lab_build(source, RUNNER_GPU, true, &prog, &messages) != LAB_BUILD_OK) {
        printf("  %-18s does not build:\n%s\n", label, messages ? messages : "");
        free(messages);
        return -1;
    }
    char reps_text[16];
    snprintf(reps_text, sizeof reps_text, "%d", reps);
    char *argv[] = {prog.path, "--json", "--cublas", "--reps", reps_text, (char *)dataset, NULL};
    proc_result r;
    if (proc_run(argv, BENCH_PROGRAM_TIMEOUT_S, BENCH_OUTPUT_LIMIT, &r) != 0) {
        printf("  %-18s could not be started\n", label);
        return -1;
    }
    cJSON *doc = cJSON_Parse(r.out);
    const cJSON *verdict = cJSON_GetObjectItem(doc, "verdict");
    if (!cJSON_IsString(verdict)) {
        printf("  %-18s failed (exit %d): %s\n", label, r.exit_code, r.err);
        cJSON_Delete(doc);
        proc_result_free(&r);
        return -1;
    }
    snprintf(out->verdict, sizeof out->verdict, "%s", verdict->valuestring);
    out->ms = json_number(cJSON_GetObjectItem(doc, "kernel"), "median_ms");
    out->gflops = json_number(doc, "gflops");
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "other_kernels")) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(e, "name"));
        if (name && strcmp(name, "cublas") == 0) {
            out->cublas_ms = json_number(e, "median_ms");
            out->cublas_gflops = json_number(e, "gflops");
        } else if (name && strcmp(name, "baseline") == 0) {
            out->baseline_ms = json_number(e, "median_ms");
        }
    }
    cJSON_Delete(doc);
    proc_result_free(&r);
    return 0;
}
