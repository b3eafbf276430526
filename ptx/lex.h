/* Tokens of PTX text, for the parser. */
#ifndef TILELAB_PTX_LEX_H
#define TILELAB_PTX_LEX_H

#include <stddef.h>

typedef enum tok_kind { TK_END = 0, TK_WORD, TK_NUM, TK_STRING, TK_PUNCT } tok_kind;

typedef struct token {
    tok_kind kind;
    char text[256]; /* the token; for TK_PUNCT one character */
    int line;       /* line in the PTX text, for error messages */
} token;

typedef struct lexer {
    const char *p, *end;
    int line;
    token peeked;
    int has_peeked;
} lexer;

void lex_init(lexer *lx, const char *text, size_t len);
/* The next token (TK_END at the end). Comments are skipped. */
token lex_next(lexer *lx);
token lex_peek(lexer *lx);

#endif /* TILELAB_PTX_LEX_H */
