/* bench steps: lab 06's numbered steps, from lab 05's padded kernel (step 0) through
 * solutions/06-challenge/steps/N-*.cu to the lab's reference solution, measured one after the
 * other on the same sizes. On a GPU: each step's time next to cuBLAS from the same process, and
 * ncu's counters when ncu is installed. Without one: the CPU backend's counters and the
 * performance model's H100 time. The table, as TSV too, and a roofline picture. */
#include "bench_steps.h"

#include "bench_lab.h"
#include "report.h"
#include "cli.h"
#include "run_conflicts.h"
#include "util.h"
#include "session.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_STEPS 16
#define STEPS_REPLAY_TIMEOUT_S 600
#define COUNTS_SIZE_GPU 2048 /* ncu's dataset: big enough for every SM, quick to profile */
#define COUNTS_SIZE_CPU 256  /* the interpreter's: every block run with the checks on */
#define NCU_OUTPUT_SHOWN 600 /* characters of ncu's output shown when it has no counters */

/* The roofs: NVIDIA's H100 SXM5 datasheet, FP32 (not tensor cores) and HBM3 bandwidth. */
#define H100_FP32_GFLOPS 67e3
#define H100_HBM_GBS 3350.0

static const char ncu_metrics[] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
                                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
                                  "dram__bytes_read.sum,dram__bytes_write.sum,"
                                  "sm__warps_active.avg.pct_of_peak_sustained_active,"
                                  "launch__registers_per_thread,"
                                  "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active";

typedef struct step {
    char name[64];
    char source[PATH_MAX];
    char check[24];   /* the verdict: of the timed run (GPU) or on the counters' dataset (CPU) */
    bench_timing t;   /* GPU, at size^3 */
    bool timed, counted;
    /* at counts_size^3: ncu's counters, or the CPU backend's */
    double ld_conflicts, st_conflicts, registers;
    double dram_bytes, occupancy_pct, fma_pct;
    double warp_instructions, shared_wavefronts, global_wavefronts, l2_bytes;
    runner_prediction pred; /* CPU backend, at size^3 */
} step;

/* ---- the steps ---------------------------------------------------------------------------- */

static bool is_step_file(const char *name)
{
    size_t len = strlen(name);
    return isdigit((unsigned char)name[0]) && len > 3 && strcmp(name + len - 3, ".cu") == 0;
}

static void add_step(step *steps, int *n, const char *name, const char *source)
{
    step *s = &steps[(*n)++];
    memset(s, 0, sizeof *s);
    snprintf(s->name, sizeof s->name, "%s", name);
    snprintf(s->source, sizeof s->source, "%.2000s/%.2000s", cli_root(), source);
    snprintf(s->check, sizeof s->check, "-");
}

static bool has_steps(const tl_lab *lab) { return lab->steps; }
static bool has_steps_contract(const tl_lab *lab) { return lab->steps_contract; }
static bool has_padded_kernel(const tl_lab *lab) { return lab->bank_conflicts; }

/* The first lab of the registry `has` says yes to, or NULL. */
static const tl_lab *first_lab(bool (*has)(const tl_lab *))
{
    int nlabs = 0;
    const tl_lab *labs = tl_labs(&nlabs);
    for (int i = 0; i < nlabs; i++)
        if (has(&labs[i]))
            return &labs[i];
    return NULL;
}

/* The lab whose steps these are (lab 06); the steps follow its contract, which is lab 04's: where
 * no lab has steps, the lab of that contract stands for it. */
static const tl_lab *steps_lab(void)
{
    const tl_lab *lab = first_lab(has_steps);
    return lab ? lab : first_lab(has_steps_contract);
}

/* Step 0 (lab 05's padded kernel), the files of the steps folder (solutions/LAB/steps) in the
 * order of their numbers, and LAB's reference solution when there is one. Returns the count, or
 * -1 with err. */
