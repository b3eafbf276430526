/* tilelab run: a lab's .cu file through the same build, capture and replay the grader uses, on
 * the lab's datasets: one line per dataset with the grader's verdict. */
#include "cli.h"
#include "output_names.h"
#include "run_conflicts.h"
#include "run_maps.h"
#include "run_program.h"
#include "run_watch.h"
#include "ptx.h"
#include "util.h"
#include "session.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DATASETS 256

static const char usage[] =
    "usage: ./tilelab run LAB [--solution | --source FILE] [--dataset DIR]... [options]\n"
    "       ./tilelab run LAB.json --source FILE [--dataset DIR]... [options]\n"
    "\n"
    "Builds a lab's .cu file and checks it on each dataset the way the grader does: the file is\n"
    "built in a sandbox, its host code is captured (it describes the work; it never sees a\n"
    "dataset), and tilelab's own replayer runs its kernels, times them and sends back every\n"
    "result, which is checked against the fp32 error bound: the first run and every timed\n"
    "repetition. One line per dataset: size, verdict, kernel time and GFLOP/s; a wrong result\n"
    "shows how many elements are wrong, the worst one and a map of which tiles of P are\n"
    "wrong; an unsafe one, what the checks found and on which lines; lab 05 also shows its\n"
    "unpadded baseline and the bank conflicts of both kernels (ncu's on a GPU when it is\n"
    "installed, the CPU backend's counters otherwise).\n"
    "\n"
    "  LAB              {labs} (or 01, 2, tiled, ...)\n"
    "  LAB.json         a lab graded as whole libwb programs: its lab.json, or the folder holding\n"
    "                   it (docs/libwb-compat.md; examples/kit-labs/*): FILE is a program with\n"
    "                   its own main, captured and replayed whole, the answer it hands to\n"
    "                   wbSolution checked by the lab's rule\n"
    "  --libwb          LAB's file is a whole libwb program (its own main, wb.h or gputk.h); a\n"
    "                   file that defines main is taken for one without it\n"
    "  (default)        run the lab's template: labs/LAB/template.cu\n"
    "  --solution       run the reference solution: solutions/LAB/solution.cu\n"
    "  --source FILE    run any file that follows the lab contract (docs/lab-contract.md);\n"
    "                   the headers beside it may be included\n"
    "  --dataset DIR    a dataset folder (repeatable; default: every shipped dataset of the lab)\n"
    "  --json           one JSON document with every dataset's result instead of lines\n"
    "  --timeout S      seconds a dataset may take before it is stopped (default 60; on the CPU\n"
    "                   backend more when the reference's work needs it, and an endless loop\n"
    "                   is stopped sooner at an instruction limit of a hundred times that work);\n"
    "                   once a dataset has timed out, each of the others gets at most 10 s\n"
    "  --fail-fast      stop at the first dataset that does not pass\n"
    "  --watch          after the run, wait for the file (or a header beside it) to be saved and\n"
    "                   run again, until Ctrl-C; builds are cached, so a save costs the run only\n"
    "  --reps N         timed repetitions of the kernel (default 10; 3 on the CPU backend)\n"
    "  --no-time        check only, do not time\n"
    "  --no-ncu         lab 05: skip the bank-conflict counts (ncu's on a GPU, when it is\n"
    "                   installed; the CPU backend's own counters otherwise)\n"
    "  --no-safety      skip the safety checks (faster; the grader runs them)\n"
    "  --backend B      gpu (the CUDA device) or cpu (the PTX interpreter, no GPU needed);\n"
    "                   default: gpu when there is a CUDA device, cpu otherwise\n"
    "  --save-outputs D write each dataset's result (tilelab binary, from the first run) into\n"
    "                   folder D, named after the dataset's folder: D/<name>.raw; datasets whose\n"
    "                   folders share a name get the folders above too (D/02-tiled-0.raw), so\n"
    "                   none replaces another; each line says where its result went\n"
    "  --report FILE    also write an HTML page: every dataset's verdict and, for a wrong or\n"
    "                   unsafe one, its causes, its map of P's tiles and its first 20 wrong\n"
    "                   elements\n"
    "  --device-debug   build the kernels with -G (unoptimised; on the CPU backend this runs\n"
    "                   the unoptimised PTX)\n"
    "  --no-sandbox     build and capture without bubblewrap (it is used when it works)\n"
    "  --build-only     build and stop\n"
    "\n"
    "On the CPU backend the kernel time is the interpreter's (emulated, not a GPU's).\n"
    "\n"
    "A wrong or unsafe result is followed by a map of P's tiles (a tile: the part of P one block\n"
    "of the launch writes, blockDim.y rows by blockDim.x columns), each shaded by the fraction of\n"
    "its elements that are wrong; for an unsafe one, P as the checked run left it. Several\n"
    "tiles share a cell when P has more than 64 across or 32 down. Colour only on a terminal\n"
    "(not with TERM=dumb or NO_COLOR set).\n"
    "\n"
    "Safety checks, as the grader runs them: each dataset of up to 2e7 multiply-adds is first\n"
    "replayed on the CPU backend with the checks of ./tilelab diagnose on, whatever the backend;\n"
    "a race, an out-of-bounds or host-pointer access, a barrier not every thread reaches, a read\n"
    "of memory nothing wrote or a read of a clock or SM id makes the dataset unsafe.\n"
    "\n"
    "Verdicts: pass, wrong, unsafe, timeout, crash, build-failed, bad-input, refused (the file asked for\n"
    "something grading does not allow, such as copying a result computed on the host),\n"
    "unsupported (the CPU backend cannot run the kernel), error (the kit failed).\n"
    "exit status: 0 every dataset passed, 1 a result is wrong, 2 bad input or usage,\n"
    "3 the file does not build, was refused, crashed or hung, 4 --backend gpu but no CUDA device\n";

