/* The device runtime's printf (vprintf): a format string in global memory and the arguments
 * packed in the calling thread's local memory, each aligned to its own size. Lanes print in
 * lane order, as one warp's printf lines come out of a GPU's buffer. */
#include "exec.h"

#include <string.h>

/* The thread's local memory at a .local offset, or NULL past its end. */
static uint8_t *local_at(block_ctx *b, const warp *w, int lane, uint64_t offset, size_t size)
{
    if (offset + size > b->e->local_bytes)
        return NULL;
    return b->local + (size_t)(w->base + lane) * b->e->local_bytes + offset;
}

/* A NUL-terminated copy of the string at device address `a`, cut at `cap` bytes or where the
 * memory it lies in ends: a kernel's pointer is never followed past what it may read. */
static void device_string(const block_ctx *b, uint64_t a, char *out, size_t cap)
{
    uint64_t avail;
    const uint8_t *p = ptx_span(b, a, &avail);
    size_t n = 0;
    for (; p && n < avail && n + 1 < cap && p[n]; n++)
        out[n] = (char)p[n];
    out[n] = '\0';
    if (!p)
        snprintf(out, cap, "(bad address %#llx)", (unsigned long long)a);
}

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Each format passed to printf below is one conversion specification copied from the kernel's
 * format string, with an argument of the type that conversion takes: a checked non-literal. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void print_one(block_ctx *b, const char *fmt, const uint8_t *args, uint64_t args_avail)
{
    size_t at = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            fputc(*p, stdout);
            continue;
        }
        if (p[1] == '%') {
            fputc('%', stdout);
            p++;
            continue;
        }
        /* Copy one conversion specification: flags, width, precision, length, conversion. */
        char spec[32];
        size_t n = 0;
        spec[n++] = *p++;
        while (*p && strchr("-+ #0123456789.", *p) && n < 20)
            spec[n++] = *p++;
        int longs = 0;
        while (*p && strchr("hlLjzt", *p) && n < 24) {
            longs += *p == 'l' || *p == 'L' || *p == 'j' || *p == 'z' || *p == 't';
            spec[n++] = *p++;
        }
        if (!*p)
            break;
        char conv = *p;
        spec[n++] = conv;
        spec[n] = '\0';
        size_t need = strchr("fFeEgGaAsp", conv) || longs ? 8 : 4;
        at = align_up(at, need);
        if (at + need > args_avail) {
            fputs("(missing argument)", stdout);
            continue;
        }
        if (strchr("fFeEgGaA", conv)) {
            double d;
            memcpy(&d, args + at, 8);
            at += 8;
            printf(spec, d);
        } else if (conv == 's' || conv == 'p') {
            uint64_t a;
            memcpy(&a, args + at, 8);
            at += 8;
            char text[1024];
            if (conv == 's' && a)
                device_string(b, a, text, sizeof text);
            if (conv == 's')
                printf("%s", a ? text : "(null)");
            else
                printf("%#llx", (unsigned long long)a);
        } else if (longs) {
            long long v;
            memcpy(&v, args + at, 8);
            at += 8;
            char s2[40];
            snprintf(s2, sizeof s2, "%.*sll%c", (int)strcspn(spec, "hlLjzt"), spec, conv);
            printf(s2, v);
        } else {
            int v;
            memcpy(&v, args + at, 4);
            at += 4;
            printf(spec, v);
        }
    }
}

#pragma GCC diagnostic pop

int ptx_vprintf(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t fmt_ptr = 0, args_ptr = 0;
        uint8_t *p0 = in->nops > 2 ? local_at(b, w, lane, (uint64_t)in->ops[2].imm, 8) : NULL;
        uint8_t *p1 = in->nops > 3 ? local_at(b, w, lane, (uint64_t)in->ops[3].imm, 8) : NULL;
        if (!p0)
            return ptx_stop_unsupported(b, in, "a printf without its format");
        memcpy(&fmt_ptr, p0, 8);
        if (p1)
            memcpy(&args_ptr, p1, 8);
        char fmt[4096];
        device_string(b, fmt_ptr, fmt, sizeof fmt);
        uint64_t args_avail = 0;
        const uint8_t *args = args_ptr ? ptx_span(b, args_ptr, &args_avail) : NULL;
        print_one(b, fmt, args ? args : (const uint8_t *)"", args ? args_avail : 0);
        if (in->ops[0].kind == OPK_IMM) {
            uint8_t *ret = local_at(b, w, lane, (uint64_t)in->ops[0].imm, 4);
            if (ret)
                memset(ret, 0, 4);
        }
    }
    fflush(stdout);
    return 0;
}
