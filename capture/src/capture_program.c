/* What only a program call does: a libwb program's whole run recorded as one call. Its imported
 * inputs are the only host memory whose bytes may reach the device (zeros are recorded as the
 * memset they amount to, and any other host bytes as a memset to the NaN pattern); its
 * device-to-host copies are kept aside until wbSolution names the host memory that is the
 * answer, the copies into it becoming copies into hO and the others dropped; and only a
 * program may fill a module variable from the host. */
#include "capture_rt_state.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* A program's device-to-host copies, until wbSolution says which host memory is the answer. */
typedef struct pending_download {
    int op;              /* in the program call */
    const uint8_t *dst;
    uint64_t count;
} pending_download;
static pending_download *pending;
static int npending, cappending;

/* Module variables by their host shadow's address (the symbol cudaMemcpyToSymbol is given). */
static const void *var_symbols[CAPLOG_MAX_VARS];

static bool in_program(void)
{
    return capture_in_call() && capture_call_kind() == CAPLOG_CALL_PROGRAM;
}

/* The open call (only while one is). */
static caplog_call *open_call(void)
{
    caplog *log = capture_log();
    return &log->calls[log->ncalls - 1];
}

int capture_add_host_input(const void *base, uint64_t bytes, int file, caplog_input_kind kind)
{
    tl_error err;
    if (!in_program()) {
        caplog_refuse(capture_log(), "an import outside the program's run");
        return -1;
    }
    if (caplog_add_input(capture_log(), file, kind, bytes, &err) != 0) {
        caplog_refuse(capture_log(), "%s", err.msg);
        return -1;
    }
    int index = open_call()->ninputs - 1;
    capture_add_host_matrix(base, bytes, CAPLOG_BUF_INPUT + index);
    return index;
}

/* Whether every byte of a host range is zero (a program zeroing its bins through a host
 * array): then the copy is recorded as the memset it amounts to, which carries no data. */
static bool zeros(const void *src, size_t count)
{
    const uint8_t *b = src;
    for (size_t i = 0; i < count; i++)
        if (b[i] != 0)
            return false;
    return true;
}

/* What reaches the device in place of host bytes the program made: the NaN pattern, as in the
 * replayer's fresh memory and in what the host reads back. */
#define CAPTURE_FILLER_BYTE 0xff

/* Fresh malloc'd memory holds CAPTURE_MALLOC_FILL, never zeros: so an array the program never
 * wrote (a hostC uploaded before the launch) is filler whatever the heap held, and a verdict
 * never depends on what malloc returned. glibc fills each allocation (not calloc's) with the
 * complement of the perturb byte. */
#define CAPTURE_MALLOC_PERTURB 0x01 /* fills with 0xfe */
__attribute__((constructor)) static void fill_fresh_memory(void)
{
    mallopt(M_PERTURB, CAPTURE_MALLOC_PERTURB);
}

static const char program_round_trip_refused[] =
    "copies data that came back from the device to the host back to the device: host "
    "computation on device results is not graded (only the device's work reaches the answer)";

cudaError_t capture_program_upload(caplog_ref d, const void *src, size_t count)
{
    caplog_op op = {.kind = CAPLOG_COPY, .dst = d, .count = count};
    if (capture_host_ref(src, count, &op.src))
        return capture_record(&op);
    const uint8_t *lo = src, *hi = lo + count;
    for (int i = 0; i < npending; i++)
        if (pending[i].dst < hi && lo < pending[i].dst + pending[i].count)
            return capture_refuse("%s", program_round_trip_refused);
    op.kind = CAPLOG_MEMSET;
    op.src = (caplog_ref){0};
    if (zeros(src, count)) {
        op.value = 0;
        return capture_record(&op);
    }
    /* Bytes the host made (or never wrote): what lands on the device is the NaN pattern, so a
     * kernel that overwrites them is right and one that reads them computes NaN. */
    op.value = CAPTURE_FILLER_BYTE;
    cudaError_t e = capture_record(&op);
    if (e == cudaSuccess)
        caplog_add_filler(capture_log(), count);
    return e;
}