enum { EXIT_NO_DEVICE = 4 };

typedef struct options {
    runner_lab lab;             /* one of the registry's, or a lab.json's (whole programs) */
    char source[PATH_MAX];
    const char *datasets[MAX_DATASETS];
    int ndatasets;
    bool json, build_only, no_time, ncu, reps_given, no_sandbox, device_debug, safety, fail_fast;
    bool watch, libwb;
    const char *lab_arg;        /* as it was named */
    int timeout, reps;
    runner_backend backend;
    bool backend_given;
    const char *save_outputs;
    const char *report;
} options;

static const struct option longopts[] = {
    {"solution", no_argument, NULL, 'S'},     {"source", required_argument, NULL, 's'},
    {"dataset", required_argument, NULL, 'd'}, {"json", no_argument, NULL, 'j'},
    {"timeout", required_argument, NULL, 't'}, {"reps", required_argument, NULL, 'r'},
    {"no-time", no_argument, NULL, 'T'},      {"no-ncu", no_argument, NULL, 'N'},
    {"build-only", no_argument, NULL, 'b'},   {"backend", required_argument, NULL, 'B'},
    {"save-outputs", required_argument, NULL, 'O'}, {"device-debug", no_argument, NULL, 'G'},
    {"no-sandbox", no_argument, NULL, 'X'},   {"no-safety", no_argument, NULL, 'C'},
    {"fail-fast", no_argument, NULL, 'F'},    {"watch", no_argument, NULL, 'W'},
    {"report", required_argument, NULL, 'R'}, {"libwb", no_argument, NULL, 'L'},
    {NULL, 0, NULL, 0}};

/* The files an option names, until the lab is known. */
typedef struct named {
    const char *source;
    bool solution;
} named;

/* One option getopt_long returned: 0, or the exit status of a bad one. */
static int parse_option(int c, char **argv, options *o, named *n)
{
    char names[RUNNER_BACKEND_NAMES_SIZE];
    switch (c) {
    case 'S': n->solution = true; break;
    case 's': n->source = optarg; break;
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
    case 'R': o->report = optarg; break;
    case 'G': o->device_debug = true; break;
    case 'X': o->no_sandbox = true; break;
    case 'C': o->safety = false; break;
    case 'F': o->fail_fast = true; break;
    case 'W': o->watch = true; break;
    case 'L': o->libwb = true; break;
    case 't':
        return cli_parse_int("--timeout", optarg, 1, 86400, &o->timeout) ? TL_EXIT_BAD_INPUT : 0;
    case 'r':
        o->reps_given = true;
        return cli_parse_int("--reps", optarg, 1, 100, &o->reps) ? TL_EXIT_BAD_INPUT : 0;
    case 'B':
        if (!runner_backend_parse(optarg, &o->backend))
            return cli_fail("--backend expects %s, got \"%s\"",
                            runner_backend_names(names, sizeof names), optarg);
        o->backend_given = true;
        break;
    default:
        return cli_fail("run: unknown or incomplete option \"%s\" (see --help)", argv[optind - 1]);
    }
    return 0;
}

