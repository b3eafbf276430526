/* main() of every lab program: loads a dataset, runs the lab's functions (lab.h), checks and times
 * them, and prints the run report. `./tilelab run` starts one such process per dataset. */
#include "lab.h"

#include <cjson/cJSON.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef TILELAB_WITH_CUBLAS
#include <cublas_v2.h>
#endif

/* Labs 01 and 05 define these; the others do not, and the weak references stay NULL. */
__attribute__((weak)) void matmul_on_device(const float *hostM, const float *hostN, float *hostP,
                                            int j, int k, int l);
__attribute__((weak)) void launch_matmul_baseline(const float *M, const float *N, float *P, int j,
                                                  int k, int l);

static const char usage[] =
    "usage: %s [--json] [--reps N] [--no-time] [--name NAME] [--save-output FILE]"
#ifdef TILELAB_WITH_CUBLAS
    " [--cublas]"
#endif
    " DATASET_DIR\n"
    "Runs this lab program on one dataset (input0.raw, input1.raw, output.raw): checks the result\n"
    "against the fp32 error bound and times the kernel. Exit status: 0 pass, 1 wrong result,\n"
    "2 bad input, 3 CUDA error. --save-output writes the result of the first run (binary).\n"
    "Students' files are not run this way: run and grade capture them and replay their work\n"
    "(docs/runner.md); this program serves bench labs and the kit's own tests.\n";

typedef struct options {
    bool json, time, cublas;
    int reps;
    const char *name, *dataset, *save_output;
} options;

typedef void (*launch_fn)(const float *, const float *, float *, int, int, int);

typedef struct problem {
    tl_matrix A, B, expected;
    float *dM, *dN, *dP;
    size_t p_bytes;
} problem;

typedef struct launch_ctx {
    launch_fn fn;
    const problem *p;
} launch_ctx;

static void launch_trampoline(void *arg)
{
    const launch_ctx *c = arg;
    c->fn(c->p->dM, c->p->dN, c->p->dP, c->p->A.rows, c->p->A.cols, c->p->B.cols);
}

static void die_bad_input(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "tilelab: error: %s\n", msg);
    exit(TL_EXIT_BAD_INPUT);
}

static void parse(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->time = true;
    o->reps = 10;
    o->name = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--no-time") == 0) {
            o->time = false;
#ifdef TILELAB_WITH_CUBLAS
        } else if (strcmp(a, "--cublas") == 0) {
            o->cublas = true;
#endif
        } else if (strcmp(a, "--reps") == 0 && i + 1 < argc) {
            o->reps = atoi(argv[++i]);
            if (o->reps < 1 || o->reps > 1000)
                die_bad_input("--reps expects 1 to 1000");
        } else if (strcmp(a, "--name") == 0 && i + 1 < argc) {
            o->name = argv[++i];
        } else if (strcmp(a, "--save-output") == 0 && i + 1 < argc) {
            o->save_output = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf(usage, argv[0]);
            exit(TL_EXIT_OK);
        } else if (a[0] == '-' || o->dataset) {
            fprintf(stderr, usage, argv[0]);
            die_bad_input(a[0] == '-' ? "unknown option" : "one dataset folder per run");
        } else {
            o->dataset = a;
        }
    }
    if (!o->dataset) {
        fprintf(stderr, usage, argv[0]);
        die_bad_input("no dataset folder given");
    }
}

static void load(const char *dir, const char *file, tl_matrix *m)
{
    char path[4096];
    tl_error err;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (tl_matrix_read(path, m, &err) != 0)
        die_bad_input(err.msg);
}

static void setup(const options *o, problem *p)
{
    load(o->dataset, "input0.raw", &p->A);
    load(o->dataset, "input1.raw", &p->B);
    load(o->dataset, "output.raw", &p->expected);
    if (p->A.cols != p->B.rows || p->expected.rows != p->A.rows || p->expected.cols != p->B.cols) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: shapes do not form a product: input0 %d x %d, input1 %d x %d, "
                 "output %d x %d", o->dataset, p->A.rows, p->A.cols, p->B.rows, p->B.cols,
                 p->expected.rows, p->expected.cols);
        die_bad_input(msg);
    }
    size_t a_bytes = sizeof(float) * (size_t)p->A.rows * p->A.cols;
    size_t b_bytes = sizeof(float) * (size_t)p->B.rows * p->B.cols;
    p->p_bytes = sizeof(float) * (size_t)p->A.rows * p->B.cols;
    TL_CUDA_CHECK(cudaMalloc((void **)&p->dM, a_bytes));
    TL_CUDA_CHECK(cudaMalloc((void **)&p->dN, b_bytes));
    TL_CUDA_CHECK(cudaMalloc((void **)&p->dP, p->p_bytes));
    TL_CUDA_CHECK(cudaMemcpy(p->dM, p->A.data, a_bytes, cudaMemcpyHostToDevice));
    TL_CUDA_CHECK(cudaMemcpy(p->dN, p->B.data, b_bytes, cudaMemcpyHostToDevice));
}

