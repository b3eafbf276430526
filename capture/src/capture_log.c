/* The capture log: building it, writing it and reading it back under its limits. */
#include "capture_log.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const call_kinds[CAPLOG_CALL_KINDS] = {"launch", "host", "baseline",
                                                            "program"};
static const char *const input_kinds[CAPLOG_INPUT_KINDS] = {"real", "integer", "text", "image"};

const char *caplog_input_kind_name(caplog_input_kind kind)
{
    return kind >= 0 && kind < CAPLOG_INPUT_KINDS ? input_kinds[kind] : "?";
}

const char *caplog_call_kind_name(caplog_call_kind kind)
{
    return kind >= 0 && kind < CAPLOG_CALL_KINDS ? call_kinds[kind] : "?";
}

void caplog_buf_name(int buf, char *out, size_t size)
{
    static const char *const fixed[] = {"?", "M", "N", "P", "hM", "hN", "hP"};
    if (buf >= CAPLOG_BUF_VAR)
        snprintf(out, size, "v%d", buf - CAPLOG_BUF_VAR + 1);
    else if (buf >= CAPLOG_BUF_ALLOC)
        snprintf(out, size, "a%d", buf - CAPLOG_BUF_ALLOC + 1);
    else if (buf >= CAPLOG_BUF_INPUT && buf < CAPLOG_BUF_ANSWER)
        snprintf(out, size, "hI%d", buf - CAPLOG_BUF_INPUT);
    else if (buf == CAPLOG_BUF_ANSWER)
        snprintf(out, size, "hO");
    else
        snprintf(out, size, "%s", buf > 0 && buf <= CAPLOG_BUF_HOST_P ? fixed[buf] : "?");
}

bool caplog_is_host(int buf) { return buf >= CAPLOG_BUF_HOST_M && buf <= CAPLOG_BUF_ANSWER; }

uint64_t caplog_buf_size(const caplog *log, const caplog_call *call, int buf)
{
    uint64_t j = (uint64_t)call->j, k = (uint64_t)call->k, l = (uint64_t)call->l;
    switch (buf) {
    case CAPLOG_BUF_M: case CAPLOG_BUF_HOST_M: return 4 * j * k;
    case CAPLOG_BUF_N: case CAPLOG_BUF_HOST_N: return 4 * k * l;
    case CAPLOG_BUF_P: case CAPLOG_BUF_HOST_P: return 4 * j * l;
    case CAPLOG_BUF_ANSWER: return call->kind == CAPLOG_CALL_PROGRAM ? call->out_bytes : 0;
    default:
        if (buf >= CAPLOG_BUF_VAR)
            return buf - CAPLOG_BUF_VAR < log->nvars ? log->var_sizes[buf - CAPLOG_BUF_VAR] : 0;
        if (buf >= CAPLOG_BUF_ALLOC && buf - CAPLOG_BUF_ALLOC < log->nallocs)
            return log->alloc_sizes[buf - CAPLOG_BUF_ALLOC];
        if (buf >= CAPLOG_BUF_INPUT && buf - CAPLOG_BUF_INPUT < call->ninputs)
            return call->input_bytes[buf - CAPLOG_BUF_INPUT];
        return 0;
    }
}

const char *caplog_launch_problem(const caplog_launch *l, uint32_t max_dynamic_shared)
{
    const uint32_t *g = l->grid, *b = l->block;
    if (b[0] == 0 || b[1] == 0 || b[2] == 0)
        return "a block dimension is 0";
    if (b[0] > 1024 || b[1] > 1024 || b[2] > 64)
        return "a block dimension is over its limit (1024, 1024, 64)";
    if ((uint64_t)b[0] * b[1] * b[2] > 1024)
        return "more than 1024 threads per block";
    if (g[0] == 0 || g[1] == 0 || g[2] == 0)
        return "a grid dimension is 0";
    if (g[0] > 0x7fffffffu || g[1] > 65535 || g[2] > 65535)
        return "a grid dimension is over its limit (2^31-1, 65535, 65535)";
    if (l->shared > max_dynamic_shared)
        return l->shared > CAPLOG_MAX_DYNAMIC_SHARED
                   ? "more dynamic shared memory than a block can have"
                   : "more than 48 KiB of dynamic shared memory without "
                     "cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)";
    return NULL;
}

