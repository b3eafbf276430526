/* Static checks see code only: a name inside a comment or a string literal neither satisfies a
 * required construct nor counts as a forbidden call, whatever tricks the literal plays, and a
 * hit is reported on the line it is on. */
#include <criterion/criterion.h>

#include "grader.h"

#include <stdlib.h>
#include <string.h>

#define FORBIDDEN "no forbidden libraries or calls"
#define USES_SYNC "uses __syncthreads"

static cJSON *g_checks;

static void checks_fini(void)
{
    cJSON_Delete(g_checks);
    g_checks = NULL;
}

/* Runs the checks of a rubric that requires __syncthreads on `source`. */
static void check(const char *source)
{
    rubric r;
    memset(&r, 0, sizeof r);
    snprintf(r.require[0], sizeof r.require[0], "__syncthreads");
    r.nrequire = 1;
    cJSON_Delete(g_checks);
    g_checks = cJSON_CreateArray();
    cr_assert_not_null(g_checks);
    static_checks(source, &r, g_checks);
    cr_assert_eq(cJSON_GetArraySize(g_checks), 2, "one forbidden check and one require expected");
}

static const cJSON *named(const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, g_checks) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return c;
    }
    cr_assert_fail("no check named \"%s\"", name);
    return NULL;
}

static bool passed(const char *name)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(named(name), "ok"));
}

/* The line the forbidden check reports for `what` ("fopen()/open()"), -1 when not reported: the
 * last number before the ')' that follows "what (". */
static int reported_line(const char *what)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(named(FORBIDDEN), "detail");
    cr_assert(cJSON_IsString(d));
    char key[64];
    snprintf(key, sizeof key, "%s (", what);
    const char *at = strstr(d->valuestring, key);
    if (!at)
        return -1;
    const char *close = strchr(at + strlen(key), ')');
    cr_assert_not_null(close, "%s", d->valuestring);
    const char *digits = close;
    while (digits > at && digits[-1] >= '0' && digits[-1] <= '9')
        digits--;
    cr_assert_lt(digits, close, "no line number: %s", d->valuestring);
    return atoi(digits);
}

TestSuite(code_only, .fini = checks_fini);

Test(code_only, a_required_name_counts_in_code_only)
{
    check("__global__ void k() {\n    __syncthreads();\n}\n");
    cr_assert(passed(USES_SYNC));
    cr_assert(passed(FORBIDDEN));
    check("int main() { printf(\"__syncthreads()\\n\"); }\n");
    cr_assert_not(passed(USES_SYNC), "a name inside a string counted as code");
    check("// __syncthreads();\n/* __syncthreads(); */\nint x;\n");
    cr_assert_not(passed(USES_SYNC), "a name inside a comment counted as code");
}

Test(code_only, escaped_quotes_do_not_end_a_string)
{
    check("const char *s = \"a \\\" __syncthreads(); \\\\\\\" b\";\n");
    cr_assert_not(passed(USES_SYNC));
    /* An escaped backslash does end it: what follows is code. */
    check("const char *s = \"a\\\\\"; __syncthreads();\n");
    cr_assert(passed(USES_SYNC));
}

Test(code_only, a_quote_character_literal_does_not_start_a_string)
{
    check("char q = '\"'; __syncthreads(); char r = '\\''; system(\"ls\");\n");
    cr_assert(passed(USES_SYNC));
    cr_assert_eq(reported_line("system()"), 1);
    check("char q = '\"';\nint x = 1;\nchar *p = \"__syncthreads\";\n");
    cr_assert_not(passed(USES_SYNC));
}