static void check_result(const problem *p, const float *data, tl_check_report *rep)
{
    tl_error err;
    tl_matrix got = {p->expected.rows, p->expected.cols, (float *)(uintptr_t)data};
    if (tl_check_product(&p->A, &p->B, &p->expected, &got, rep, &err) != 0)
        die_bad_input(err.msg);
}

/* Runs one launcher once (P refilled with NaN first), copies P back and checks it. */
static void run_once(const problem *p, launch_fn fn, float *host_p, tl_check_report *rep)
{
    TL_CUDA_CHECK(cudaMemset(p->dP, 0xff, p->p_bytes));
    fn(p->dM, p->dN, p->dP, p->A.rows, p->A.cols, p->B.cols);
    TL_CUDA_CHECK(cudaGetLastError());
    TL_CUDA_CHECK(cudaDeviceSynchronize());
    TL_CUDA_CHECK(cudaMemcpy(host_p, p->dP, p->p_bytes, cudaMemcpyDeviceToHost));
    check_result(p, host_p, rep);
}

/* Times a launcher, then checks the last rep's output again: a kernel that only works once
 * (or races) must not pass on its first run alone. */
static bool time_and_recheck(const options *o, const problem *p, launch_fn fn, float *host_p,
                             tl_kernel_timing *timing, tl_check_report *rep)
{
    tl_kernel_timing_opts opts;
    tl_kernel_timing_opts_default(&opts);
    opts.reps = o->reps;
    launch_ctx ctx = {fn, p};
    tl_error err;
    if (tl_time_kernel(&opts, launch_trampoline, &ctx, p->dP, p->p_bytes, timing, &err) != 0) {
        fflush(stdout);
        fprintf(stderr, "tilelab: %s\n", err.msg);
        exit(TL_EXIT_CRASH);
    }
    TL_CUDA_CHECK(cudaMemcpy(host_p, p->dP, p->p_bytes, cudaMemcpyDeviceToHost));
    check_result(p, host_p, rep);
    return rep->pass;
}

/* The student's kernel: correctness first (through matmul_on_device in lab 01), then timing. */
static void run_student(const options *o, const problem *p, float *host_p, tl_run_report *r)
{
    int ph = tl_phase_start(&r->phases, "Compute", "first run and check");
    if (matmul_on_device) {
        for (size_t i = 0; i < p->p_bytes / sizeof(float); i++)
            ((uint32_t *)host_p)[i] = 0xffffffffu; /* NaN: unwritten elements fail */
        matmul_on_device(p->A.data, p->B.data, host_p, p->A.rows, p->A.cols, p->B.cols);
        TL_CUDA_CHECK(cudaGetLastError());
        check_result(p, host_p, &r->check);
    } else {
        run_once(p, launch_matmul, host_p, &r->check);
    }
    if (ph >= 0)
        tl_phase_stop(&r->phases, "Compute", "first run and check");
    if (o->save_output) {
        tl_matrix result = {p->A.rows, p->B.cols, host_p};
        tl_error err;
        if (tl_matrix_write(o->save_output, &result, TL_FORMAT_BINARY, &err) != 0)
            die_bad_input(err.msg);
    }
    r->checked = true;
    if (r->check.pass && o->time) {
        tl_check_report again;
        r->kernel_timed = true;
        if (!time_and_recheck(o, p, launch_matmul, host_p, &r->kernel, &again)) {
            r->check = again;
            snprintf(r->check.policy + strlen(r->check.policy),
                     sizeof r->check.policy - strlen(r->check.policy), " (after timing)");
        }
    }
}

static cJSON *extra_kernel_json(const char *label, const tl_check_report *c, bool timed,
                                const tl_kernel_timing *t, const problem *p)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", label);
    cJSON_AddStringToObject(o, "verdict", c->pass ? "pass" : "wrong");
    cJSON_AddNumberToObject(o, "bad", (double)c->bad);
    if (timed) {
        cJSON_AddNumberToObject(o, "median_ms", t->ms.median);
        cJSON_AddNumberToObject(o, "min_ms", t->ms.min);
        cJSON_AddNumberToObject(o, "max_ms", t->ms.max);
        cJSON_AddNumberToObject(o, "gflops",
                                tl_gflops(p->A.rows, p->A.cols, p->B.cols, t->ms.median * 1e-3));
    }
    return o;
}

