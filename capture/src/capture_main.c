/* main() of a capture program: the student's lab file linked with the capture runtime. It calls
 * the lab's functions once per problem shape, with fake device matrices (and, for lab 01, host
 * matrices holding only the NaN pattern), and writes what they asked for as a capture log. It
 * never sees a dataset: the shapes are all it is told. */
#include "capture_runtime.h"
#include "lab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Labs 01 and 05 define these; the others do not, and the weak references stay NULL. */
__attribute__((weak)) void matmul_on_device(const float *hostM, const float *hostN, float *hostP,
                                            int j, int k, int l);
__attribute__((weak)) void launch_matmul_baseline(const float *M, const float *N, float *P, int j,
                                                  int k, int l);

#define MAX_SHAPES 300

static const char usage[] =
    "usage: %s --log FILE --ptx FILE --shape JxKxL [--shape JxKxL]...\n"
    "Records what this lab program's functions ask the CUDA runtime to do for each problem shape\n"
    "(no kernel runs) and writes it to the capture log FILE. Exit status: 0 recorded (refusals\n"
    "are in the log), 2 bad usage, anything else: the lab's code stopped the program.\n";

static const char *log_path;
static bool log_written;

static void write_log(void)
{
    if (log_written || !log_path)
        return;
    log_written = true;
    FILE *f = fopen(log_path, "w");
    if (!f || caplog_write(f, capture_log()) != 0) {
        fprintf(stderr, "tilelab capture: cannot write %s: %s\n", log_path, strerror(errno));
        if (f)
            fclose(f);
        return;
    }
    fclose(f);
}

static int shape(const char *text, int out[3])
{
    char tail;
    if (sscanf(text, "%dx%dx%d%c", &out[0], &out[1], &out[2], &tail) != 3)
        return -1;
    for (int i = 0; i < 3; i++)
        if (out[i] < 1 || out[i] > 65536)
            return -1;
    return 0;
}

static float *host_matrix(uint64_t count)
{
    float *m = malloc(count * sizeof *m);
    if (m)
        memset(m, 0xff, count * sizeof *m); /* NaN: host code learns nothing from it */
    return m;
}

static void capture_host_call(int j, int k, int l)
{
    uint64_t m_count = (uint64_t)j * k, n_count = (uint64_t)k * l, p_count = (uint64_t)j * l;
    float *hm = host_matrix(m_count), *hn = host_matrix(n_count), *hp = host_matrix(p_count);
    if (!hm || !hn || !hp) {
        fprintf(stderr, "tilelab capture: out of memory for a %dx%dx%d problem\n", j, k, l);
        exit(3);
    }
    capture_set_host_matrices(hm, hn, hp, 4 * m_count, 4 * n_count, 4 * p_count);
    capture_begin(CAPLOG_CALL_HOST, j, k, l);
    matmul_on_device(hm, hn, hp, j, k, l);
    capture_end();
    free(hm);
    free(hn);
    free(hp);
}

int main(int argc, char **argv)
{
    static int shapes[MAX_SHAPES][3];
    int nshapes = 0;
    const char *ptx = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) {
            log_path = argv[++i];
        } else if (strcmp(argv[i], "--ptx") == 0 && i + 1 < argc) {
            ptx = argv[++i];
        } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc && nshapes < MAX_SHAPES) {
            if (shape(argv[++i], shapes[nshapes++]) != 0) {
                fprintf(stderr, "tilelab capture: bad shape \"%s\" (JxKxL)\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, usage, argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (!log_path || !ptx || nshapes == 0) {
        fprintf(stderr, usage, argv[0]);
        return 2;
    }
    tl_error err;
    if (capture_load_outline(ptx, &err) != 0) {
        fprintf(stderr, "tilelab capture: %s\n", err.msg);
        return 2;
    }
    /* If the lab's code ends the program (exit, a failed TL_CUDA_CHECK), what was recorded so
     * far still goes out, without "done": the reader then knows the capture stopped early. */
    atexit(write_log);
    for (int s = 0; s < nshapes; s++) {
        int j = shapes[s][0], k = shapes[s][1], l = shapes[s][2];
        float *M = capture_address(CAPLOG_BUF_M), *N = capture_address(CAPLOG_BUF_N);
        float *P = capture_address(CAPLOG_BUF_P);
        capture_begin(CAPLOG_CALL_LAUNCH, j, k, l);
        launch_matmul(M, N, P, j, k, l);
        capture_end();
        if (matmul_on_device)
            capture_host_call(j, k, l);
        if (launch_matmul_baseline) {
            capture_begin(CAPLOG_CALL_BASELINE, j, k, l);
            launch_matmul_baseline(M, N, P, j, k, l);
            capture_end();
        }
    }
    capture_log()->complete = true;
    write_log();
    return 0;
}
