/* What a test printed on stdout, after cr_redirect_stdout() in its set-up. */
#ifndef TILELAB_TEST_CAPTURED_H
#define TILELAB_TEST_CAPTURED_H

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>

static inline char *captured_stdout(void)
{
    fflush(stdout);
    FILE *f = cr_get_redirected_stdout();
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    return text;
}

#endif /* TILELAB_TEST_CAPTURED_H */