static int find_steps(const tl_lab *lab, step *steps, tl_error *err)
{
    int n = 0;
    char steps_dir[512], source[1024]; /* under the root, named by ids */
    const tl_lab *padded = first_lab(has_padded_kernel);
    if (padded) {
        snprintf(source, sizeof source, "solutions/%s/solution.cu", padded->id);
        add_step(steps, &n, "0-lab05-padded", source);
    }
    snprintf(steps_dir, sizeof steps_dir, "solutions/%s/steps", lab->id);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.3000s/%s", cli_root(), steps_dir);
    struct dirent **list = NULL;
    int count = scandir(dir, &list, NULL, alphasort);
    if (count < 0)
        return tl_error_set(err, "%s: cannot list the steps", dir);
    const char *files[MAX_STEPS];
    int nfiles = 0;
    for (int i = 0; i < count; i++) {
        if (is_step_file(list[i]->d_name) && nfiles < MAX_STEPS - 2) {
            int at = nfiles++; /* by number: 10-x after 9-x */
            while (at > 0 && atoi(files[at - 1]) > atoi(list[i]->d_name)) {
                files[at] = files[at - 1];
                at--;
            }
            files[at] = list[i]->d_name;
        }
    }
    for (int i = 0; i < nfiles; i++) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(files[i]) - 3), files[i]);
        snprintf(source, sizeof source, "%s/%s", steps_dir, files[i]);
        add_step(steps, &n, name, source);
    }
    for (int i = 0; i < count; i++)
        free(list[i]);
    free(list);
    if (nfiles == 0)
        return tl_error_set(err, "%s: no step files (N-name.cu)", dir);
    char last[PATH_MAX];
    snprintf(source, sizeof source, "solutions/%s/solution.cu", lab->id);
    snprintf(last, sizeof last, "%.3000s/%s", cli_root(), source);
    struct stat st;
    if (stat(last, &st) == 0 && S_ISREG(st.st_mode)) {
        char name[64];
        snprintf(name, sizeof name, "%d-solution", n);
        add_step(steps, &n, name, source);
    }
    return n;
}

/* ---- measuring ----------------------------------------------------------------------------- */

static tl_size cube(int n) { return (tl_size){n, n, n}; }

/* Builds and captures a step for the shapes; false (the step's check says why) when that did
 * not work. */
static bool open_step(step *s, runner_backend backend, const tl_size *shapes, int nshapes,
                      session *ss)
{
    session_options so = {backend, STEPS_REPLAY_TIMEOUT_S, 1, false, false, true};
    tl_error err;
    if (session_open(ss, &so, s->source, shapes, nshapes, &err) != 0) {
        fprintf(stderr, "bench steps: %s: %s\n", s->name, err.msg);
        snprintf(s->check, sizeof s->check, "error");
        session_close(ss);
        return false;
    }
    if (ss->outcome.verdict != TL_VERDICT_PASS) {
        session_print_outcome(ss, cli_shown(s->source));
        snprintf(s->check, sizeof s->check, "%s", tl_verdict_name(ss->outcome.verdict));
        session_close(ss);
        return false;
    }
    return true;
}

/* The interpreter's counts of a whole run on the dataset: bank conflicts as ncu defines them
 * (shared wavefronts past the first), and what the performance model is fed. */
static void read_counts(const cJSON *diag, step *s)
{
    const cJSON *in;
    cJSON_ArrayForEach(in, cJSON_GetObjectItem(diag, "instructions")) {
        const cJSON *extra = cJSON_GetObjectItem(in, "extra_wavefronts");
        const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(in, "op"));
        if (!cJSON_IsNumber(extra) || !op)
            continue;
        if (strcmp(op, "load") == 0)
            s->ld_conflicts += extra->valuedouble;
        else
            s->st_conflicts += extra->valuedouble;
    }
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(diag, "launch_counts")) {
        s->warp_instructions += cJSON_GetNumberValue(cJSON_GetObjectItem(l, "warp_instructions"));
        s->shared_wavefronts += cJSON_GetNumberValue(cJSON_GetObjectItem(l, "shared_wavefronts"));
        s->global_wavefronts += cJSON_GetNumberValue(cJSON_GetObjectItem(l, "global_wavefronts"));
        s->l2_bytes += 32 * cJSON_GetNumberValue(cJSON_GetObjectItem(l, "l2_sectors"));
    }
    s->counted = true;
}

