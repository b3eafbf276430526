/* tilelab bench: figures for the dataset tools (generation, import, checking), the CPU backend,
 * the labs on a GPU, lab 06's steps (bench_steps.c) and the front door's own cost. */
#include "cli.h"
#include "bench_lab.h"
#include "bench_steps.h"
#include "runner.h"
#include "util.h"
#include "session.h"

#include "ptx.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REPS 64
/* bench labs' shapes: N^3, N x N/2 x N and (N/2)^3. */
#define BENCH_SHAPES 3
/* Lab 06's reference against cuBLAS, percent: at N^3, and at the two smaller shapes. */
#define CHALLENGE_TARGET_FULL 85.0
#define CHALLENGE_TARGET 75.0
/* bench cpu's large width: the first measured lab's reference at this width^3, every core. */
#define BENCH_CPU_LARGE 1024

static const char usage[] =
    "usage: ./tilelab bench [datasets | cpu | labs | steps | front-door] [--size N] [--reps R]\n"
    "                       [--threads T] [steps' options]\n"
    "\n"
    "Measures and prints figures; nothing here is a pass/fail test, but each line shows its target.\n"
    "  datasets      (default) generate an NxNxN dataset in binary, import it (binary and text),\n"
    "                check it, and run the harness's error-bound check on it\n"
    "  cpu           the CPU backend: interpreter speed (thread-instructions per second on one\n"
    "                core and on all) and wall time of the 02 and 03 references on 256/257\n"
    "                datasets, the fastest of R runs each (a shared machine is noisy)\n"
    "  labs          (needs a GPU) every lab's reference solution at NxNxN (lab 04: N x N/2 x N;\n"
    "                lab 06 also at N x N/2 x N and (N/2)^3, the sizes its target names),\n"
    "                next to cuBLAS SGEMM timed in the same process on the same buffers, lab 05's\n"
    "                unpadded baseline, and the same solution timed through the grader's path\n"
    "                (capture and tilelab-replay) on the same dataset\n"
    "  steps         lab 06's steps in order: step 0 (lab 05's padded solution), the files\n"
    "                solutions/06-challenge/steps/N-*.cu, then solutions/06-challenge/solution.cu\n"
    "                when it exists. With a GPU: each at NxNxN (default 4096), ms, GFLOP/s and %\n"
    "                of cuBLAS timed in the same process, and when ncu is on PATH its counters on\n"
    "                a C^3 product (default 2048): shared load and store bank conflicts, DRAM\n"
    "                bytes, achieved occupancy, registers, FMA pipe use. Without one: the CPU\n"
    "                backend's counters on a whole C^3 product (default 256) and the performance\n"
    "                model's H100 time at N^3 (docs/perfmodel.md). Exit status 1 when a step fails\n"
    "                its check\n"
    "  front-door    what ./tilelab adds to a command when nothing changed (its package check\n"
    "                and build skipped): the median wall time of `./tilelab help` next to the\n"
    "                program behind it run directly, R runs each (default 20), and the difference\n"
    "  --size N      matrix size (default 2048 for datasets, 4096 for labs and steps)\n"
    "  --reps R      repetitions of each import, median reported (default 5); for cpu, runs\n"
    "                of each kernel, the fastest reported (default 5); for front-door, runs of\n"
    "                each command (default 20); for labs and steps, timed launches (default 10)\n"
    "  --threads T   threads for the reference products (default: one per CPU)\n"
    "steps' options:\n"
    "  --counts-size C  the counters' product is C x C x C (default 2048 with a GPU, 256 without)\n"
    "  --backend B      gpu or cpu (default: gpu when there is a CUDA device, cpu otherwise)\n"
    "  --svg FILE       also write a roofline picture: GFLOP/s against FLOP per DRAM byte, log-log,\n"
    "                   under the H100's FP32 peak and HBM bandwidth, a labelled point per step\n"
    "                   (and cuBLAS); the intensity is ncu's DRAM bytes, or the compulsory traffic\n"
    "                   (M and N read once, P written once) without ncu and on the CPU backend\n"
    "  --tsv FILE       also write the table as tab-separated values, a header line first\n";

