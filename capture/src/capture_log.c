/* The capture log: building it, writing it and reading it back under its limits. */
#include "capture_log.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const call_kinds[CAPLOG_CALL_KINDS] = {"launch", "host", "baseline"};

const char *caplog_call_kind_name(caplog_call_kind kind)
{
    return kind >= 0 && kind < CAPLOG_CALL_KINDS ? call_kinds[kind] : "?";
}

void caplog_buf_name(int buf, char *out, size_t size)
{
    static const char *const fixed[] = {"?", "M", "N", "P", "hM", "hN", "hP"};
    if (buf >= CAPLOG_BUF_ALLOC)
        snprintf(out, size, "a%d", buf - CAPLOG_BUF_ALLOC + 1);
    else
        snprintf(out, size, "%s", buf > 0 && buf <= CAPLOG_BUF_HOST_P ? fixed[buf] : "?");
}

static bool is_host(int buf) { return buf >= CAPLOG_BUF_HOST_M && buf <= CAPLOG_BUF_HOST_P; }

uint64_t caplog_buf_size(const caplog *log, const caplog_call *call, int buf)
{
    uint64_t j = (uint64_t)call->j, k = (uint64_t)call->k, l = (uint64_t)call->l;
    switch (buf) {
    case CAPLOG_BUF_M: case CAPLOG_BUF_HOST_M: return 4 * j * k;
    case CAPLOG_BUF_N: case CAPLOG_BUF_HOST_N: return 4 * k * l;
    case CAPLOG_BUF_P: case CAPLOG_BUF_HOST_P: return 4 * j * l;
    default:
        if (buf >= CAPLOG_BUF_ALLOC && buf - CAPLOG_BUF_ALLOC < log->nallocs)
            return log->alloc_sizes[buf - CAPLOG_BUF_ALLOC];
        return 0;
    }
}

