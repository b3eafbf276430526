/* ptx: a PTX interpreter in C, the engine of tilelab's CPU backend. The one public header.
 *
 * ptx_module_parse turns the PTX text nvcc emits (-ptx -lineinfo) into pre-decoded entries;
 * ptx_launch runs one entry over a grid, block by block, each block as warps of 32 threads in
 * lockstep (per-thread program counters, the lowest running one scheduled first, so diverged
 * threads reconverge where their paths meet) with real bar.sync semantics.
 *
 * Global memory is the host's: device pointers are plain host addresses. Shared and local
 * memory live in per-block buffers, reached through 32-bit offsets (shared) or through generic
 * addresses in windows no host pointer can take.
 */
#ifndef TILELAB_PTX_H
#define TILELAB_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ptx_module ptx_module;
typedef struct ptx_entry ptx_entry;

/* Why a launch stopped, as the CUDA error a GPU gives: an access outside memory
 * (cudaErrorIllegalAddress), a failed assert() (cudaErrorAssert), anything else
 * (cudaErrorLaunchFailure). */
typedef enum ptx_error_kind {
    PTX_ERROR_FAULT = 0,
    PTX_ERROR_ADDRESS,
    PTX_ERROR_ASSERT,
    PTX_ERROR_LIMIT, /* ran past ptx_env's instruction limit (an endless loop, most likely) or
                        its deadline */
    PTX_ERROR_BUSY   /* a block ran past one of ptx_env's busy limits: not a fault, the caller's
                        proof that the launch is slower than it cares to count */
} ptx_error_kind;

typedef struct ptx_error {
    char msg[1024];
    ptx_error_kind kind; /* set by a launch that fails */
} ptx_error;

/* Parses PTX text (`len` bytes; need not be NUL-terminated). `name` appears in error messages.
 * Returns NULL with err filled on syntax it does not understand, naming the line. */
ptx_module *ptx_module_parse(const char *name, const char *text, size_t len, ptx_error *err);
void ptx_module_free(ptx_module *m);

/* Finds an entry by its (mangled) name, as __cudaRegisterFunction reports it. */
const ptx_entry *ptx_module_entry(const ptx_module *m, const char *name);
int ptx_module_entry_count(const ptx_module *m);
const ptx_entry *ptx_module_entry_at(const ptx_module *m, int i);
const char *ptx_entry_name(const ptx_entry *e);
/* A kernel's name as its source wrote it, for people: "MatrixMulKernel" for
 * _Z15MatrixMulKernelPKfS0_Pfi, "strided<2>" for a template's instance, "ns::k" in a namespace.
 * A name that is not C++'s mangling (extern "C") or that cannot be read is copied unchanged. */
void ptx_kernel_name(const char *mangled, char *out, size_t size);
/* The last component of a path: messages name a source file as its student knows it. */
const char *ptx_base_name(const char *path);
int ptx_entry_param_count(const ptx_entry *e);
/* Size in bytes of parameter i (its .param type), 0 when out of range. */
size_t ptx_entry_param_size(const ptx_entry *e, int i);
/* Bytes of static .shared memory the entry declares. */
size_t ptx_entry_shared_bytes(const ptx_entry *e);
/* The module's variables (.global and .const, printf formats included): host memory the
 * interpreter's kernels read and write directly. NULL past the last. */
int ptx_module_variable_count(const ptx_module *m);
uint8_t *ptx_module_variable(const ptx_module *m, int i, size_t *size);
/* A module variable by its PTX name, or NULL. */
uint8_t *ptx_module_variable_named(const ptx_module *m, const char *name, size_t *size);

/* ---- the outline of a module: entries' parameters and module variables ------------------ */
#define PTX_OUTLINE_MAX_ENTRIES 256
#define PTX_OUTLINE_MAX_VARS 1024
#define PTX_OUTLINE_MAX_PARAMS 256
/* The parameter space of a classic kernel launch; larger parameter lists are refused. */
#define PTX_OUTLINE_MAX_PARAM_BYTES 4096

typedef struct ptx_entry_outline {
    char name[256];
    int nparams;
    uint32_t param_bytes; /* offset + size of the last parameter */
    uint32_t param_offset[PTX_OUTLINE_MAX_PARAMS];
    uint32_t param_size[PTX_OUTLINE_MAX_PARAMS];
} ptx_entry_outline;

typedef struct ptx_var_outline {
    char name[256];
    uint64_t size;  /* bytes; 0 for an unsized extern array */
    bool constant;  /* .const rather than .global */
} ptx_var_outline;

typedef struct ptx_outline {
    int nentries, nvars;
    ptx_entry_outline entries[PTX_OUTLINE_MAX_ENTRIES];
    ptx_var_outline vars[PTX_OUTLINE_MAX_VARS];
} ptx_outline;

/* Reads only the module-scope declarations of PTX text (instruction bodies are skipped, so an
 * instruction the interpreter does not support does not matter here). Returns NULL with err
 * naming the line on text it cannot follow or on more than the limits above. */
ptx_outline *ptx_outline_read(const char *name, const char *text, size_t len, ptx_error *err);
void ptx_outline_free(ptx_outline *o);
const ptx_entry_outline *ptx_outline_entry(const ptx_outline *o, const char *name);

typedef struct ptx_dim3 {
    unsigned x, y, z;
} ptx_dim3;

typedef struct ptx_stats {
    uint64_t warp_instructions;   /* instructions issued, one per warp (or diverged group) */
    uint64_t thread_instructions; /* instructions executed, one per active thread */
} ptx_stats;