static int parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->timeout = RUNNER_REPLAY_TIMEOUT_S;
    o->reps = 10;
    o->ncu = true;
    o->safety = true;
    named n = {NULL, false};
    opterr = 0;
    optind = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
        if ((rc = parse_option(c, argv, o, &n)) != 0)
            return rc;
    if (optind >= argc)
        return cli_fail("run: name a lab (see ./tilelab run --help)");
    if (optind + 1 < argc)
        return cli_fail("run: one lab at a time, got \"%s\" and \"%s\"", argv[optind],
                        argv[optind + 1]);
    if ((rc = cli_lab_resolve("run", argv[optind], true, &o->lab)) != 0)
        return rc;
    o->lab_arg = runner_lab_shipped(&o->lab) ? runner_lab_name(&o->lab) : argv[optind];
    if (!runner_lab_shipped(&o->lab)) {
        if (!n.source || n.solution)
            return cli_fail("run: a lab described by %s has no template of tilelab's: give the "
                            "program with --source FILE", argv[optind]);
    }
    if (n.solution && n.source)
        return cli_fail("run: --solution and --source are two different files; pick one");
    tl_error err;
    if (o->report && run_maps_check_report(o->report, &err) != 0)
        return cli_fail("run: %s", err.msg);
    if (n.source)
        snprintf(o->source, sizeof o->source, "%s", n.source);
    else
        snprintf(o->source, sizeof o->source, "%s/%s/%s/%s", cli_root(),
                 n.solution ? "solutions" : "labs", runner_lab_name(&o->lab),
                 n.solution ? "solution.cu" : "template.cu");
    return TL_EXIT_OK;
}

/* The shipped datasets: datasets/LAB/<i>, in numeric order. Returns how many, or -1. */
static int shipped_datasets(const runner_lab *lab, char ***out)
{
    char dir[PATH_MAX];
    runner_lab_datasets(lab, cli_root(), dir, sizeof dir);
    return run_dataset_folders(dir, runner_lab_dataset_marker(lab), true, out);
}

/* ---- one dataset's line ----------------------------------------------------------------- */

/* `emulated`: times from the CPU backend, which says nothing of the GPU's banks or memory, so
 * no "faster" ratio is drawn from them. */
static void print_line(const runner_result *r, const explanation *x, bool emulated)
{
    const runner_call_result *launch = &r->calls[CAPLOG_CALL_LAUNCH];
    printf("%-12s", tl_verdict_label(r->verdict));
    if (launch->timed && r->verdict == TL_VERDICT_PASS)
        printf(" %9.3f ms  %9.1f GFLOP/s", launch->ms.median, r->gflops);
    const runner_call_result *b = &r->calls[CAPLOG_CALL_BASELINE];
    if (b->run) {
        printf("  | baseline %s", tl_verdict_name(b->verdict));
        if (b->timed && b->verdict == TL_VERDICT_PASS) {
            printf(" %.3f ms", b->ms.median);
            if (launch->timed && launch->ms.median > 0 && r->verdict == TL_VERDICT_PASS &&
                !emulated)
                printf(" (yours is %.2fx faster)", b->ms.median / launch->ms.median);
        }
    }
    putchar('\n');
    if (r->verdict != TL_VERDICT_PASS)
        explain_print_detail(stdout, x, "        ");
}

static void print_kernel_output(const runner_result *r)
{
    if (!r->kernel_output || !r->kernel_output[0])
        return;
    char *inert = tl_text_terminal(r->kernel_output, strlen(r->kernel_output));
    printf("        the kernels printed:\n");
    for (char *save = NULL, *line = strtok_r(inert, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save))
        printf("        | %s\n", line);
    free(inert);
}

