/* Module scope: kernels (.entry), device functions (.func), module variables (.global and
 * .const with their initialisers), dynamic shared memory, and the module's accessors. */
#include "parse.h"

#include <stdlib.h>
#include <string.h>

/* A fresh symbol table for an entry's or a function's body: the module's variables and its
 * dynamic shared memory are visible in each. */
static int begin_unit(parser *p, ptx_entry *unit, const char *name)
{
    p->e = unit;
    memset(p->e, 0, sizeof *p->e);
    ptx_parse_copy_name(p->e->name, sizeof p->e->name, name);
    p->nsyms = 0;
    p->nfixups = 0;
    p->capcode = 0;
    p->scope = 0;
    for (int i = 0; i < p->m->nglobals; i++)
        if (ptx_parse_add_symbol(p, p->m->globals[i].name, SYM_GLOBAL,
                       (int64_t)(uintptr_t)p->m->globals[i].data) != 0)
            return -1;
    for (int i = 0; i < p->m->ndynamic_shared; i++)
        if (ptx_parse_add_symbol(p, p->m->dynamic_shared[i], SYM_SHARED,
                       (int64_t)PTX_DYNAMIC_SHARED_BASE) != 0)
            return -1;
    return 0;
}

/* Performance directives (.maxntid, .reqntid, .noreturn, ...) between a header and a body. */
static void skip_directives(parser *p)
{
    while (lex_peek(&p->lx).kind == TK_WORD && lex_peek(&p->lx).text[0] == '.') {
        lex_next(&p->lx);
        while (lex_peek(&p->lx).kind == TK_NUM || strcmp(lex_peek(&p->lx).text, ",") == 0)
            lex_next(&p->lx);
    }
}

static int parse_entry(parser *p)
{
    token name = lex_next(&p->lx);
    ptx_entry *ne = realloc(p->m->entries, (size_t)(p->m->nentries + 1) * sizeof *ne);
    if (!ne)
        return ptx_parse_fail(p, name.line, "out of memory");
    p->m->entries = ne;
    if (begin_unit(p, &ne[p->m->nentries++], name.text) != 0 || ptx_parse_params(p) != 0)
        return -1;
    skip_directives(p);
    return ptx_parse_body(p);
}

/* A device function's parameter list, "(.param .b32 a, .param .align 8 .b8 s[16])": each
 * parameter a .param variable in the function's local memory, recorded in order. `result`:
 * the list before the name, func_retval0. */
static int parse_func_params(parser *p, bool result)
{
    if (ptx_parse_expect(p, "(") != 0)
        return -1;
    while (strcmp(lex_peek(&p->lx).text, ")") != 0) {
        token t = lex_peek(&p->lx);
        if (ptx_parse_expect(p, ".param") != 0)
            return -1;
        int sym = p->nsyms;
        /* Like a call sequence's .param: 8-byte aligned in local memory. */
        if (ptx_parse_var_decl_unterminated(p, SYM_CALLPARAM) != 0)
            return -1;
        uint32_t offset = (uint32_t)p->syms[sym].value, size = p->e->local_bytes - offset;
        if (result) {
            if (p->e->has_ret)
                return ptx_parse_fail(p, t.line, "a function with more than one result");
            p->e->has_ret = true;
            p->e->ret_offset = offset;
            p->e->ret_size = size;
        } else {
            if (p->e->nparams == PTX_MAX_CALL_ARGS)
                return ptx_parse_fail(p, t.line, "a function with more than %d parameters",
                            PTX_MAX_CALL_ARGS);
            ptx_param *np = realloc(p->e->params, (size_t)(p->e->nparams + 1) * sizeof *np);
            if (!np)
                return ptx_parse_fail(p, t.line, "out of memory");
            p->e->params = np;
            ptx_parse_copy_name(np[p->e->nparams].name, sizeof np->name, p->syms[sym].name);
            np[p->e->nparams].offset = offset;
            np[p->e->nparams++].size = size;
        }
        if (strcmp(lex_peek(&p->lx).text, ",") == 0)
            lex_next(&p->lx);
    }
    lex_next(&p->lx);
    return 0;
}

/* ".func (.param .b32 func_retval0) name(.param .b32 name_param_0, ...)" and a body, or ";"
 * for a declaration (an .extern function, or one defined further on). */