static int file_size_mb(const char *path, double *mb)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    *mb = (double)st.st_size / 1e6;
    return 0;
}

/* Median seconds of `reps` reads of one file, and the first read's (fresh memory to fault in). */
static int time_reads(const char *path, int reps, double *median, double *first, tl_matrix *keep,
                      tl_error *err)
{
    double samples[MAX_REPS];
    for (int i = 0; i < reps; i++) {
        tl_matrix m;
        double t0 = tl_clock_now();
        if (tl_matrix_read(path, &m, err) != 0)
            return -1;
        samples[i] = tl_clock_now() - t0;
        if (i == reps - 1 && keep)
            *keep = m;
        else
            tl_matrix_free(&m);
    }
    tl_stats s;
    tl_stats_compute(samples, reps, &s);
    *median = s.median;
    if (first)
        *first = samples[0];
    return 0;
}

static void row(const char *what, double value, const char *unit, const char *target, bool met)
{
    printf("  %-40s %10.3f %-8s %-14s %s\n", what, value, unit, target,
           target[0] ? (met ? "met" : "MISSED") : "");
}

static int bench_datasets(int size, int reps, int threads)
{
    char dir[] = "/tmp/tilelab-bench-XXXXXX";
    if (!mkdtemp(dir))
        return cli_fail("bench: cannot make a temporary folder under /tmp");
    char ds[64], a_bin[128], a_txt[128];
    snprintf(ds, sizeof ds, "%s/ds", dir);
    snprintf(a_bin, sizeof a_bin, "%s/input0.raw", ds);
    snprintf(a_txt, sizeof a_txt, "%s/a.txt", dir);
    tl_error err;
    int rc = TL_EXIT_OK;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("dataset tools, %dx%dx%d, %ld CPU(s), %d thread(s):\n", size, size, size, cpus,
           threads > 0 ? threads : (int)cpus);
    printf("  %-40s %10s %-8s %-14s\n", "what", "value", "unit", "target");

    tl_gen_options g = {1, TL_FORMAT_BINARY, false, threads, false};
    tl_gen_result gen;
    tl_matrix A = {0, 0, NULL};
    tl_dataset_check chk;
    double t, mb;
    if (tl_dataset_generate(ds, 0, (tl_size){size, size, size}, &g, &gen, &err) != 0)
        goto fail;
    row("generate dataset (binary, 3 files)", gen.seconds, "s", size == 2048 ? "< 10 s" : "",
        gen.seconds < 10);

    double first;
    if (time_reads(a_bin, reps, &t, &first, &A, &err) != 0 || file_size_mb(a_bin, &mb) != 0)
        goto fail;
    row("binary import (first read)", mb / 1e3 / first, "GB/s", ">= 1 GB/s", mb / 1e3 / first >= 1);
    row("binary import (median)", mb / 1e3 / t, "GB/s", ">= 1 GB/s", mb / 1e3 / t >= 1);

    double t0 = tl_clock_now();
    if (tl_matrix_write(a_txt, &A, TL_FORMAT_TEXT, &err) != 0)
        goto fail;
    double write_s = tl_clock_now() - t0;
    file_size_mb(a_txt, &mb);
    row("text export", mb / write_s, "MB/s", "", false);
    if (time_reads(a_txt, reps > 3 ? 3 : reps, &t, NULL, NULL, &err) != 0)
        goto fail;
    row("text import (median)", mb / t, "MB/s", "", false);
    row("text import (median)", (double)size * size / t / 1e6, "Mvalue/s", "", false);

    if (tl_dataset_check_dir(ds, TL_TOLERANCE_EXACT, &chk, threads, &err) != 0)
        goto fail;
    row("check-dataset (parse + recompute)", chk.seconds, "s", "", false);
    if (!chk.ok) {
        printf("  the generated dataset failed its own check: %s\n", chk.detail);
        rc = TL_EXIT_WRONG;
    }

    tl_matrix B, C;
    snprintf(a_bin, sizeof a_bin, "%s/input1.raw", ds);
    if (tl_matrix_read(a_bin, &B, &err) != 0)
        goto fail;
    snprintf(a_bin, sizeof a_bin, "%s/output.raw", ds);
    if (tl_matrix_read(a_bin, &C, &err) != 0) {
        tl_matrix_free(&B);
        goto fail;
    }
    tl_check_report rep;
    t0 = tl_clock_now();
    int ck = tl_check_product(&A, &B, &C, &C, &rep, &err);
    row("error-bound check of a result", tl_clock_now() - t0, "s", "", false);
    tl_matrix_free(&B);
    tl_matrix_free(&C);
    if (ck != 0)
        goto fail;
    tl_matrix_free(&A);
    files_remove_tree(dir);
    return rc;
fail:
    tl_matrix_free(&A);
    files_remove_tree(dir);
    return cli_fail("bench: %s", err.msg);
}