const caplog_call *caplog_find_call(const caplog *log, caplog_call_kind kind, int j, int k, int l)
{
    for (int i = 0; i < log->ncalls; i++) {
        const caplog_call *c = &log->calls[i];
        if (c->kind == kind && c->j == j && c->k == k && c->l == l)
            return c;
    }
    return NULL;
}

static void mark_alloc(const caplog *log, int buf, bool *used)
{
    if (buf >= CAPLOG_BUF_ALLOC && buf < CAPLOG_BUF_VAR && buf - CAPLOG_BUF_ALLOC < log->nallocs)
        used[buf - CAPLOG_BUF_ALLOC] = true;
}

uint64_t caplog_call_allocs(const caplog *log, const caplog_call *c, bool *used)
{
    memset(used, 0, (size_t)log->nallocs * sizeof *used);
    for (int i = 0; i < c->nops; i++) {
        const caplog_op *op = &c->ops[i];
        mark_alloc(log, op->dst.buf, used);
        mark_alloc(log, op->src.buf, used);
        for (int r = 0; op->launch && r < op->launch->nrelocs; r++)
            mark_alloc(log, op->launch->relocs[r].ref.buf, used);
    }
    uint64_t bytes = 0;
    for (int i = 0; i < log->nallocs; i++)
        bytes += used[i] ? log->alloc_sizes[i] : 0;
    return bytes;
}

/* ---- building ---------------------------------------------------------------------------- */

void caplog_init(caplog *log) { memset(log, 0, sizeof *log); }

static void free_launch(caplog_launch *l)
{
    if (!l)
        return;
    free(l->arg_size);
    free(l->bytes);
    free(l->relocs);
    free(l);
}

void caplog_free(caplog *log)
{
    for (int i = 0; i < log->ncalls; i++) {
        for (int o = 0; o < log->calls[i].nops; o++)
            free_launch(log->calls[i].ops[o].launch);
        free(log->calls[i].ops);
    }
    free(log->calls);
    free(log->kernels);
    free(log->var_names);
    free(log->var_sizes);
    free(log->alloc_sizes);
    memset(log, 0, sizeof *log);
}

static bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > CAPLOG_MAX_NAME)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '$' && s[i] != '.')
            return false;
    return true;
}

int caplog_add_kernel(caplog *log, const char *name, tl_error *err)
{
    if (log->nkernels == CAPLOG_MAX_KERNELS)
        return tl_error_set(err, "more than %d kernels", CAPLOG_MAX_KERNELS);
    if (!valid_name(name))
        return tl_error_set(err, "kernel name \"%.80s\" is not a PTX name", name);
    void *grown = realloc(log->kernels, (size_t)(log->nkernels + 1) * sizeof *log->kernels);
    if (!grown)
        return tl_error_set(err, "out of memory");
    log->kernels = grown;
    snprintf(log->kernels[log->nkernels++], CAPLOG_MAX_NAME + 1, "%s", name);
    return 0;
}

int caplog_add_var(caplog *log, const char *name, uint64_t size, tl_error *err)
{
    if (log->nvars == CAPLOG_MAX_VARS)
        return tl_error_set(err, "more than %d module variables", CAPLOG_MAX_VARS);
    if (!valid_name(name))
        return tl_error_set(err, "variable name \"%.80s\" is not a PTX name", name);
    void *names = realloc(log->var_names, (size_t)(log->nvars + 1) * sizeof *log->var_names);
    if (names)
        log->var_names = names;
    void *sizes = realloc(log->var_sizes, (size_t)(log->nvars + 1) * sizeof *log->var_sizes);
    if (sizes)
        log->var_sizes = sizes;
    if (!names || !sizes)
        return tl_error_set(err, "out of memory");
    snprintf(log->var_names[log->nvars], CAPLOG_MAX_NAME + 1, "%s", name);
    log->var_sizes[log->nvars++] = size;
    return 0;
}

