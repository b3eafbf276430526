/* tilelab run: build a lab's .cu file and run it on the lab's datasets, one process each. */
#include "cli.h"
#include "lab_build.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DATASETS 256

static const char usage[] =
    "usage: ./tilelab run LAB [--solution | --source FILE] [--dataset DIR]... [options]\n"
    "\n"
    "Builds a lab's .cu file (cached) and runs it on each dataset in its own process: one line per\n"
    "dataset with the size, the verdict, the kernel time and GFLOP/s. A wrong result shows how many\n"
    "elements are wrong and the worst one; lab 05 also shows its unpadded baseline and, when ncu\n"
    "is installed, the shared-memory bank conflicts of both kernels.\n"
    "\n"
    "  LAB              01-basic ... 05-bank-conflicts (or 01, 2, tiled, ...)\n"
    "  (default)        run the lab's template: labs/LAB/template.cu\n"
    "  --solution       run the reference solution: solutions/LAB/solution.cu\n"
    "  --source FILE    run any file that follows the lab contract (docs/lab-contract.md)\n"
    "  --dataset DIR    a dataset folder (repeatable; default: every shipped dataset of the lab)\n"
    "  --json           one JSON document with every dataset's report instead of lines\n"
    "  --timeout S      seconds a dataset may take before it is stopped (default 60)\n"
    "  --reps N         timed repetitions of the kernel (default 10)\n"
    "  --no-time        check only, do not time\n"
    "  --no-ncu         lab 05: skip the bank-conflict counts even when ncu is installed\n"
    "  --backend B      gpu (the CUDA device) or cpu (the PTX interpreter, no GPU needed);\n"
    "                   default: gpu when there is a CUDA device, cpu otherwise\n"
    "  --save-outputs D write each dataset's result (tilelab binary, from the first run) into\n"
    "                   folder D, named after the dataset's folder: D/<name>.raw\n"
    "  --device-debug   build the kernels with -G (unoptimised, for cuda-gdb; on the CPU backend\n"
    "                   this runs the unoptimised PTX)\n"
    "  --build-only     build and stop\n"
    "\n"
    "On the CPU backend the kernel time is the interpreter's (emulated, not a GPU's) and the\n"
    "default --reps is 3.\n"
    "\n"
    "exit status: 0 every dataset passed, 1 a result is wrong, 2 bad input or usage,\n"
    "3 the file does not build, crashed or hung, 4 --backend gpu but no CUDA device here\n";

enum { EXIT_NO_DEVICE = 4 };

typedef struct options {
    const tl_lab *lab;
    char source[PATH_MAX];
    const char *datasets[MAX_DATASETS];
    int ndatasets;
    bool json, build_only, no_time, ncu, reps_given;
    int timeout, reps;
    lab_backend backend;
    bool backend_given;
    const char *save_outputs;
} options;

typedef struct outcome {
    int passed, wrong, bad_input, crashed;
} outcome;