/* ---- one run's state -------------------------------------------------------------------- */

/* One run of the command, from its datasets to its summary (a --watch loop starts afresh). */
typedef struct run_state {
    options o;
    session s;
    bool opened;               /* s needs session_close */
    run_maps *maps;
    runner_loaded data[MAX_DATASETS]; /* each dataset read once: shape, inputs, reference */
    int nloaded;
    char names[MAX_DATASETS][OUTPUT_NAME_MAX];
    char device[256];
    bool gpu, predict, ncu, counted;
    cJSON *runs;               /* --json: every dataset's result */
    tl_verdict worst;
    int passed, ran, first_unsafe;
    char first_detail[sizeof ((runner_result *)0)->detail];
    char **shipped;
    int nshipped;
} run_state;

/* ---- the CPU backend explains a failure --------------------------------------------------- */

static void print_diagnosis(run_state *st, const runner_loaded *d, const runner_result *r,
                            const char *text)
{
    if (!text)
        return;
    explanation causes;
    explain_result(&causes, r, text);
    explain_print_causes(stdout, &causes, "        ");
    run_maps_causes(st->maps, &causes);
    if (causes.findings > 0)
        printf("        (./tilelab diagnose %s --source %s --dataset %s for the whole "
               "report)\n", runner_lab_name(&st->o.lab), cli_shown(st->o.source),
               cli_shown(d->from.dir));
    explain_free(&causes);
}

/* The causes the checks found: those of the safety checks that made the dataset unsafe (on any
 * backend), else from a replay with the checks on, here (CPU backend). */
static void print_causes(run_state *st, const runner_loaded *d, const runner_result *result)
{
    if (result->diagnosis) {
        print_diagnosis(st, d, result, result->diagnosis);
        return;
    }
    if (st->o.backend != RUNNER_CPU)
        return;
    char work[] = "/tmp/tilelab-why-XXXXXX";
    if (!mkdtemp(work))
        return;
    char path[sizeof work + 16];
    snprintf(path, sizeof path, "%s/diag.json", work);
    runner_judge_opts opts = {.diagnose = path};
    runner_result r;
    tl_error err;
    const session *s = &st->s;
    if (runner_judge(&s->config, &s->program, &s->capture, runner_lab_matrix(&st->o.lab), d,
                     &opts, &r, &err) == 0) {
        char *text = files_read(path, NULL);
        print_diagnosis(st, d, result, text);
        free(text);
    }
    runner_result_free(&r);
    files_remove_tree(work);
}

/* ---- before the first dataset ------------------------------------------------------------- */

/* The backend, the repetitions and the datasets where none were named: the shipped ones. */
static int choose(run_state *st)
{
    options *o = &st->o;
    st->gpu = runner_backend_default(&o->backend, o->backend_given, st->device,
                                     sizeof st->device);
    if (!o->reps_given)
        o->reps = runner_backend_about(o->backend)->reps;
    if (access(o->source, R_OK) != 0)
        return cli_fail("%s: cannot read the source file", cli_shown(o->source));
    if (o->ndatasets > 0)
        return TL_EXIT_OK;
    st->nshipped = shipped_datasets(&o->lab, &st->shipped);
    if (st->nshipped <= 0)
        return cli_fail("run: no datasets in datasets/%s (make them with ./tilelab datasets %s)",
                        runner_lab_name(&o->lab), runner_lab_name(&o->lab));
    for (int i = 0; i < st->nshipped && i < MAX_DATASETS; i++)
        o->datasets[o->ndatasets++] = st->shipped[i];
    return TL_EXIT_OK;
}

/* Every dataset read once, before the build: a bad one stops the run with its error. */
static int load_datasets(run_state *st)
{
    for (int i = 0; i < st->o.ndatasets; i++) {
        tl_error err;
        const char *dir = st->o.datasets[i];
        if (!cli_is_dataset(dir))
            return cli_fail("%s: not a dataset folder (expected input0.raw, input1.raw, "
                            "output.raw in it)", cli_shown(dir));
        runner_dataset d = {.dir = dir};
        if (runner_loaded_read(&d, &st->data[i], &err) != 0)
            return cli_fail("%s", err.msg);
        st->nloaded = i + 1;
    }
    return TL_EXIT_OK;
}