int caplog_add_alloc(caplog *log, uint64_t size, tl_error *err)
{
    if (log->nallocs == CAPLOG_MAX_ALLOCS)
        return tl_error_set(err, "more than %d cudaMalloc calls", CAPLOG_MAX_ALLOCS);
    if (size > CAPLOG_MAX_ALLOC_BYTES)
        return tl_error_set(err, "cudaMalloc of %llu bytes: more than the 16 GiB allowed",
                            (unsigned long long)size);
    void *grown = realloc(log->alloc_sizes, (size_t)(log->nallocs + 1) * sizeof *log->alloc_sizes);
    if (!grown)
        return tl_error_set(err, "out of memory");
    log->alloc_sizes = grown;
    log->alloc_sizes[log->nallocs++] = size;
    return CAPLOG_BUF_ALLOC + log->nallocs - 1;
}

static caplog_call *open_call(caplog *log)
{
    caplog_call *c = log->ncalls ? &log->calls[log->ncalls - 1] : NULL;
    return c && !c->ended ? c : NULL;
}

caplog_call *caplog_begin_call(caplog *log, caplog_call_kind kind, int j, int k, int l,
                               tl_error *err)
{
    if (open_call(log)) {
        tl_error_set(err, "a call began before the previous one ended");
        return NULL;
    }
    if (log->ncalls == CAPLOG_MAX_CALLS) {
        tl_error_set(err, "more than %d calls", CAPLOG_MAX_CALLS);
        return NULL;
    }
    if (log->ncalls == log->capcalls) {
        int cap = log->capcalls ? 2 * log->capcalls : 16;
        void *grown = realloc(log->calls, (size_t)cap * sizeof *log->calls);
        if (!grown) {
            tl_error_set(err, "out of memory");
            return NULL;
        }
        log->calls = grown;
        log->capcalls = cap;
    }
    caplog_call *c = &log->calls[log->ncalls++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->j = j;
    c->k = k;
    c->l = l;
    return c;
}

static caplog_launch *copy_launch(const caplog_launch *from)
{
    caplog_launch *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    *l = *from;
    l->arg_size = malloc(sizeof *l->arg_size * (size_t)(from->nargs ? from->nargs : 1));
    l->bytes = malloc(from->nbytes ? from->nbytes : 1);
    l->relocs = malloc(sizeof *l->relocs * (size_t)(from->nrelocs ? from->nrelocs : 1));
    if (!l->arg_size || !l->bytes || !l->relocs) {
        free_launch(l);
        return NULL;
    }
    memcpy(l->arg_size, from->arg_size, sizeof *l->arg_size * (size_t)from->nargs);
    memcpy(l->bytes, from->bytes, from->nbytes);
    memcpy(l->relocs, from->relocs, sizeof *l->relocs * (size_t)from->nrelocs);
    return l;
}

int caplog_add_op(caplog *log, const caplog_op *op, tl_error *err)
{
    caplog_call *c = open_call(log);
    if (!c)
        return tl_error_set(err, "a %s outside any call", op->kind == CAPLOG_LAUNCH ? "launch" : "copy");
    if (log->total_ops == CAPLOG_MAX_OPS)
        return tl_error_set(err, "more than %d recorded operations", CAPLOG_MAX_OPS);
    if (op->launch && log->total_arg_bytes + op->launch->nbytes > CAPLOG_MAX_ARG_TOTAL)
        return tl_error_set(err, "more than %u bytes of kernel parameters in all",
                            CAPLOG_MAX_ARG_TOTAL);
    if (c->nops == c->capops) {
        int cap = c->capops ? 2 * c->capops : 8;
        void *grown = realloc(c->ops, (size_t)cap * sizeof *c->ops);
        if (!grown)
            return tl_error_set(err, "out of memory");
        c->ops = grown;
        c->capops = cap;
    }
    caplog_op *o = &c->ops[c->nops];
    *o = *op;
    if (op->launch) {
        o->launch = copy_launch(op->launch);
        if (!o->launch)
            return tl_error_set(err, "out of memory");
        log->total_arg_bytes += op->launch->nbytes;
    }
    c->nops++;
    log->total_ops++;
    return 0;
}

/* The first of a kind of note stays: one line of text, so it cannot break the format. */
static void note(char *slot, const char *fmt, va_list ap)
{
    if (slot[0])
        return;
    vsnprintf(slot, CAPLOG_MAX_REFUSAL, fmt, ap);
    for (char *p = slot; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

void caplog_launch_failed(caplog *log, const char *fmt, ...)
{
    caplog_call *c = open_call(log);
    if (!c)
        return;
    va_list ap;
    va_start(ap, fmt);
    note(c->launch_failed, fmt, ap);
    va_end(ap);
}

void caplog_add_filler(caplog *log, uint64_t bytes)
{
    caplog_call *c = open_call(log);
    if (!c)
        return;
    c->filler_bytes = bytes > CAPLOG_MAX_FILLER_BYTES - c->filler_bytes ? CAPLOG_MAX_FILLER_BYTES
                                                                         : c->filler_bytes + bytes;
}

void caplog_refuse(caplog *log, const char *fmt, ...)
{
    caplog_call *c = open_call(log);
    va_list ap;
    va_start(ap, fmt);
    note(c ? c->refused : log->refused, fmt, ap);
    va_end(ap);
}

int caplog_add_input(caplog *log, int file, caplog_input_kind kind, uint64_t bytes,
                     tl_error *err)
{
    caplog_call *c = open_call(log);
    if (!c || c->kind != CAPLOG_CALL_PROGRAM)
        return tl_error_set(err, "an input outside a program call");
    if (c->ninputs == CAPLOG_MAX_INPUTS)
        return tl_error_set(err, "more than %d imported inputs", CAPLOG_MAX_INPUTS);
    if (bytes > CAPLOG_MAX_HOST_BYTES)
        return tl_error_set(err, "an input of more than %llu bytes",
                            (unsigned long long)CAPLOG_MAX_HOST_BYTES);
    if (file < 0 || file >= CAPLOG_MAX_INPUTS)
        return tl_error_set(err, "an input file index outside 0..%d", CAPLOG_MAX_INPUTS - 1);
    c->input_file[c->ninputs] = file;
    c->input_kind[c->ninputs] = kind;
    c->input_bytes[c->ninputs++] = bytes;
    return 0;
}

int caplog_set_answer(caplog *log, uint64_t out_bytes, uint64_t offset, uint64_t bytes,
                      tl_error *err)
{
    caplog_call *c = open_call(log);
    if (!c || c->kind != CAPLOG_CALL_PROGRAM)
        return tl_error_set(err, "an answer outside a program call");
    if (c->answered)
        return tl_error_set(err, "a second answer (wbSolution called again)");
    if (out_bytes > CAPLOG_MAX_HOST_BYTES || offset > out_bytes || bytes > out_bytes - offset)
        return tl_error_set(err, "an answer of %llu bytes at %llu outside its %llu-byte buffer",
                            (unsigned long long)bytes, (unsigned long long)offset,
                            (unsigned long long)out_bytes);
    c->answered = true;
    c->out_bytes = out_bytes;
    c->answer_offset = offset;
    c->answer_bytes = bytes;
    return 0;
}

void caplog_end_call(caplog *log)
{
    caplog_call *c = open_call(log);
    if (c)
        c->ended = true;
}

/* ---- writing ----------------------------------------------------------------------------- */

static void write_ref(FILE *out, caplog_ref r)
{
    char name[16];
    caplog_buf_name(r.buf, name, sizeof name);
    fprintf(out, " %s %lld", name, (long long)r.offset);
}

static void write_launch(FILE *out, const caplog_launch *l)
{
    fprintf(out, "launch %d %u %u %u %u %u %u %u", l->kernel, l->grid[0], l->grid[1], l->grid[2],
            l->block[0], l->block[1], l->block[2], l->shared);
    uint32_t at = 0;
    for (int a = 0; a < l->nargs; a++) {
        fputc(' ', out);
        uint32_t end = at + l->arg_size[a];
        bool first = true, in_hex = false;
        while (at < end) {
            const caplog_reloc *r = NULL;
            for (int i = 0; i < l->nrelocs && !r; i++)
                if (l->relocs[i].at == at && at + 8 <= end)
                    r = &l->relocs[i];
            if (r) {
                char name[16];
                caplog_buf_name(r->ref.buf, name, sizeof name);
                fprintf(out, "%s@%s:%lld", first ? "" : ",", name, (long long)r->ref.offset);
                at += 8;
                in_hex = false;
            } else {
                if (!in_hex)
                    fprintf(out, "%sx", first ? "" : ",");
                fprintf(out, "%02x", l->bytes[at]);
                at++;
                in_hex = true;
            }
            first = false;
        }
    }
    fputc('\n', out);
}

int caplog_write(FILE *out, const caplog *log)
{
    fprintf(out, "%s\n", CAPLOG_MAGIC);
    for (int i = 0; i < log->nkernels; i++)
        fprintf(out, "kernel %d %s\n", i, log->kernels[i]);
    for (int i = 0; i < log->nvars; i++)
        fprintf(out, "var %s %llu\n", log->var_names[i], (unsigned long long)log->var_sizes[i]);
    /* Allocations come first: a call may use a buffer an earlier call allocated, and the
     * replayer makes them all before it starts. */
    for (int i = 0; i < log->nallocs; i++)
        fprintf(out, "alloc a%d %llu\n", i + 1, (unsigned long long)log->alloc_sizes[i]);
    if (log->refused[0])
        fprintf(out, "refused %s\n", log->refused);
    for (int i = 0; i < log->ncalls; i++) {
        const caplog_call *c = &log->calls[i];
        fprintf(out, "call %s %d %d %d\n", caplog_call_kind_name(c->kind), c->j, c->k, c->l);
        for (int in = 0; in < c->ninputs; in++)
            fprintf(out, "input %d %d %s %llu\n", in, c->input_file[in],
                    caplog_input_kind_name(c->input_kind[in]),
                    (unsigned long long)c->input_bytes[in]);
        if (c->answered)
            fprintf(out, "answer %llu %llu %llu\n", (unsigned long long)c->out_bytes,
                    (unsigned long long)c->answer_offset, (unsigned long long)c->answer_bytes);
        for (int o = 0; o < c->nops; o++) {
            const caplog_op *op = &c->ops[o];
            char name[16];
            switch (op->kind) {
            case CAPLOG_MEMSET:
                fputs("memset", out);
                write_ref(out, op->dst);
                fprintf(out, " %d %llu\n", op->value, (unsigned long long)op->count);
                break;
            case CAPLOG_COPY:
                fputs("copy", out);
                write_ref(out, op->dst);
                write_ref(out, op->src);
                fprintf(out, " %llu\n", (unsigned long long)op->count);
                break;
            case CAPLOG_LAUNCH:
                write_launch(out, op->launch);
                break;
            case CAPLOG_FREE:
                caplog_buf_name(op->dst.buf, name, sizeof name);
                fprintf(out, "free %s\n", name);
                break;
            }
        }
        if (c->filler_bytes)
            fprintf(out, "filler %llu\n", (unsigned long long)c->filler_bytes);
        if (c->refused[0])
            fprintf(out, "refused %s\n", c->refused);
        if (c->launch_failed[0])
            fprintf(out, "failed %s\n", c->launch_failed);
        if (c->ended)
            fputs("end\n", out);
    }
    if (log->complete)
        fputs("done\n", out);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

