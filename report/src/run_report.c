/* run --report: one self-contained page with every dataset's verdict and, for a wrong or unsafe
 * one, its explanation (explain_html_dataset: the causes, the map, the first wrong elements). */
#include "run_report.h"

#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int run_report_write(const char *path, const run_report_meta *meta, const run_report_entry *e,
                     int n, tl_error *err)
{
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    if (!f)
        return tl_error_set(err, "%s: cannot compose: %s", path, strerror(errno));
    int passed = 0;
    for (int i = 0; i < n; i++)
        passed += e[i].x.verdict == TL_VERDICT_PASS;
    char title[600];
    snprintf(title, sizeof title, "tilelab run: %.500s", meta->source);
    explain_html_begin(f, title);
    fputs("<h1>tilelab run: lab ", f);
    explain_html_text(f, meta->lab);
    fputs("</h1>\n<p>", f);
    explain_html_text(f, meta->source);
    fputs(" on ", f);
    explain_html_text(f, meta->device);
    fprintf(f, ": %d dataset%s, %d passed, %d failed.</p>\n", n, n == 1 ? "" : "s", passed,
            n - passed);
    if (n > 0 && passed == n)
        fputs("<p class=\"pass\">Every dataset passed: each result was within the fp32 error "
              "bound.</p>\n", f);
    else if (n > 0)
        fputs("<p class=\"fail\">A map shows which tiles of P are wrong (hover over a tile for "
              "its rows, columns and count); the table under it, the first wrong "
              "elements.</p>\n", f);
    for (int i = 0; i < n; i++) {
        char what[96];
        snprintf(what, sizeof what, "%d x %d times %d x %d", e[i].size.m, e[i].size.k,
                 e[i].size.k, e[i].size.n);
        explain_html_dataset(f, &e[i].x, e[i].dataset, what, i);
    }
    fputs("</body>\n</html>\n", f);
    bool composed = !ferror(f);
    composed = fclose(f) == 0 && composed;
    int rc = composed ? tl_write_file_atomic(path, page, len, err)
                      : tl_error_set(err, "%s: cannot compose: out of memory", path);
    free(page);
    return rc;
}
