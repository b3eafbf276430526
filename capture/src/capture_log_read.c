/* The capture log's reader: every record checked against the format and the limits. */
#include "capture_log.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ----------------------------------------------------------------------------- */

#define MAX_FIELDS (8 + CAPLOG_MAX_ARGS)

static caplog_call *open_call(caplog *log)
{
    caplog_call *c = log->ncalls ? &log->calls[log->ncalls - 1] : NULL;
    return c && !c->ended ? c : NULL;
}

/* Whether a call of this kind may name the buffer. */
static bool buf_allowed(const caplog *log, const caplog_call *call, int buf)
{
    if (buf >= CAPLOG_BUF_VAR)
        return call->kind == CAPLOG_CALL_PROGRAM && buf - CAPLOG_BUF_VAR < log->nvars;
    if (buf >= CAPLOG_BUF_ALLOC)
        return buf - CAPLOG_BUF_ALLOC < log->nallocs;
    switch (call->kind) {
    case CAPLOG_CALL_HOST: return buf >= CAPLOG_BUF_HOST_M && buf <= CAPLOG_BUF_HOST_P;
    case CAPLOG_CALL_PROGRAM:
        return (buf >= CAPLOG_BUF_INPUT && buf - CAPLOG_BUF_INPUT < call->ninputs) ||
               (buf == CAPLOG_BUF_ANSWER && call->answered);
    default: return buf >= CAPLOG_BUF_M && buf <= CAPLOG_BUF_P;
    }
}

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
    if (strcmp(text, "hO") == 0)
        buf = CAPLOG_BUF_ANSWER;
    else if (text[0] == 'a' && isdigit((unsigned char)text[1]) &&
             number(r, text + 1, CAPLOG_MAX_ALLOCS, &n) == 0 && n >= 1)
        buf = CAPLOG_BUF_ALLOC + (int)n - 1;
    else if (text[0] == 'v' && isdigit((unsigned char)text[1]) &&
             number(r, text + 1, CAPLOG_MAX_VARS, &n) == 0 && n >= 1)
        buf = CAPLOG_BUF_VAR + (int)n - 1;
    else if (text[0] == 'h' && text[1] == 'I' && isdigit((unsigned char)text[2]) &&
             number(r, text + 2, CAPLOG_MAX_INPUTS - 1, &n) == 0)
        buf = CAPLOG_BUF_INPUT + (int)n;
    if (buf == CAPLOG_BUF_NONE)
        return bad(r, "expected a buffer (M, N, P, hM, hN, hP, hI<n>, hO, a<n> or v<n>), found "
                      "\"%.40s\"", text);
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
            if (caplog_is_host(rel->ref.buf))
                return bad(r, "a kernel argument points into host memory (%s)", piece + 1);
            if (rel->ref.buf >= CAPLOG_BUF_VAR)
                return bad(r, "a kernel argument is a module variable's address (%s): kernels "
                              "name their variables", piece + 1);
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

/* input I KIND BYTES, answer SIZE OFF BYTES: a program call's host buffers, before its
 * operations (the buffers' sizes bound the copies that follow). */
static int read_program_record(reader *r, caplog_call *call, char **f, int n)
{
    if (call->kind != CAPLOG_CALL_PROGRAM)
        return bad(r, "%s records belong to program calls", f[0]);
    if (call->nops > 0)
        return bad(r, "%s after the call's first operation", f[0]);
    uint64_t v[3];
    if (strcmp(f[0], "input") == 0) {
        if (n != 5)
            return bad(r, "input needs an index, a file index, a kind and a size");
        int kind = -1;
        for (int k = 0; k < CAPLOG_INPUT_KINDS; k++)
            if (strcmp(f[3], caplog_input_kind_name((caplog_input_kind)k)) == 0)
                kind = k;
        if (number(r, f[1], CAPLOG_MAX_INPUTS - 1, &v[0]) != 0 ||
            number(r, f[2], CAPLOG_MAX_INPUTS - 1, &v[1]) != 0 ||
            number(r, f[4], CAPLOG_MAX_HOST_BYTES, &v[2]) != 0)
            return -1;
        if (v[0] != (uint64_t)call->ninputs)
            return bad(r, "expected input %d", call->ninputs);
        if (kind < 0)
            return bad(r, "unknown input kind \"%.40s\" (real, integer, text, image)", f[3]);
        return caplog_add_input(r->log, (int)v[1], (caplog_input_kind)kind, v[2], r->err) == 0
                   ? 0 : bad(r, "%s", r->err->msg);
    }
    if (n != 4)
        return bad(r, "answer needs the buffer's size, the answer's offset and its size");
    for (int i = 0; i < 3; i++)
        if (number(r, f[1 + i], CAPLOG_MAX_HOST_BYTES, &v[i]) != 0)
            return -1;
    return caplog_set_answer(r->log, v[0], v[1], v[2], r->err) == 0 ? 0
                                                                    : bad(r, "%s", r->err->msg);
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
        if (caplog_is_host(op.dst.buf))
            return bad(r, "memset of host memory is not recorded");
    } else if (strcmp(f[0], "copy") == 0 && n == 6) {
        op.kind = CAPLOG_COPY;
        if (number(r, f[5], UINT64_C(1) << 40, &op.count) != 0 ||
            range(r, call, f + 1, op.count, &op.dst) != 0 ||
            range(r, call, f + 3, op.count, &op.src) != 0)
            return -1;
        bool to_host = caplog_is_host(op.dst.buf), from_host = caplog_is_host(op.src.buf);
        int out = call->kind == CAPLOG_CALL_PROGRAM ? CAPLOG_BUF_ANSWER : CAPLOG_BUF_HOST_P;
        if ((to_host && (op.dst.buf != out || from_host)) || (from_host && op.src.buf == out))
            return bad(r, call->kind == CAPLOG_CALL_PROGRAM
                              ? "copies go device to device, from an hI to the device, or from "
                                "the device to hO"
                              : "copies go device to device, from hM or hN to the device, or "
                                "from the device to hP");
        if (op.src.buf >= CAPLOG_BUF_VAR)
            return bad(r, "copies from a module variable are not recorded");
    } else if (strcmp(f[0], "launch") == 0) {
        return read_launch(r, call, f, n);
    } else if (strcmp(f[0], "input") == 0 || strcmp(f[0], "answer") == 0) {
        return read_program_record(r, call, f, n);
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
    } else if (strcmp(f[0], "filler") == 0 && n == 2) {
        if (call->kind != CAPLOG_CALL_PROGRAM)
            return bad(r, "filler is recorded only in a program call");
        if (number(r, f[1], CAPLOG_MAX_FILLER_BYTES, &v) != 0)
            return -1;
        caplog_add_filler(r->log, v);
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
        if (strcmp(f[1], caplog_call_kind_name((caplog_call_kind)i)) == 0)
            kind = i;
    if (kind < 0)
        return bad(r, "unknown call kind \"%.40s\" (launch, host, baseline, program)", f[1]);
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
