/* tilelab's CPU backend: a stand-in for libcudart. A program built by nvcc with -cudart none and
 * linked with this library runs its kernels in the PTX interpreter (ptx/) instead of on a GPU.
 *
 * nvcc's host stubs register each kernel's host function and mangled name at start-up, and
 * launch through __cudaGetKernel and __cudaLaunchKernel; the kernels' PTX is read from the file
 * next to the program (PROGRAM.ptx) or from $TILELAB_PTX. Device memory is host memory, filled
 * with a NaN pattern when allocated. Launches run synchronously, so events measure the
 * interpreter's wall-clock time: emulated time, not a GPU's. */
#include "cpurt_internal.h"
#include "cudart_seam.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ptx_module *module;
static bool module_tried;
static ptx_diag *diag;
static bool diag_tried;
static const char *diag_path;

static void write_diagnosis(void)
{
    FILE *f = fopen(diag_path, "w");
    if (!f) {
        fprintf(stderr, "tilelab CPU backend: cannot write the diagnosis to %s\n", diag_path);
        return;
    }
    ptx_diag_write_json(diag, f);
    fclose(f);
}

int cpurt_threads(void)
{
    const char *v = getenv("TILELAB_CPU_THREADS");
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    if (v && *v && (*end || n < 1 || n > 1024)) {
        fprintf(stderr, "tilelab CPU backend: TILELAB_CPU_THREADS=%s is not a number of threads "
                        "(1 to 1024); using one per CPU\n", v);
        return 0;
    }
    return (int)n;
}

/* TILELAB_SAMPLE_BLOCKS=N, with TILELAB_DIAGNOSE: run N blocks of each launch, spread over the
 * grid, for the performance model's counts of a large launch (results are then incomplete). */
static uint64_t cpurt_sample_blocks(void)
{
    const char *v = getenv("TILELAB_SAMPLE_BLOCKS");
    char *end = NULL;
    long long n = v && *v ? strtoll(v, &end, 10) : 0;
    if (v && *v && (*end || n < 0)) {
        fprintf(stderr, "tilelab CPU backend: TILELAB_SAMPLE_BLOCKS=%s is not a number of blocks; "
                        "running every block\n", v);
        return 0;
    }
    return cpurt_diag() ? (uint64_t)n : 0;
}

ptx_diag *cpurt_diag(void)
{
    if (!diag_tried) {
        diag_tried = true;
        diag_path = getenv("TILELAB_DIAGNOSE");
        if (diag_path && *diag_path) {
            diag = ptx_diag_new();
            if (diag)
                atexit(write_diagnosis);
        }
    }
    return diag;
}
static cudaError_t last_error = cudaSuccess;
static cudaError_t sticky_error = cudaSuccess;

typedef struct kernel_record {
    const void *host_fun;
    char name[256];
    /* Dynamic shared memory a launch may use: 48 KiB unless the program asked for more with
     * cudaFuncSetAttribute, as on the GPU. */
    size_t max_dynamic_shared;
} kernel_record;

static kernel_record *kernels;
static int nkernels;


cudaError_t cpurt_fail(cudaError_t e)
{
    last_error = e;
    return e;
}

cudaError_t cpurt_status(void)
{
    return sticky_error;
}

/* ---- registration, called from nvcc's generated start-up code ------------------------------ */


void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bdim, dim3 *gdim, int *wsize)
{
    (void)handle, (void)device_fun, (void)thread_limit, (void)tid, (void)bid, (void)bdim,
        (void)gdim, (void)wsize;
    kernel_record *k = realloc(kernels, (size_t)(nkernels + 1) * sizeof *k);
    if (!k)
        return;
    kernels = k;
    k[nkernels].host_fun = host_fun;
    snprintf(k[nkernels].name, sizeof k[nkernels].name, "%s", device_name);
    k[nkernels].max_dynamic_shared = SEAM_SHARED_PER_BLOCK;
    nkernels++;
}

/* Module variables (__device__, __constant__): the host program knows each by the address of
 * its host shadow, the module by its name. */
typedef struct variable_record {
    const void *host_var;
    char name[256];
} variable_record;

static variable_record *variables;
static int nvariables;