static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"solution", no_argument, NULL, 'S'},     {"source", required_argument, NULL, 's'},
        {"dataset", required_argument, NULL, 'd'}, {"json", no_argument, NULL, 'j'},
        {"timeout", required_argument, NULL, 't'}, {"reps", required_argument, NULL, 'r'},
        {"no-time", no_argument, NULL, 'T'},      {"no-ncu", no_argument, NULL, 'N'},
        {"build-only", no_argument, NULL, 'b'},   {"backend", required_argument, NULL, 'B'},
        {"save-outputs", required_argument, NULL, 'O'}, {"device-debug", no_argument, NULL, 'G'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->timeout = 60;
    o->reps = 10;
    o->ncu = true;
    const char *source = NULL;
    bool solution = false;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'S': solution = true; break;
        case 's': source = optarg; break;
        case 'd':
            if (o->ndatasets == MAX_DATASETS)
                return cli_fail("at most %d --dataset options", MAX_DATASETS);
            o->datasets[o->ndatasets++] = optarg;
            break;
        case 'j': o->json = true; break;
        case 'T': o->no_time = true; break;
        case 'N': o->ncu = false; break;
        case 'b': o->build_only = true; break;
        case 'O': o->save_outputs = optarg; break;
        case 'G': lab_build_set_device_debug(true); break;
        case 't':
            if (cli_parse_int("--timeout", optarg, 1, 86400, &o->timeout) != 0)
                return TL_EXIT_BAD_INPUT;
            break;
        case 'r':
            if (cli_parse_int("--reps", optarg, 1, 1000, &o->reps) != 0)
                return TL_EXIT_BAD_INPUT;
            o->reps_given = true;
            break;
        case 'B':
            if (strcmp(optarg, "gpu") == 0)
                o->backend = LAB_BACKEND_GPU;
            else if (strcmp(optarg, "cpu") == 0)
                o->backend = LAB_BACKEND_CPU;
            else
                return cli_fail("--backend expects gpu or cpu, got \"%s\"", optarg);
            o->backend_given = true;
            break;
        default:
            return cli_fail("run: unknown or incomplete option \"%s\" (see --help)",
                            argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_fail("run: name a lab (see ./tilelab run --help)");
    if (optind + 1 < argc)
        return cli_fail("run: one lab at a time, got \"%s\" and \"%s\"", argv[optind],
                        argv[optind + 1]);
    o->lab = tl_lab_find(argv[optind]);
    if (!o->lab)
        return cli_fail("run: no lab \"%s\" (labs: 01-basic 02-tiled 03-arbitrary "
                        "04-rectangular 05-bank-conflicts)",
                        argv[optind]);
    if (solution && source)
        return cli_fail("run: --solution and --source are two different files; pick one");
    if (source)
        snprintf(o->source, sizeof o->source, "%s", source);
    else
        snprintf(o->source, sizeof o->source, "%s/%s/%s/%s", cli_root(),
                 solution ? "solutions" : "labs", o->lab->id,
                 solution ? "solution.cu" : "template.cu");
    return TL_EXIT_OK;
}

static int by_number(const void *a, const void *b)
{
    int x = atoi(*(char *const *)a), y = atoi(*(char *const *)b);
    return (x > y) - (x < y);
}

/* The shipped datasets: datasets/LAB/<i>, in numeric order. Returns how many, or -1. */
static int shipped_datasets(const tl_lab *lab, char ***out)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/datasets/%s", cli_root(), lab->id);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **list = NULL;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[2048 + 260];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!cli_is_dataset(path))
            continue;
        char **grown = realloc(list, (size_t)(n + 1) * sizeof *list);
        if (!grown)
            break;
        list = grown;
        list[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(list, (size_t)n, sizeof *list, by_number);
    for (int i = 0; i < n; i++) {
        char *full = malloc(strlen(dir) + strlen(list[i]) + 2);
        sprintf(full, "%s/%s", dir, list[i]);
        free(list[i]);
        list[i] = full;
    }
    *out = list;
    return n;
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* One line for a finished run: verdict, time, GFLOP/s; details of a failure below it. */
static void print_result_line(const cJSON *doc)
{
    const cJSON *check = cJSON_GetObjectItem(doc, "check");
    const cJSON *kernel = cJSON_GetObjectItem(doc, "kernel");
    const char *verdict = cJSON_GetObjectItem(doc, "verdict")->valuestring;
    bool pass = strcmp(verdict, "pass") == 0;
    printf("%s", pass ? "PASS" : "FAIL");
    if (cJSON_IsObject(kernel))
        printf("  %9.3f ms  %9.1f GFLOP/s", number(kernel, "median_ms"), number(doc, "gflops"));
    for (const cJSON *e = cJSON_GetObjectItem(doc, "other_kernels") ? cJSON_GetObjectItem(doc, "other_kernels")->child : NULL;
         e; e = e->next) {
        printf("  | %s %s", cJSON_GetObjectItem(e, "name")->valuestring,
               cJSON_GetObjectItem(e, "verdict")->valuestring);
        double ms = number(e, "median_ms");
        if (!isnan(ms)) {
            printf(" %.3f ms", ms);
            double mine = cJSON_IsObject(kernel) ? number(kernel, "median_ms") : NAN;
            if (!isnan(mine) && mine > 0)
                printf(" (yours is %.2fx faster)", ms / mine);
        }
    }
    putchar('\n');
    if (pass || !cJSON_IsObject(check))
        return;
    if (cJSON_IsTrue(cJSON_GetObjectItem(check, "shape_mismatch"))) {
        printf("        output shape differs from the expected one\n");
        return;
    }
    printf("        %.0f of %.0f elements wrong", number(check, "bad"), number(check, "checked"));
    double nonfinite = number(check, "nonfinite");
    if (nonfinite > 0)
        printf(" (%.0f NaN/Inf)", nonfinite);
    const cJSON *worst = cJSON_GetObjectItem(check, "worst");
    if (cJSON_IsObject(worst))
        printf("; worst at (row %.0f, col %.0f): got %.9g, expected %.9g", number(worst, "row"),
               number(worst, "col"), number(worst, "got"), number(worst, "expected"));
    putchar('\n');
    const cJSON *hint = cJSON_GetObjectItem(doc, "hint");
    if (cJSON_IsString(hint))
        printf("        hint: %s\n", hint->valuestring);
}

/* Splits one CSV line of quoted fields ("a","b,c",...) in place; returns the field count. */
static int csv_fields(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    while (*p == '"' && n < max) {
        char *start = ++p;
        while (*p && *p != '"')
            p++;
        if (*p)
            *p++ = '\0';
        fields[n++] = start;
        if (*p == ',')
            p++;
    }
    return n;
}

static int column_of(char **fields, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0)
            return i;
    return -1;
}

/* Lab 05: the bank conflicts of every kernel, from ncu (when it is installed). */
static void print_bank_conflicts(const lab_program *prog, const char *dataset, int timeout)
{
    char *argv[] = {"ncu", "--csv", "--clock-control", "none", "--metrics",
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                    (char *)prog->path, "--no-time", (char *)dataset, NULL};
    proc_result r;
    if (proc_run(argv, timeout * 4, 1 << 20, &r) != 0)
        return;
    if (r.exit_code != 0) {
        printf("        bank conflicts: ncu failed (exit %d)\n", r.exit_code);
        proc_result_free(&r);
        return;
    }
    /* The header row names the columns; values may carry thousands separators. */
    int kernel_col = -1, metric_col = -1, value_col = -1;
    printf("        bank conflicts (ncu):");
    char *save = NULL;
    for (char *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[64];
        int n = csv_fields(line, f, 64);
        if (kernel_col < 0) {
            kernel_col = column_of(f, n, "Kernel Name");
            metric_col = column_of(f, n, "Metric Name");
            value_col = column_of(f, n, "Metric Value");
            if (metric_col < 0 || value_col < 0)
                kernel_col = -1;
            continue;
        }
        if (n <= value_col || n <= metric_col || n <= kernel_col ||
            strncmp(f[metric_col], "l1tex__data_bank_conflicts", 26) != 0)
            continue;
        char digits[64];
        size_t d = 0;
        for (const char *q = f[value_col]; *q && d + 1 < sizeof digits; q++)
            if ((*q >= '0' && *q <= '9') || *q == '.')
                digits[d++] = *q;
        digits[d] = '\0';
        printf(" %.*s %s %.0f;", (int)strcspn(f[kernel_col], "("), f[kernel_col],
               strstr(f[metric_col], "op_st") ? "st" : "ld", atof(digits));
    }
    putchar('\n');
    proc_result_free(&r);
}

static bool have_ncu(void)
{
    char *argv[] = {"ncu", "--version", NULL};
    proc_result r;
    if (proc_run(argv, 30, 4096, &r) != 0)
        return false;
    bool ok = r.exit_code == 0;
    proc_result_free(&r);
    return ok;
}

static void run_one(const options *o, const lab_program *prog, const char *dataset, bool ncu,
                    cJSON *all, outcome *t)
{
    char reps[16], save[PATH_MAX + 300];
    snprintf(reps, sizeof reps, "%d", o->reps);
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)prog->path;
    argv[n++] = "--json";
    argv[n++] = "--name";
    argv[n++] = (char *)cli_shown(o->source);
    argv[n++] = "--reps";
    argv[n++] = reps;
    if (o->no_time)
        argv[n++] = "--no-time";
    if (o->save_outputs) {
        const char *base = strrchr(dataset, '/');
        snprintf(save, sizeof save, "%.4000s/%.250s.raw", o->save_outputs, base ? base + 1 : dataset);
        argv[n++] = "--save-output";
        argv[n++] = save;
    }
    argv[n++] = (char *)dataset;
    argv[n] = NULL;
    proc_result r;
    if (!o->json)
        printf("  %-28s ", cli_shown(dataset));
    fflush(stdout);
    if (proc_run(argv, o->timeout, 1 << 22, &r) != 0) {
        printf("CRASH  could not start %s\n", prog->path);
        t->crashed++;
        return;
    }
    cJSON *doc = r.exit_code == 0 || r.exit_code == 1 ? cJSON_Parse(r.out) : NULL;
    if (doc) {
        const cJSON *shape = cJSON_GetObjectItem(doc, "shape");
        if (!o->json) {
            char size[48];
            snprintf(size, sizeof size, "%.0fx%.0fx%.0f", number(shape, "m"), number(shape, "k"),
                     number(shape, "n"));
            printf("%-16s ", size);
            print_result_line(doc);
            if (ncu)
                print_bank_conflicts(prog, dataset, o->timeout);
        }
        if (r.exit_code == 0)
            t->passed++;
        else
            t->wrong++;
        cJSON_AddItemToArray(all, doc);
    } else {
        const char *what;
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "dataset", dataset);
        if (r.timed_out) {
            what = "TIMEOUT";
            printf("%s after %d s: the kernel never finished (a __syncthreads() that not every "
                   "thread of a block reaches hangs it)\n", what, o->timeout);
            t->crashed++;
        } else if (r.exit_code == TL_EXIT_BAD_INPUT) {
            what = "BAD INPUT";
            printf("%s  %s", what, r.err);
            t->bad_input++;
        } else {
            what = "CRASH";
            if (r.signal)
                printf("%s  killed by signal %d\n", what, r.signal);
            else
                printf("%s  exit status %d\n", what, r.exit_code);
            if (r.err[0])
                printf("        %s", r.err);
            t->crashed++;
        }
        cJSON_AddStringToObject(item, "verdict", what);
        cJSON_AddStringToObject(item, "stderr", r.err);
        cJSON_AddItemToArray(all, item);
    }
    /* On the CPU backend a wrong result or a stopped kernel gets its cause: the same dataset once
     * more under diagnosis (passing runs cost nothing extra). */
    if (!o->json && o->backend == LAB_BACKEND_CPU && !r.timed_out &&
        (r.exit_code == TL_EXIT_WRONG || r.exit_code == TL_EXIT_CRASH)) {
        diagnosis d;
        if (diagnose_run(prog->path, cli_shown(o->source), dataset, &d) == TL_EXIT_OK && d.diag) {
            diagnose_print_causes(d.diag, 3, "        ");
            if (cJSON_GetArraySize(cJSON_GetObjectItem(d.diag, "findings")) > 0)
                printf("        (./tilelab diagnose %s --source %s --dataset %s for the whole "
                       "report)\n", o->lab->id, cli_shown(o->source), cli_shown(dataset));
        }
        cJSON_Delete(d.diag);
        cJSON_Delete(d.report);
    }
    fflush(stdout);
    proc_result_free(&r);
}

