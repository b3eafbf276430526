/* The outline of a PTX module: each entry's parameters and each module variable, without
 * reading a single instruction. The capture runtime needs the parameter sizes to copy a launch's
 * arguments, and the replayer needs them to check what it is given; neither may depend on the
 * interpreter understanding every instruction a kernel uses. */
#include "decode.h"
#include "lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct scanner {
    lexer lx;
    const char *name;
    ptx_error *err;
    ptx_outline *out;
} scanner;

static int fail(scanner *s, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(scanner *s, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->err->msg, sizeof s->err->msg, "%.200s:%d: %s", s->name, line, msg);
    return -1;
}

static bool is(token t, const char *text) { return strcmp(t.text, text) == 0; }

static int whole_number(scanner *s, token t, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(t.text, &end, 0);
    if (t.kind != TK_NUM || errno || *end || v > max)
        return fail(s, t.line, "expected a whole number up to %llu, found \"%.60s\"",
                    (unsigned long long)max, t.text);
    *out = v;
    return 0;
}

/* Skips to the end of the statement (";" outside braces) or past a braced body. */
static int skip_statement(scanner *s, int line)
{
    int depth = 0;
    for (token t = lex_next(&s->lx); t.kind != TK_END; t = lex_next(&s->lx)) {
        if (is(t, "{"))
            depth++;
        else if (is(t, "}") && --depth <= 0) {
            if (is(lex_peek(&s->lx), ";")) /* an initialiser's closing brace */
                lex_next(&s->lx);
            return 0;
        }
        else if (is(t, ";") && depth == 0)
            return 0;
    }
    return depth == 0 ? 0 : fail(s, line, "a body opened here is never closed");
}

/* "[.align N] .TYPE [.ptr [.SPACE] [.align N]] NAME [N]..." after .param, .global or .const.
 * Returns the size in bytes (0 for an unsized array) and the alignment. */
static int declaration(scanner *s, token *name, uint64_t *size, uint64_t *align)
{
    *align = 0;
    token t = lex_next(&s->lx);
    uint64_t a = 0;
    if (is(t, ".align")) {
        if (whole_number(s, lex_next(&s->lx), 1 << 16, &a) != 0)
            return -1;
        *align = a;
        t = lex_next(&s->lx);
    }
    int ty = ptx_type_from_directive(t.text);
    if (ty < 0 || ty == TY_PRED)
        return fail(s, t.line, "expected a type, found \"%.60s\"", t.text);
    uint64_t elem = ty_bytes((ptx_type)ty);
    /* Pointer attributes of kernel parameters say where the pointer points, not its size. */
    for (t = lex_next(&s->lx); t.kind == TK_WORD && t.text[0] == '.'; t = lex_next(&s->lx)) {
        if (is(t, ".align") && whole_number(s, lex_next(&s->lx), 1 << 16, &a) != 0)
            return -1;
    }
    if (t.kind != TK_WORD)
        return fail(s, t.line, "expected a name, found \"%.60s\"", t.text);
    *name = t;
    *size = elem;
    while (is(lex_peek(&s->lx), "[")) {
        lex_next(&s->lx);
        uint64_t count = 0;
        if (is(lex_peek(&s->lx), "]")) {
            *size = 0;
        } else if (whole_number(s, lex_next(&s->lx), UINT64_C(1) << 40, &count) != 0) {
            return -1;
        } else if (*size > (UINT64_C(1) << 40) / (count ? count : 1)) {
            return fail(s, name->line, "%.100s is larger than the outline reader accepts",
                        name->text);
        } else {
            *size *= count;
        }
        token close = lex_next(&s->lx);
        if (!is(close, "]"))
            return fail(s, close.line, "expected \"]\", found \"%.60s\"", close.text);
    }
    if (*align < elem)
        *align = elem;
    return 0;
}

