#include "runner_lab_build.h"

#include "runner_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The reference GPU's architecture (RUNNER_DEFAULT_CC), as nvcc's -arch names it. */
#define STR_(x) #x
#define STR(x) STR_(x)
static const char default_arch[] = "sm_" STR(RUNNER_DEFAULT_CC);

/* -arch=native needs a GPU at build time; without one the kernels are built for Hopper. */
static const char *choose_arch(runner_backend backend)
{
    const char *forced = getenv("TILELAB_CUDA_ARCH");
    if (forced && *forced)
        return forced;
    return backend == RUNNER_GPU && tl_gpu_available() ? "native" : default_arch;
}

static bool device_debug;

void lab_build_set_device_debug(bool on) { device_debug = on; }

/* Runs nvcc; on failure keeps its messages for the caller. */
static int run_nvcc(char **argv, lab_program *out, char **compiler_output)
{
    proc_result r;
    if (proc_run(argv, 600, 1 << 20, &r) != 0) {
        *compiler_output = strdup("could not start nvcc");
        return LAB_BUILD_FAILED;
    }
    out->seconds += r.seconds;
    if (r.exit_code != 0) {
        size_t n = strlen(r.out) + strlen(r.err) + 1;
        *compiler_output = malloc(n);
        if (*compiler_output)
            snprintf(*compiler_output, n, "%s%s", r.out, r.err);
        proc_result_free(&r);
        return LAB_BUILD_FAILED;
    }
    proc_result_free(&r);
    return LAB_BUILD_OK;
}

/* The cache key: the source, the kit's libraries and headers, the compiler and the flags. */
static int cache_key(const char *source, runner_backend backend, bool with_cublas,
                     const char *arch, uint64_t *h)
{
    *h = TL_HASH_SEED;
    if (util_hash_file(h, source) != 0)
        return -1;
    const char *stamps[] = {RUNNER_LAB_MAIN_LIB, RUNNER_HARNESS_CUDA_LIB, RUNNER_HARNESS_LIB,
                            RUNNER_HARNESS_INCLUDE "/lab.h", RUNNER_HARNESS_INCLUDE "/harness.h",
                            RUNNER_HARNESS_INCLUDE "/cuda_removed.h", RUNNER_NVCC,
                            RUNNER_CPURT_LIB, RUNNER_PTX_LIB};
    for (size_t i = 0; i < sizeof stamps / sizeof stamps[0]; i++)
        *h = util_hash_stamp(*h, stamps[i]);
    *h = util_hash_text(*h, arch);
    *h = util_hash_text(*h, with_cublas ? "cublas" : "plain");
    *h = util_hash_text(*h, runner_backend_name(backend));
    *h = util_hash_text(*h, device_debug ? "-G" : "");
    return 0;
}

/* Where the program of this key lies in the cache: a folder per key, the program named after
 * the source's stem. */
static void cache_path(const char *source, uint64_t h, char *dir, size_t dir_size,
                       lab_program *out)
{
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    char stem[64];
    snprintf(stem, sizeof stem, "%.*s", (int)strcspn(base, "."), base);
    snprintf(dir, dir_size, "%s/%s-%016" PRIx64, RUNNER_CACHE_DIR, stem, h);
    snprintf(out->path, sizeof out->path, "%s/%s", dir, stem);
}

/* The CPU backend runs the kernels' PTX, with .loc lines for its messages. */
static int build_ptx(const char *source, const char *ptx, lab_program *out, char **messages)
{
    char *argv[] = {RUNNER_NVCC, "-std=c++17", "-ptx", device_debug ? "-G" : "-lineinfo",
                    "-arch=compute_90", "-I" RUNNER_HARNESS_INCLUDE, "-o", (char *)ptx,
                    (char *)source, NULL};
    return run_nvcc(argv, out, messages);
}

/* The lab program itself: the source with the harness's main, linked with libcudart (GPU) or
 * with the CPU backend's runtime and interpreter (-cudart none). */
