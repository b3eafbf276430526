#include "runner_lab_build.h"

#include "lab_build_config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t hash_text(uint64_t h, const char *text)
{
    return tl_hash(h, text, strlen(text) + 1);
}

/* A library or header changes the program as much as the source does. */
static uint64_t hash_stamp(uint64_t h, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        int64_t parts[2] = {(int64_t)st.st_size, (int64_t)st.st_mtime};
        h = tl_hash(h, parts, sizeof parts);
    }
    return hash_text(h, path);
}

static int hash_file(uint64_t *h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        *h = tl_hash(*h, buf, n);
    fclose(f);
    return 0;
}

static void mkdir_p(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    }
    mkdir(path, 0777);
}

/* -arch=native needs a GPU at build time; without one the kernels are built for Hopper. */
static const char *choose_arch(runner_backend backend)
{
    const char *forced = getenv("TILELAB_CUDA_ARCH");
    if (forced && *forced)
        return forced;
    return backend == RUNNER_GPU && tl_gpu_available() ? "native" : TILELAB_DEFAULT_ARCH;
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

int lab_build(const char *source, runner_backend backend, bool with_cublas, lab_program *out,
              char **compiler_output)
{
    memset(out, 0, sizeof *out);
    *compiler_output = NULL;
    snprintf(out->arch, sizeof out->arch, "%s", choose_arch(backend));
    uint64_t h = TL_HASH_SEED;
    if (hash_file(&h, source) != 0)
        return LAB_BUILD_NO_SOURCE;
    const char *stamps[] = {TILELAB_LAB_MAIN_LIB, TILELAB_HARNESS_CUDA_LIB, TILELAB_HARNESS_LIB,
                            TILELAB_HARNESS_INCLUDE "/lab.h", TILELAB_HARNESS_INCLUDE "/harness.h",
                            TILELAB_HARNESS_INCLUDE "/cuda_removed.h", TILELAB_NVCC, TILELAB_CPURT_LIB, TILELAB_PTX_LIB};
    for (size_t i = 0; i < sizeof stamps / sizeof stamps[0]; i++)
        h = hash_stamp(h, stamps[i]);
    h = hash_text(h, out->arch);
    h = hash_text(h, with_cublas ? "cublas" : "plain");
    h = hash_text(h, runner_backend_name(backend));
    h = hash_text(h, device_debug ? "-G" : "");

    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    char stem[64];
    snprintf(stem, sizeof stem, "%.*s", (int)strcspn(base, "."), base);
    char dir[PATH_MAX - 128];
    snprintf(dir, sizeof dir, "%s/%s-%016" PRIx64, TILELAB_CACHE_DIR, stem, h);
    snprintf(out->path, sizeof out->path, "%s/%s", dir, stem);
    if (access(out->path, X_OK) == 0) {
        out->cached = true;
        return LAB_BUILD_OK;
    }
    mkdir_p(dir);
    char tmp[PATH_MAX], tmp_ptx[PATH_MAX + 8], arch_flag[48], rpath[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/.building-%ld", dir, (long)getpid());
    snprintf(tmp_ptx, sizeof tmp_ptx, "%s.ptx", tmp);
    snprintf(arch_flag, sizeof arch_flag, "-arch=%s", out->arch);
    /* cJSON may live outside the loader's default folders (a prefix of its own). */
    const char *cjson_dir_end = strrchr(TILELAB_CJSON_LIB, '/');
    snprintf(rpath, sizeof rpath, "-rpath=%.*s", (int)(cjson_dir_end - TILELAB_CJSON_LIB),
             TILELAB_CJSON_LIB);
    bool cpu = backend == RUNNER_CPU;
    if (cpu) {
        /* The CPU backend runs the kernels' PTX, with .loc lines for its messages. */
        char *ptx_argv[] = {TILELAB_NVCC, "-std=c++17", "-ptx",
                            device_debug ? "-G" : "-lineinfo", "-arch=compute_90",
                            "-I" TILELAB_HARNESS_INCLUDE, "-o", tmp_ptx, (char *)source, NULL};
        if (run_nvcc(ptx_argv, out, compiler_output) != LAB_BUILD_OK)
            return LAB_BUILD_FAILED;
    }
    char *argv[28];
    int n = 0;
    argv[n++] = TILELAB_NVCC;
    argv[n++] = "-std=c++17";
    argv[n++] = "-O3";
    argv[n++] = device_debug ? "-G" : "-lineinfo";
    argv[n++] = arch_flag;
    if (cpu) {
        argv[n++] = "-cudart";
        argv[n++] = "none";
    }
    argv[n++] = "-I" TILELAB_HARNESS_INCLUDE;
    argv[n++] = "-o";
    argv[n++] = tmp;
    argv[n++] = (char *)source;
    argv[n++] = with_cublas ? TILELAB_LAB_MAIN_CUBLAS_LIB : TILELAB_LAB_MAIN_LIB;
    argv[n++] = TILELAB_HARNESS_CUDA_LIB;
    argv[n++] = TILELAB_HARNESS_LIB;
    if (cpu) {
        argv[n++] = TILELAB_CPURT_LIB;
        argv[n++] = TILELAB_PTX_LIB;
    }
    argv[n++] = TILELAB_CJSON_LIB;
    argv[n++] = "-Xlinker";
    argv[n++] = rpath;
    argv[n++] = "-lpthread";
    argv[n++] = "-lm";
    if (cpu)
        argv[n++] = "-lz"; /* the interpreter's tables of the H100's approximate instructions */
    if (with_cublas)
        argv[n++] = "-lcublas";
    argv[n] = NULL;
    if (run_nvcc(argv, out, compiler_output) != LAB_BUILD_OK) {
        unlink(tmp);
        unlink(tmp_ptx);
        return LAB_BUILD_FAILED;
    }
    if (cpu) {
        char ptx_path[PATH_MAX + 8];
        snprintf(ptx_path, sizeof ptx_path, "%s.ptx", out->path);
        rename(tmp_ptx, ptx_path);
    }
    if (rename(tmp, out->path) != 0) {
        char msg[PATH_MAX + 64];
        snprintf(msg, sizeof msg, "cannot move the program into %s: %s", out->path, strerror(errno));
        *compiler_output = strdup(msg);
        return LAB_BUILD_FAILED;
    }
    return LAB_BUILD_OK;
}