static void copy_name(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

static int add_entry(scanner *s, token name)
{
    if (s->out->nentries == PTX_OUTLINE_MAX_ENTRIES)
        return fail(s, name.line, "more than %d kernels", PTX_OUTLINE_MAX_ENTRIES);
    ptx_entry_outline *e = &s->out->entries[s->out->nentries];
    memset(e, 0, sizeof *e);
    copy_name(e->name, sizeof e->name, name.text);
    token open = lex_next(&s->lx);
    if (!is(open, "("))
        return fail(s, open.line, "expected \"(\" after .entry %.100s", name.text);
    if (is(lex_peek(&s->lx), ")")) {
        lex_next(&s->lx);
    } else {
        for (;;) {
            token par = lex_next(&s->lx);
            if (!is(par, ".param"))
                return fail(s, par.line, "expected .param, found \"%.60s\"", par.text);
            if (e->nparams == PTX_OUTLINE_MAX_PARAMS)
                return fail(s, par.line, "%.100s has more than %d parameters", e->name,
                            PTX_OUTLINE_MAX_PARAMS);
            token pname;
            uint64_t size, align;
            if (declaration(s, &pname, &size, &align) != 0)
                return -1;
            uint64_t offset = (e->param_bytes + align - 1) / align * align;
            if (size == 0 || offset + size > PTX_OUTLINE_MAX_PARAM_BYTES)
                return fail(s, pname.line, "%.100s: parameter %.100s makes the parameters larger "
                            "than %d bytes", e->name, pname.text, PTX_OUTLINE_MAX_PARAM_BYTES);
            e->param_offset[e->nparams] = (uint32_t)offset;
            e->param_size[e->nparams] = (uint32_t)size;
            e->nparams++;
            e->param_bytes = (uint32_t)(offset + size);
            token sep = lex_next(&s->lx);
            if (is(sep, ")"))
                break;
            if (!is(sep, ","))
                return fail(s, sep.line, "expected \",\" or \")\" in the parameters of %.100s",
                            e->name);
        }
    }
    s->out->nentries++;
    /* Directives (.maxntid ...), then the body or a ";" for a declaration. */
    return skip_statement(s, name.line);
}

static int add_variable(scanner *s, token kind)
{
    if (s->out->nvars == PTX_OUTLINE_MAX_VARS)
        return fail(s, kind.line, "more than %d module variables", PTX_OUTLINE_MAX_VARS);
    ptx_var_outline *v = &s->out->vars[s->out->nvars];
    token name;
    uint64_t size, align;
    if (declaration(s, &name, &size, &align) != 0)
        return -1;
    memset(v, 0, sizeof *v);
    copy_name(v->name, sizeof v->name, name.text);
    v->size = size;
    v->constant = is(kind, ".const");
    s->out->nvars++;
    return skip_statement(s, name.line); /* the initialiser, if any */
}

ptx_outline *ptx_outline_read(const char *name, const char *text, size_t len, ptx_error *err)
{
    ptx_outline *out = calloc(1, sizeof *out);
    if (!out) {
        snprintf(err->msg, sizeof err->msg, "%.200s: out of memory", name);
        return NULL;
    }
    scanner s = {.name = name, .err = err, .out = out};
    lex_init(&s.lx, text, len);
    int rc = 0;
    for (token t = lex_next(&s.lx); rc == 0 && t.kind != TK_END; t = lex_next(&s.lx)) {
        if (t.kind == TK_WORD && (is(t, ".visible") || is(t, ".weak") || is(t, ".extern")))
            continue;
        if (is(t, ".entry")) {
            token name_tok = lex_next(&s.lx);
            rc = name_tok.kind == TK_WORD
                     ? add_entry(&s, name_tok)
                     : fail(&s, name_tok.line, "expected a kernel name after .entry");
        } else if (is(t, ".global") || is(t, ".const")) {
            rc = add_variable(&s, t);
        } else if (is(t, ".func") || is(t, ".section") || is(t, ".shared") ||
                   is(t, ".file") || is(t, ".alias")) {
            rc = skip_statement(&s, t.line);
        } else if (is(t, ".version") || is(t, ".target") || is(t, ".address_size")) {
            int line = t.line;
            while (lex_peek(&s.lx).kind != TK_END && lex_peek(&s.lx).line == line)
                lex_next(&s.lx);
        } else {
            rc = fail(&s, t.line, "unexpected \"%.60s\" at module scope", t.text);
        }
    }
    if (rc != 0) {
        free(out);
        return NULL;
    }
    return out;
}

void ptx_outline_free(ptx_outline *o) { free(o); }

const ptx_entry_outline *ptx_outline_entry(const ptx_outline *o, const char *name)
{
    for (int i = 0; i < o->nentries; i++)
        if (strcmp(o->entries[i].name, name) == 0)
            return &o->entries[i];
    return NULL;
}
