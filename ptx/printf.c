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

/* A generic or global address as a host pointer (local-window addresses included). */
static const uint8_t *host_pointer(block_ctx *b, uint64_t a)
{
    if (a >= PTX_LOCAL_WINDOW)
        return b->local + (a - PTX_LOCAL_WINDOW);
    if (a >= PTX_SHARED_WINDOW)
        return b->shared + (a - PTX_SHARED_WINDOW);
    return (const uint8_t *)(uintptr_t)a;
}

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Each format passed to printf below is one conversion specification copied from the kernel's
 * format string, with an argument of the type that conversion takes: a checked non-literal. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void print_one(block_ctx *b, const char *fmt, const uint8_t *args)
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
        if (strchr("fFeEgGaA", conv)) {
            at = align_up(at, 8);
            double d;
            memcpy(&d, args + at, 8);
            at += 8;
            printf(spec, d);
        } else if (conv == 's' || conv == 'p') {
            at = align_up(at, 8);
            uint64_t a;
            memcpy(&a, args + at, 8);
            at += 8;
            if (conv == 's')
                printf("%s", a ? (const char *)host_pointer(b, a) : "(null)");
            else
                printf("%#llx", (unsigned long long)a);
        } else if (longs) {
            at = align_up(at, 8);
            long long v;
            memcpy(&v, args + at, 8);
            at += 8;
            char s2[40];
            snprintf(s2, sizeof s2, "%.*sll%c", (int)strcspn(spec, "hlLjzt"), spec, conv);
            printf(s2, v);
        } else {
            at = align_up(at, 4);
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
        print_one(b, (const char *)host_pointer(b, fmt_ptr),
                  args_ptr ? host_pointer(b, args_ptr) : (const uint8_t *)"");
        if (in->ops[0].kind == OPK_IMM) {
            uint8_t *ret = local_at(b, w, lane, (uint64_t)in->ops[0].imm, 4);
            if (ret)
                memset(ret, 0, 4);
        }
    }
    fflush(stdout);
    return 0;
}
