/* capture_log: what a lab program's host code asked the CUDA runtime to do, as recorded by the
 * capture runtime and replayed by the grader's replayer. The one public header of capture/.
 *
 * For grading, a student's host code runs only to describe the work: with no GPU, linked with a
 * runtime that records each allocation, copy, memset and launch instead of doing it. The log is
 * that record, per call of a lab function and per problem shape. The replayer, which is never
 * linked with student code, does the work on its own buffers and checks and times the result
 * itself. A log is student-controlled input: the reader checks every record against the limits
 * below and refuses anything else with the line and what was expected.
 *
 * The text, one record per line, fields separated by single spaces:
 *   tilelab-capture 1             first line
 *   kernel ID NAME                a registered kernel; IDs count up from 0
 *   var NAME SIZE                 a registered __device__ or __constant__ variable
 *   alloc BUF SIZE                cudaMalloc; BUF names a1, a2, ... in order, valid in every call
 *   call KIND J K L               the start of one call of a lab function on a J x K x L problem
 *   memset BUF OFF VALUE COUNT
 *   copy DST DOFF SRC SOFF COUNT
 *   launch KID GX GY GZ BX BY BZ SHARED ARG...
 *                                 one ARG per kernel parameter: pieces joined by ",", each
 *                                 x<hex bytes> or @BUF:OFF (an 8-byte pointer into BUF)
 *   free BUF
 *   input I FILE KIND BYTES       (program calls, before any operation) host input hI<I>, the
 *                                 program's input file FILE (its -i index) as it imported it:
 *                                 KIND real, integer, text or image
 *   answer SIZE OFF BYTES         (program calls, before any operation) hO, the SIZE bytes the
 *                                 device copies wrote around the answer, which is BYTES at OFF
 *   filler BYTES                  (program calls) BYTES more of host memory the program did not
 *                                 import went to the device: each copy is recorded as a memset
 *                                 to the NaN pattern (0xff) of its destination, untrusted filler
 *   refused TEXT                  the host code asked for something grading does not allow
 *   end                           the end of the call
 *   done                          the end of the log; without it the program stopped early
 * BUF: M N P (the harness's device matrices, in launch and baseline calls), hM hN hP (lab 01's
 * host matrices, in host calls: copies go from hM or hN to the device, or from the device to
 * hP) and a<n>. Offsets and counts are bytes; OFF of a pointer may be negative.
 *
 * A program call (a libwb program's whole main, graded as it is) has no harness matrices: its
 * host inputs hI0, hI1, ... are what the program imported (the replayer fills them from the
 * dataset), hO is where the device's results land for the answer the program hands to
 * wbSolution, and v<n> names the module's n-th variable (cudaMemcpyToSymbol). Copies go device
 * to device, from an hI to the device or a variable, or from the device to hO.
 */
#ifndef TILELAB_CAPTURE_LOG_H
#define TILELAB_CAPTURE_LOG_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CAPLOG_MAGIC "tilelab-capture 1"
#define CAPLOG_MAX_BYTES (16u << 20)  /* a whole log */
#define CAPLOG_MAX_LINE 16384         /* one record (4 KiB of parameters in hex fit) */
#define CAPLOG_MAX_NAME 255
#define CAPLOG_MAX_KERNELS 256
#define CAPLOG_MAX_VARS 1024
#define CAPLOG_MAX_ALLOCS 4096
#define CAPLOG_MAX_CALLS 1024
#define CAPLOG_MAX_OPS 200000         /* over all calls */
#define CAPLOG_MAX_ARG_TOTAL (8u << 20) /* parameter bytes over all launches */
#define CAPLOG_MAX_ARGS 256
#define CAPLOG_MAX_ARG_BYTES 4096     /* a launch's parameters together */
#define CAPLOG_MAX_ALLOC_BYTES (UINT64_C(1) << 34) /* 16 GiB: one cudaMalloc */
#define CAPLOG_MAX_REFUSAL 400
#define CAPLOG_MAX_INPUTS 8           /* host inputs of a program call, and its input files */
#define CAPLOG_MAX_HOST_BYTES (UINT64_C(1) << 32) /* one host input, or hO */

/* A program capture (a libwb program's whole main) finds its log and the module's PTX through
 * the environment, and is given stubs instead of its input files: one line
 *   tilelab-stub KIND A B C
 * with KIND matrix (A rows, B columns), text (A bytes), image (A wide, B high, C channels) or
 * expected (the expected output, which a program may not import). */
#define CAPLOG_ENV_LOG "TILELAB_CAPTURE_LOG"
#define CAPLOG_ENV_PTX "TILELAB_CAPTURE_PTX"
#define CAPLOG_STUB_MAGIC "tilelab-stub"