/* The same solution through the grader's path (sandboxed build, capture, tilelab-replay) on the
 * same dataset: the kernel time a student's grade is computed from. Returns the median ms, 0
 * when the replay did not pass. */
static double replayed_ms(const tl_lab *lab, const char *source, const char *dataset, int reps,
                          char *verdict, size_t size)
{
    runner_config c;
    runner_config_default(&c, RUNNER_GPU);
    c.reps = reps;
    runner_config_set_timeout(&c, RUNNER_TOOL_REPLAY_TIMEOUT_S);
    char why[300];
    c.sandbox = runner_sandbox_available(why, sizeof why);
    tl_error err;
    snprintf(verdict, size, "error");
    runner_loaded data;
    runner_dataset d = {.dir = dataset};
    if (runner_loaded_read(&d, &data, &err) != 0)
        return 0;
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%.4000s", source);
    *strrchr(folder, '/') = '\0';
    runner_program p;
    runner_outcome o;
    runner_capture cap;
    double ms = 0;
    if (runner_build(&c, folder, "solution.cu", &p, &o) == 0 && o.verdict == TL_VERDICT_PASS &&
        runner_capture_run(&c, &p, &data.shape, 1, &cap, &o) == 0) {
        if (o.verdict == TL_VERDICT_PASS) {
            /* The kit's own solution: timed as a student's kernel is, without the checks. */
            runner_judge_opts opts = {.safety = false, .time = true};
            runner_result r;
            if (runner_judge(&c, &p, &cap, lab, &data, &opts, &r, &err) == 0) {
                snprintf(verdict, size, "%s", tl_verdict_name(r.verdict));
                if (r.verdict == TL_VERDICT_PASS)
                    ms = r.calls[CAPLOG_CALL_LAUNCH].ms.median;
                runner_result_free(&r);
            }
        } else {
            snprintf(verdict, size, "%s", tl_verdict_name(o.verdict));
        }
        runner_capture_free(&cap);
    } else {
        snprintf(verdict, size, "%s", tl_verdict_name(o.verdict));
    }
    runner_outcome_free(&o);
    runner_loaded_free(&data);
    return ms;
}

/* One lab: its solution built with the cuBLAS comparison, run once on the dataset. */
static void bench_one_lab(const tl_lab *lab, const char *dataset, tl_size size, int reps,
                          double target_percent)
{
    char source[PATH_MAX - 64];
    snprintf(source, sizeof source, "%s/solutions/%s/solution.cu", cli_root(), lab->id);
    bench_timing t;
    if (bench_time_on_gpu(lab->id, source, dataset, reps, &t) != 0)
        return;
    char shape[40], replay_verdict[32];
    double replay_ms = replayed_ms(lab, source, dataset, reps, replay_verdict,
                                   sizeof replay_verdict);
    snprintf(shape, sizeof shape, "%dx%dx%d", size.m, size.k, size.n);
    printf("  %-18s %-15s %-5s %9.3f %9.1f %9.3f %9.1f %8.1f%% %9.3f %+7.2f%% %s", lab->id, shape,
           t.verdict, t.ms, t.gflops, t.cublas_ms, t.cublas_gflops,
           t.cublas_gflops > 0 ? 100.0 * t.gflops / t.cublas_gflops : 0, replay_ms,
           t.ms > 0 && replay_ms > 0 ? 100.0 * (replay_ms - t.ms) / t.ms : 0, replay_verdict);
    if (t.baseline_ms > 0 && t.ms > 0)
        printf("   baseline %.3f ms: padded is %.2fx faster", t.baseline_ms, t.baseline_ms / t.ms);
    if (target_percent > 0 && t.cublas_gflops > 0)
        printf("   target >= %.0f%% of cuBLAS: %s", target_percent,
               100.0 * t.gflops / t.cublas_gflops >= target_percent ? "met" : "MISSED");
    putchar('\n');
    fflush(stdout);
}

