/* tilelab predict: the performance model on counts a program of one's own produced on the CPU
 * backend (TILELAB_DIAGNOSE), one line per launch. run and diagnose predict a lab file's time
 * themselves; this is for everything else (the corpus, a program with its own main). */
#include "cli.h"
#include "perfmodel.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: ./tilelab predict DIAGNOSIS.json [--cubin FILE] [--json]\n"
    "\n"
    "Predicts each launch's time on an H100 with the performance model (docs/perfmodel.md),\n"
    "from the counts in a diagnosis a program wrote on the CPU backend:\n"
    "  TILELAB_DIAGNOSE=d.json TILELAB_SAMPLE_BLOCKS=8 ./my-program\n"
    "(TILELAB_SAMPLE_BLOCKS runs only that many blocks of each launch, spread over the grid:\n"
    "enough for the counts of a regular kernel, and fast at any size; the results are then not\n"
    "the program's.) One line per launch: kernel, grid, predicted ms, what bounds it.\n"
    "\n"
    "  --cubin FILE   the kernels' registers per thread, from a cubin of the same source\n"
    "                 (nvcc -cubin -arch=sm_90 ...); without it each kernel is taken to use 32\n"
    "  --json         one JSON array, a launch per element\n"
    "\n"
    "exit status: 0 done, 2 bad input or usage\n";

static uint64_t u64_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

static int dim(const cJSON *o, const char *key, int i)
{
    const cJSON *v = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, key), i);
    return cJSON_IsNumber(v) && v->valueint > 0 ? v->valueint : 1;
}

/* One launch's counts predicted: a line, or an element of `out` (--json). -1 with `msg` when
 * the cubin does not give its registers. */
static int predict_launch(const cJSON *l, const char *cubin, cJSON *out, char *msg, size_t size)
{
    const char *kernel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(l, "kernel"));
    int regs = cubin && kernel ? pm_cubin_registers(cubin, kernel, msg, size) : 0;
    if (regs < 0)
        return -1;
    pm_launch in = {
        .blocks = u64_of(l, "blocks"),
        .blocks_run = u64_of(l, "blocks_run"),
        .threads_per_block = dim(l, "block", 0) * dim(l, "block", 1) * dim(l, "block", 2),
        .registers = regs,
        .shared_bytes = u64_of(l, "static_shared") + u64_of(l, "dynamic_shared"),
    };
    for (int i = 0; pm_count_name(i); i++)
        *pm_launch_count(&in, pm_count_name(i)) = u64_of(l, pm_count_name(i));
    pm_prediction p;
    int rc = pm_predict(&in, &p);
    char grid[48];
    snprintf(grid, sizeof grid, "%dx%dx%d", dim(l, "grid", 0), dim(l, "grid", 1),
             dim(l, "grid", 2));
    if (out) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kernel", kernel ? kernel : "?");
        cJSON_AddStringToObject(o, "grid", grid);
        cJSON_AddNumberToObject(o, "registers", regs);
        if (rc == 0) {
            cJSON_AddNumberToObject(o, "ms", p.ms);
            cJSON_AddStringToObject(o, "bound", pm_bound_name(p.bound));
            cJSON_AddNumberToObject(o, "blocks_per_sm", p.blocks_per_sm);
        } else {
            cJSON_AddStringToObject(o, "cannot_run", p.limiter);
        }
        cJSON_AddItemToArray(out, o);
    } else if (rc == 0) {
        printf("%-40.40s %14s %6d %10.4f  %s\n", kernel ? kernel : "?", grid, regs, p.ms,
               pm_bound_name(p.bound));
    } else {
        printf("%-40.40s %14s %6d %10s  cannot run on an H100 (%s)\n", kernel ? kernel : "?",
               grid, regs, "-", p.limiter);
    }
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {{"cubin", required_argument, NULL, 'c'},
                                              {"json", no_argument, NULL, 'j'},
                                              {NULL, 0, NULL, 0}};
    const char *cubin = NULL;
    bool json = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'c')
            cubin = optarg;
        else if (c == 'j')
            json = true;
        else
            return cli_fail("predict: unknown or incomplete option \"%s\" (see --help)",
                            argv[optind - 1]);
    }
    if (optind + 1 != argc)
        return cli_fail("predict: name one diagnosis file (see ./tilelab predict --help)");
    const char *path = argv[optind];
    char *text = files_read(path, NULL);
    if (!text)
        return cli_fail("%s: cannot read the diagnosis", path);
    cJSON *diag = cJSON_Parse(text);
    free(text);
    const cJSON *launches = cJSON_GetObjectItemCaseSensitive(diag, "launch_counts");
    if (!cJSON_IsArray(launches)) {
        cJSON_Delete(diag);
        return cli_fail("%s: not a diagnosis with launch counts (expected the JSON a program "
                        "writes with TILELAB_DIAGNOSE set)", path);
    }
    cJSON *out = cJSON_CreateArray();
    if (!json)
        printf("%-40s %14s %6s %10s  %s\n", "kernel", "grid", "regs", "ms", "bound by");
    const cJSON *l;
    char msg[256];
    cJSON_ArrayForEach(l, launches) {
        if (predict_launch(l, cubin, json ? out : NULL, msg, sizeof msg) != 0) {
            cJSON_Delete(diag);
            cJSON_Delete(out);
            return cli_fail("%s", msg);
        }
    }
    if (json) {
        char *s = cJSON_Print(out);
        puts(s);
        free(s);
    }
    cJSON_Delete(out);
    cJSON_Delete(diag);
    return TL_EXIT_OK;
}

const cli_command cmd_predict = {"predict", "an H100 time for each launch of a CPU-backend run's counts",
                                 usage, run};