/* Buffers: the harness's, then a<n> as CAPLOG_BUF_ALLOC + n - 1. */
typedef enum caplog_buf {
    CAPLOG_BUF_NONE = 0,
    CAPLOG_BUF_M, CAPLOG_BUF_N, CAPLOG_BUF_P,
    CAPLOG_BUF_HOST_M, CAPLOG_BUF_HOST_N, CAPLOG_BUF_HOST_P,
    CAPLOG_BUF_INPUT,                                   /* hI0 ... hI7 */
    CAPLOG_BUF_ANSWER = CAPLOG_BUF_INPUT + CAPLOG_MAX_INPUTS, /* hO */
    CAPLOG_BUF_ALLOC = 16,
    CAPLOG_BUF_VAR = 1 << 16                            /* v<n>: CAPLOG_BUF_VAR + n - 1 */
} caplog_buf;

typedef enum caplog_call_kind {
    CAPLOG_CALL_LAUNCH = 0, /* launch_matmul on the harness's device M, N, P */
    CAPLOG_CALL_HOST,       /* lab 01's matmul_on_device on host matrices */
    CAPLOG_CALL_BASELINE,   /* lab 05's launch_matmul_baseline */
    CAPLOG_CALL_PROGRAM,    /* a whole libwb program, main to wbSolution (J K L are 1 1 1) */
    CAPLOG_CALL_KINDS
} caplog_call_kind;

/* How a program imported a host input: the bytes the replayer must give it. */
typedef enum caplog_input_kind {
    CAPLOG_INPUT_REAL = 0, /* float32 values */
    CAPLOG_INPUT_INTEGER,  /* int32 values */
    CAPLOG_INPUT_TEXT,     /* the file's bytes */
    CAPLOG_INPUT_IMAGE,    /* float32 pixels, channels interleaved */
    CAPLOG_INPUT_KINDS
} caplog_input_kind;

const char *caplog_input_kind_name(caplog_input_kind kind);

typedef enum caplog_op_kind { CAPLOG_MEMSET, CAPLOG_COPY, CAPLOG_LAUNCH, CAPLOG_FREE } caplog_op_kind;

typedef struct caplog_ref {
    int buf;        /* caplog_buf or CAPLOG_BUF_ALLOC + i */
    int64_t offset; /* bytes */
} caplog_ref;

/* A pointer inside a launch's parameter bytes: 8 bytes at `at` hold the address of `ref`. */
typedef struct caplog_reloc {
    uint32_t at;
    caplog_ref ref;
} caplog_reloc;

typedef struct caplog_launch {
    int kernel;
    uint32_t grid[3], block[3];
    uint32_t shared;        /* dynamic shared memory, bytes */
    int nargs;
    uint32_t *arg_size;     /* nargs sizes; argument i follows argument i-1 in bytes */
    uint32_t nbytes;
    uint8_t *bytes;         /* the parameters, with relocated pointers as zero */
    int nrelocs;
    caplog_reloc *relocs;
} caplog_launch;

typedef struct caplog_op {
    caplog_op_kind kind;
    caplog_ref dst, src; /* memset: dst; copy: dst and src; free: dst */
    uint64_t count;      /* bytes of a memset or copy */
    int value;           /* memset byte */
    caplog_launch *launch;
} caplog_op;

typedef struct caplog_call {
    caplog_call_kind kind;
    int j, k, l;
    int nops, capops;
    caplog_op *ops;
    bool ended;                          /* its "end" record was seen */
    char refused[CAPLOG_MAX_REFUSAL];    /* non-empty: the first refusal inside the call */
    /* non-empty: the first launch of the call that failed (as it would on a GPU: a grid or
     * block dimension of 0, too many threads), what it asked for and why. Not replayed; the
     * runner names it when nothing was written. */
    char launch_failed[CAPLOG_MAX_REFUSAL];
    /* Program calls only. */
    int ninputs;
    caplog_input_kind input_kind[CAPLOG_MAX_INPUTS];
    int input_file[CAPLOG_MAX_INPUTS];   /* the -i index it was imported from */
    uint64_t input_bytes[CAPLOG_MAX_INPUTS];
    bool answered;                       /* the program called wbSolution */
    /* Bytes of host memory the program did not import that it copied to the device (and not
     * all zeros): recorded as memsets to the NaN pattern, so no value the host made reaches the
     * answer; the runner names them when the answer is wrong. */
    uint64_t filler_bytes;
    uint64_t out_bytes;                  /* hO */
    uint64_t answer_offset, answer_bytes;
} caplog_call;

