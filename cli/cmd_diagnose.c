/* tilelab diagnose: run a lab's kernel on the CPU backend with every check on, and explain what
 * is wrong with it, and where. */
#include "cli.h"
#include "diagnose_program.h"
#include "ptx.h"
#include "util.h"
#include "session.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: ./tilelab diagnose LAB [--solution | --source FILE] [--libwb] [--dataset DIR] [--json]\n"
    "\n"
    "Runs the kernel once on the CPU backend, which sees every access of every thread, with the\n"
    "checks on, and prints what it found, most severe first, each with its source line, block\n"
    "and thread, once per kind and line with a count:\n"
    "  errors       out-of-bounds global, shared or local accesses; host pointers used in a\n"
    "               kernel; shared-memory races (both lines); barrier divergence; reads of\n"
    "               memory nothing wrote\n"
    "  performance  bank conflicts per shared-memory instruction (n-way, extra wavefronts),\n"
    "               32-byte sectors per request of each global instruction, and the traffic of\n"
    "               the whole kernel (FLOPs, bytes, bytes per FLOP, shared loads per FMA) next to\n"
    "               the lab's reference solution on the same dataset\n"
    "Lab 05's given baseline kernel runs too: its lines follow yours, each marked \"(the\n"
    "given baseline kernel)\"; the traffic counts your kernel's call only.\n"
    "\n"
    "A whole libwb program (its own main, wb.h or gputk.h) is captured and replayed whole, as\n"
    "run and grade do it: LAB is then a matrix lab, or a lab.json (or the folder holding it,\n"
    "examples/kit-labs/*), with --source FILE.\n"
    "\n"
    "  --libwb         FILE is a whole libwb program (found by itself when it defines main)\n"
    "  --dataset DIR   the dataset (default: a mid-size one of the lab, not a tile multiple\n"
    "                  where the lab allows it; a lab.json's: the middle one of its datasets)\n"
    "  --json          the same as one JSON document\n"
    "\n"
    "exit status: 0 no errors found, 1 errors found (or a wrong result), 2 bad input or usage,\n"
    "3 the file does not build or crashed\n";

#define SECTOR_BYTES 32.0 /* the unit global memory is fetched in */


static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

const char *diagnose_baseline_note(const cJSON *item)
{
    return cJSON_IsTrue(cJSON_GetObjectItem(item, "baseline")) ? CLI_BASELINE_LABEL : "";
}

/* `stopped`: the kernel did not run to its end (a time or instruction limit), so the checks
 * saw only part of it. */
static void print_findings(const cJSON *diag, bool stopped)
{
    int n = runner_findings_count(diag);
    if (n == 0) {
        printf("errors: none found%s\n", stopped ? " before the kernel was stopped" : "");
        return;
    }
    runner_finding f;
    bool yours = !(runner_finding_get(diag, 0, &f) && f.baseline); /* the first */
    printf("errors (%s):\n", yours ? "the run fails" : "in the given baseline kernel only");
    for (int i = 0; runner_finding_get(diag, i, &f); i++) {
        printf("  %d. %s at %s:%d", i + 1, f.kind, f.file, f.line);
        if (f.line2 > 0)
            printf(" and line %d", f.line2);
        printf(" (%.0f time%s)%s\n", f.count, f.count == 1 ? "" : "s",
               f.baseline ? CLI_BASELINE_LABEL : "");
        printf("     %s\n", f.detail);
        printf("     first seen in block (%d,%d,%d), thread (%d,%d,%d)", f.block[0], f.block[1],
               f.block[2], f.thread[0], f.thread[1], f.thread[2]);
        if (f.has_thread2)
            printf(" and thread (%d,%d,%d)", f.thread2[0], f.thread2[1], f.thread2[2]);
        char kernel[128];
        ptx_kernel_name(f.kernel, kernel, sizeof kernel);
        printf(" of kernel %s\n", kernel);
    }
}

/* The figures of every instruction, summed per source line, access kind and space: loops the
 * compiler unrolled appear once. */
typedef struct line_figures {
    const char *file, *op, *space, *kernel;
    int line;
    const char *baseline; /* diagnose_baseline_note's */
    double executions, extra, sectors, bytes, used, needed, ways;
} line_figures;