static int run(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc != TL_EXIT_OK)
        return rc;

    char device[256];
    bool gpu = tl_device_name(device, sizeof device);
    if (!o.backend_given)
        o.backend = gpu ? LAB_BACKEND_GPU : LAB_BACKEND_CPU;
    if (o.backend == LAB_BACKEND_CPU && !o.reps_given)
        o.reps = 3;
    const char *backend = o.backend == LAB_BACKEND_CPU ? "cpu" : "gpu";
    lab_program prog;
    char *messages = NULL;
    fprintf(stderr, "building %s for the %s backend ...", cli_shown(o.source), backend);
    int b = lab_build(o.source, o.backend, false, &prog, &messages);
    if (b == LAB_BUILD_NO_SOURCE) {
        fputc('\n', stderr);
        return cli_fail("%s: cannot read the source file", o.source);
    }
    if (b != LAB_BUILD_OK) {
        fprintf(stderr, " it does not build:\n%s", messages ? messages : "");
        free(messages);
        fprintf(stderr, "tilelab: error: %s does not build (compiler messages above)\n",
                cli_shown(o.source));
        return TL_EXIT_CRASH;
    }
    if (prog.cached)
        fprintf(stderr, " ok (cached)\n");
    else
        fprintf(stderr, " ok (%.1f s, -arch=%s)\n", prog.seconds, prog.arch);
    if (o.build_only)
        return TL_EXIT_OK;

    if (o.backend == LAB_BACKEND_GPU && !gpu) {
        fprintf(stderr, "%s: built, but --backend gpu needs a CUDA device and there is none here "
                        "[%s]; --backend cpu runs the kernels in the PTX interpreter\n",
                cli_shown(o.source), device);
        return EXIT_NO_DEVICE;
    }
    if (o.backend == LAB_BACKEND_CPU)
        snprintf(device, sizeof device, "the CPU backend (PTX interpreter; times are emulated)");

    char **shipped = NULL;
    int nshipped = 0;
    if (o.ndatasets == 0) {
        nshipped = shipped_datasets(o.lab, &shipped);
        if (nshipped <= 0)
            return cli_fail("run: no datasets in datasets/%s (make them with ./tilelab datasets %s)",
                            o.lab->id, o.lab->id);
        for (int i = 0; i < nshipped && i < MAX_DATASETS; i++)
            o.datasets[o.ndatasets++] = shipped[i];
    }
    for (int i = 0; i < o.ndatasets; i++)
        if (!cli_is_dataset(o.datasets[i]))
            return cli_fail("%s: not a dataset folder (expected input0.raw, input1.raw, "
                            "output.raw in it)", o.datasets[i]);

    if (o.save_outputs && mkdir(o.save_outputs, 0777) != 0 && errno != EEXIST)
        return cli_fail("--save-outputs: cannot create %s: %s", o.save_outputs, strerror(errno));
    bool ncu = o.ncu && !o.json && o.backend == LAB_BACKEND_GPU &&
               strcmp(o.lab->id, "05-bank-conflicts") == 0 && have_ncu();
    if (!o.json)
        printf("%s on %s, %d dataset(s)\n", cli_shown(o.source), device, o.ndatasets);
    cJSON *all = cJSON_CreateArray();
    outcome t = {0, 0, 0, 0};
    for (int i = 0; i < o.ndatasets; i++)
        run_one(&o, &prog, o.datasets[i], ncu, all, &t);
    if (o.json) {
        cJSON *doc = cJSON_CreateObject();
        cJSON_AddStringToObject(doc, "lab", o.lab->id);
        cJSON_AddStringToObject(doc, "source", cli_shown(o.source));
        cJSON_AddStringToObject(doc, "device", device);
        cJSON_AddStringToObject(doc, "backend", backend);
        cJSON_AddNumberToObject(doc, "passed", t.passed);
        cJSON_AddNumberToObject(doc, "wrong", t.wrong);
        cJSON_AddNumberToObject(doc, "bad_input", t.bad_input);
        cJSON_AddNumberToObject(doc, "crashed", t.crashed);
        cJSON_AddItemToObject(doc, "runs", all);
        char *text = cJSON_Print(doc);
        puts(text);
        free(text);
        cJSON_Delete(doc);
    } else {
        cJSON_Delete(all);
        printf("%d passed, %d failed\n", t.passed, t.wrong + t.bad_input + t.crashed);
    }
    for (int i = 0; i < nshipped; i++)
        free(shipped[i]);
    free(shipped);
    if (t.crashed)
        return TL_EXIT_CRASH;
    if (t.bad_input)
        return TL_EXIT_BAD_INPUT;
    return t.wrong ? TL_EXIT_WRONG : TL_EXIT_OK;
}

const cli_command cmd_run = {"run", "build a lab's .cu file and run it on the lab's datasets",
                             usage, run};
