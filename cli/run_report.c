/* run --report: one self-contained page with every dataset's verdict and, for a wrong or unsafe
 * one, its map as an SVG (a rectangle a tile, shaded by the fraction wrong, its range and count
 * in a tooltip) and its first wrong elements. */
#include "run_report.h"

#include "runner_files.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL_PX_MAX 24          /* a map cell's side on the page, at most */
#define CELL_PX_MIN 3
#define MAP_PX_WIDE 640         /* a map's width on the page, at most */

/* Shades from right to all wrong: right is pale green; wrong runs from pale orange (a few
 * elements) to deep red (all). */
static const int colour_right[3] = {0xe3, 0xef, 0xe3};
static const int colour_few[3] = {0xff, 0xe0, 0xb2};
static const int colour_all[3] = {0xb7, 0x1c, 0x1c};

static const char style[] =
    "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:62em;padding:0 1em;"
    "color:#222}\n"
    "h2{border-top:1px solid #ccc;padding-top:.6em}\n"
    ".pass{color:#1b5e20}.fail{color:#b71c1c}\n"
    "table{border-collapse:collapse;margin:.6em 0}\n"
    "td,th{border:1px solid #ccc;padding:.15em .5em;text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    "caption{text-align:left;padding:.3em 0}\n"
    ".key i{display:inline-block;width:.9em;height:.9em;border:1px solid #999;"
    "vertical-align:middle;margin:0 .3em 0 .8em}\n"
    "figure{margin:.6em 0}\n";

/* Text from a dataset's folder name, a submission's file name or the replay's detail: made
 * inert (one line, valid UTF-8), then escaped for HTML. */
static void put_text(FILE *f, const char *s)
{
    char *inert = tl_text_line(s, strlen(s));
    tl_html_write(f, inert);
    free(inert);
}

static void put_shade(FILE *f, double wrong)
{
    const int *from = wrong > 0 ? colour_few : colour_right;
    int rgb[3];
    for (int i = 0; i < 3; i++)
        rgb[i] = (int)lround(from[i] + (colour_all[i] - from[i]) * wrong);
    fprintf(f, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void put_map(FILE *f, const run_map *m)
{
    run_map_grid g = run_map_fit(m, RUN_REPORT_MAX_CELLS, RUN_REPORT_MAX_CELLS);
    int px = MAP_PX_WIDE / g.cells_across;
    px = px > CELL_PX_MAX ? CELL_PX_MAX : px < CELL_PX_MIN ? CELL_PX_MIN : px;
    char line[300];
    run_map_heading(m, line, sizeof line);
    fprintf(f, "<p>%s; ", line);
    run_map_describe(m, &g, line, sizeof line);
    fprintf(f, "%s. Row 0 is at the top.</p>\n<figure>\n", line);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
            g.cells_across * px, g.cells_down * px, g.cells_across * px, g.cells_down * px,
            m->checked_run ? "P as the checked run left it" : "where P is wrong");
    for (int cy = 0; cy < g.cells_down; cy++)
        for (int cx = 0; cx < g.cells_across; cx++) {
            run_map_cell c = run_map_cell_at(m, &g, cy, cx);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"", cx * px,
                    cy * px, px, px);
            put_shade(f, (double)c.bad / (double)c.total);
            fprintf(f, "\" stroke=\"#fff\" stroke-width=\"%s\"><title>rows %d-%d, columns %d-%d: "
                       "%lld of %lld wrong</title></rect>\n", px >= 8 ? "1" : "0", c.row0,
                    c.row1 - 1, c.col0, c.col1 - 1, (long long)c.bad, (long long)c.total);
        }
    fputs("</svg>\n<figcaption class=\"key\">wrong in a tile:", f);
    static const double key[] = {0, 0.01, 0.5, 1};
    static const char *const words[] = {"none", "a few", "half", "all"};
    for (size_t i = 0; i < sizeof key / sizeof key[0]; i++) {
        fputs("<i style=\"background:", f);
        put_shade(f, key[i]);
        fprintf(f, "\"></i>%s", words[i]);
    }
    fputs("</figcaption>\n</figure>\n", f);
}

/* NaN (an element never written holds the NaN fill) and Inf by name, other values in full. */
static const char *number(char out[40], double v, int digits)
{
    if (isnan(v))
        return "NaN";
    if (isinf(v))
        return v < 0 ? "-Inf" : "Inf";
    snprintf(out, 40, "%.*g", digits, v);
    return out;
}

static void put_first(FILE *f, const run_map *m)
{
    fprintf(f, "<table><caption>The first %d wrong element%s, in row-major order (of %lld)"
               "</caption>\n<tr><th>row</th><th>col</th><th>got</th><th>expected</th>"
               "<th>|got - expected|</th><th>bound</th></tr>\n", m->nfirst,
            m->nfirst == 1 ? "" : "s", (long long)m->wrong_elements);
    for (int i = 0; i < m->nfirst; i++) {
        const tl_mismatch *x = &m->first[i];
        char got[40], expected[40], diff[40], bound[40];
        fprintf(f, "<tr><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                   "</tr>\n", x->row, x->col, number(got, x->got, 9),
                number(expected, x->expected, 9),
                number(diff, fabs((double)x->got - (double)x->expected), 3),
                number(bound, x->bound, 3));
    }
    fputs("</table>\n", f);
}

static void put_entry(FILE *f, const run_report_entry *e, int index)
{
    bool pass = e->verdict == TL_VERDICT_PASS;
    fprintf(f, "<section id=\"dataset-%d\">\n<h2>", index);
    put_text(f, e->dataset);
    fprintf(f, "</h2>\n<p>%d x %d times %d x %d: <strong class=\"%s\">%s</strong>", e->size.m,
            e->size.k, e->size.k, e->size.n, pass ? "pass" : "fail", tl_verdict_name(e->verdict));
    if (pass) {
        fputs(", every result within the fp32 error bound", f);
    } else if (e->detail[0]) {
        fputs(": ", f);
        put_text(f, e->detail);
    }
    fputs("</p>\n", f);
    if (e->hint[0]) {
        fputs("<p>hint: ", f);
        put_text(f, e->hint);
        fputs("</p>\n", f);
    }
    if (e->has_map) {
        put_map(f, &e->map);
        put_first(f, &e->map);
    } else if (e->note[0]) {
        fputs("<p>", f);
        put_text(f, e->note);
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}

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
        passed += e[i].verdict == TL_VERDICT_PASS;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>tilelab run: ", f);
    put_text(f, meta->source);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>tilelab run: lab ", style);
    put_text(f, meta->lab);
    fputs("</h1>\n<p>", f);
    put_text(f, meta->source);
    fputs(" on ", f);
    put_text(f, meta->device);
    fprintf(f, ": %d dataset%s, %d passed, %d failed.</p>\n", n, n == 1 ? "" : "s", passed,
            n - passed);
    if (n > 0 && passed == n)
        fputs("<p class=\"pass\">Every dataset passed: each result was within the fp32 error "
              "bound.</p>\n", f);
    else if (n > 0)
        fputs("<p class=\"fail\">A map shows which tiles of P are wrong (hover over a tile for "
              "its rows, columns and count); the table under it, the first wrong "
              "elements.</p>\n", f);
    for (int i = 0; i < n; i++)
        put_entry(f, &e[i], i);
    fputs("</body>\n</html>\n", f);
    bool composed = !ferror(f);
    composed = fclose(f) == 0 && composed;
    int rc = composed ? tl_write_file_atomic(path, page, len, err)
                      : tl_error_set(err, "%s: cannot compose: out of memory", path);
    free(page);
    return rc;
}