/* The build and the capture, for every dataset's shape. Returns -1 when the run ends here,
 * with its exit status in *status. */
static int open_session(run_state *st, int *status)
{
    const options *o = &st->o;
    if (o->backend == RUNNER_GPU && !st->gpu && !o->build_only) {
        fprintf(stderr, "tilelab: --backend gpu needs a CUDA device and there is none here [%s]; "
                        "--backend cpu runs the kernels in the PTX interpreter\n", st->device);
        *status = EXIT_NO_DEVICE;
        return -1;
    }
    session_options so = {o->backend, o->timeout, o->reps, o->device_debug, o->no_sandbox, false};
    tl_size shapes[MAX_DATASETS + 1];
    for (int i = 0; i < o->ndatasets; i++)
        shapes[i] = st->data[i].shape;
    /* The capture also covers the size the model predicts at (CPU backend, timed runs). */
    st->predict = o->backend == RUNNER_CPU && !o->no_time && !o->json;
    int nshapes = o->ndatasets;
    if (st->predict)
        shapes[nshapes++] = session_predicted_size(runner_lab_matrix(&o->lab));
    tl_error err;
    st->opened = true;
    if (session_open(&st->s, &so, o->source, shapes, o->build_only ? 0 : nshapes, &err) != 0) {
        *status = cli_fail("run: %s", err.msg);
        return -1;
    }
    if (st->s.outcome.verdict == TL_VERDICT_PASS && !o->build_only)
        return 0;
    *status = tl_verdict_exit_status(st->s.outcome.verdict);
    if (st->s.outcome.verdict != TL_VERDICT_PASS)
        session_print_outcome(&st->s, cli_shown(o->source));
    return -1;
}

/* Where results and maps go, and the first line. */
static int open_outputs(run_state *st)
{
    const options *o = &st->o;
    if (o->save_outputs && mkdir(o->save_outputs, 0777) != 0 && errno != EEXIST)
        return cli_fail("--save-outputs: cannot create %s: %s", o->save_outputs, strerror(errno));
    tl_error err;
    st->maps = run_maps_open(o->report, !o->json, &err);
    if (!st->maps)
        return cli_fail("run: %s", err.msg);
    output_names(o->datasets, o->ndatasets, st->names);
    if (o->backend == RUNNER_CPU)
        snprintf(st->device, sizeof st->device,
                 "the CPU backend (PTX interpreter; times are emulated)");
    bool conflicts = runner_lab_matrix(&o->lab)->bank_conflicts;
    st->ncu = o->ncu && !o->json && o->backend == RUNNER_GPU && conflicts && run_have_ncu();
    st->counted = o->ncu && !o->json && o->backend == RUNNER_CPU && conflicts;
    st->runs = cJSON_CreateArray();
    st->first_unsafe = -1;
    if (!o->json)
        printf("%s on %s, %d dataset(s)\n", cli_shown(o->source), st->device, o->ndatasets);
    return TL_EXIT_OK;
}

/* ---- one dataset -------------------------------------------------------------------------- */

/* A wrong or unsafe dataset's map, causes and lab 05's conflicts, below its line. */
static void print_dataset(run_state *st, int i, const char *save, const runner_result *r,
                          explanation *x)
{
    const options *o = &st->o;
    const runner_loaded *d = &st->data[i];
    print_line(r, x, o->backend == RUNNER_CPU);
    if (o->save_outputs)
        printf("        %s %s\n", access(save, F_OK) == 0 ? "result saved to" : "no result for",
               save);
    print_kernel_output(r);
    /* The same finding again (a missing barrier fails every dataset): said once. */
    bool unsafe = r->verdict == TL_VERDICT_UNSAFE;
    bool again = unsafe && st->first_unsafe >= 0 &&
                 explain_same_finding(r->detail, st->first_detail);
    if (unsafe && st->first_unsafe < 0) {
        st->first_unsafe = i;
        snprintf(st->first_detail, sizeof st->first_detail, "%s", r->detail);
    }
    if (again)
        printf("        the same finding as %s: its map and causes are above\n",
               cli_shown(o->datasets[st->first_unsafe]));
    run_maps_dataset(st->maps, d, r, x, &st->s.capture.log, !again);
    if (st->ncu)
        run_ncu_conflicts(&st->s, runner_lab_matrix(&o->lab), d);
    if (st->counted && r->verdict == TL_VERDICT_PASS)
        run_counted_conflicts(&st->s, runner_lab_matrix(&o->lab), d);
    bool explained = r->verdict == TL_VERDICT_WRONG || r->verdict == TL_VERDICT_CRASH || unsafe;
    if (!again && (r->diagnosis || (o->backend == RUNNER_CPU && explained)))
        print_causes(st, d, r);
    else if (!again && unsafe)
        printf("        (./tilelab diagnose %s --source %s --dataset %s for the whole report)\n",
               runner_lab_name(&o->lab), cli_shown(o->source), cli_shown(d->from.dir));
}

