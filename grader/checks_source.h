/* The code of a submission's source as the compiler reads it, for the static checks (inside the
 * grader's checks, not a public header): comments and literals blanked out (checks_code.c), and
 * the preprocessing directives (checks_directives.c). */
#ifndef TILELAB_GRADER_CHECKS_SOURCE_H
#define TILELAB_GRADER_CHECKS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

/* The source without comments and without what is inside string and character literals (the
 * quotes stay, and an #include's header name), line for line: every line keeps its number.
 * NULL when out of memory. */
char *source_code_only(const char *src);

typedef enum source_directive_kind {
    SOURCE_LINE_CONTROL, /* #line, a line marker (# 12 "file"), or a raw string's line reading as one */
    SOURCE_DEFINE,
    SOURCE_UNDEF,
    SOURCE_INCLUDE,      /* #include, #include_next, #import */
    SOURCE_OTHER         /* not reported */
} source_directive_kind;

typedef struct source_directive {
    source_directive_kind kind;
    int line;          /* the physical line of its '#' (of the raw string's line) */
    /* define, undef: the macro's name; include: the header as written, with its <> or "", or
     * "" when a macro names it */
    char name[256];
    bool long_name;    /* the macro's name did not fit */
    bool plain;        /* a #define of an object-like macro whose replacement is nothing or one
                          number: it cannot write code into a header that uses the name */
    bool in_raw_string;
} source_directive;

/* The directives of a source in order, in a malloc'd array (*out, NULL when there are none).
 * Returns how many, or -1 when out of memory. */
int source_directives(const char *src, source_directive **out);

#endif /* TILELAB_GRADER_CHECKS_SOURCE_H */