static int bench_labs(int size, int reps, int threads)
{
    char device[256];
    if (!tl_device_name(device, sizeof device)) {
        fprintf(stderr, "bench labs: needs a CUDA device, and there is none here [%s]\n", device);
        return 4;
    }
    int half = size / 2 > 0 ? size / 2 : 1;
    /* Every lab at N^3 (lab 04 at N x N/2 x N); the challenge also at (N/2)^3 and N x N/2 x N,
     * the sizes its target names. */
    tl_size shapes[BENCH_SHAPES] = {{size, size, size}, {size, half, size}, {half, half, half}};
    char dirs[BENCH_SHAPES][PATH_MAX - 64];
    tl_error err;
    for (int i = 0; i < BENCH_SHAPES; i++) {
        fprintf(stderr, "bench labs: writing the %dx%dx%d dataset ...\n", shapes[i].m,
                shapes[i].k, shapes[i].n);
        if (bench_dataset(shapes[i], threads, dirs[i], sizeof dirs[i], &err) != 0)
            return cli_fail("bench labs: %s", err.msg);
    }
    printf("reference solutions on %s, kernel time = median of %d CUDA-event timed launches,\n"
           "L2 flushed before each; cuBLAS SGEMM (plain fp32, no TF32) timed the same way in the "
           "same process\n",
           device, reps);
    printf("replayed: the same solution through the grader's path (sandboxed build, captured host\n"
           "code, tilelab-replay on the same dataset), its median and its difference from ms\n");
    printf("  %-18s %-15s %-5s %9s %9s %9s %9s %9s %9s %8s\n", "lab", "m x k x n", "check", "ms",
           "GFLOP/s", "cuBLAS ms", "GFLOP/s", "of cuBLAS", "replayed", "diff");
    int nlabs = 0;
    const tl_lab *labs = tl_labs(&nlabs);
    for (int i = 0; i < nlabs; i++) {
        bool challenge = labs[i].cublas_targets;
        for (int sh = 0; sh < (challenge ? BENCH_SHAPES : 1); sh++) {
            int at = labs[i].bench_wide ? 1 : sh;
            /* The challenge's targets hold on an H100 at 4096^3 (85 %), 4096 x 2048 x 4096 and
             * 2048^3 (75 %); other sizes and GPUs show the same targets for comparison. */
            double target = !challenge ? 0 : at == 0 ? CHALLENGE_TARGET_FULL : CHALLENGE_TARGET;
            bench_one_lab(&labs[i], dirs[at], shapes[at], reps, target);
        }
    }
    return TL_EXIT_OK;
}

/* A square lab's reference kernel (parameters M, N, P, Width; 16x16 tiles) on the interpreter:
 * its PTX module, and one launch at width on inputs of small pseudo-random values. */
typedef struct cpu_lab {
    lab_program prog;
    ptx_module *module;
    const ptx_entry *entry;
} cpu_lab;