static void json_dataset(run_state *st, int i, const char *save, const runner_result *r,
                         explanation *x)
{
    const char *shown = cli_shown(st->o.datasets[i]);
    run_maps_dataset(st->maps, &st->data[i], r, x, &st->s.capture.log, false);
    if (st->o.save_outputs && access(save, F_OK) == 0)
        fprintf(stderr, "tilelab: %s: result saved to %s\n", shown, save);
    cJSON *one = runner_result_json(r, shown);
    cJSON_AddItemToArray(st->runs, one ? one : cJSON_CreateNull());
}

/* The dataset judged as the grader judges it (runner_judge), then shown. */
static void run_dataset(run_state *st, int i)
{
    const options *o = &st->o;
    char save[PATH_MAX + OUTPUT_NAME_MAX + 8];
    snprintf(save, sizeof save, "%.3000s/%.*s.raw", o->save_outputs ? o->save_outputs : "",
             (int)OUTPUT_NAME_MAX, st->names[i]);
    const char *saved = run_maps_next(st->maps, o->save_outputs ? save : NULL);
    tl_size shape = st->data[i].shape;
    char size[48];
    snprintf(size, sizeof size, "%dx%dx%d", shape.m, shape.k, shape.n);
    if (!o->json)
        printf("  %-28s %-16s ", cli_shown(o->datasets[i]), size);
    fflush(stdout);
    runner_judge_opts opts = {.safety = o->safety, .time = !o->no_time, .baseline = true,
                              .save_output = saved};
    runner_result r;
    tl_error err;
    if (runner_judge(&st->s.config, &st->s.program, &st->s.capture, runner_lab_matrix(&o->lab),
                     &st->data[i], &opts, &r, &err) != 0)
        r.verdict = TL_VERDICT_ERROR;
    explanation x;
    explain_result(&x, &r, NULL);
    if (o->json)
        json_dataset(st, i, save, &r, &x);
    else
        print_dataset(st, i, save, &r, &x);
    explain_free(&x);
    st->passed += r.verdict == TL_VERDICT_PASS;
    st->worst = tl_verdict_worst(st->worst, r.verdict);
    if (r.verdict == TL_VERDICT_TIMEOUT && i + 1 < o->ndatasets && !o->fail_fast &&
        runner_config_after_timeout(&st->s.config) && !o->json)
        printf("        (a dataset timed out: each of the others gets at most %d s, unless "
               "its work needs more on the CPU backend)\n", RUNNER_TIMEOUT_AFTER_A_TIMEOUT_S);
    runner_result_free(&r);
    fflush(stdout);
}

/* ---- after the last dataset --------------------------------------------------------------- */

static void print_json(run_state *st)
{
    const options *o = &st->o;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "lab", runner_lab_name(&o->lab));
    cJSON_AddStringToObject(doc, "source", cli_shown(o->source));
    cJSON_AddStringToObject(doc, "device", st->device);
    cJSON_AddStringToObject(doc, "backend", runner_backend_name(o->backend));
    cJSON_AddStringToObject(doc, "verdict", tl_verdict_name(st->worst));
    cJSON_AddNumberToObject(doc, "passed", st->passed);
    cJSON_AddNumberToObject(doc, "failed", st->ran - st->passed);
    cJSON_AddNumberToObject(doc, "not_run", o->ndatasets - st->ran);
    cJSON_AddItemToObject(doc, "runs", st->runs);
    st->runs = NULL;
    char *text = cJSON_Print(doc);
    puts(text);
    free(text);
    cJSON_Delete(doc);
}