static int collect_lines(const cJSON *diag, line_figures *out, int max)
{
    int n = 0;
    const cJSON *list = cJSON_GetObjectItem(diag, "instructions");
    for (const cJSON *s = list ? list->child : NULL; s; s = s->next) {
        int line = (int)num(s, "line");
        int k = 0;
        while (k < n && !(out[k].line == line && strcmp(out[k].op, str(s, "op")) == 0 &&
                          strcmp(out[k].space, str(s, "space")) == 0 &&
                          strcmp(out[k].file, str(s, "file")) == 0 &&
                          strcmp(out[k].kernel, str(s, "kernel")) == 0 &&
                          strcmp(out[k].baseline, diagnose_baseline_note(s)) == 0))
            k++;
        if (k == n) {
            if (n == max)
                continue;
            out[n++] = (line_figures){str(s, "file"), str(s, "op"), str(s, "space"),
                                      str(s, "kernel"), line, diagnose_baseline_note(s),
                                      0, 0, 0, 0, 0, 0, 0};
        }
        out[k].executions += num(s, "executions");
        out[k].extra += num(s, "extra_wavefronts");
        out[k].sectors += num(s, "sectors");
        out[k].bytes += num(s, "bytes");
        out[k].used += num(s, "used_bytes");
        out[k].needed += num(s, "needed_sectors");
        if (num(s, "max_ways") > out[k].ways)
            out[k].ways = num(s, "max_ways");
    }
    return n;
}

/* " [kernel K]" when the same line belongs to several kernels (templates, shared helpers). */
static const char *kernel_note(const line_figures *lines, int n, int i, char *buf, size_t size)
{
    for (int k = 0; k < n; k++) {
        if (k != i && lines[k].line == lines[i].line && strcmp(lines[k].file, lines[i].file) == 0 &&
            strcmp(lines[k].kernel, lines[i].kernel) != 0) {
            char kernel[128];
            ptx_kernel_name(lines[i].kernel, kernel, sizeof kernel);
            snprintf(buf, size, " [kernel %.100s]", kernel);
            return buf;
        }
    }
    return "";
}

/* The share of the bytes a line's requests fetched (whole 32-byte sectors) that its lanes
 * asked for, a byte several lanes read counted once: at most 100. */
static double used_percent(const line_figures *l)
{
    return l->sectors > 0 ? 100.0 * l->used / (l->sectors * SECTOR_BYTES) : 0;
}

/* More than half the sectors fetched were not needed: each request's bytes used would fit in
 * less than half as many. (A broadcast of one word needs its one sector: it is not flagged.) */
static bool uncoalesced(const line_figures *l)
{
    return l->sectors > 2 * l->needed;
}

/* The lines of one space, the submission's first, then the given baseline's. */
static int line_order(const line_figures *lines, int n, const char *space, int *order)
{
    int count = 0;
    for (int baseline = 0; baseline < 2; baseline++)
        for (int i = 0; i < n; i++)
            if (strcmp(lines[i].space, space) == 0 && (lines[i].baseline[0] != '\0') == baseline)
                order[count++] = i;
    return count;
}

static void print_instructions(const cJSON *diag)
{
    enum { MAX_LINES = 256 };
    line_figures lines[MAX_LINES];
    int order[MAX_LINES];
    int n = collect_lines(diag, lines, MAX_LINES);
    char note[128];
    printf("shared-memory bank conflicts (32 banks of 4 bytes; a broadcast is free):\n");
    int shown = line_order(lines, n, "shared", order);
    for (int k = 0; k < shown; k++) {
        const line_figures *l = &lines[order[k]];
        printf("  %s:%-4d %-5s %2.0f-way worst, %.2f extra wavefronts per request (%.0f extra in "
               "%.0f requests)%s%s%s\n",
               ptx_base_name(l->file), l->line, l->op, l->ways,
               l->executions > 0 ? l->extra / l->executions : 0, l->extra, l->executions,
               kernel_note(lines, n, order[k], note, sizeof note), l->baseline,
               l->extra > 0 ? "  <- conflicts" : "");
    }
    if (!shown)
        printf("  (no shared-memory accesses)\n");
    printf("global accesses (a coalesced warp access of 4-byte values touches 4 sectors of 32 "
           "bytes; a word several lanes read is used once):\n");
    int global = line_order(lines, n, "global", order);
    for (int k = 0; k < global; k++) {
        const line_figures *l = &lines[order[k]];
        printf("  %s:%-4d %-5s %5.2f sectors per request, %5.1f%% of the bytes fetched are used "
               "(%.0f requests%s)%s%s%s\n",
               ptx_base_name(l->file), l->line, l->op,
               l->executions > 0 ? l->sectors / l->executions : 0, used_percent(l), l->executions,
               l->used < l->bytes ? "; broadcast: lanes share words" : "",
               kernel_note(lines, n, order[k], note, sizeof note), l->baseline,
               uncoalesced(l) ? "  <- uncoalesced" : "");
    }
}

