/* A dataset's explanation as HTML: its section of run --report's page and of a student's page
 * of the grader, the map as an SVG (a rectangle a cell, shaded by the fraction wrong, its range
 * and count in a tooltip) and its first wrong elements. */
#include "explain.h"

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

const char explain_html_style[] =
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

void explain_html_text(FILE *f, const char *s)
{
    char *inert = tl_text_line(s, strlen(s));
    tl_html_write(f, inert ? inert : "");
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

static void put_map(FILE *f, const explain_map *m)
{
    explain_map_grid g = explain_map_fit(m, EXPLAIN_MAP_PAGE_CELLS, EXPLAIN_MAP_PAGE_CELLS);
    int px = MAP_PX_WIDE / g.cells_across;
    px = px > CELL_PX_MAX ? CELL_PX_MAX : px < CELL_PX_MIN ? CELL_PX_MIN : px;
    char line[300];
    explain_map_heading(m, line, sizeof line);
    fprintf(f, "<p>%s; ", line);
    explain_map_describe(m, &g, line, sizeof line);
    fprintf(f, "%s. Row 0 is at the top.</p>\n<figure>\n", line);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
            g.cells_across * px, g.cells_down * px, g.cells_across * px, g.cells_down * px,
            m->checked_run ? "P as the checked run left it" : "where P is wrong");
    for (int cy = 0; cy < g.cells_down; cy++)
        for (int cx = 0; cx < g.cells_across; cx++) {
            explain_map_cell c = explain_map_cell_at(m, &g, cy, cx);
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

static void put_first(FILE *f, const explain_map *m)
{
    if (m->nfirst == 0)
        return;
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
                number(diff, fabs(x->got - x->expected), 3), number(bound, x->bound, 3));
    }
    fputs("</table>\n", f);
}

static void put_causes(FILE *f, const explanation *x)
{
    if (x->ncauses == 0)
        return;
    char line[sizeof x->causes[0].detail + 400];
    fputs("<ul class=\"causes\">\n", f);
    for (int i = 0; i < x->ncauses; i++) {
        explain_cause_text(&x->causes[i], line, sizeof line);
        fputs("<li>cause: ", f);
        explain_html_text(f, line);
        fputs("</li>\n", f);
    }
    if (x->findings > x->ncauses)
        fprintf(f, "<li>(%d more finding%s)</li>\n", x->findings - x->ncauses,
                x->findings - x->ncauses == 1 ? "" : "s");
    fputs("</ul>\n", f);
}

void explain_html_dataset(FILE *f, const explanation *x, const char *name, const char *what,
                          int index)
{
    bool pass = x->verdict == TL_VERDICT_PASS;
    fprintf(f, "<section id=\"dataset-%d\">\n<h2>", index);
    explain_html_text(f, name);
    fputs("</h2>\n<p>", f);
    explain_html_text(f, what);
    fprintf(f, ": <strong class=\"%s\">%s</strong>", pass ? "pass" : "fail",
            tl_verdict_name(x->verdict));
    if (pass) {
        fputs(", every result within the fp32 error bound", f);
    } else if (x->detail[0]) {
        fputs(": ", f);
        explain_html_text(f, x->detail);
    }
    if (x->has_worst) {
        char got[40], expected[40];
        fprintf(f, "; worst at (row %d, col %d): got %s, expected %s", x->worst.row,
                x->worst.col, number(got, x->worst.got, 9), number(expected, x->worst.expected, 9));
    }
    fputs("</p>\n", f);
    if (x->hint[0]) {
        fputs("<p>hint: ", f);
        explain_html_text(f, x->hint);
        fputs("</p>\n", f);
    }
    put_causes(f, x);
    if (x->has_map) {
        put_map(f, &x->map);
        put_first(f, &x->map);
    } else if (x->note[0]) {
        fputs("<p>", f);
        explain_html_text(f, x->note);
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}

void explain_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>", f);
    explain_html_text(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", explain_html_style);
}