static bool cpu_lab_load(const char *lab, cpu_lab *out)
{
    char source[PATH_MAX - 64], path[PATH_MAX + 8];
    snprintf(source, sizeof source, "%s/solutions/%s/solution.cu", cli_root(), lab);
    char *messages = NULL;
    if (lab_build(source, RUNNER_CPU, false, &out->prog, &messages) != LAB_BUILD_OK) {
        printf("  %s does not build:\n%s\n", lab, messages ? messages : "");
        free(messages);
        return false;
    }
    size_t len = 0;
    snprintf(path, sizeof path, "%.4000s.ptx", out->prog.path);
    char *text = files_read(path, &len);
    ptx_error perr;
    out->module = text ? ptx_module_parse(path, text, len, &perr) : NULL;
    free(text);
    out->entry = out->module ? ptx_module_entry_at(out->module, 0) : NULL;
    if (!out->entry)
        printf("  %s: cannot load its PTX\n", lab);
    return out->entry != NULL;
}

/* Seconds of one launch at width x width x width on `threads` threads (0: one per CPU). */
static double cpu_lab_launch(const cpu_lab *l, int width, int threads, ptx_stats *st)
{
    tl_matrix A, B, P;
    tl_error err;
    if (tl_matrix_alloc(&A, width, width, &err) != 0 || tl_matrix_alloc(&B, width, width, &err) != 0 ||
        tl_matrix_alloc(&P, width, width, &err) != 0) {
        printf("  out of memory for %d x %d matrices\n", width, width);
        return -1;
    }
    uint32_t x = 12345;
    for (size_t i = 0; i < (size_t)width * (size_t)width; i++) {
        x = x * 1664525u + 1013904223u;
        A.data[i] = (float)(x >> 8) / 16777216.0f - 0.5f;
        B.data[i] = (float)(x >> 12 & 0xfff) / 4096.0f - 0.5f;
    }
    void *pm = A.data, *pn = B.data, *pp = P.data;
    void *args[] = {&pm, &pn, &pp, &width};
    unsigned tiles = (unsigned)(width + 15) / 16;
    ptx_env env = {.threads = threads};
    ptx_error perr;
    *st = (ptx_stats){0, 0};
    double t0 = tl_clock_now();
    int rc = ptx_launch_env(l->entry, (ptx_dim3){tiles, tiles, 1}, (ptx_dim3){16, 16, 1}, args, 0,
                            &env, st, &perr);
    double s = tl_clock_now() - t0;
    if (rc != 0)
        printf("  the kernel failed: %s\n", perr.msg);
    tl_matrix_free(&A);
    tl_matrix_free(&B);
    tl_matrix_free(&P);
    return rc == 0 ? s : -1;
}

/* The fastest of `reps` launches: on a machine shared with other work the least disturbed run
 * says most about the interpreter. */
static double cpu_lab_best(const cpu_lab *l, int width, int threads, int reps, ptx_stats *st)
{
    double best = -1;
    for (int r = 0; r < reps; r++) {
        double s = cpu_lab_launch(l, width, threads, st);
        if (s <= 0)
            return -1;
        best = best < 0 || s < best ? s : best;
    }
    return best;
}

/* One core and every core on one size, with the targets of the interpreter's speed. */
static void bench_cpu_lab(const char *lab, const cpu_lab *l, int width, int cpus, int reps)
{
    ptx_stats one, all;
    double s1 = cpu_lab_best(l, width, 1, reps, &one);
    double sn = cpus > 1 ? cpu_lab_best(l, width, cpus, reps, &all) : s1;
    if (s1 <= 0 || sn <= 0)
        return;
    char label[96];
    snprintf(label, sizeof label, "%s kernel %d^3, one core", lab, width);
    row(label, s1, "s", "", false);
    row("  thread-instructions per second", (double)one.thread_instructions / s1 / 1e6, "M/s",
        ">= 600 M/s", (double)one.thread_instructions / s1 >= 6e8);
    if (cpus > 1) {
        snprintf(label, sizeof label, "%s kernel %d^3, %d cores", lab, width, cpus);
        row(label, sn, "s", "", false);
        char target[32];
        double want = cpus == 2 ? 1.7 : 0.85 * cpus;
        snprintf(target, sizeof target, ">= %.1fx", want);
        row("  speed-up over one core", s1 / sn, "x", target, s1 / sn >= want);
    }
}

/* The first lab bench cpu measures, further: at 1024^3 on every core, and as a whole lab program
 * on its shipped dataset of its width. */