static void measure_cpu(const tl_lab *lab, tl_size counts, tl_size size, step *s)
{
    tl_size shapes[2] = {counts, size};
    session ss;
    if (!open_step(s, RUNNER_CPU, shapes, 2, &ss))
        return;
    char work[] = "/tmp/tilelab-steps-XXXXXX";
    tl_error err;
    if (mkdtemp(work)) {
        char path[sizeof work + 16];
        snprintf(path, sizeof path, "%s/diag.json", work);
        runner_dataset d = {.generated = true, .seed = RUNNER_MODEL_SEED, .size = counts};
        runner_replay_opts opts = {.time = false, .diagnose = path};
        runner_result r;
        if (runner_replay(&ss.config, &ss.program, &ss.capture, lab, &d, &opts, &r, &err) == 0) {
            snprintf(s->check, sizeof s->check, "%s", tl_verdict_name(r.verdict));
            char *text = files_read(path, NULL);
            cJSON *diag = text ? cJSON_Parse(text) : NULL;
            if (diag)
                read_counts(diag, s);
            cJSON_Delete(diag);
            free(text);
            runner_result_free(&r);
        } else {
            fprintf(stderr, "bench steps: %s: %s\n", s->name, err.msg);
        }
        files_remove_tree(work);
    }
    runner_prediction pred[2];
    if (runner_predict(&ss.config, &ss.program, &ss.capture, lab, size, false, pred, NULL,
                       &err) == 0)
        s->pred = pred[0];
    else
        snprintf(s->pred.detail, sizeof s->pred.detail, "%.200s", err.msg);
    if (!s->pred.ok)
        fprintf(stderr, "bench steps: %s: no prediction: %s\n", s->name, s->pred.detail);
    session_close(&ss);
}

/* One row of ncu's CSV into the step: counts add up over the step's launches; rates and
 * registers keep the largest. */
static void add_metric(const ncu_row *r, void *ctx)
{
    step *s = ctx;
    static const struct {
        const char *metric;
        size_t offset;
        bool sum;
    } wanted[] = {
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", offsetof(step, ld_conflicts), true},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", offsetof(step, st_conflicts), true},
        {"dram__bytes_read.sum", offsetof(step, dram_bytes), true},
        {"dram__bytes_write.sum", offsetof(step, dram_bytes), true},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", offsetof(step, occupancy_pct), false},
        {"launch__registers_per_thread", offsetof(step, registers), false},
        {"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", offsetof(step, fma_pct), false},
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        if (strcmp(r->metric, wanted[i].metric) != 0)
            continue;
        double *v = (double *)((char *)s + wanted[i].offset);
        *v = wanted[i].sum ? *v + r->value : (r->value > *v ? r->value : *v);
        s->counted = true;
    }
}

static void measure_gpu(const tl_lab *lab, const char *dataset, tl_size counts, int reps,
                        bool ncu, step *s)
{
    if (bench_time_on_gpu(s->name, s->source, dataset, reps, &s->t) == 0) {
        s->timed = true;
        snprintf(s->check, sizeof s->check, "%s", s->t.verdict);
    }
    session ss;
    if (!ncu || !open_step(s, RUNNER_GPU, &counts, 1, &ss))
        return;
    char *wrapper[] = {"ncu", "--csv", "--print-units", "base", "--clock-control", "none",
                       "--metrics", (char *)ncu_metrics, NULL};
    runner_dataset d = {.generated = true, .seed = RUNNER_MODEL_SEED, .size = counts};
    runner_replay_opts opts = {.time = false, .wrapper = wrapper};
    runner_result r;
    tl_error err;
    if (runner_replay(&ss.config, &ss.program, &ss.capture, lab, &d, &opts, &r, &err) == 0) {
        char *shown = r.kernel_output ? strdup(r.kernel_output) : NULL;
        if (!r.kernel_output || ncu_csv_rows(r.kernel_output, add_metric, s) < 0)
            fprintf(stderr, "bench steps: %s: no counters in ncu's output:\n%.*s\n", s->name,
                    NCU_OUTPUT_SHOWN, shown ? shown : "(none)");
        free(shown);
        runner_result_free(&r);
    } else {
        fprintf(stderr, "bench steps: %s: %s\n", s->name, err.msg);
    }
    session_close(&ss);
}

/* ---- the table ----------------------------------------------------------------------------- */

typedef enum field {
    F_NAME, F_CHECK, F_MS, F_GFLOPS, F_CUBLAS_PCT, F_SPEEDUP, F_LD, F_ST, F_DRAM_MB,
    F_OCCUPANCY, F_REGISTERS, F_FMA, F_WARP_INSTR, F_SHARED_WF, F_GLOBAL_WF, F_L2_MB,
    F_BLOCKS_PER_SM, F_BOUND
} field;

typedef struct column {
    field f;
    const char *head;
    int width, decimals;
} column;