static void traffic_row(const char *what, double mine, double ref, bool have_ref, int decimals)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%.*f", decimals, mine);
    snprintf(b, sizeof b, "%.*f", decimals, ref);
    printf("  %-28s %14s %14s\n", what, a, have_ref ? b : "-");
}

static void print_traffic(const cJSON *mine, const cJSON *ref)
{
    const cJSON *t = cJSON_GetObjectItem(mine, "traffic");
    const cJSON *r = ref ? cJSON_GetObjectItem(ref, "traffic") : NULL;
    bool have = r != NULL;
    double flops = num(t, "flops"), rflops = have ? num(r, "flops") : 0;
    double loads = num(t, "global_load_bytes"), rloads = have ? num(r, "global_load_bytes") : 0;
    printf("traffic of the whole kernel:     %14s %14s\n", "yours", "reference");
    traffic_row("FLOPs", flops, rflops, have, 0);
    traffic_row("global bytes loaded", loads, rloads, have, 0);
    traffic_row("global bytes stored", num(t, "global_store_bytes"),
                have ? num(r, "global_store_bytes") : 0, have, 0);
    traffic_row("global bytes loaded per FLOP", flops > 0 ? loads / flops : 0,
                rflops > 0 ? rloads / rflops : 0, have, 3);
    traffic_row("shared loads per FMA", num(t, "fmas") > 0 ? num(t, "shared_loads") / num(t, "fmas") : 0,
                have && num(r, "fmas") > 0 ? num(r, "shared_loads") / num(r, "fmas") : 0, have, 3);
}

/* What the model charged the student's launches for beyond one issue slot an instruction, in
 * the blocks it counted: a line, when there is any (docs/perfmodel.md's cost classes). */
static void print_costs(const char *counts)
{
    static const struct {
        const char *count, *what;
    } classes[] = {
        {"issue_slots", "issue cycles of expanded instructions (divisions, square roots, "
                        "64-bit integer math...)"},
        {"fp64_ops", "fp64 instructions"},
        {"xu_ops", "special-function and conversion instructions"},
        {"local_wavefronts", "local-memory lines"},
        {"atomic_sectors", "global atomic sectors"},
        {"atomic_address_max_shared", "updates of one global address by several blocks"},
        {"shared_atomic_wavefronts", "shared atomic passes"},
        {"fences_cta", "block fences"},
        {"fences_gpu", "device fences"},
        {"fences_sys", "system fences"},
        {"sleeps", "nanosleeps"},
        {"store_load_waits", "loads waiting for a store"},
        {"clock_reads", "clock reads"},
    };
    cJSON *launches = counts ? cJSON_Parse(counts) : NULL;
    char line[1024] = "";
    size_t len = 0;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        double n = 0;
        const cJSON *l;
        cJSON_ArrayForEach(l, launches) {
            if (cJSON_IsTrue(cJSON_GetObjectItem(l, "baseline")))
                continue;
            n += num(l, classes[i].count);
            if (i == 0) /* the slots beyond one an instruction */
                n -= num(l, "warp_instructions");
        }
        if (n > 0 && len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%.0f %s", len ? ", " : "",
                                    n, classes[i].what);
    }
    cJSON_Delete(launches);
    if (len)
        printf("  charged beyond one issue slot an instruction (the blocks counted): %s\n", line);
}