static void bench_cpu_first(const tl_lab *lab, cpu_lab *l, int reps)
{
    ptx_stats st;
    char label[96];
    double s = cpu_lab_best(l, BENCH_CPU_LARGE, 0, reps < 3 ? reps : 3, &st);
    snprintf(label, sizeof label, "%s kernel %d^3, every core", lab->id, BENCH_CPU_LARGE);
    if (s > 0)
        row(label, s, "s", "< 5 s", s < 5);
    const int width = lab->bench_cpu_width;
    int index = 0;
    while (index < lab->nsizes && (lab->sizes[index].m != width || lab->sizes[index].k != width ||
                                   lab->sizes[index].n != width))
        index++;
    if (index == lab->nsizes)
        return;
    char dataset[PATH_MAX - 64];
    snprintf(dataset, sizeof dataset, "%s/datasets/%s/%d", cli_root(), lab->id, index);
    char *argv[] = {l->prog.path, "--no-time", dataset, NULL};
    proc_result r;
    if (proc_run(argv, 600, 1 << 20, &r) == 0) {
        snprintf(label, sizeof label, "%s whole lab program (%d^3)", lab->id, width);
        row(label, r.seconds, "s", "< 2 s", r.seconds < 2);
        if (r.exit_code != 0)
            printf("  (the program exited with status %d)\n", r.exit_code);
        proc_result_free(&r);
    }
}

static int bench_cpu(int reps)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpus = cpus < 1 ? 1 : cpus;
    printf("CPU backend (blocks run on every CPU; %ld here; the fastest of %d runs):\n", cpus,
           reps);
    printf("  %-40s %10s %-8s %-14s\n", "what", "value", "unit", "target");
    int nlabs = 0;
    const tl_lab *labs = tl_labs(&nlabs);
    const tl_lab *measured[TL_MAX_LABS];
    cpu_lab loaded[TL_MAX_LABS];
    bool ok[TL_MAX_LABS], all = true;
    int n = 0;
    for (int i = 0; i < nlabs; i++)
        if (labs[i].bench_cpu_width > 0)
            measured[n++] = &labs[i];
    for (int i = 0; i < n; i++)
        all &= ok[i] = cpu_lab_load(measured[i]->id, &loaded[i]);
    for (int i = 0; i < n; i++)
        if (ok[i])
            bench_cpu_lab(measured[i]->id, &loaded[i], measured[i]->bench_cpu_width, (int)cpus,
                          reps);
    if (n > 0 && ok[0])
        bench_cpu_first(measured[0], &loaded[0], reps);
    for (int i = 0; i < n; i++)
        if (ok[i])
            ptx_module_free(loaded[i].module);
    return all ? TL_EXIT_OK : TL_EXIT_CRASH;
}

#define FRONT_DOOR_TARGET_S 0.1
#define FRONT_DOOR_TIMEOUT_S 600

/* Median seconds of `reps` runs of argv; -1 when one fails. */
static double median_run(char *const argv[], int reps)
{
    double samples[MAX_REPS];
    for (int i = 0; i < reps; i++) {
        proc_result r;
        if (proc_run(argv, FRONT_DOOR_TIMEOUT_S, 1 << 16, &r) != 0)
            return -1;
        int status = r.exit_code;
        samples[i] = r.seconds;
        if (status != 0)
            printf("  %s exited with status %d: %s\n", argv[0], status, r.err);
        proc_result_free(&r);
        if (status != 0)
            return -1;
    }
    tl_stats s;
    tl_stats_compute(samples, reps, &s);
    return s.median;
}

/* The front door's own cost: `./tilelab help` against the program it ends in, run directly. A
 * first run through the door, not counted, builds if anything changed. */