static int build_program(const char *source, const char *to, runner_backend backend,
                         bool with_cublas, lab_program *out, char **messages)
{
    char arch_flag[48], rpath[PATH_MAX];
    snprintf(arch_flag, sizeof arch_flag, "-arch=%s", out->arch);
    /* cJSON may live outside the loader's default folders (a prefix of its own). */
    snprintf(rpath, sizeof rpath, "-rpath=%s", RUNNER_CJSON_DIR);
    bool cpu = backend == RUNNER_CPU;
    char *argv[28];
    int n = 0;
    argv[n++] = RUNNER_NVCC;
    argv[n++] = "-std=c++17";
    argv[n++] = "-O3";
    argv[n++] = device_debug ? "-G" : "-lineinfo";
    argv[n++] = arch_flag;
    if (cpu) {
        argv[n++] = "-cudart";
        argv[n++] = "none";
    }
    argv[n++] = "-I" RUNNER_HARNESS_INCLUDE;
    argv[n++] = "-o";
    argv[n++] = (char *)to;
    argv[n++] = (char *)source;
    argv[n++] = with_cublas ? RUNNER_LAB_MAIN_CUBLAS_LIB : RUNNER_LAB_MAIN_LIB;
    argv[n++] = RUNNER_HARNESS_CUDA_LIB;
    argv[n++] = RUNNER_HARNESS_LIB;
    if (cpu) {
        argv[n++] = RUNNER_CPURT_LIB;
        argv[n++] = RUNNER_PTX_LIB;
    }
    argv[n++] = RUNNER_CJSON_LIB;
    argv[n++] = "-Xlinker";
    argv[n++] = rpath;
    argv[n++] = "-lpthread";
    argv[n++] = "-lm";
    if (cpu)
        argv[n++] = "-lz"; /* the interpreter's tables of the H100's approximate instructions */
    if (with_cublas)
        argv[n++] = "-lcublas";
    argv[n] = NULL;
    return run_nvcc(argv, out, messages);
}

int lab_build(const char *source, runner_backend backend, bool with_cublas, lab_program *out,
              char **compiler_output)
{
    memset(out, 0, sizeof *out);
    *compiler_output = NULL;
    snprintf(out->arch, sizeof out->arch, "%s", choose_arch(backend));
    uint64_t h;
    if (cache_key(source, backend, with_cublas, out->arch, &h) != 0)
        return LAB_BUILD_NO_SOURCE;
    char dir[PATH_MAX - 128];
    cache_path(source, h, dir, sizeof dir, out);
    if (access(out->path, X_OK) == 0) {
        out->cached = true;
        return LAB_BUILD_OK;
    }
    files_make_dirs(dir);
    char tmp[PATH_MAX], tmp_ptx[PATH_MAX + 8], ptx_path[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s/.building-%ld", dir, (long)getpid());
    snprintf(tmp_ptx, sizeof tmp_ptx, "%s.ptx", tmp);
    bool cpu = backend == RUNNER_CPU;
    if (cpu && build_ptx(source, tmp_ptx, out, compiler_output) != LAB_BUILD_OK)
        return LAB_BUILD_FAILED;
    if (build_program(source, tmp, backend, with_cublas, out, compiler_output) != LAB_BUILD_OK) {
        unlink(tmp);
        unlink(tmp_ptx);
        return LAB_BUILD_FAILED;
    }
    snprintf(ptx_path, sizeof ptx_path, "%s.ptx", out->path);
    if (cpu)
        rename(tmp_ptx, ptx_path);
    if (rename(tmp, out->path) != 0) {
        char msg[PATH_MAX + 64];
        snprintf(msg, sizeof msg, "cannot move the program into %s: %s", out->path, strerror(errno));
        *compiler_output = strdup(msg);
        return LAB_BUILD_FAILED;
    }
    return LAB_BUILD_OK;
}