/* `baseline`: lab 05's given baseline kernel was predicted too (pred[1]). */
static void print_predictions(const tl_lab *lab, const runner_prediction pred[2],
                              const char *counts, bool baseline)
{
    tl_size size = session_predicted_size(lab);
    printf("predicted on an H100 at %dx%dx%d (the performance model, from these counts):\n",
           size.m, size.k, size.n);
    session_print_prediction("yours", &pred[0]);
    if (baseline)
        session_print_prediction("baseline", &pred[1]);
    print_costs(counts);
}

/* One file replayed once on the CPU backend with every check on; the findings go to `diag`.
 * With `pred`, the performance model's prediction too (pred[1]: lab 05's baseline), and its
 * counts as JSON in *counts. */
static int diagnose_file(const tl_lab *lab, const char *source, const char *dataset, bool quiet,
                         cJSON **diag, runner_result *result, runner_prediction *pred,
                         char **counts)
{
    tl_error err;
    *diag = NULL;
    memset(result, 0, sizeof *result);
    runner_loaded data;
    runner_dataset d = {.dir = dataset};
    if (runner_loaded_read(&d, &data, &err) != 0)
        return cli_fail("%s", err.msg);
    session_options so = {RUNNER_CPU, RUNNER_TOOL_REPLAY_TIMEOUT_S, 1, false, false, quiet};
    session s;
    tl_size shapes[2] = {data.shape, session_predicted_size(lab)};
    int status = TL_EXIT_OK;
    if (session_open(&s, &so, source, shapes, pred ? 2 : 1, &err) != 0) {
        status = cli_fail("diagnose: %s", err.msg);
    } else if (s.outcome.verdict != TL_VERDICT_PASS) {
        if (!quiet)
            session_print_outcome(&s, cli_shown(source));
        status = tl_verdict_exit_status(s.outcome.verdict);
    }
    char work[] = "/tmp/tilelab-diagnose-XXXXXX";
    if (status == TL_EXIT_OK && !mkdtemp(work))
        status = cli_fail("diagnose: cannot make a folder under /tmp");
    if (status != TL_EXIT_OK) {
        session_close(&s);
        runner_loaded_free(&data);
        return status;
    }
    char path[sizeof work + 16];
    snprintf(path, sizeof path, "%s/diag.json", work);
    runner_judge_opts opts = {.baseline = true, .diagnose = path};
    int rc = runner_judge(&s.config, &s.program, &s.capture, lab, &data, &opts, result, &err);
    runner_loaded_free(&data);
    char *text = rc == 0 ? files_read(path, NULL) : NULL;
    *diag = text ? cJSON_Parse(text) : NULL;
    free(text);
    files_remove_tree(work);
    /* A kernel that did not finish on the dataset would not at the prediction's size either:
     * no time is spent counting it there. */
    if (rc == 0 && pred && result->verdict == TL_VERDICT_TIMEOUT) {
        memset(pred, 0, 2 * sizeof *pred);
        snprintf(pred[0].detail, sizeof pred[0].detail, "no prediction: the kernel did not "
                 "finish on the dataset");
    } else if (rc == 0 && pred &&
               runner_predict(&s.config, &s.program, &s.capture, lab, shapes[1],
                              lab->baseline, pred, counts, &err) != 0)
        snprintf(pred[0].detail, sizeof pred[0].detail, "no prediction: %.200s", err.msg);
    session_close(&s);
    if (rc != 0)
        return cli_fail("diagnose: %s", err.msg);
    return TL_EXIT_OK;
}

/* What diagnose looks at: the lab (one of the kit's, or a lab.json's programs), the file, the
 * dataset, and whether the file is a whole libwb program. */
typedef struct target {
    runner_lab lab;
    bool whole;                 /* the file is a whole libwb program */
    const char *name;           /* the lab's, as the report names it */
    char src[PATH_MAX], ref[PATH_MAX], ds[PATH_MAX];
} target;