Test(code_only, raw_strings_end_only_at_their_delimiter)
{
    /* )" inside R"x(...)x" does not end it; the whole call stays inside the literal. */
    check("auto s = R\"x( )\" __syncthreads(); \" )x\";\nint y;\n");
    cr_assert_not(passed(USES_SYNC), "a raw string ended at )\"");
    /* Every prefix, and code after the literal is code again. */
    static const char *const prefixes[] = {"R", "u8R", "LR", "uR", "UR"};
    for (size_t p = 0; p < 5; p++) {
        char src[200];
        snprintf(src, sizeof src, "auto s = %s\"d(\n \"__syncthreads()\n)d\";\nsystem(\"x\");\n",
                 prefixes[p]);
        check(src);
        cr_assert_not(passed(USES_SYNC), "prefix %s", prefixes[p]);
        cr_assert_eq(reported_line("system()"), 4, "prefix %s", prefixes[p]);
    }
    /* A raw string goes on over newlines, where an ordinary one would stop. */
    check("auto s = R\"(\n__syncthreads();\n)\";\n");
    cr_assert_not(passed(USES_SYNC));
    /* An identifier that merely ends in R is not a raw-string prefix. */
    check("#define FOOR(x) x\nauto s = FOOR\"(\"; __syncthreads(); // )\"\n");
    cr_assert(passed(USES_SYNC));
}

Test(code_only, a_call_with_a_literal_path_is_still_found_on_its_line)
{
    check("/* a comment\n   over two lines */\n"
          "const char *msg = \"fopen(\\\"x\\\") is forbidden\";\n"
          "void f() {\n"
          "    FILE *f = fopen(\"/etc/passwd\", \"r\");\n"
          "}\n");
    cr_assert_not(passed(FORBIDDEN));
    cr_assert_eq(reported_line("fopen()/open()"), 5);
    /* Only in a string, it is not a call. */
    check("const char *msg = \"fopen(\\\"/etc/passwd\\\")\";\n__syncthreads();\n");
    cr_assert(passed(FORBIDDEN), "a call inside a string was flagged");
}

Test(code_only, a_line_comment_goes_on_past_a_backslash_newline)
{
    check("// see below \\\n__syncthreads();\nint x;\n");
    cr_assert_not(passed(USES_SYNC), "the continued comment line counted as code");
    check("// see below \\\r\n__syncthreads();\n");
    cr_assert_not(passed(USES_SYNC), "a CRLF continuation was missed");
    check("// see below \\\nint x;\n__syncthreads();\nsystem(\"ls\");\n");
    cr_assert(passed(USES_SYNC));
    cr_assert_eq(reported_line("system()"), 4);
}

Test(code_only, a_name_split_by_a_line_splice_is_joined_as_the_compiler_joins_it)
{
    check("int x;\nsys\\\ntem(\"rm -rf /\");\nint y;\nfopen(\"f\", \"r\");\n");
    cr_assert_eq(reported_line("system()"), 2);
    cr_assert_eq(reported_line("fopen()/open()"), 5, "lines after a splice lost their numbers");
    check("__sync\\\nthreads();\n");
    cr_assert(passed(USES_SYNC));
    /* A comment opened across a splice is still a comment. */
    check("/\\\n/ __syncthreads();\nint x;\n");
    cr_assert_not(passed(USES_SYNC));
}

Test(code_only, digit_separators_and_stray_quotes_do_not_hide_code)
{
    check("int n = 1'000; __syncthreads();\nsystem(\"x\"); int m = 0x1'F; system(\"y\");\n");
    cr_assert(passed(USES_SYNC), "a digit separator opened a character literal");
    cr_assert_eq(reported_line("system()"), 2);
    /* An unterminated literal ends with its line, as it does for the compiler. */
    check("#if 0\n#error don't\n#endif\nsystem(\"x\"); // '\n");
    cr_assert_eq(reported_line("system()"), 4);
}

Test(code_only, an_included_header_name_is_still_seen)
{
    check("#include \"cublas_v2.h\"\n__syncthreads();\n");
    cr_assert_eq(reported_line("cuBLAS"), 1);
    check("  #  include <thrust/sort.h>\n");
    cr_assert_eq(reported_line("Thrust"), 1);
    /* On any other line a string is a string. */
    check("const char *s = \"cublas_v2.h\";\n");
    cr_assert(passed(FORBIDDEN));
}