/* What last wrote a byte of device memory, as a region's shadow records it: nothing yet, a
 * memset (a constant), an upload (bytes from the host: a dataset's input), a kernel's store or
 * atomic. A device-to-device copy carries its source's. So the grader can tell a product a kernel
 * stored from one that got into P any other way. */
enum {
    PTX_HELD_NOTHING = 0,
    PTX_HELD_FILL = 1,
    PTX_HELD_UPLOAD = 2,
    PTX_HELD_KERNEL = 3
};

/* Device memory the interpreter may check accesses against: the live allocations, sorted by
 * base address. `shadow`, when not NULL, has one byte per byte of the allocation: what last
 * wrote it (PTX_HELD_*). `owner`, when not NULL (an answer's memory in a sampled run), has one
 * word per 4-byte word: the serial of the block that last stored it (ptx_env.block_serial), so
 * that each block's stores are counted once per word (ptx_diag's samples). */
typedef struct ptx_region {
    uint64_t base, size;
    uint8_t *shadow;
    int id;           /* the program's id-th cudaMalloc, for messages */
    const char *name; /* or what its owner calls it, "M (64x64 floats, 16384 bytes)"; NULL: id */
    uint32_t *owner;
} ptx_region;

/* Findings and figures collected over launches (./tilelab diagnose). */
typedef struct ptx_diag ptx_diag;
ptx_diag *ptx_diag_new(void);
void ptx_diag_free(ptx_diag *d);
/* Errors found so far (out of bounds, races, barrier divergence, uninitialized reads). */
int ptx_diag_error_count(const ptx_diag *d);
/* Whether the launches from now on belong to lab 05's given baseline kernel (on) or to the
 * submission's own call: their findings, figures and traffic are kept and reported apart
 * ("baseline": true, "baseline_traffic"), so the submission's are never mixed with them. */
void ptx_diag_set_baseline(ptx_diag *d, bool on);
/* Everything as one JSON document. */
void ptx_diag_write_json(const ptx_diag *d, FILE *out);

typedef struct ptx_env {
    const ptx_region *regions; /* NULL: global accesses are not checked */
    int nregions;
    /* NULL: a plain run, where an error stops the kernel. Otherwise errors are recorded and the
     * kernel goes on (bad reads give the poison pattern, bad writes are dropped), and the
     * checks that cost more (races, uninitialized reads) and the figures are on. */
    ptx_diag *diag;
    /* Threads to run blocks on: 0 for one per CPU, 1 to run them one after another. A run
     * under diagnosis, or of a kernel that prints, uses one (its messages keep their order).
     * Results do not depend on the number, atomics' order of arrival aside, as on a GPU;
     * blocks that spin waiting for other blocks finish on one thread too (launch.c). */
    int threads;
    /* 0: run every block. N: run only N blocks, for the performance model's counts (under
     * diagnosis): the grid, in blockIdx order, cut into N equal stretches, and one block drawn
     * from each by `sample_seed`. The seed is the grader's secret, so a kernel cannot tell
     * whether it runs in a sampled block: it must do its work in every block. */
    uint64_t sample_blocks;
    uint64_t sample_seed;
    /* Blocks get serials block_serial + 1, + 2, ... in the order they start (0 is no block's):
     * the caller keeps them distinct over the launches whose stores it counts (ptx_region). */
    uint32_t block_serial;
    /* 0: no limit. N: a launch whose threads run more than N instructions in all is stopped
     * (PTX_ERROR_LIMIT), its message naming where each warp of the block that crossed the limit
     * was and how many loop trips it had made: a limit that follows the work, the same on any
     * machine, where a time limit would depend on the machine's speed. */
    uint64_t max_thread_instructions;
    /* 0: none. A CLOCK_MONOTONIC time in nanoseconds at which a launch still running is stopped
     * (PTX_ERROR_LIMIT too), its message naming where each warp of the block that noticed was:
     * the caller's time limit, reported from inside rather than by a kill. */
    uint64_t deadline_ns;
    /* The most loop trips a warp of a correct kernel could make in this launch (the caller's
     * estimate from the work; 0: unknown). Past it the time limit's message asks whether the
     * loop ever ends; within it, it says the loops were making ordinary progress. */
    uint64_t ordinary_trips;
    /* 0: none. Counts past which the caller knows enough of a launch's time (the performance
     * model's: a block that keeps its SM busy longer than a time it need not measure past): the
     * launch is stopped (PTX_ERROR_BUSY, every block, none started after) once one warp has
     * issued more than max_warp_issue warp instructions, one block more than max_block_issue,
     * or, under diagnosis, one block more than max_block_wavefronts global and shared
     * wavefronts (as the diagnosis counts them). The message says which, by the limit. */
    uint64_t max_warp_issue, max_block_issue, max_block_wavefronts;
} ptx_env;

/* ptx_launch with checks: see ptx_env. */
int ptx_launch_env(const ptx_entry *e, ptx_dim3 grid, ptx_dim3 block, void **args,
                   size_t dynamic_shared, const ptx_env *env, ptx_stats *stats, ptx_error *err);

/* Runs entry `e` with `args[i]` pointing at the value of parameter i (as the CUDA runtime's
 * kernel launch passes them). `dynamic_shared` bytes are added after the static shared
 * variables. Returns 0, or -1 with err naming the instruction and source line that stopped it
 * (an unsupported instruction, a shared or local access out of bounds, a bad launch, blocks
 * that wait for each other forever). */
int ptx_launch(const ptx_entry *e, ptx_dim3 grid, ptx_dim3 block, void **args,
               size_t dynamic_shared, ptx_stats *stats, ptx_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_PTX_H */