static int resolve(const char *lab_arg, const char *source, bool solution, bool libwb,
                   const char *dataset, target *t)
{
    memset(t, 0, sizeof *t);
    tl_error err;
    int rc = cli_lab_resolve("diagnose", lab_arg, true, &t->lab);
    if (rc != 0)
        return rc;
    const tl_lab *lab = runner_lab_matrix(&t->lab);
    if (!runner_lab_shipped(&t->lab)) {
        if (!source || solution)
            return cli_fail("diagnose: a lab described by %s has no template of tilelab's: give "
                            "the program with --source FILE", lab_arg);
        t->whole = true;
    }
    if (solution && source)
        return cli_fail("diagnose: --solution and --source are two different files; pick one");
    t->name = runner_lab_name(&t->lab);
    if (runner_lab_shipped(&t->lab))
        snprintf(t->ref, sizeof t->ref, "%.3000s/solutions/%s/solution.cu", cli_root(), t->name);
    if (source)
        snprintf(t->src, sizeof t->src, "%s", source);
    else if (solution)
        snprintf(t->src, sizeof t->src, "%s", t->ref);
    else
        snprintf(t->src, sizeof t->src, "%.3000s/labs/%s/template.cu", cli_root(), t->name);
    if (access(t->src, R_OK) != 0)
        return cli_fail("%s: cannot read the source file", cli_shown(t->src));
    t->whole = t->whole || libwb || runner_source_defines_main(t->src);
    char datasets[PATH_MAX];
    runner_lab_datasets(&t->lab, cli_root(), datasets, sizeof datasets);
    if (dataset)
        snprintf(t->ds, sizeof t->ds, "%s", dataset);
    else if (!lab && diagnose_program_dataset(&t->lab, t->ds, sizeof t->ds) != 0)
        return cli_fail("diagnose: no dataset in %s (a folder per dataset, holding %s)",
                        cli_shown(datasets), runner_lab_dataset_marker(&t->lab));
    else if (lab && !lab->diagnose_dataset)
        return cli_fail("diagnose: lab %s has no default dataset: give --dataset DIR", t->name);
    else if (lab)
        snprintf(t->ds, sizeof t->ds, "%.3000s/%s", datasets, lab->diagnose_dataset);
    if (t->whole && !diagnose_program_is_dataset(&t->lab, t->ds, &err))
        return cli_fail("%s", err.msg);
    if (!t->whole && !cli_is_dataset(t->ds))
        return cli_fail("%s: not a dataset folder (expected input0.raw, input1.raw, output.raw)",
                        cli_shown(t->ds));
    return TL_EXIT_OK;
}

static void print_json(const target *t, const runner_result *result, cJSON *mine,
                       cJSON *reference, const runner_prediction pred[2], const char *counts)
{
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "lab", t->name);
    cJSON_AddStringToObject(doc, "source", cli_shown(t->src));
    cJSON_AddStringToObject(doc, "dataset", cli_shown(t->ds));
    cJSON_AddStringToObject(doc, "graded_as", t->whole ? "program" : "lab file");
    cJSON_AddStringToObject(doc, "verdict", tl_verdict_name(result->verdict));
    cJSON_AddStringToObject(doc, "detail", result->detail);
    cJSON_AddItemToObject(doc, "diagnosis", mine);
    if (reference)
        cJSON_AddItemToObject(doc, "reference", reference);
    if (runner_lab_matrix(&t->lab)) {
        cJSON *pj = cJSON_AddObjectToObject(doc, "prediction");
        tl_size size = session_predicted_size(runner_lab_matrix(&t->lab));
        cJSON_AddNumberToObject(pj, "m", size.m);
        cJSON_AddNumberToObject(pj, "k", size.k);
        cJSON_AddNumberToObject(pj, "n", size.n);
        if (pred[0].ok) {
            cJSON_AddNumberToObject(pj, "ms", pred[0].ms);
            cJSON_AddStringToObject(pj, "bound", pm_bound_name(pred[0].bound));
            if (pred[0].slower) {
                cJSON_AddBoolToObject(pj, "slower_than", true);
                cJSON_AddStringToObject(pj, "detail", pred[0].detail);
            }
        } else {
            cJSON_AddStringToObject(pj, "detail", pred[0].detail);
        }
        if (pred[1].ok)
            cJSON_AddNumberToObject(pj, "baseline_ms", pred[1].ms);
        cJSON *launches = counts ? cJSON_Parse(counts) : NULL;
        if (launches)
            cJSON_AddItemToObject(pj, "launches", launches);
    }
    char *text = cJSON_Print(doc);
    puts(text);
    free(text);
    cJSON_Delete(doc);
}

