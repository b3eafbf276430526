/* The bodies of entries and device functions, PTX text to pre-decoded instructions:
 * declarations, registers, labels, instructions, .loc lines (module scope: module.c). */
#include "decode.h"
#include "parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>


int ptx_parse_fail(parser *p, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err->msg, sizeof p->err->msg, "%.200s:%d: %s", p->name, line, msg);
    return -1;
}

void ptx_parse_copy_name(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

/* A read of a clock or of a hardware slot's id (diag.h: DK_MACHINE_QUERY). */
static bool reads_machine(const ptx_insn *in)
{
    for (int i = 0; i < in->nops; i++) {
        if (in->ops[i].kind != OPK_SREG)
            continue;
        switch (in->ops[i].sreg) {
        case SR_WARPID: case SR_NWARPID: case SR_CLOCK: case SR_CLOCK64: case SR_GLOBALTIMER:
        case SR_SMID: case SR_NSMID: case SR_GRIDID:
            return true;
        default:
            break;
        }
    }
    return false;
}

static void *grow(void *ptr, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return ptr;
    int ncap = *cap ? *cap * 2 : 64;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(ptr, (size_t)ncap * size);
    if (n)
        *cap = ncap;
    return n;
}

int ptx_parse_add_symbol(parser *p, const char *name, sym_kind kind, int64_t value)
{
    symbol *s = grow(p->syms, &p->capsyms, p->nsyms + 1, sizeof *s);
    if (!s)
        return ptx_parse_fail(p, p->lx.line, "out of memory");
    p->syms = s;
    symbol *sym = &p->syms[p->nsyms++];
    ptx_parse_copy_name(sym->name, sizeof sym->name, name);
    sym->kind = kind;
    sym->value = value;
    sym->scope = p->scope;
    sym->type = TY_NONE;
    return 0;
}

/* Innermost first, so a nested { .reg .b64 %tmp; } shadows an outer %tmp. */
static const symbol *find_symbol(const parser *p, const char *name)
{
    for (int i = p->nsyms - 1; i >= 0; i--)
        if (strcmp(p->syms[i].name, name) == 0)
            return &p->syms[i];
    return NULL;
}

static void leave_scope(parser *p)
{
    while (p->nsyms > 0 && p->syms[p->nsyms - 1].scope == p->scope &&
           p->syms[p->nsyms - 1].kind != SYM_LABEL)
        p->nsyms--;
    p->scope--;
}

int ptx_parse_expect(parser *p, const char *what)
{
    token t = lex_next(&p->lx);
    if (strcmp(t.text, what) != 0)
        return ptx_parse_fail(p, t.line, "expected \"%s\", found \"%s\"", what, t.text);
    return 0;
}

static void skip_statement(parser *p)
{
    for (token t = lex_next(&p->lx); t.kind != TK_END && strcmp(t.text, ";") != 0;
         t = lex_next(&p->lx)) {
    }
}

void ptx_parse_skip_braced(parser *p)
{
    int depth = 0;
    for (token t = lex_next(&p->lx); t.kind != TK_END; t = lex_next(&p->lx)) {
        if (strcmp(t.text, "{") == 0)
            depth++;
        else if (strcmp(t.text, "}") == 0 && --depth == 0)
            return;
    }
}

int ptx_parse_int(parser *p, token t, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(t.text, &end, 0);
    if (t.kind != TK_NUM || errno || *end)
        return ptx_parse_fail(p, t.line, "expected a whole number, found \"%s\"", t.text);
    *out = v;
    return 0;
}

int ptx_parse_align(parser *p, int64_t *align)
{
    *align = 1;
    if (strcmp(lex_peek(&p->lx).text, ".align") == 0) {
        lex_next(&p->lx);
        token t = lex_next(&p->lx);
        if (ptx_parse_int(p, t, align) != 0)
            return -1;
        if (*align < 1 || *align > 4096 || (*align & (*align - 1)) != 0)
            return ptx_parse_fail(p, t.line, ".align %lld: expected a power of two up to 4096",
                        (long long)*align);
    }
    return 0;
}


int ptx_parse_declaration(parser *p, declaration *d)
{
    if (ptx_parse_align(p, &d->align) != 0)
        return -1;
    token type = lex_next(&p->lx);
    d->type = ptx_type_from_directive(type.text);
    if (d->type < 0)
        return ptx_parse_fail(p, type.line, "expected a type, found \"%s\"", type.text);
    d->name = lex_next(&p->lx);
    d->count = 1;
    if (strcmp(lex_peek(&p->lx).text, "[") == 0) {
        lex_next(&p->lx);
        token t = lex_next(&p->lx);
        if (ptx_parse_int(p, t, &d->count) != 0 || ptx_parse_expect(p, "]") != 0)
            return -1;
        if (d->count < 0 || d->count > PARSE_MAX_COUNT)
            return ptx_parse_fail(p, t.line, "an array of %lld elements: expected 0 to %d", (long long)d->count,
                        PARSE_MAX_COUNT);
    }
    return 0;
}

/* ".reg .f32 %f<57>;" or ".reg .b32 %r, %s;" */
static int parse_reg_decl(parser *p)
{
    token type = lex_next(&p->lx);
    int ty = ptx_type_from_directive(type.text);
    int first = p->nsyms;
    if (ty < 0)
        return ptx_parse_fail(p, type.line, "expected a register type, found \"%s\"", type.text);
    for (;;) {
        token name = lex_next(&p->lx);
        if (name.kind != TK_WORD)
            return ptx_parse_fail(p, name.line, "expected a register name, found \"%s\"", name.text);
        if (strcmp(lex_peek(&p->lx).text, "<") == 0) {
            lex_next(&p->lx);
            int64_t count = 0;
            token t = lex_next(&p->lx);
            if (ptx_parse_int(p, t, &count) != 0 || ptx_parse_expect(p, ">") != 0)
                return -1;
            if (count < 0 || p->e->nregs + count > PARSE_MAX_REGISTERS)
                return ptx_parse_fail(p, t.line, "more than %d registers in a kernel", PARSE_MAX_REGISTERS);
            for (int64_t i = 0; i < count; i++) {
                char reg[300];
                snprintf(reg, sizeof reg, "%.250s%lld", name.text, (long long)i);
                if (ptx_parse_add_symbol(p, reg, SYM_REG, p->e->nregs++) != 0)
                    return -1;
            }
        } else if (p->e->nregs >= PARSE_MAX_REGISTERS) {
            return ptx_parse_fail(p, name.line, "more than %d registers in a kernel", PARSE_MAX_REGISTERS);
        } else if (ptx_parse_add_symbol(p, name.text, SYM_REG, p->e->nregs++) != 0) {
            return -1;
        }
        for (int i = first; i < p->nsyms; i++)
            p->syms[i].type = ty;
        token sep = lex_next(&p->lx);
        if (strcmp(sep.text, ";") == 0)
            return 0;
        if (strcmp(sep.text, ",") != 0)
            return ptx_parse_fail(p, sep.line, "expected \",\" or \";\" in .reg, found \"%s\"", sep.text);
    }
}

/* ".shared .align 4 .b8 NAME[1024];" (or .local); arrays of any element type. */
static int parse_var_decl(parser *p, sym_kind kind)
{
    if (ptx_parse_var_decl_unterminated(p, kind) != 0)
        return -1;
    return ptx_parse_expect(p, ";");
}

/* A variable's declaration up to its ";" (a function's parameters have none). */
int ptx_parse_var_decl_unterminated(parser *p, sym_kind kind)
{
    declaration d;
    if (ptx_parse_declaration(p, &d) != 0)
        return -1;
    int64_t align = d.align, count = d.count;
    int ty = d.type;
    token name = d.name;
    if (strcmp(lex_peek(&p->lx).text, "=") == 0)
        return ptx_parse_fail(p, name.line, "initialised .shared/.local variables are not supported");
    uint32_t *size = kind == SYM_SHARED ? &p->e->shared_bytes : &p->e->local_bytes;
    if (kind == SYM_CALLPARAM && align < 8)
        align = 8;
    uint64_t offset = (*size + (uint64_t)align - 1) / (uint64_t)align * (uint64_t)align;
    if (offset + (uint64_t)count * ty_bytes((ptx_type)ty) > PARSE_MAX_VARIABLE_BYTES)
        return ptx_parse_fail(p, name.line, "%s: more than %d bytes of %s memory", name.text,
                    PARSE_MAX_VARIABLE_BYTES, kind == SYM_SHARED ? "shared" : "local");
    *size = (uint32_t)(offset + (uint64_t)count * ty_bytes((ptx_type)ty));
    return ptx_parse_add_symbol(p, name.text, kind, (int64_t)offset);
}

int ptx_parse_params(parser *p)
{
    if (ptx_parse_expect(p, "(") != 0)
        return -1;
    if (strcmp(lex_peek(&p->lx).text, ")") == 0) {
        lex_next(&p->lx);
        return 0;
    }
    for (;;) {
        if (ptx_parse_expect(p, ".param") != 0)
            return -1;
        declaration d;
        if (ptx_parse_declaration(p, &d) != 0)
            return -1;
        int64_t align = d.align, count = d.count;
        int ty = d.type;
        token name = d.name;
        uint32_t size = (uint32_t)(count * ty_bytes((ptx_type)ty));
        if (align < (int64_t)ty_bytes((ptx_type)ty))
            align = ty_bytes((ptx_type)ty);
        uint32_t offset = (uint32_t)((p->e->param_bytes + align - 1) / align * align);
        if ((uint64_t)offset + size > PTX_OUTLINE_MAX_PARAM_BYTES || p->e->nparams >= PTX_OUTLINE_MAX_PARAMS)
            return ptx_parse_fail(p, name.line, "the parameters of %s pass %d bytes or %d parameters",
                        p->e->name, PTX_OUTLINE_MAX_PARAM_BYTES, PTX_OUTLINE_MAX_PARAMS);
        ptx_param *np = realloc(p->e->params, (size_t)(p->e->nparams + 1) * sizeof *np);
        if (!np)
            return ptx_parse_fail(p, name.line, "out of memory");
        p->e->params = np;
        ptx_param *par = &np[p->e->nparams++];
        ptx_parse_copy_name(par->name, sizeof par->name, name.text);
        par->offset = offset;
        par->size = size;
        p->e->param_bytes = offset + size;
        if (ptx_parse_add_symbol(p, name.text, SYM_PARAM, offset) != 0)
            return -1;
        token sep = lex_next(&p->lx);
        if (strcmp(sep.text, ")") == 0)
            return 0;
        if (strcmp(sep.text, ",") != 0)
            return ptx_parse_fail(p, sep.line, "expected \",\" or \")\" in the parameter list");
    }
}

int ptx_parse_number(parser *p, token t, bool negative, int64_t *out)
{
    const char *s = t.text;
    if ((s[0] == '0') && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
        /* 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX: the float's bits in hex. */
        char *end = NULL;
        uint64_t bits = strtoull(s + 2, &end, 16);
        if (*end)
            return ptx_parse_fail(p, t.line, "malformed float literal \"%s\"", s);
        if (negative)
            bits ^= (s[1] == 'f' || s[1] == 'F') ? UINT64_C(0x80000000) : UINT64_C(1) << 63;
        *out = (int64_t)bits;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end == 'U' || *end == 'u')
        end++;
    if (errno || *end)
        return ptx_parse_fail(p, t.line, "malformed number \"%s\"", s);
    *out = negative ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* A symbol used as a value: a shared/local variable's address or a parameter's offset. */
static int symbol_value(parser *p, const symbol *s, int64_t *out, int line)
{
    if (s->kind == SYM_SHARED || s->kind == SYM_LOCAL || s->kind == SYM_PARAM ||
        s->kind == SYM_CALLPARAM || s->kind == SYM_GLOBAL) {
        *out = s->value;
        return 0;
    }
    return ptx_parse_fail(p, line, "\"%s\" cannot be used as an address", s->name);
}

static int parse_address(parser *p, ptx_operand *o)
{
    o->kind = OPK_ADDR;
    o->reg = -1;
    o->imm = 0;
    token base = lex_next(&p->lx);
    if (base.kind == TK_NUM) {
        if (ptx_parse_number(p, base, false, &o->imm) != 0)
            return -1;
    } else {
        const symbol *s = find_symbol(p, base.text);
        if (!s)
            return ptx_parse_fail(p, base.line, "unknown name \"%s\" in an address", base.text);
        p->last_address_kind = s->kind;
        o->local_sym = s->kind == SYM_LOCAL || s->kind == SYM_CALLPARAM;
        if (s->kind == SYM_REG)
            o->reg = (int32_t)s->value;
        else if (symbol_value(p, s, &o->imm, base.line) != 0)
            return -1;
    }
    token t = lex_next(&p->lx);
    if (strcmp(t.text, "+") == 0) {
        bool neg = false;
        token n = lex_next(&p->lx);
        if (strcmp(n.text, "-") == 0) {
            neg = true;
            n = lex_next(&p->lx);
        }
        int64_t off;
        if (ptx_parse_number(p, n, neg, &off) != 0)
            return -1;
        o->imm += off;
        t = lex_next(&p->lx);
    }
    if (strcmp(t.text, "]") != 0)
        return ptx_parse_fail(p, t.line, "expected \"]\", found \"%s\"", t.text);
    return 0;
}

static int defer_unsupported(parser *p, token op, const char *why);

static int parse_operand(parser *p, ptx_insn *in, ptx_operand *o)
{
    memset(o, 0, sizeof *o);
    o->reg = -1;
    token t = lex_next(&p->lx);
    if (strcmp(t.text, "[") == 0)
        return parse_address(p, o);
    bool negative = false;
    if (strcmp(t.text, "-") == 0 || strcmp(t.text, "!") == 0) {
        negative = t.text[0] == '-';
        o->negate = t.text[0] == '!';
        t = lex_next(&p->lx);
    }
    if (t.kind == TK_NUM) {
        o->kind = OPK_IMM;
        return ptx_parse_number(p, t, negative, &o->imm);
    }
    if (strcmp(t.text, "_") == 0)
        return 0; /* a sink: a result nobody wants (OPK_NONE) */
    int sreg = ptx_special_register(t.text);
    if (sreg >= 0) {
        /* Blocks of a kernel that asks where the reserved shared memory is get it. */
        p->e->reserved_shared |= sreg >= SR_RESERVED_SMEM_BEGIN;
        o->kind = OPK_SREG;
        o->sreg = (uint8_t)sreg;
        return 0;
    }
    const symbol *s = find_symbol(p, t.text);
    if (in->op == OP_BRA) {
        /* Labels may come later: resolved once the body is read. */
        fixup *f = grow(p->fixups, &p->capfixups, p->nfixups + 1, sizeof *f);
        if (!f)
            return ptx_parse_fail(p, t.line, "out of memory");
        p->fixups = f;
        f[p->nfixups].insn = p->e->ncode;
        f[p->nfixups].line = t.line;
        ptx_parse_copy_name(f[p->nfixups].label, sizeof f->label, t.text);
        p->nfixups++;
        o->kind = OPK_IMM;
        return 0;
    }
    if (!s && t.text[0] == '%') {
        /* A special register the interpreter does not have (%reserved_smem_offset_1 of
         * cooperative groups, %envreg3...): only kernels that use it are refused. */
        char why[200];
        snprintf(why, sizeof why, "the special register %.100s", t.text);
        p->skip_insn = true;
        return defer_unsupported(p, t, why);
    }
    if (!s)
        return ptx_parse_fail(p, t.line, "unknown name \"%s\"", t.text);
    if (s->kind == SYM_REG) {
        o->kind = OPK_REG;
        o->reg = (int32_t)s->value;
        p->last_operand_pred = s->type == TY_PRED;
        return 0;
    }
    o->kind = OPK_IMM;
    o->local_sym = s->kind == SYM_LOCAL || s->kind == SYM_CALLPARAM;
    return symbol_value(p, s, &o->imm, t.line);
}

/* An instruction the interpreter cannot run: noted on the entry (its launches are refused,
 * naming the source line) and skipped, so that other kernels of the module still run. */
static int defer_unsupported(parser *p, token op, const char *why)
{
    const char *src = p->cur_file > 0 && p->cur_file < p->m->nfiles && p->m->files[p->cur_file]
                          ? p->m->files[p->cur_file]
                          : NULL;
    if (!p->e->unsupported[0]) {
        const char *unit = p->e->is_func ? "device function" : "kernel";
        if (src && p->cur_line > 0)
            snprintf(p->e->unsupported, sizeof p->e->unsupported, "%.200s:%d: %.190s is not "
                     "supported by the CPU backend (PTX line %d, %s %.100s)", src, p->cur_line,
                     why, op.line, unit, p->e->name);
        else
            snprintf(p->e->unsupported, sizeof p->e->unsupported, "%.100s:%d: %.190s is not "
                     "supported by the CPU backend (%s %.100s)", p->name, op.line, why, unit,
                     p->e->name);
    }
    for (token t = lex_next(&p->lx); t.kind != TK_END && strcmp(t.text, ";") != 0;
         t = lex_next(&p->lx)) {
    }
    return 0;
}

/* call (retval), f, (param0, ...) of a device function or of __assertfail: a call site that
 * linking resolves. Arguments and the result are .param variables of the call sequence. */
static int parse_device_call(parser *p, ptx_insn *in, token fn, bool has_ret, int line)
{
    ptx_callsite cs;
    memset(&cs, 0, sizeof cs);
    ptx_parse_copy_name(cs.callee, sizeof cs.callee, fn.text);
    cs.builtin = strcmp(fn.text, "__assertfail") == 0 ? PTX_FUNC_ASSERTFAIL : 0;
    if (has_ret) {
        if (!in->ops[0].local_sym)
            return ptx_parse_fail(p, line, "the result of a call must be a .param variable");
        cs.has_ret = true;
        cs.ret.to = (uint32_t)in->ops[0].imm;
    }
    if (strcmp(lex_peek(&p->lx).text, ",") == 0) {
        lex_next(&p->lx);
        if (ptx_parse_expect(p, "(") != 0)
            return -1;
        while (strcmp(lex_peek(&p->lx).text, ")") != 0) {
            token a = lex_next(&p->lx);
            const symbol *s = find_symbol(p, a.text);
            if (!s || s->kind != SYM_CALLPARAM || cs.nargs == PTX_MAX_CALL_ARGS)
                return defer_unsupported(p, a, "a call argument that is not a .param (or more "
                                         "than 32 of them)");
            cs.args[cs.nargs++].from = (uint32_t)s->value;
            if (strcmp(lex_peek(&p->lx).text, ",") == 0)
                lex_next(&p->lx);
        }
        lex_next(&p->lx);
    }
    if (strcmp(lex_peek(&p->lx).text, ",") == 0)
        return defer_unsupported(p, fn, "an indirect call (through a function pointer)");
    ptx_callsite *nc = realloc(p->e->calls, (size_t)(p->e->ncalls + 1) * sizeof *nc);
    if (!nc)
        return ptx_parse_fail(p, line, "out of memory");
    p->e->calls = nc;
    in->target = p->e->ncalls;
    nc[p->e->ncalls++] = cs;
    in->ops[1].kind = OPK_IMM;
    in->ops[1].imm = cs.builtin ? cs.builtin : PTX_FUNC_DEVICE;
    in->nops = 2;
    return ptx_parse_expect(p, ";");
}

/* call.uni (retval), name, (param0, param1, ...): the device runtime's printf (its arguments as
 * operands), or a device function (a call site). */
static int parse_call(parser *p, ptx_insn *in, int line)
{
    int n = 0;
    in->ops[n].kind = OPK_NONE;
    bool has_ret = false;
    if (strcmp(lex_peek(&p->lx).text, "(") == 0) {
        lex_next(&p->lx);
        if (parse_operand(p, in, &in->ops[0]) != 0 || ptx_parse_expect(p, ")") != 0 || ptx_parse_expect(p, ",") != 0)
            return -1;
        has_ret = true;
    }
    n = 1;
    token fn = lex_next(&p->lx);
    if (strcmp(fn.text, "vprintf") != 0) {
        const symbol *s = find_symbol(p, fn.text);
        if (s && s->kind == SYM_REG)
            return defer_unsupported(p, fn, "an indirect call (through a function pointer)");
        return parse_device_call(p, in, fn, has_ret, line);
    }
    in->ops[n].kind = OPK_IMM;
    in->ops[n++].imm = PTX_FUNC_VPRINTF;
    if (strcmp(lex_peek(&p->lx).text, ",") == 0) {
        lex_next(&p->lx);
        if (ptx_parse_expect(p, "(") != 0)
            return -1;
        while (strcmp(lex_peek(&p->lx).text, ")") != 0) {
            if (n >= PTX_MAX_OPERANDS)
                return ptx_parse_fail(p, line, "too many call arguments");
            if (parse_operand(p, in, &in->ops[n++]) != 0)
                return -1;
            if (strcmp(lex_peek(&p->lx).text, ",") == 0)
                lex_next(&p->lx);
        }
        lex_next(&p->lx);
    }
    in->nops = (uint8_t)n;
    return ptx_parse_expect(p, ";");
}

static int parse_instruction(parser *p, token first)
{
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.guard = -1;
    in.line = p->cur_line;
    in.file = (int16_t)p->cur_file;
    token op = first;
    if (strcmp(first.text, "@") == 0) {
        token g = lex_next(&p->lx);
        if (strcmp(g.text, "!") == 0) {
            in.guard_neg = 1;
            g = lex_next(&p->lx);
        }
        const symbol *s = find_symbol(p, g.text);
        if (!s || s->kind != SYM_REG)
            return ptx_parse_fail(p, g.line, "unknown guard predicate \"%s\"", g.text);
        in.guard = (int16_t)s->value;
        op = lex_next(&p->lx);
    }
    char why[200];
    if (ptx_decode_opcode(op.text, &in, why, sizeof why) != 0)
        return defer_unsupported(p, op, why);
    p->last_address_kind = SYM_REG;
    if (in.op == OP_CALL) {
        if (parse_call(p, &in, op.line) != 0)
            return -1;
        ptx_insn *nc = grow(p->e->code, &p->capcode, p->e->ncode + 1, sizeof *nc);
        if (!nc)
            return ptx_parse_fail(p, op.line, "out of memory");
        p->e->code = nc;
        nc[p->e->ncode++] = in;
        return 0;
    }
    /* Operands: comma-separated, vectors in braces. */
    int brace_at = -1, brace_count = 0;
    while (strcmp(lex_peek(&p->lx).text, ";") != 0) {
        if (in.nops >= PTX_MAX_OPERANDS)
            return ptx_parse_fail(p, op.line, "too many operands for \"%s\"", op.text);
        if (strcmp(lex_peek(&p->lx).text, "{") == 0) {
            lex_next(&p->lx);
            if (brace_at < 0)
                brace_at = in.nops;
            for (;;) {
                if (in.nops >= PTX_MAX_OPERANDS)
                    return ptx_parse_fail(p, op.line, "vector too long in \"%s\"", op.text);
                if (parse_operand(p, &in, &in.ops[in.nops++]) != 0)
                    return -1;
                if (p->skip_insn) {
                    p->skip_insn = false;
                    return 0;
                }
                if (brace_at >= 0 && brace_count < PTX_MAX_OPERANDS && in.nops - 1 >= brace_at)
                    brace_count = in.nops - brace_at;
                token sep = lex_next(&p->lx);
                if (strcmp(sep.text, "}") == 0)
                    break;
                if (strcmp(sep.text, ",") != 0)
                    return ptx_parse_fail(p, sep.line, "expected \",\" or \"}\" in a vector operand");
            }
        } else if (parse_operand(p, &in, &in.ops[in.nops++]) != 0) {
            return -1;
        }
        /* cp.async's fourth operand: a predicate is ignore-src, a number src-size. */
        if (in.op == OP_CPASYNC && in.nops == 4 && in.ops[3].kind == OPK_REG &&
            p->last_operand_pred)
            in.atomic |= ASYNC_IGNORE_SRC;
        if (p->skip_insn) { /* deferred: the rest of the statement is consumed */
            p->skip_insn = false;
            return 0;
        }
        /* d|p: a second destination, a predicate (setp, shfl, match.all). */
        if (in.nops == 1 && strcmp(lex_peek(&p->lx).text, "|") == 0) {
            lex_next(&p->lx);
            if (parse_operand(p, &in, &in.ops[in.nops++]) != 0)
                return -1;
            in.mods |= MOD_PDEST;
        }
        if (strcmp(lex_peek(&p->lx).text, ",") == 0)
            lex_next(&p->lx);
    }
    lex_next(&p->lx);
    if (in.op == OP_NOP)
        return 0;
    /* mov with a vector of parts: splitting a register or joining parts into one. */
    if (in.op == OP_MOV && brace_at >= 0) {
        bool split = brace_at == 0;
        if (brace_count < 2 || in.nops != brace_count + 1 ||
            ty_bytes((ptx_type)in.type) % (unsigned)brace_count != 0)
            return ptx_parse_fail(p, op.line, "a vector mov needs 2 or 4 parts that divide its type");
        in.mods |= split ? MOD_SPLIT : MOD_JOIN;
        in.vec = (uint8_t)brace_count;
    }
    /* "_" (a sink) only where a result may be dropped: a part of a split, the p of d|p. */
    for (int i = 0; i < in.nops; i++)
        if (in.ops[i].kind == OPK_NONE && !((in.mods & MOD_SPLIT) && i < in.vec) &&
            !((in.mods & MOD_PDEST) && i == 1) && in.op != OP_MBARRIER)
            return ptx_parse_fail(p, op.line, "\"_\" (no result) cannot stand for operand %d of \"%s\"",
                        i + 1, op.text);
    if ((in.op == OP_CPASYNC || in.op == OP_MBARRIER || in.op == OP_NANOSLEEP) &&
        ptx_async_check(&in, why, sizeof why) != 0)
        return ptx_parse_fail(p, op.line, "%s", why);
    int expected = ptx_expected_operands(&in);
    if (expected >= 0 && (in.nops != expected || in.ops[0].kind != OPK_REG))
        return ptx_parse_fail(p, op.line, "\"%s\" takes %d operands, the first a register (found %d)",
                    op.text, expected, in.nops);
    if (in.op == OP_WARPSYNC &&
        (in.nops != 1 || (in.ops[0].kind != OPK_REG && in.ops[0].kind != OPK_IMM)))
        return ptx_parse_fail(p, op.line, "\"%s\" takes one operand, the member mask", op.text);
    if ((in.mods & MOD_PDEST) && in.op != OP_SETP && in.op != OP_SHFL && in.op != OP_MATCH)
        return ptx_parse_fail(p, op.line, "\"%s\" has no second destination (d|p)", op.text);
    /* ld/st.param on a call's own parameters: those live in the thread's local memory. */
    if (in.space == SP_PARAM && p->last_address_kind == SYM_CALLPARAM) {
        in.space = SP_LOCAL;
        in.mods |= MOD_CALL_PARAM;
    }
    if (ptx_alu_special(&in))
        in.mods |= MOD_ALU_SPECIAL;
    if (reads_machine(&in))
        in.mods |= MOD_MACHINE_QUERY;
    ptx_insn *nc = grow(p->e->code, &p->capcode, p->e->ncode + 1, sizeof *nc);
    if (!nc)
        return ptx_parse_fail(p, op.line, "out of memory");
    p->e->code = nc;
    nc[p->e->ncode++] = in;
    return 0;
}

int ptx_parse_body(parser *p)
{
    if (ptx_parse_expect(p, "{") != 0)
        return -1;
    p->scope = 1;
    for (;;) {
        token t = lex_next(&p->lx);
        if (t.kind == TK_END)
            return ptx_parse_fail(p, t.line, "the entry's body has no closing \"}\"");
        if (strcmp(t.text, "}") == 0) {
            if (p->scope == 1)
                break;
            leave_scope(p);
        } else if (strcmp(t.text, "{") == 0) {
            p->scope++;
        } else if (strcmp(t.text, ".reg") == 0) {
            if (parse_reg_decl(p) != 0)
                return -1;
        } else if (strcmp(t.text, ".shared") == 0) {
            if (parse_var_decl(p, SYM_SHARED) != 0)
                return -1;
        } else if (strcmp(t.text, ".local") == 0) {
            if (parse_var_decl(p, SYM_LOCAL) != 0)
                return -1;
        } else if (strcmp(t.text, ".param") == 0) {
            if (parse_var_decl(p, SYM_CALLPARAM) != 0)
                return -1;
        } else if (strcmp(t.text, ".loc") == 0) {
            int64_t file = 0, line = 0;
            if (ptx_parse_int(p, lex_next(&p->lx), &file) != 0 ||
                ptx_parse_int(p, lex_next(&p->lx), &line) != 0)
                return -1;
            /* Line 0 means "no particular line" (code the compiler moved or made up): keep
             * the last real line, as debuggers do. */
            if (line > 0) {
                p->cur_file = (int)file;
                p->cur_line = (int)line;
            }
            /* The column and any ", function_name ..., inlined_at ..." stay on this line. */
            while (lex_peek(&p->lx).kind != TK_END && lex_peek(&p->lx).line == t.line)
                lex_next(&p->lx);
        } else if (strcmp(t.text, ".pragma") == 0) {
            skip_statement(p);
        } else if (t.kind == TK_WORD && strcmp(lex_peek(&p->lx).text, ":") == 0) {
            lex_next(&p->lx);
            if (ptx_parse_add_symbol(p, t.text, SYM_LABEL, p->e->ncode) != 0)
                return -1;
        } else if (t.kind == TK_WORD || strcmp(t.text, "@") == 0) {
            if (parse_instruction(p, t) != 0)
                return -1;
        } else {
            return ptx_parse_fail(p, t.line, "unexpected \"%s\" in an entry's body", t.text);
        }
    }
    for (int i = 0; i < p->nfixups; i++) {
        const symbol *s = find_symbol(p, p->fixups[i].label);
        if (!s || s->kind != SYM_LABEL)
            return ptx_parse_fail(p, p->fixups[i].line, "branch to an unknown label \"%s\"",
                        p->fixups[i].label);
        p->e->code[p->fixups[i].insn].target = (int32_t)s->value;
    }
    return 0;
}