void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
                       int ext, size_t size, int constant, int global)
{
    (void)handle, (void)device_address, (void)ext, (void)size, (void)constant, (void)global;
    variable_record *v = realloc(variables, (size_t)(nvariables + 1) * sizeof *v);
    if (!v)
        return;
    variables = v;
    v[nvariables].host_var = host_var;
    snprintf(v[nvariables].name, sizeof v[nvariables].name, "%s", device_name);
    nvariables++;
}

static ptx_module *load_module(void);

/* The interpreter's memory of a module variable, from the host program's symbol. */
static uint8_t *symbol_memory(const void *symbol, size_t *size)
{
    const ptx_module *m = load_module();
    for (int i = 0; m && i < nvariables; i++)
        if (variables[i].host_var == symbol)
            return ptx_module_variable_named(m, variables[i].name, size);
    return NULL;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    (void)kind;
    size_t size = 0;
    uint8_t *p = symbol_memory(symbol, &size);
    if (!p)
        return cpurt_fail(cudaErrorInvalidSymbol);
    if (offset > size || count > size - offset)
        return cpurt_fail(cudaErrorInvalidValue);
    memmove(p + offset, src, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    (void)kind;
    size_t size = 0;
    uint8_t *p = symbol_memory(symbol, &size);
    if (!p)
        return cpurt_fail(cudaErrorInvalidSymbol);
    if (offset > size || count > size - offset)
        return cpurt_fail(cudaErrorInvalidValue);
    memmove(dst, p + offset, count);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolAddress(void **ptr, const void *symbol)
{
    size_t size = 0;
    uint8_t *p = symbol_memory(symbol, &size);
    if (!p)
        return cpurt_fail(cudaErrorInvalidSymbol);
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    return symbol_memory(symbol, size) ? cudaSuccess : cpurt_fail(cudaErrorInvalidSymbol);
}

cudaError_t __cudaGetKernel(cudaKernel_t *handle, const void *host_fun)
{
    for (int i = 0; i < nkernels; i++) {
        if (kernels[i].host_fun == host_fun) {
            *handle = (cudaKernel_t)(void *)&kernels[i];
            return cudaSuccess;
        }
    }
    return cpurt_fail(cudaErrorInvalidDeviceFunction);
}

/* The module is parsed once, at the first launch. */
static ptx_module *load_module(void)
{
    if (module_tried)
        return module;
    module_tried = true;
    char path[4096];
    const char *env = getenv("TILELAB_PTX");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 5);
        if (n <= 0) {
            fprintf(stderr, "tilelab CPU backend: cannot find this program's path for its PTX\n");
            return NULL;
        }
        memcpy(path + n, ".ptx", 5);
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tilelab CPU backend: cannot open the kernels' PTX %s (build the program "
                        "with ./tilelab run --backend cpu, or set TILELAB_PTX)\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc(len > 0 ? (size_t)len : 1);
    size_t got = text ? fread(text, 1, (size_t)len, f) : 0;
    fclose(f);
    ptx_error err;
    if (text && got == (size_t)len)
        module = ptx_module_parse(path, text, got, &err);
    else
        snprintf(err.msg, sizeof err.msg, "%.900s: cannot read", path);
    free(text);
    if (!module)
        fprintf(stderr, "tilelab CPU backend: %s\n", err.msg);
    return module;
}

static cudaError_t launch(const kernel_record *k, dim3 grid, dim3 block, void **args, size_t shared)
{
    if (sticky_error != cudaSuccess)
        return cpurt_fail(sticky_error);
    const ptx_module *m = load_module();
    if (!m) {
        /* Nothing can run: every later call that waits on the device says so. */
        sticky_error = cudaErrorInvalidKernelImage;
        return cpurt_fail(sticky_error);
    }
    const ptx_entry *e = ptx_module_entry(m, k->name);
    if (!e) {
        fprintf(stderr, "tilelab CPU backend: kernel %s is not in the PTX\n", k->name);
        return cpurt_fail(cudaErrorInvalidDeviceFunction);
    }
    size_t static_shared = ptx_entry_shared_bytes(e);
    if (shared > k->max_dynamic_shared || static_shared + shared > SEAM_SHARED_PER_BLOCK_OPTIN) {
        fflush(stdout);
        fprintf(stderr, "tilelab CPU backend: %s asks for %zu bytes of dynamic shared memory; a "
                "launch may use %zu (more needs cudaFuncSetAttribute(kernel, "
                "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), at most %d with the "
                "kernel's %zu static bytes)\n", k->name, shared, k->max_dynamic_shared,
                SEAM_SHARED_PER_BLOCK_OPTIN, static_shared);
        return cpurt_fail(cudaErrorInvalidValue);
    }
    ptx_error err;
    ptx_stats stats = {0, 0};
    double t0 = cpurt_now();
    ptx_env env = {.diag = cpurt_diag(), .threads = cpurt_threads(),
                   .sample_blocks = cpurt_sample_blocks()};
    env.regions = cpurt_regions(&env.nregions);
    int rc = ptx_launch_env(e, (ptx_dim3){grid.x, grid.y, grid.z},
                            (ptx_dim3){block.x, block.y, block.z}, args, shared, &env, &stats, &err);
    cpurt_note_launch(cpurt_now() - t0, &stats);
    if (rc != 0) {
        fflush(stdout);
        fprintf(stderr, "tilelab CPU backend: %s\n", err.msg);
        if (strncmp(err.msg, "invalid launch configuration", 28) == 0)
            return cpurt_fail(cudaErrorInvalidConfiguration);
        /* Like a fault on a GPU, a failed kernel poisons the context. */
        sticky_error = err.kind == PTX_ERROR_ASSERT    ? cudaErrorAssert
                       : err.kind == PTX_ERROR_ADDRESS ? cudaErrorIllegalAddress
                                                       : cudaErrorLaunchFailure;
        return cpurt_fail(sticky_error);
    }
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t shared, cudaStream_t stream)
{
    (void)stream;
    return launch((const kernel_record *)(void *)kernel, grid, block, args, shared);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shared, cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

static kernel_record *kernel_of(const void *func)
{
    for (int i = 0; i < nkernels; i++)
        if (kernels[i].host_fun == func)
            return &kernels[i];
    return NULL;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    kernel_record *k = kernel_of(func);
    if (!k)
        return cpurt_fail(cudaErrorInvalidDeviceFunction);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        const ptx_module *m = load_module();
        const ptx_entry *e = m ? ptx_module_entry(m, k->name) : NULL;
        size_t static_shared = e ? ptx_entry_shared_bytes(e) : 0;
        if (value < 0 || static_shared + (size_t)value > SEAM_SHARED_PER_BLOCK_OPTIN)
            return cpurt_fail(cudaErrorInvalidValue);
        k->max_dynamic_shared = (size_t)value;
    }
    /* The other attributes (carveout, cluster shapes...) are hints the interpreter has no use
     * for. */
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config)
{
    (void)config;
    return kernel_of(func) ? cudaSuccess : cpurt_fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    kernel_record *k = kernel_of(func);
    if (!k)
        return cpurt_fail(cudaErrorInvalidDeviceFunction);
    const ptx_module *m = load_module();
    const ptx_entry *e = m ? ptx_module_entry(m, k->name) : NULL;
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = e ? ptx_entry_shared_bytes(e) : 0;
    attr->maxThreadsPerBlock = SEAM_MAX_THREADS_PER_BLOCK;
    attr->maxDynamicSharedSizeBytes = (int)k->max_dynamic_shared;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                             cudaStream_t stream)
{
    (void)stream;
    for (int i = 0; i < nkernels; i++)
        if (kernels[i].host_fun == func)
            return launch(&kernels[i], grid, block, args, shared);
    return cpurt_fail(cudaErrorInvalidDeviceFunction);
}

/* ---- errors -------------------------------------------------------------------------------- */

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = sticky_error;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

cudaError_t cudaDeviceSynchronize(void)
{
    return sticky_error != cudaSuccess ? cpurt_fail(sticky_error) : cudaSuccess;
}

cudaError_t cudaDeviceReset(void)
{
    sticky_error = cudaSuccess;
    last_error = cudaSuccess;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream;
    return cudaDeviceSynchronize();
}