static int parse_func(parser *p)
{
    ptx_entry *nf = realloc(p->m->funcs, (size_t)(p->m->nfuncs + 1) * sizeof *nf);
    if (!nf)
        return ptx_parse_fail(p, p->lx.line, "out of memory");
    p->m->funcs = nf;
    ptx_entry *f = &nf[p->m->nfuncs++];
    if (begin_unit(p, f, "") != 0)
        return -1;
    f->is_func = true;
    bool has_result = strcmp(lex_peek(&p->lx).text, "(") == 0;
    if (has_result && parse_func_params(p, true) != 0)
        return -1;
    token name = lex_next(&p->lx);
    if (name.kind != TK_WORD)
        return ptx_parse_fail(p, name.line, "expected a function name, found \"%s\"", name.text);
    ptx_parse_copy_name(f->name, sizeof f->name, name.text);
    if (parse_func_params(p, false) != 0)
        return -1;
    skip_directives(p);
    if (strcmp(lex_peek(&p->lx).text, ";") == 0) {
        lex_next(&p->lx);
        return 0;
    }
    f->defined = true;
    return ptx_parse_body(p);
}

/* ".global .align 1 .b8 $str[24] = {116, 104, ...};" (also .const): host memory with the
 * initial bytes; the rest is zero. */
static int parse_global(parser *p)
{
    declaration d;
    if (ptx_parse_declaration(p, &d) != 0)
        return -1;
    int64_t count = d.count;
    int ty = d.type;
    token name = d.name;
    size_t elem = ty_bytes((ptx_type)ty), size = (size_t)count * elem;
    if (count < 1 || size > ((size_t)1 << 30))
        return ptx_parse_fail(p, name.line, "module variable %s has an unsupported size", name.text);
    ptx_global *ng = realloc(p->m->globals, (size_t)(p->m->nglobals + 1) * sizeof *ng);
    if (!ng)
        return ptx_parse_fail(p, name.line, "out of memory");
    p->m->globals = ng;
    ptx_global *g = &ng[p->m->nglobals];
    ptx_parse_copy_name(g->name, sizeof g->name, name.text);
    g->size = size;
    g->data = calloc(1, size);
    if (!g->data)
        return ptx_parse_fail(p, name.line, "out of memory");
    p->m->nglobals++;
    if (strcmp(lex_peek(&p->lx).text, "=") == 0) {
        lex_next(&p->lx);
        bool braced = strcmp(lex_peek(&p->lx).text, "{") == 0;
        if (braced)
            lex_next(&p->lx);
        for (size_t i = 0;; i++) {
            token v = lex_next(&p->lx);
            bool neg = strcmp(v.text, "-") == 0;
            if (neg)
                v = lex_next(&p->lx);
            int64_t x;
            if (ptx_parse_number(p, v, neg, &x) != 0)
                return -1;
            if (i < (size_t)count)
                memcpy(g->data + i * elem, &x, elem); /* little-endian: the low bytes */
            token sep = lex_next(&p->lx);
            if (!braced || strcmp(sep.text, "}") == 0) {
                if (!braced && strcmp(sep.text, ";") == 0)
                    return 0;
                break;
            }
            if (strcmp(sep.text, ",") != 0)
                return ptx_parse_fail(p, sep.line, "expected \",\" in an initialiser, found \"%s\"", sep.text);
        }
    }
    return ptx_parse_expect(p, ";");
}

/* ".extern .shared .align 16 .b8 dyn[];": the dynamic shared memory of a launch. */
static int parse_module_shared(parser *p, int line)
{
    int64_t align;
    if (ptx_parse_align(p, &align) != 0)
        return -1;
    lex_next(&p->lx); /* type */
    token name = lex_next(&p->lx);
    if (ptx_parse_expect(p, "[") != 0)
        return -1;
    if (strcmp(lex_peek(&p->lx).text, "]") != 0)
        return ptx_parse_fail(p, line, "module-scope static .shared variables are not supported by the CPU "
                             "backend (%s)", name.text);
    lex_next(&p->lx);
    char (*nd)[128] = realloc(p->m->dynamic_shared,
                              (size_t)(p->m->ndynamic_shared + 1) * sizeof *nd);
    if (!nd)
        return ptx_parse_fail(p, line, "out of memory");
    p->m->dynamic_shared = nd;
    ptx_parse_copy_name(nd[p->m->ndynamic_shared++], sizeof *nd, name.text);
    return ptx_parse_expect(p, ";");
}