static int bench_front_door(int reps)
{
    char door[PATH_MAX], self[PATH_MAX];
    snprintf(door, sizeof door, "%.4000s/tilelab", cli_root());
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return cli_fail("bench front-door: cannot find this program's own path");
    self[n] = '\0';
    char *via_door[] = {door, "help", NULL}, *direct[] = {self, "help", NULL};
    printf("front door (nothing changed; the median of %d runs each):\n", reps);
    printf("  %-40s %10s %-8s %-14s\n", "what", "value", "unit", "target");
    if (median_run(via_door, 1) < 0)
        return TL_EXIT_CRASH;
    double through = median_run(via_door, reps), plain = median_run(direct, reps);
    if (through < 0 || plain < 0)
        return TL_EXIT_CRASH;
    row("./tilelab help", through * 1e3, "ms", "", false);
    row("tilelab-cli help (run directly)", plain * 1e3, "ms", "", false);
    char target[32];
    snprintf(target, sizeof target, "< %.0f ms", FRONT_DOOR_TARGET_S * 1e3);
    row("the front door's own cost", (through - plain) * 1e3, "ms", target,
        through - plain < FRONT_DOOR_TARGET_S);
    return TL_EXIT_OK;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {{"size", required_argument, NULL, 'n'},
                                             {"reps", required_argument, NULL, 'r'},
                                             {"threads", required_argument, NULL, 't'},
                                             {"counts-size", required_argument, NULL, 'c'},
                                             {"backend", required_argument, NULL, 'b'},
                                             {"svg", required_argument, NULL, 's'},
                                             {"tsv", required_argument, NULL, 'v'},
                                             {NULL, 0, NULL, 0}};
    int size = 0, reps = 0, threads = 0, c;
    bench_steps_options so = {0};
    bool steps_option = false;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int bad = 0;
        steps_option |= c == 'c' || c == 'b' || c == 's' || c == 'v';
        switch (c) {
        case 'n': bad = cli_parse_int("--size", optarg, 1, 16384, &size); break;
        case 'r': bad = cli_parse_int("--reps", optarg, 1, MAX_REPS, &reps); break;
        case 't': bad = cli_parse_int("--threads", optarg, 1, 1024, &threads); break;
        case 'c': bad = cli_parse_int("--counts-size", optarg, 1, 16384, &so.counts_size); break;
        case 's': so.svg = optarg; break;
        case 'v': so.tsv = optarg; break;
        case 'b': {
            char names[RUNNER_BACKEND_NAMES_SIZE];
            if (!runner_backend_parse(optarg, &so.backend))
                return cli_fail("bench: --backend expects %s, not \"%s\"",
                                runner_backend_names(names, sizeof names), optarg);
            so.backend_given = true;
            break;
        }
        default:
            return cli_fail("bench: unknown or incomplete option \"%s\" (see --help)",
                            argv[optind - 1]);
        }
        if (bad)
            return TL_EXIT_BAD_INPUT;
    }
    bool labs = false, cpu = false, door = false, steps = false;
    for (int i = optind; i < argc; i++) {
        if (strcmp(argv[i], "labs") == 0)
            labs = true;
        else if (strcmp(argv[i], "cpu") == 0)
            cpu = true;
        else if (strcmp(argv[i], "front-door") == 0)
            door = true;
        else if (strcmp(argv[i], "steps") == 0)
            steps = true;
        else if (strcmp(argv[i], "datasets") != 0)
            return cli_fail("bench: no suite \"%s\" (suites: datasets, cpu, labs, steps, "
                            "front-door)", argv[i]);
    }
    if (steps_option && !steps)
        return cli_fail("bench: --counts-size, --backend, --svg and --tsv are for the steps "
                        "suite (bench steps ...)");
    if (door)
        return bench_front_door(reps ? reps : 20);
    if (cpu)
        return bench_cpu(reps ? reps : 5);
    if (labs)
        return bench_labs(size ? size : 4096, reps ? reps : 10, threads);
    if (steps) {
        so.size = size ? size : 4096;
        so.reps = reps ? reps : 10;
        so.threads = threads;
        return bench_steps(&so);
    }
    return bench_datasets(size ? size : 2048, reps ? reps : 5, threads);
}

const cli_command cmd_bench = {"bench", "print performance figures (dataset tools, labs vs cuBLAS)",
                               usage, run};