cudaError_t capture_program_download(caplog_ref s, void *dst, size_t count)
{
    const caplog_call *c = open_call();
    if (c->answered)
        return cudaSuccess; /* after the answer: nothing graded reads it */
    if (npending == cappending) {
        int cap = cappending ? 2 * cappending : 16;
        pending_download *grown = realloc(pending, (size_t)cap * sizeof *pending);
        if (!grown)
            return capture_fail(cudaErrorMemoryAllocation);
        pending = grown;
        cappending = cap;
    }
    caplog_op op = {.kind = CAPLOG_COPY, .dst = {CAPLOG_BUF_ANSWER, 0}, .src = s, .count = count};
    cudaError_t e = capture_record(&op);
    if (e == cudaSuccess)
        pending[npending++] = (pending_download){c->nops - 1, dst, count};
    return e;
}

static bool overlaps(const pending_download *p, const uint8_t *lo, const uint8_t *hi)
{
    return p->dst < hi && lo < p->dst + p->count;
}

/* Drops the program call's recorded operations marked in `drop`. */
static void drop_ops(const bool *drop)
{
    caplog_call *c = open_call();
    int kept = 0;
    for (int i = 0; i < c->nops; i++)
        if (!drop[i])
            c->ops[kept++] = c->ops[i];
    capture_log()->total_ops -= c->nops - kept;
    c->nops = kept;
}

int capture_answer(const void *data, uint64_t bytes)
{
    if (!in_program() || open_call()->answered)
        return -1;
    caplog_call *c = open_call();
    const uint8_t *answer = data, *lo = answer, *hi = answer + bytes;
    for (int i = 0; i < npending; i++)
        if (overlaps(&pending[i], answer, answer + bytes)) {
            lo = pending[i].dst < lo ? pending[i].dst : lo;
            hi = pending[i].dst + pending[i].count > hi ? pending[i].dst + pending[i].count : hi;
        }
    bool *drop = calloc((size_t)c->nops + 1, sizeof *drop);
    if (!drop)
        return -1;
    /* The copies into the answer's memory land in hO at their place; the others went to host
     * memory the grade never reads. */
    for (int i = 0; i < npending; i++) {
        if (overlaps(&pending[i], answer, answer + bytes))
            c->ops[pending[i].op].dst.offset = pending[i].dst - lo;
        else
            drop[pending[i].op] = true;
    }
    drop_ops(drop);
    free(drop);
    npending = 0;
    tl_error err;
    if (caplog_set_answer(capture_log(), (uint64_t)(hi - lo), (uint64_t)(answer - lo), bytes,
                          &err) != 0) {
        caplog_refuse(capture_log(), "%s", err.msg);
        return -1;
    }
    return 0;
}

void capture_program_end(void)
{
    if (!in_program())
        return;
    if (!open_call()->answered) {
        /* No answer: the downloads went nowhere graded. */
        bool *drop = calloc((size_t)open_call()->nops + 1, sizeof *drop);
        for (int i = 0; drop && i < npending; i++)
            drop[pending[i].op] = true;
        if (drop)
            drop_ops(drop);
        free(drop);
    }
    npending = 0;
    capture_end();
}

/* ---- module variables ---------------------------------------------------------------------- */

void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
                       int ext, size_t size, int constant, int global)
{
    (void)handle, (void)device_address, (void)ext, (void)constant, (void)global;
    tl_error err;
    caplog *log = capture_log();
    int index = log->nvars;
    if (caplog_add_var(log, device_name, size, &err) != 0)
        caplog_refuse(log, "%s", err.msg);
    else
        var_symbols[index] = host_var;
}

/* In a lab's functions, symbols would let host bytes reach the device around the check on
 * copies; a program may fill a variable from what it imported (a convolution's mask). */
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    (void)kind;
    if (!in_program())
        return capture_refuse("cudaMemcpyToSymbol: copying host data into __device__ or "
                              "__constant__ variables is not graded in a lab's functions");
    const caplog *log = capture_log();
    int v = -1;
    for (int i = 0; i < log->nvars && v < 0; i++)
        if (var_symbols[i] == symbol)
            v = i;
    if (v < 0)
        return capture_fail(cudaErrorInvalidSymbol);
    if (offset > log->var_sizes[v] || count > log->var_sizes[v] - offset)
        return capture_fail(cudaErrorInvalidValue);
    if (count == 0)
        return cudaSuccess;
    return capture_program_upload((caplog_ref){CAPLOG_BUF_VAR + v, (int64_t)offset}, src, count);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

/* Device data never reaches the host code. */
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    (void)symbol, (void)offset, (void)kind;
    memset(dst, 0xff, count);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolAddress(void **ptr, const void *symbol)
{
    (void)ptr, (void)symbol;
    return capture_refuse("cudaGetSymbolAddress is not graded");
}
