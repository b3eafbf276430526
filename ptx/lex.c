#include "lex.h"

#include <ctype.h>
#include <string.h>

void lex_init(lexer *lx, const char *text, size_t len)
{
    lx->p = text;
    lx->end = text + len;
    lx->line = 1;
    lx->has_peeked = 0;
}

static void skip_space_and_comments(lexer *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '\n') {
            lx->line++;
            lx->p++;
        } else if (isspace((unsigned char)c)) {
            lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
            lx->p += 2;
            while (lx->p + 1 < lx->end && !(lx->p[0] == '*' && lx->p[1] == '/')) {
                if (*lx->p == '\n')
                    lx->line++;
                lx->p++;
            }
            lx->p = lx->p + 2 <= lx->end ? lx->p + 2 : lx->end;
        } else {
            break;
        }
    }
}

/* Word characters: PTX identifiers (letters, digits, _ $ %) and the dots of opcodes and
 * directives (ld.global.f32, %tid.x, .reg). */
static int is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static token scan(lexer *lx)
{
    token t;
    memset(&t, 0, sizeof t);
    skip_space_and_comments(lx);
    t.line = lx->line;
    if (lx->p >= lx->end) {
        t.kind = TK_END;
        return t;
    }
    char c = *lx->p;
    size_t n = 0;
    if (c == '"') {
        t.kind = TK_STRING;
        lx->p++;
        while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
            if (n + 1 < sizeof t.text)
                t.text[n++] = *lx->p;
            lx->p++;
        }
        if (lx->p < lx->end && *lx->p == '"')
            lx->p++;
    } else if (isdigit((unsigned char)c)) {
        t.kind = TK_NUM;
        while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '.')) {
            if (n + 1 < sizeof t.text)
                t.text[n++] = *lx->p;
            lx->p++;
        }
    } else if (is_word_char(c)) {
        t.kind = TK_WORD;
        /* "::" belongs to the word: qualifiers such as .shared::cluster, mbarrier::complete_tx
         * (a single ":" ends a label). */
        while (lx->p < lx->end &&
               (is_word_char(*lx->p) ||
                (*lx->p == ':' && lx->p + 1 < lx->end && lx->p[1] == ':' && n > 0))) {
            int take = *lx->p == ':' ? 2 : 1;
            for (int i = 0; i < take; i++) {
                if (n + 1 < sizeof t.text)
                    t.text[n++] = *lx->p;
                lx->p++;
            }
        }
    } else {
        t.kind = TK_PUNCT;
        t.text[n++] = c;
        lx->p++;
    }
    t.text[n] = '\0';
    return t;
}

token lex_next(lexer *lx)
{
    if (lx->has_peeked) {
        lx->has_peeked = 0;
        return lx->peeked;
    }
    return scan(lx);
}

token lex_peek(lexer *lx)
{
    if (!lx->has_peeked) {
        lx->peeked = scan(lx);
        lx->has_peeked = 1;
    }
    return lx->peeked;
}