#ifdef TILELAB_WITH_CUBLAS
static cublasHandle_t cublas_handle;

/* Row-major P = M N is column-major P^T = N^T M^T: cuBLAS sees N as l x k and M as k x j. */
static void cublas_launch(const float *M, const float *N, float *P, int j, int k, int l)
{
    const float one = 1.0f, zero = 0.0f;
    cublasSgemm(cublas_handle, CUBLAS_OP_N, CUBLAS_OP_N, l, j, k, &one, N, l, M, k, &zero, P, l);
}
#endif

int main(int argc, char **argv)
{
    options o;
    parse(argc, argv, &o);
    tl_run_report r;
    tl_run_report_init(&r, o.name);
    snprintf(r.dataset, sizeof r.dataset, "%s", o.dataset);
    problem p;
    memset(&p, 0, sizeof p);
    tl_phase_start(&r.phases, "IO", "import and copy to the device");
    tl_device_name(r.device, sizeof r.device);
    setup(&o, &p);
    tl_phase_stop(&r.phases, "IO", "import and copy to the device");
    r.m = p.A.rows;
    r.k = p.A.cols;
    r.n = p.B.cols;
    float *host_p = malloc(p.p_bytes);
    if (!host_p)
        die_bad_input("out of memory for the result");

    run_student(&o, &p, host_p, &r);

    cJSON *extras = cJSON_CreateArray();
    if (launch_matmul_baseline) {
        tl_check_report c;
        tl_kernel_timing t;
        run_once(&p, launch_matmul_baseline, host_p, &c);
        bool timed = c.pass && o.time && time_and_recheck(&o, &p, launch_matmul_baseline, host_p, &t, &c);
        cJSON_AddItemToArray(extras, extra_kernel_json("baseline", &c, timed, &t, &p));
    }
#ifdef TILELAB_WITH_CUBLAS
    if (o.cublas) {
        tl_check_report c;
        tl_kernel_timing t;
        if (cublasCreate(&cublas_handle) != CUBLAS_STATUS_SUCCESS)
            TL_CUDA_CHECK(cudaErrorUnknown);
        /* Plain fp32 (no TF32 tensor cores): the same arithmetic the labs do. */
        cublasSetMathMode(cublas_handle, CUBLAS_PEDANTIC_MATH);
        run_once(&p, cublas_launch, host_p, &c);
        bool timed = c.pass && time_and_recheck(&o, &p, cublas_launch, host_p, &t, &c);
        cJSON_AddItemToArray(extras, extra_kernel_json("cublas", &c, timed, &t, &p));
        cublasDestroy(cublas_handle);
    }
#endif

    const char *hint = tl_check_report_hint(&r.check);
    if (o.json) {
        char *text = tl_run_report_json(&r);
        cJSON *doc = text ? cJSON_Parse(text) : NULL;
        free(text);
        if (doc) {
            if (hint)
                cJSON_AddStringToObject(doc, "hint", hint);
            cJSON_AddItemToObject(doc, "other_kernels", extras);
            extras = NULL;
            char *out = cJSON_Print(doc);
            puts(out);
            free(out);
            cJSON_Delete(doc);
        }
    } else {
        tl_run_report_print(stdout, &r);
        if (hint)
            printf("   hint: %s\n", hint);
        for (cJSON *e = extras->child; e; e = e->next) {
            cJSON *ms = cJSON_GetObjectItem(e, "median_ms");
            printf("   %-8s %s", cJSON_GetObjectItem(e, "name")->valuestring,
                   cJSON_GetObjectItem(e, "verdict")->valuestring);
            if (ms)
                printf(", %.3f ms, %.1f GFLOP/s", ms->valuedouble,
                       cJSON_GetObjectItem(e, "gflops")->valuedouble);
            putchar('\n');
        }
    }
    cJSON_Delete(extras);
    cudaFree(p.dM);
    cudaFree(p.dN);
    cudaFree(p.dP);
    free(host_p);
    tl_matrix_free(&p.A);
    tl_matrix_free(&p.B);
    tl_matrix_free(&p.expected);
    return r.check.pass ? TL_EXIT_OK : TL_EXIT_WRONG;
}
