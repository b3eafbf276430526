/* The parser's state and the pieces shared by the parsing of bodies (parse.c) and of module
 * scope: entries, device functions, module variables (module.c). */
#ifndef TILELAB_PTX_PARSE_H
#define TILELAB_PTX_PARSE_H

#include "internal.h"
#include "lex.h"

/* A name the body can refer to: a register (slot), a shared or local variable (address), a
 * parameter (param offset) or a label (instruction index, resolved at the end). */
/* SYM_CALLPARAM: a .param declared inside a call sequence, kept in the thread's local memory.
 * SYM_GLOBAL: a module variable, whose value is its host address. */
typedef enum sym_kind {
    SYM_REG, SYM_SHARED, SYM_LOCAL, SYM_PARAM, SYM_LABEL, SYM_CALLPARAM, SYM_GLOBAL
} sym_kind;

typedef struct symbol {
    char name[128];
    sym_kind kind;
    int64_t value;
    int scope;
    int type; /* a register's ptx_type */
} symbol;

typedef struct fixup {
    int insn;
    char label[128];
    int line;
} fixup;

typedef struct parser {
    lexer lx;
    const char *name;
    ptx_error *err;
    ptx_module *m;
    ptx_entry *e;
    symbol *syms;
    int nsyms, capsyms, scope;
    fixup *fixups;
    int nfixups, capfixups;
    int capcode;
    int cur_file, cur_line;
    sym_kind last_address_kind; /* what the last address operand's symbol was */
    bool skip_insn;             /* an operand deferred the instruction: drop it */
    bool last_operand_pred;     /* the last operand read was a predicate register */
} parser;

/* What a module may declare: far above what nvcc writes for any kernel, low enough that no
 * count can overflow a size or exhaust memory. */
#define PARSE_MAX_COUNT (1 << 30)
#define PARSE_MAX_REGISTERS 65536
#define PARSE_MAX_VARIABLE_BYTES (1 << 20)

/* ".align A .TYPE NAME" or ".align A .TYPE NAME[COUNT]", the shape shared by variable,
 * parameter and module declarations. */
typedef struct declaration {
    int64_t align, count;
    int type;
    token name;
} declaration;

int ptx_parse_fail(parser *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Copies a name, cutting it to fit: PTX names are far shorter than any buffer here. */
void ptx_parse_copy_name(char *dst, size_t size, const char *src);
int ptx_parse_add_symbol(parser *p, const char *name, sym_kind kind, int64_t value);
int ptx_parse_expect(parser *p, const char *what);
void ptx_parse_skip_braced(parser *p);
int ptx_parse_int(parser *p, token t, int64_t *out);
int ptx_parse_number(parser *p, token t, bool negative, int64_t *out);
/* Optional ".align N"; returns the alignment (1 when absent). */
int ptx_parse_align(parser *p, int64_t *align);
int ptx_parse_declaration(parser *p, declaration *d);
/* A variable's declaration up to its ";" (a function's parameters have none). */
int ptx_parse_var_decl_unterminated(parser *p, sym_kind kind);
/* "(.param .u64 a, ...)": an entry's parameters. */
int ptx_parse_params(parser *p);
/* "{ ... }": declarations, labels and instructions, up to the closing brace. */
int ptx_parse_body(parser *p);

#endif /* TILELAB_PTX_PARSE_H */