static const column gpu_columns[] = {
    {F_NAME, "step", 20, 0},       {F_CHECK, "check", 6, 0},     {F_MS, "ms", 9, 3},
    {F_GFLOPS, "GFLOP/s", 9, 0},   {F_CUBLAS_PCT, "%cuBLAS", 8, 1},
    {F_SPEEDUP, "x step0", 8, 2},  {F_LD, "ld-confl", 11, 0},    {F_ST, "st-confl", 11, 0},
    {F_DRAM_MB, "DRAM-MB", 9, 1},  {F_OCCUPANCY, "occup%", 7, 1}, {F_REGISTERS, "regs", 5, 0},
    {F_FMA, "FMA%", 6, 1},
};
static const column cpu_columns[] = {
    {F_NAME, "step", 20, 0},          {F_CHECK, "check", 6, 0},
    {F_LD, "ld-confl", 10, 0},        {F_ST, "st-confl", 10, 0},
    {F_SHARED_WF, "shared-wf", 10, 0}, {F_GLOBAL_WF, "global-wf", 10, 0},
    {F_L2_MB, "L2-MB", 8, 2},         {F_WARP_INSTR, "warp-instr", 11, 0},
    {F_REGISTERS, "regs", 5, 0},      {F_BLOCKS_PER_SM, "blk/SM", 6, 0},
    {F_MS, "pred-ms", 9, 3},          {F_GFLOPS, "GFLOP/s", 9, 0},
    {F_SPEEDUP, "x step0", 8, 2},     {F_BOUND, "bound", 0, 0},
};

/* Short names of the model's bounds, for a column. */
static const char *const bound_names[PM_BOUND_COUNT] = {
    [PM_BOUND_ISSUE] = "issue", [PM_BOUND_FP64] = "fp64", [PM_BOUND_XU] = "XU",
    [PM_BOUND_LSU] = "LSU", [PM_BOUND_L2] = "L2", [PM_BOUND_DRAM] = "DRAM",
    [PM_BOUND_ATOMIC] = "atomics", [PM_BOUND_WAIT] = "waits", [PM_BOUND_LAUNCH] = "launch"};

/* A step's figure for a column; false when it has none. `base`: step 0. */
static bool value_of(const step *s, const step *base, bool gpu, field f, double *v)
{
    double ms = gpu ? (s->timed ? s->t.ms : 0) : (s->pred.ok ? s->pred.ms : 0);
    double base_ms = gpu ? (base->timed ? base->t.ms : 0) : (base->pred.ok ? base->pred.ms : 0);
    switch (f) {
    case F_MS: *v = ms; return ms > 0;
    case F_GFLOPS: *v = gpu ? s->t.gflops : s->pred.gflops; return ms > 0;
    case F_CUBLAS_PCT: *v = 100 * s->t.gflops / s->t.cublas_gflops; return s->t.cublas_gflops > 0;
    case F_SPEEDUP: *v = base_ms / ms; return ms > 0 && base_ms > 0;
    case F_LD: *v = s->ld_conflicts; return s->counted;
    case F_ST: *v = s->st_conflicts; return s->counted;
    case F_DRAM_MB: *v = s->dram_bytes / 1e6; return s->counted;
    case F_OCCUPANCY: *v = s->occupancy_pct; return s->counted;
    case F_REGISTERS: *v = gpu ? s->registers : s->pred.registers;
                      return gpu ? s->counted : s->pred.ok;
    case F_FMA: *v = s->fma_pct; return s->counted;
    case F_WARP_INSTR: *v = s->warp_instructions; return s->counted;
    case F_SHARED_WF: *v = s->shared_wavefronts; return s->counted;
    case F_GLOBAL_WF: *v = s->global_wavefronts; return s->counted;
    case F_L2_MB: *v = s->l2_bytes / 1e6; return s->counted;
    case F_BLOCKS_PER_SM: *v = s->pred.blocks_per_sm; return s->pred.ok;
    default: return false;
    }
}

static void cell(FILE *f, bool tsv, bool first, int width, const char *text)
{
    if (tsv)
        fprintf(f, "%s%s", first ? "" : "\t", text);
    else
        fprintf(f, first ? "  %-*s" : " %*s", width, text);
}

static void print_header(FILE *f, bool tsv, const column *cols, int n)
{
    for (int i = 0; i < n; i++)
        cell(f, tsv, i == 0, cols[i].width, cols[i].head);
    fputc('\n', f);
}