ptx_module *ptx_module_parse(const char *name, const char *text, size_t len, ptx_error *err)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.err = err;
    p.m = calloc(1, sizeof *p.m);
    if (!p.m) {
        snprintf(err->msg, sizeof err->msg, "%s: out of memory", name);
        return NULL;
    }
    ptx_parse_copy_name(p.m->name, sizeof p.m->name, name);
    lex_init(&p.lx, text, len);
    int rc = 0;
    for (token t = lex_next(&p.lx); rc == 0 && t.kind != TK_END; t = lex_next(&p.lx)) {
        if (strcmp(t.text, ".entry") == 0) {
            rc = parse_entry(&p);
        } else if (strcmp(t.text, ".file") == 0) {
            int64_t index = -1;
            token path;
            if ((rc = ptx_parse_int(&p, lex_next(&p.lx), &index)) == 0 &&
                (path = lex_next(&p.lx)).kind == TK_STRING && index >= 0 && index < 4096) {
                if (index >= p.m->nfiles) {
                    char **nf = realloc(p.m->files, (size_t)(index + 1) * sizeof *nf);
                    if (!nf)
                        break;
                    for (int i = p.m->nfiles; i <= index; i++)
                        nf[i] = NULL;
                    p.m->files = nf;
                    p.m->nfiles = (int)index + 1;
                }
                free(p.m->files[index]);
                p.m->files[index] = strdup(path.text);
            }
            while (strcmp(lex_peek(&p.lx).text, ",") == 0) {
                lex_next(&p.lx);
                lex_next(&p.lx);
            }
        } else if (strcmp(t.text, ".func") == 0) {
            rc = parse_func(&p);
        } else if (strcmp(t.text, ".section") == 0) {
            /* DWARF sections carry nothing the interpreter needs. */
            while (lex_peek(&p.lx).kind != TK_END && strcmp(lex_peek(&p.lx).text, "{") != 0 &&
                   strcmp(lex_peek(&p.lx).text, ";") != 0)
                lex_next(&p.lx);
            if (strcmp(lex_peek(&p.lx).text, "{") == 0)
                ptx_parse_skip_braced(&p);
            else
                lex_next(&p.lx);
        } else if (strcmp(t.text, ".version") == 0 || strcmp(t.text, ".target") == 0 ||
                   strcmp(t.text, ".address_size") == 0) {
            int line = t.line;
            while (lex_peek(&p.lx).kind != TK_END && lex_peek(&p.lx).line == line)
                lex_next(&p.lx);
        } else if (strcmp(t.text, ".visible") == 0 || strcmp(t.text, ".weak") == 0 ||
                   strcmp(t.text, ".extern") == 0) {
            continue;
        } else if (strcmp(t.text, ".global") == 0 || strcmp(t.text, ".const") == 0) {
            rc = parse_global(&p);
        } else if (strcmp(t.text, ".shared") == 0) {
            rc = parse_module_shared(&p, t.line);
        } else {
            rc = ptx_parse_fail(&p, t.line, "unexpected \"%s\" at module scope", t.text);
        }
    }
    free(p.syms);
    free(p.fixups);
    if (rc != 0) {
        ptx_module_free(p.m);
        return NULL;
    }
    for (int i = 0; i < p.m->nentries; i++)
        p.m->entries[i].module = p.m;
    if (ptx_link_module(p.m, err) != 0) {
        ptx_module_free(p.m);
        return NULL;
    }
    return p.m;
}

void ptx_module_free(ptx_module *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nglobals; i++)
        free(m->globals[i].data);
    free(m->globals);
    for (int i = 0; i < m->nentries; i++) {
        free(m->entries[i].params);
        free(m->entries[i].code);
        free(m->entries[i].calls);
    }
    for (int i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].params);
        free(m->funcs[i].code);
        free(m->funcs[i].calls);
    }
    free(m->funcs);
    free(m->dynamic_shared);
    for (int i = 0; i < m->nfiles; i++)
        free(m->files[i]);
    free(m->files);
    free(m->entries);
    free(m);
}

const ptx_entry *ptx_module_entry(const ptx_module *m, const char *name)
{
    for (int i = 0; i < m->nentries; i++)
        if (strcmp(m->entries[i].name, name) == 0)
            return &m->entries[i];
    return NULL;
}

int ptx_module_entry_count(const ptx_module *m) { return m->nentries; }

const ptx_entry *ptx_module_entry_at(const ptx_module *m, int i)
{
    return i >= 0 && i < m->nentries ? &m->entries[i] : NULL;
}

const char *ptx_entry_name(const ptx_entry *e) { return e->name; }

int ptx_entry_param_count(const ptx_entry *e) { return e->nparams; }

size_t ptx_entry_param_size(const ptx_entry *e, int i)
{
    return i >= 0 && i < e->nparams ? e->params[i].size : 0;
}

size_t ptx_entry_shared_bytes(const ptx_entry *e) { return e->shared_bytes; }

int ptx_module_variable_count(const ptx_module *m) { return m->nglobals; }

uint8_t *ptx_module_variable(const ptx_module *m, int i, size_t *size)
{
    if (i < 0 || i >= m->nglobals)
        return NULL;
    *size = m->globals[i].size;
    return m->globals[i].data;
}

uint8_t *ptx_module_variable_named(const ptx_module *m, const char *name, size_t *size)
{
    for (int i = 0; i < m->nglobals; i++)
        if (strcmp(m->globals[i].name, name) == 0)
            return ptx_module_variable(m, i, size);
    return NULL;
}
