/* The submission's own preprocessed code: the lines the preprocessor's own markers give to the
 * submission's files, each stretch behind a marker, and nothing a macro or a header wrote. */
#include <criterion/criterion.h>

#include "runner.h"
#include "runner_own_code.h"

#include <stdlib.h>
#include <string.h>

static char *copy(const char *ii, const char *inside, int *rc)
{
    FILE *in = fmemopen((void *)ii, strlen(ii), "r");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert(in && out);
    *rc = own_code_copy(in, inside, out);
    fclose(in);
    fclose(out);
    return text;
}

Test(own_code, the_submissions_lines_with_their_names_and_numbers)
{
    static const char ii[] =
        "# 0 \"template.cu\"\n# 0 \"<built-in>\"\nbuilt_in();\n# 1 \"template.cu\"\n"
        "\n# 1 \"/opt/cuda/include/cuda_pipeline.h\" 1 3\n"
        "asm volatile (\"cp.async.wait_all;\");\n"
        "# 3 \"template.cu\" 2\n__global__ void k() {\n"
        /* what a macro wrote that reads as a marker: the preprocessor puts a blank before it */
        " # 190 \"/opt/cuda/include/cuda_pipeline_helpers.h\"\n  asm(\"trap;\");\n}\n"
        "# 1 \"/submission/sub/k\\\"q.h\" 1\nint in_a_header;\n# 6 \"template.cu\" 2\nint last;\n";
    int rc = -1;
    char *own = copy(ii, "/submission/", &rc);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(own, "# 1 \"template.cu\"\n\n# 3 \"template.cu\"\n__global__ void k() {\n"
                          " # 190 \"/opt/cuda/include/cuda_pipeline_helpers.h\"\n  asm(\"trap;\");\n}\n"
                          "# 1 \"sub/k\\\"q.h\"\nint in_a_header;\n# 6 \"template.cu\"\nint last;\n");
    free(own);
}

Test(own_code, markers_read_back)
{
    long line = 0;
    char name[64];
    cr_assert(runner_line_marker("# 12 \"sub/k\\\"q.h\" 1 3", &line, name, sizeof name));
    cr_assert_eq(line, 12);
    cr_assert_str_eq(name, "sub/k\"q.h");
    cr_assert(runner_line_marker("# 7 \"a\\033b\"", &line, name, sizeof name));
    cr_assert_str_eq(name, "a\033b");
    cr_assert(!runner_line_marker(" # 12 \"x\"", &line, name, sizeof name), "a macro's, not a marker");
    cr_assert(!runner_line_marker("#line 12 \"x\"", &line, name, sizeof name));
    cr_assert(!runner_line_marker("# 12 \"unterminated", &line, name, sizeof name));
}

Test(own_code, too_much_is_not_kept)
{
    size_t n = RUNNER_OWN_CODE_MAX_BYTES + 100;
    char *ii = malloc(n + 32);
    cr_assert_not_null(ii);
    int at = sprintf(ii, "# 1 \"template.cu\"\n");
    memset(ii + at, 'x', n);
    strcpy(ii + at + n - 1, "\n");
    int rc = 0;
    free(copy(ii, "/submission/", &rc));
    cr_assert_eq(rc, 1);
    free(ii);
}