typedef struct caplog {
    int nkernels;
    char (*kernels)[CAPLOG_MAX_NAME + 1];
    int nvars;
    char (*var_names)[CAPLOG_MAX_NAME + 1];
    uint64_t *var_sizes;
    int nallocs;
    uint64_t *alloc_sizes;               /* a<n> is alloc_sizes[n-1] */
    int ncalls, capcalls;
    caplog_call *calls;
    int total_ops;
    uint64_t total_arg_bytes;
    bool complete;                       /* "done" was seen */
    char refused[CAPLOG_MAX_REFUSAL];    /* a refusal outside any call */
} caplog;

/* ---- building a log (the capture runtime) --------------------------------------------------- */
void caplog_init(caplog *log);
void caplog_free(caplog *log);
/* Each returns -1 with err filled when a limit above would be passed; the log is unchanged. */
int caplog_add_kernel(caplog *log, const char *name, tl_error *err);
int caplog_add_var(caplog *log, const char *name, uint64_t size, tl_error *err);
/* Returns the new buffer (CAPLOG_BUF_ALLOC + n - 1). */
int caplog_add_alloc(caplog *log, uint64_t size, tl_error *err);
caplog_call *caplog_begin_call(caplog *log, caplog_call_kind kind, int j, int k, int l,
                               tl_error *err);
/* Appends to the last call, which must not have ended. A launch's arrays are copied. */
int caplog_add_op(caplog *log, const caplog_op *op, tl_error *err);
/* Program calls: declares the next host input (hI<ninputs>) or the answer of the open call
 * (the writer puts both before the call's operations). -1 with err filled past a limit. */
int caplog_add_input(caplog *log, int file, caplog_input_kind kind, uint64_t bytes,
                     tl_error *err);
int caplog_set_answer(caplog *log, uint64_t out_bytes, uint64_t offset, uint64_t bytes,
                      tl_error *err);
/* Program calls: adds `bytes` to the open call's filler_bytes (saturating at
 * CAPLOG_MAX_FILLER_BYTES). */
void caplog_add_filler(caplog *log, uint64_t bytes);
#define CAPLOG_MAX_FILLER_BYTES (UINT64_C(1) << 48)
/* Notes a launch that failed in the open call (none open: nothing); the first one stays. */
void caplog_launch_failed(caplog *log, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Notes a refusal in the open call (or in the log when no call is open); the first one stays. */
void caplog_refuse(caplog *log, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void caplog_end_call(caplog *log);

/* ---- text ------------------------------------------------------------------------------------ */
/* Writes the log; `done` is written only when log->complete. Returns -1 on a write error. */
int caplog_write(FILE *out, const caplog *log);
/* Reads `len` bytes of log text. `name` appears in messages ("NAME:LINE: ..."). Returns -1 with
 * err filled on anything but a well-formed log within the limits; on success the caller frees
 * the log with caplog_free. */
int caplog_parse(const char *name, const char *text, size_t len, caplog *out, tl_error *err);

/* Why a GPU would refuse the launch's configuration (block over 1024 threads or over its
 * per-dimension limits, a grid dimension of 0 or over its limit, dynamic shared memory over
 * `max_dynamic_shared` bytes), or NULL when it is a valid launch. Capture and replay use the
 * same rule on every backend. */
const char *caplog_launch_problem(const caplog_launch *l, uint32_t max_dynamic_shared);
/* Dynamic shared memory a kernel may use without asking for more (cudaFuncSetAttribute), and
 * the most it may ask for on the reference GPU (H100: 227 KiB per block). */
#define CAPLOG_DEFAULT_DYNAMIC_SHARED (48u * 1024)
#define CAPLOG_MAX_DYNAMIC_SHARED (227u * 1024)

const char *caplog_call_kind_name(caplog_call_kind kind);
/* Whether a buffer is host memory (hM hN hP hI<i> hO). */
bool caplog_is_host(int buf);
/* "M", "hP", "a3", "hI0", "hO", "v2", ... */
void caplog_buf_name(int buf, char *out, size_t size);
/* The size of a buffer for a call's problem (M is j x k floats, ...), or of an allocation. */
uint64_t caplog_buf_size(const caplog *log, const caplog_call *call, int buf);
/* The first call of `kind` for the shape, or NULL. */
const caplog_call *caplog_find_call(const caplog *log, caplog_call_kind kind, int j, int k, int l);
/* The allocations a call uses (its copies, memsets and launch parameters name them): used[i]
 * for a<i+1> (log->nallocs entries); returns their bytes together. An allocation made in
 * another call and used in this one counts. */
uint64_t caplog_call_allocs(const caplog *log, const caplog_call *c, bool *used);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_CAPTURE_LOG_H */