static void print_row(FILE *f, bool tsv, const column *cols, int n, const step *s,
                      const step *base, bool gpu)
{
    for (int i = 0; i < n; i++) {
        char text[80] = "";
        double v;
        if (cols[i].f == F_NAME)
            snprintf(text, sizeof text, "%s", s->name);
        else if (cols[i].f == F_CHECK)
            snprintf(text, sizeof text, "%s", s->check);
        else if (cols[i].f == F_BOUND)
            snprintf(text, sizeof text, "%s", s->pred.ok ? bound_names[s->pred.bound] : "");
        else if (value_of(s, base, gpu, cols[i].f, &v))
            snprintf(text, sizeof text, "%.*f", cols[i].decimals, v);
        else
            snprintf(text, sizeof text, "%s", tsv ? "" : "-");
        cell(f, tsv, i == 0, cols[i].width, text);
    }
    fputc('\n', f);
}

/* The median of the cuBLAS figures the steps' processes measured: one row for cuBLAS. */
static step cublas_row(const step *steps, int n)
{
    double ms[MAX_STEPS], gflops[MAX_STEPS];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (steps[i].timed && steps[i].t.cublas_ms > 0) {
            ms[m] = steps[i].t.cublas_ms;
            gflops[m++] = steps[i].t.cublas_gflops;
        }
    step c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "cuBLAS");
    snprintf(c.check, sizeof c.check, "-");
    if (m > 0) {
        tl_stats s_ms, s_gflops;
        tl_stats_compute(ms, m, &s_ms);
        tl_stats_compute(gflops, m, &s_gflops);
        c.timed = true;
        c.t.ms = s_ms.median;
        c.t.gflops = c.t.cublas_gflops = s_gflops.median;
    }
    return c;
}

static void print_table(FILE *f, bool tsv, const step *steps, int n, bool gpu)
{
    const column *cols = gpu ? gpu_columns : cpu_columns;
    int ncols = gpu ? (int)(sizeof gpu_columns / sizeof gpu_columns[0])
                    : (int)(sizeof cpu_columns / sizeof cpu_columns[0]);
    print_header(f, tsv, cols, ncols);
    for (int i = 0; i < n; i++)
        print_row(f, tsv, cols, ncols, &steps[i], &steps[0], gpu);
    if (gpu) {
        step c = cublas_row(steps, n);
        if (c.timed)
            print_row(f, tsv, cols, ncols, &c, &steps[0], gpu);
    }
}

/* ---- the files ----------------------------------------------------------------------------- */

/* The output files are opened before anything is measured, so that a path that cannot be
 * written fails at once. */
static FILE *open_output(const char *path, const char *what)
{
    FILE *f = path ? fopen(path, "w") : NULL;
    if (path && !f)
        cli_fail("bench steps: %s: cannot write the %s", path, what);
    return f;
}

static int close_output(FILE *f, const char *path, const char *what)
{
    if (f && fclose(f) != 0)
        return cli_fail("bench steps: %s: cannot write the %s", path, what);
    return TL_EXIT_OK;
}

/* On a GPU the intensity is ncu's (FLOPs at counts_size^3 over the DRAM bytes it counted);
 * elsewhere, and for cuBLAS, the compulsory traffic's at size^3 (M and N read once, P written
 * once), which is what the performance model assumes. */
static void write_svg(FILE *f, const step *steps, int n, bool gpu, int size, int counts_size,
                      const char *device)
{
    double flops = 2.0 * size * size * size, counts_flops = 2.0 * counts_size * counts_size *
                                                            (double)counts_size;
    double compulsory = flops / (3.0 * size * size * sizeof(float));
    roofline_point points[MAX_STEPS + 1];
    for (int i = 0; i < n; i++) {
        const step *s = &steps[i];
        points[i] = (roofline_point){s->name, 0, 0, false};
        if (gpu && s->timed) {
            points[i].gflops = s->t.gflops;
            points[i].intensity = s->counted && s->dram_bytes > 0 ? counts_flops / s->dram_bytes
                                                                  : compulsory;
        } else if (!gpu && s->pred.ok) {
            points[i].gflops = s->pred.gflops;
            points[i].intensity = compulsory;
        }
    }
    int np = n;
    step c = cublas_row(steps, n);
    if (gpu && c.timed)
        points[np++] = (roofline_point){"cuBLAS", compulsory, c.t.gflops, true};
    char title[256], note[256];
    if (gpu) {
        snprintf(title, sizeof title, "lab 06 steps on %.120s at %d^3", device, size);
        snprintf(note, sizeof note, "measured at %d^3; intensity: ncu's DRAM bytes at %d^3 "
                 "(cuBLAS, or without ncu: compulsory traffic)", size, counts_size);
    } else {
        snprintf(title, sizeof title, "lab 06 steps at %d^3, predicted for an H100", size);
        snprintf(note, sizeof note, "the performance model's GFLOP/s; intensity: its "
                 "compulsory DRAM traffic (M and N read once, P written once)");
    }
    roofline r = {title, note, H100_FP32_GFLOPS, H100_HBM_GBS,
                  "H100 FP32 FMA peak 67 TFLOP/s", "HBM3 3.35 TB/s"};
    roofline_svg(f, &r, points, np);
}