static void print_summary(run_state *st)
{
    const options *o = &st->o;
    printf("%d passed, %d failed", st->passed, st->ran - st->passed);
    if (st->ran < o->ndatasets)
        printf(", %d not run (--fail-fast)", o->ndatasets - st->ran);
    putchar('\n');
    if (st->predict && st->worst == TL_VERDICT_PASS)
        session_print_predictions(&st->s, runner_lab_matrix(&o->lab));
}

static int finish(run_state *st)
{
    const options *o = &st->o;
    if (o->json)
        print_json(st);
    else
        print_summary(st);
    int status = tl_verdict_exit_status(st->worst);
    tl_error err;
    if (run_maps_close(st->maps, runner_lab_name(&o->lab), cli_shown(o->source), st->device,
                       &err) != 0)
        status = cli_fail("run: %s", err.msg);
    else if (o->report)
        fprintf(stderr, "report: %s\n", o->report);
    return status;
}

static void run_state_free(run_state *st)
{
    for (int i = 0; i < st->nloaded; i++)
        runner_loaded_free(&st->data[i]);
    for (int i = 0; i < st->nshipped; i++)
        free(st->shipped[i]);
    free(st->shipped);
    cJSON_Delete(st->runs);
    if (st->opened)
        session_close(&st->s);
    free(st);
}

/* ---- the command ------------------------------------------------------------------------- */

static void run_datasets(run_state *st)
{
    for (int i = 0; i < st->o.ndatasets; i++) {
        if (st->o.fail_fast && st->worst != TL_VERDICT_PASS)
            break;
        st->ran++;
        run_dataset(st, i);
    }
}

/* One run of the command: a copy of the options, so a --watch loop starts afresh each time. */
static int run_once(void *ctx)
{
    run_state *st = calloc(1, sizeof *st);
    if (!st)
        return cli_fail("run: out of memory");
    st->o = *(const options *)ctx;
    int status = choose(st);
    if (status == TL_EXIT_OK)
        status = load_datasets(st);
    if (status == TL_EXIT_OK && open_session(st, &status) == 0 &&
        (status = open_outputs(st)) == TL_EXIT_OK) {
        run_datasets(st);
        status = finish(st);
    }
    run_state_free(st);
    return status;
}

/* A whole libwb program: a described lab's, or a matrix lab's file with its own main. */
static int run_whole_program(options *o)
{
    if (o->watch || o->report || o->save_outputs)
        return cli_fail("run: --watch, --report and --save-outputs are for lab files; a whole "
                        "libwb program is checked dataset by dataset");
    char datasets[PATH_MAX];
    runner_lab_datasets(&o->lab, cli_root(), datasets, sizeof datasets);
    run_program_options po = {.lab_arg = o->lab_arg, .source = o->source,
                              .datasets = o->datasets, .ndatasets = o->ndatasets,
                              .backend = o->backend, .backend_given = o->backend_given,
                              .timeout = o->timeout, .reps = o->reps, .reps_given = o->reps_given,
                              .json = o->json, .no_time = o->no_time, .no_sandbox = o->no_sandbox,
                              .device_debug = o->device_debug, .build_only = o->build_only,
                              .fail_fast = o->fail_fast, .safety = o->safety};
    runner_lab_whole(&o->lab, datasets, &po.lab);
    return run_program(&po);
}

static int run(int argc, char **argv)
{
    options o;
    int rc = parse(argc, argv, &o);
    if (rc != TL_EXIT_OK)
        return rc;
    if (!runner_lab_shipped(&o.lab) || o.libwb || runner_source_defines_main(o.source))
        return run_whole_program(&o);
    if (o.watch && o.json)
        return cli_fail("run: --watch is for a person at a terminal; --json is for programs");
    return o.watch ? run_watch(o.source, run_once, &o) : run_once(&o);
}

const cli_command cmd_run = {"run", "build a lab's .cu file and check it as the grader does",
                             usage, run};