/* Whether a call of this kind may name the buffer. */
static bool buf_allowed(const caplog *log, const caplog_call *call, int buf)
{
    if (buf >= CAPLOG_BUF_ALLOC)
        return buf - CAPLOG_BUF_ALLOC < log->nallocs;
    if (call->kind == CAPLOG_CALL_HOST)
        return is_host(buf);
    return buf >= CAPLOG_BUF_M && buf <= CAPLOG_BUF_P;
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

void caplog_refuse(caplog *log, const char *fmt, ...)
{
    caplog_call *c = open_call(log);
    va_list ap;
    va_start(ap, fmt);
    note(c ? c->refused : log->refused, fmt, ap);
    va_end(ap);
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

/* ---- reading ----------------------------------------------------------------------------- */

#define MAX_FIELDS (8 + CAPLOG_MAX_ARGS)

typedef struct reader {
    const char *name;
    int line;
    tl_error *err;
    caplog *log;
} reader;

static int bad(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(reader *r, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tl_error_set(r->err, "%.100s:%d: %s", r->name, r->line, msg);
}

static int number(reader *r, const char *text, uint64_t max, uint64_t *out)
{
    if (!isdigit((unsigned char)text[0]) || (text[0] == '0' && text[1]))
        return bad(r, "expected a number, found \"%.40s\"", text);
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v > max)
        return bad(r, "expected a number up to %llu, found \"%.40s\"", (unsigned long long)max, text);
    *out = v;
    return 0;
}

static int offset_of(reader *r, const char *text, int64_t *out)
{
    bool neg = text[0] == '-';
    uint64_t v;
    if (number(r, text + neg, UINT64_C(1) << 40, &v) != 0)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int buffer(reader *r, const caplog_call *call, const char *text, int *out)
{
    static const char *const fixed[] = {"M", "N", "P", "hM", "hN", "hP"};
    int buf = CAPLOG_BUF_NONE;
    for (int i = 0; i < 6; i++)
        if (strcmp(text, fixed[i]) == 0)
            buf = CAPLOG_BUF_M + i;
    uint64_t n;
    if (buf == CAPLOG_BUF_NONE && text[0] == 'a' && isdigit((unsigned char)text[1]) &&
        number(r, text + 1, CAPLOG_MAX_ALLOCS, &n) == 0 && n >= 1)
        buf = CAPLOG_BUF_ALLOC + (int)n - 1;
    if (buf == CAPLOG_BUF_NONE)
        return bad(r, "expected a buffer (M, N, P, hM, hN, hP or a<n>), found \"%.40s\"", text);
    if (!buf_allowed(r->log, call, buf))
        return bad(r, "buffer %.40s does not exist in a %s call", text,
                   caplog_call_kind_name(call->kind));
    *out = buf;
    return 0;
}

/* A buffer range [off, off+count) that must lie inside the buffer. */
static int range(reader *r, const caplog_call *call, char **f, uint64_t count, caplog_ref *out)
{
    if (buffer(r, call, f[0], &out->buf) != 0 || offset_of(r, f[1], &out->offset) != 0)
        return -1;
    uint64_t size = caplog_buf_size(r->log, call, out->buf);
    if (out->offset < 0 || (uint64_t)out->offset > size || count > size - (uint64_t)out->offset)
        return bad(r, "%llu bytes at offset %lld pass the end of %s (%llu bytes)",
                   (unsigned long long)count, (long long)out->offset, f[0],
                   (unsigned long long)size);
    return 0;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* One argument: pieces x<hex> and @BUF:OFF joined by commas. */
static int argument(reader *r, const caplog_call *call, char *text, caplog_launch *l)
{
    uint32_t start = l->nbytes;
    for (char *piece = text; piece;) {
        char *comma = strchr(piece, ',');
        if (comma)
            *comma = '\0';
        if (piece[0] == 'x') {
            size_t n = strlen(piece + 1);
            if (n == 0 || n % 2)
                return bad(r, "argument bytes must be pairs of hex digits");
            if (l->nbytes + n / 2 > CAPLOG_MAX_ARG_BYTES)
                return bad(r, "the parameters are larger than %d bytes", CAPLOG_MAX_ARG_BYTES);
            for (size_t i = 0; i < n; i += 2) {
                int hi = hex_value(piece[1 + i]), lo = hex_value(piece[2 + i]);
                if (hi < 0 || lo < 0)
                    return bad(r, "argument bytes must be lowercase hex digits");
                l->bytes[l->nbytes++] = (uint8_t)(hi << 4 | lo);
            }
        } else if (piece[0] == '@') {
            char *colon = strchr(piece, ':');
            if (!colon)
                return bad(r, "a pointer argument is @BUF:OFFSET");
            *colon = '\0';
            caplog_reloc *rel = &l->relocs[l->nrelocs];
            if (l->nbytes + 8 > CAPLOG_MAX_ARG_BYTES)
                return bad(r, "the parameters are larger than %d bytes", CAPLOG_MAX_ARG_BYTES);
            if (buffer(r, call, piece + 1, &rel->ref.buf) != 0 ||
                offset_of(r, colon + 1, &rel->ref.offset) != 0)
                return -1;
            if (is_host(rel->ref.buf))
                return bad(r, "a kernel argument points into host memory (%s)", piece + 1);
            rel->at = l->nbytes;
            memset(l->bytes + l->nbytes, 0, 8);
            l->nbytes += 8;
            l->nrelocs++;
        } else {
            return bad(r, "expected an argument piece x<hex> or @BUF:OFFSET, found \"%.40s\"",
                       piece);
        }
        piece = comma ? comma + 1 : NULL;
    }
    l->arg_size[l->nargs++] = l->nbytes - start;
    return 0;
}

static int read_launch(reader *r, caplog_call *call, char **f, int n)
{
    if (n < 9)
        return bad(r, "launch needs a kernel, 3 grid and 3 block sizes and the shared bytes");
    static uint32_t arg_size[CAPLOG_MAX_ARGS];
    static uint8_t bytes[CAPLOG_MAX_ARG_BYTES];
    static caplog_reloc relocs[CAPLOG_MAX_ARG_BYTES / 8];
    caplog_launch l = {0};
    l.arg_size = arg_size;
    l.bytes = bytes;
    l.relocs = relocs;
    uint64_t v;
    if (r->log->nkernels == 0)
        return bad(r, "a launch, but no kernel was registered");
    if (number(r, f[1], (uint64_t)r->log->nkernels - 1, &v) != 0)
        return -1;
    l.kernel = (int)v;
    for (int i = 0; i < 7; i++) {
        if (number(r, f[2 + i], UINT32_MAX, &v) != 0)
            return -1;
        if (i < 3)
            l.grid[i] = (uint32_t)v;
        else if (i < 6)
            l.block[i - 3] = (uint32_t)v;
        else
            l.shared = (uint32_t)v;
    }
    if (n - 9 > CAPLOG_MAX_ARGS)
        return bad(r, "more than %d kernel arguments", CAPLOG_MAX_ARGS);
    for (int a = 9; a < n; a++)
        if (argument(r, call, f[a], &l) != 0)
            return -1;
    caplog_op op = {.kind = CAPLOG_LAUNCH, .launch = &l};
    return caplog_add_op(r->log, &op, r->err) == 0 ? 0 : bad(r, "%s", r->err->msg);
}

static int read_in_call(reader *r, caplog_call *call, char **f, int n, const char *rest)
{
    caplog_op op = {0};
    uint64_t v;
    if (strcmp(f[0], "memset") == 0 && n == 5) {
        op.kind = CAPLOG_MEMSET;
        if (number(r, f[3], 255, &v) != 0)
            return -1;
        op.value = (int)v;
        if (number(r, f[4], UINT64_C(1) << 40, &op.count) != 0 ||
            range(r, call, f + 1, op.count, &op.dst) != 0)
            return -1;
        if (is_host(op.dst.buf))
            return bad(r, "memset of host memory is not recorded");
    } else if (strcmp(f[0], "copy") == 0 && n == 6) {
        op.kind = CAPLOG_COPY;
        if (number(r, f[5], UINT64_C(1) << 40, &op.count) != 0 ||
            range(r, call, f + 1, op.count, &op.dst) != 0 ||
            range(r, call, f + 3, op.count, &op.src) != 0)
            return -1;
        bool to_host = is_host(op.dst.buf), from_host = is_host(op.src.buf);
        if ((to_host && (op.dst.buf != CAPLOG_BUF_HOST_P || from_host)) ||
            (from_host && op.src.buf == CAPLOG_BUF_HOST_P))
            return bad(r, "copies go device to device, from hM or hN to the device, or from "
                          "the device to hP");
    } else if (strcmp(f[0], "launch") == 0) {
        return read_launch(r, call, f, n);
    } else if (strcmp(f[0], "free") == 0 && n == 2) {
        op.kind = CAPLOG_FREE;
        if (buffer(r, call, f[1], &op.dst.buf) != 0)
            return -1;
        if (op.dst.buf < CAPLOG_BUF_ALLOC)
            return bad(r, "only a<n> buffers are freed");
    } else if (strcmp(f[0], "refused") == 0) {
        caplog_refuse(r->log, "%s", rest);
        return 0;
    } else if (strcmp(f[0], "failed") == 0) {
        caplog_launch_failed(r->log, "%s", rest);
        return 0;
    } else if (strcmp(f[0], "end") == 0 && n == 1) {
        caplog_end_call(r->log);
        return 0;
    } else {
        return bad(r, "unexpected record \"%.40s\" (or the wrong number of fields) in a call", f[0]);
    }
    return caplog_add_op(r->log, &op, r->err) == 0 ? 0 : bad(r, "%s", r->err->msg);
}

static int read_call_start(reader *r, char **f, int n)
{
    if (n != 5)
        return bad(r, "call needs a kind and J K L");
    int kind = -1;
    for (int i = 0; i < CAPLOG_CALL_KINDS; i++)
        if (strcmp(f[1], call_kinds[i]) == 0)
            kind = i;
    if (kind < 0)
        return bad(r, "unknown call kind \"%.40s\" (launch, host, baseline)", f[1]);
    uint64_t d[3];
    for (int i = 0; i < 3; i++)
        if (number(r, f[2 + i], 65536, &d[i]) != 0 || d[i] == 0)
            return d[i] == 0 ? bad(r, "a dimension of 0") : -1;
    if (d[0] * d[1] > (uint64_t)TL_MAX_ELEMENTS || d[1] * d[2] > (uint64_t)TL_MAX_ELEMENTS ||
        d[0] * d[2] > (uint64_t)TL_MAX_ELEMENTS)
        return bad(r, "a matrix of the problem is larger than the harness allows");
    if (!caplog_begin_call(r->log, (caplog_call_kind)kind, (int)d[0], (int)d[1], (int)d[2],
                           r->err))
        return bad(r, "%s", r->err->msg);
    return 0;
}

static int read_record(reader *r, char *line)
{
    char rest[CAPLOG_MAX_REFUSAL] = "";
    if (strncmp(line, "refused ", 8) == 0)
        snprintf(rest, sizeof rest, "%.399s", line + 8);
    else if (strncmp(line, "failed ", 7) == 0)
        snprintf(rest, sizeof rest, "%.399s", line + 7);
    char *f[MAX_FIELDS];
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (n == MAX_FIELDS)
            return bad(r, "too many fields");
        f[n++] = tok;
    }
    if (n == 0)
        return bad(r, "an empty record");
    if (r->log->complete)
        return bad(r, "a record after \"done\"");
    caplog_call *call = open_call(r->log);
    uint64_t v;
    if (strcmp(f[0], "alloc") == 0) {
        if (n != 3)
            return bad(r, "alloc needs a buffer and a size");
        char expect[16];
        snprintf(expect, sizeof expect, "a%d", r->log->nallocs + 1);
        if (strcmp(f[1], expect) != 0)
            return bad(r, "expected allocation %s, found \"%.40s\"", expect, f[1]);
        if (number(r, f[2], CAPLOG_MAX_ALLOC_BYTES, &v) != 0)
            return -1;
        return caplog_add_alloc(r->log, v, r->err) >= 0 ? 0 : bad(r, "%s", r->err->msg);
    }
    if (call)
        return read_in_call(r, call, f, n, rest);
    if (strcmp(f[0], "kernel") == 0 && n == 3) {
        if (number(r, f[1], CAPLOG_MAX_KERNELS, &v) != 0)
            return -1;
        if (v != (uint64_t)r->log->nkernels)
            return bad(r, "expected kernel %d", r->log->nkernels);
        return caplog_add_kernel(r->log, f[2], r->err) == 0 ? 0 : bad(r, "%s", r->err->msg);
    }
    if (strcmp(f[0], "var") == 0 && n == 3) {
        if (number(r, f[2], UINT64_C(1) << 40, &v) != 0)
            return -1;
        return caplog_add_var(r->log, f[1], v, r->err) == 0 ? 0 : bad(r, "%s", r->err->msg);
    }
    if (strcmp(f[0], "call") == 0)
        return read_call_start(r, f, n);
    if (strcmp(f[0], "refused") == 0) {
        caplog_refuse(r->log, "%s", rest);
        return 0;
    }
    if (strcmp(f[0], "done") == 0 && n == 1) {
        r->log->complete = true;
        return 0;
    }
    return bad(r, "unexpected record \"%.40s\" (or the wrong number of fields)", f[0]);
}

int caplog_parse(const char *name, const char *text, size_t len, caplog *out, tl_error *err)
{
    caplog_init(out);
    reader r = {name, 0, err, out};
    if (len > CAPLOG_MAX_BYTES)
        return tl_error_set(err, "%.100s: %zu bytes, more than a capture log may hold (%u)", name,
                            len, CAPLOG_MAX_BYTES);
    static char line[CAPLOG_MAX_LINE + 1];
    size_t at = 0;
    int rc = 0;
    while (rc == 0 && at < len) {
        r.line++;
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = (nl ? (size_t)(nl - (text + at)) : len - at);
        if (n > CAPLOG_MAX_LINE) {
            rc = bad(&r, "a record longer than %d bytes", CAPLOG_MAX_LINE);
            break;
        }
        memcpy(line, text + at, n);
        line[n] = '\0';
        at += n + (nl != NULL);
        if (strlen(line) != n)
            rc = bad(&r, "a NUL byte in the text");
        else if (r.line == 1)
            rc = strcmp(line, CAPLOG_MAGIC) == 0 ? 0 : bad(&r, "not a capture log (expected \"%s\")", CAPLOG_MAGIC);
        else
            rc = read_record(&r, line);
    }
    if (rc == 0 && r.line == 0)
        rc = tl_error_set(err, "%.100s: empty, not a capture log", name);
    if (rc != 0)
        caplog_free(out);
    return rc;
}