static void print_report(const target *t, const runner_result *result, const cJSON *mine,
                         const cJSON *reference, const runner_prediction pred[2],
                         const char *counts);

/* The file replayed with every check on, beside the reference's traffic, and reported. */
static int diagnose(const target *t, bool json)
{
    const tl_lab *lab = runner_lab_matrix(&t->lab);
    cJSON *mine = NULL, *reference = NULL;
    runner_result result, ref_result;
    memset(&ref_result, 0, sizeof ref_result);
    runner_prediction pred[2];
    memset(pred, 0, sizeof pred);
    char *counts = NULL;
    int rc = t->whole
                 ? diagnose_program(&t->lab, t->src, t->ds, json, &mine, &result, pred)
                 : diagnose_file(lab, t->src, t->ds, json, &mine, &result, pred, &counts);
    if (rc != TL_EXIT_OK)
        return rc;
    /* The traffic next to the reference's: a matrix lab's, on the same dataset. */
    bool have_ref = lab && strcmp(t->src, t->ref) != 0 &&
                    diagnose_file(lab, t->ref, t->ds, true, &reference, &ref_result, NULL, NULL) ==
                        TL_EXIT_OK &&
                    reference;
    int errors = mine ? (int)num(mine, "errors") : 0;
    bool diagnosed = mine != NULL;
    if (!diagnosed) {
        char *detail = tl_text_line(result.detail, strlen(result.detail));
        printf("the replay stopped before the diagnosis could be written: %s: %s\n",
               tl_verdict_name(result.verdict), detail ? detail : "");
        free(detail);
    } else if (json) {
        print_json(t, &result, mine, reference, pred, counts); /* which takes both */
        mine = reference = NULL;
    } else {
        print_report(t, &result, mine, have_ref ? reference : NULL, pred, counts);
    }
    free(counts);
    cJSON_Delete(mine);
    cJSON_Delete(reference);
    tl_verdict v = result.verdict;
    runner_result_free(&result);
    runner_result_free(&ref_result);
    if (!diagnosed || (v != TL_VERDICT_PASS && v != TL_VERDICT_WRONG))
        return tl_verdict_exit_status(v);
    return errors > 0 || v != TL_VERDICT_PASS ? TL_EXIT_WRONG : TL_EXIT_OK;
}

static void print_report(const target *t, const runner_result *result, const cJSON *mine,
                         const cJSON *reference, const runner_prediction pred[2],
                         const char *counts)
{
    printf("diagnose %s: %s on %s, %sCPU backend with every check on\n", t->name,
           cli_shown(t->src), cli_shown(t->ds), t->whole ? "the whole libwb program, " : "");
    char *detail = tl_text_line(result->detail, strlen(result->detail));
    printf("result: %s (%s)\n", tl_verdict_name(result->verdict), detail ? detail : "");
    free(detail);
    print_findings(mine, result->verdict == TL_VERDICT_TIMEOUT);
    print_instructions(mine);
    print_traffic(mine, reference);
    const tl_lab *lab = runner_lab_matrix(&t->lab);
    if (lab)
        print_predictions(lab, pred, counts, !t->whole && lab->baseline);
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"solution", no_argument, NULL, 'S'}, {"source", required_argument, NULL, 's'},
        {"dataset", required_argument, NULL, 'd'}, {"json", no_argument, NULL, 'j'},
        {"libwb", no_argument, NULL, 'L'}, {NULL, 0, NULL, 0}};
    const char *source = NULL, *dataset = NULL;
    bool solution = false, json = false, libwb = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'S': solution = true; break;
        case 's': source = optarg; break;
        case 'd': dataset = optarg; break;
        case 'j': json = true; break;
        case 'L': libwb = true; break;
        default:
            return cli_fail("diagnose: unknown or incomplete option \"%s\" (see --help)",
                            argv[optind - 1]);
        }
    }
    if (optind + 1 != argc)
        return cli_fail("diagnose: name one lab (see ./tilelab diagnose --help)");
    target t;
    int rc = resolve(argv[optind], source, solution, libwb, dataset, &t);
    if (rc != TL_EXIT_OK)
        return rc;
    return diagnose(&t, json);
}

const cli_command cmd_diagnose = {"diagnose", "find what is wrong with a kernel, and where (CPU backend)",
                                  usage, run};