/* ---- the suite ----------------------------------------------------------------------------- */

int bench_steps(const bench_steps_options *o)
{
    char device[256];
    runner_backend backend = o->backend;
    bool have_gpu = runner_backend_default(&backend, o->backend_given, device, sizeof device);
    bool gpu = runner_backend_about(backend)->device;
    if (gpu && !have_gpu) {
        fprintf(stderr, "bench steps: --backend %s needs a CUDA device, and there is none here "
                "[%s]\n", runner_backend_name(backend), device);
        return 4;
    }
    const tl_lab *lab = steps_lab();
    step steps[MAX_STEPS];
    tl_error err;
    int n = lab ? find_steps(lab, steps, &err) : tl_error_set(&err, "no lab has steps");
    if (n < 0)
        return cli_fail("bench steps: %s", err.msg);
    static const char tsv_what[] = "table (--tsv)", svg_what[] = "picture (--svg)";
    FILE *tsv = open_output(o->tsv, tsv_what), *svg = open_output(o->svg, svg_what);
    if ((o->tsv && !tsv) || (o->svg && !svg)) {
        close_output(tsv, o->tsv, tsv_what);
        close_output(svg, o->svg, svg_what);
        return TL_EXIT_BAD_INPUT;
    }
    int counts_size = o->counts_size ? o->counts_size : gpu ? COUNTS_SIZE_GPU : COUNTS_SIZE_CPU;
    tl_size size = cube(o->size), counts = cube(counts_size);
    char dataset[PATH_MAX - 64] = "";
    bool ncu = gpu && run_have_ncu();
    if (gpu) {
        fprintf(stderr, "bench steps: writing the %dx%dx%d dataset ...\n", o->size, o->size,
                o->size);
        if (bench_dataset(size, o->threads, dataset, sizeof dataset, &err) != 0) {
            close_output(tsv, o->tsv, tsv_what);
            close_output(svg, o->svg, svg_what);
            return cli_fail("bench steps: %s", err.msg);
        }
        printf("lab 06's steps on %s (%s's contract): median of %d CUDA-event timed launches at "
               "%d^3, L2 flushed before each, cuBLAS SGEMM (fp32, no TF32) timed the same way in "
               "the same process\n", device, lab->id, o->reps, o->size);
        if (ncu)
            printf("ncu's counters (--clock-control none) on a %d^3 product: shared-memory bank "
                   "conflicts of loads and stores, DRAM bytes read and written, achieved "
                   "occupancy, registers per thread, FMA pipe utilisation\n", counts_size);
        else
            printf("(ncu is not on PATH: no counters)\n");
    } else {
        printf("lab 06's steps on the CPU backend (%s's contract): the interpreter's counters on "
               "a whole %d^3 product (bank conflicts: shared wavefronts past the first; shared "
               "and global wavefronts; L2 traffic; warp instructions), and the performance "
               "model's H100 time at %d^3 (docs/perfmodel.md)\n", lab->id, counts_size, o->size);
    }
    fflush(stdout);
    int status = TL_EXIT_OK;
    for (int i = 0; i < n; i++) {
        fprintf(stderr, "bench steps: %s (%s) ...\n", steps[i].name, cli_shown(steps[i].source));
        if (gpu)
            measure_gpu(lab, dataset, counts, o->reps, ncu, &steps[i]);
        else
            measure_cpu(lab, counts, size, &steps[i]);
        tl_verdict v;
        if (!tl_verdict_parse(steps[i].check, &v) || v != TL_VERDICT_PASS)
            status = TL_EXIT_WRONG;
    }
    print_table(stdout, false, steps, n, gpu);
    if (tsv)
        print_table(tsv, true, steps, n, gpu);
    if (svg)
        write_svg(svg, steps, n, gpu, o->size, counts_size, device);
    if (close_output(tsv, o->tsv, tsv_what) != TL_EXIT_OK ||
        close_output(svg, o->svg, svg_what) != TL_EXIT_OK)
        return TL_EXIT_BAD_INPUT;
    return status;
}
