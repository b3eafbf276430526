/* The map of where a saved P is wrong, tile by tile, and its drawing as text. */
#include "explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Shades by the fraction of a cell's elements that are wrong: none, under LIGHT, under DARK,
 * under all, all. */
#define SHADE_LIGHT 0.25
#define SHADE_DARK 0.75
#define SHADES 5
/* Up to this many cells across, each is two characters wide, so that a tile looks about square
 * on a terminal whose characters are twice as tall as wide. */
#define WIDE_CELLS 32

static const char *const shade_glyph[SHADES] = {" ", "\u2591", "\u2592", "\u2593", "\u2588"};
/* ANSI colours: partly wrong in yellow, wholly wrong in red. */
static const char *const shade_colour[SHADES] = {"", "\033[33m", "\033[33m", "\033[33m",
                                                 "\033[31m"};
#define COLOUR_RESET "\033[0m"

/* ---- building ------------------------------------------------------------------------------ */

/* The launch that made P in the result's call: the last one given P, else the last one (lab
 * 01's host code launches on buffers of its own). NULL when none was recorded. */
static const caplog_launch *recorded_launch(const caplog *log, const runner_result *r)
{
    caplog_call_kind kind = r->calls[CAPLOG_CALL_HOST].run ? CAPLOG_CALL_HOST : CAPLOG_CALL_LAUNCH;
    const caplog_call *call = caplog_find_call(log, kind, r->shape.m, r->shape.k, r->shape.n);
    const caplog_launch *last = NULL, *given_p = NULL;
    for (int i = 0; call && i < call->nops; i++) {
        const caplog_launch *l = call->ops[i].launch;
        if (call->ops[i].kind != CAPLOG_LAUNCH || !l)
            continue;
        last = l;
        for (int j = 0; j < l->nrelocs; j++)
            if (l->relocs[j].ref.buf == CAPLOG_BUF_P)
                given_p = l;
    }
    return given_p ? given_p : last;
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* The tile is the launch's block; tiny blocks on a large P are taken several to a tile, so the
 * counts stay small. */
static void set_tiles(explain_map *m, const caplog_launch *launch)
{
    int base_cols = launch ? (int)launch->block[0] : EXPLAIN_MAP_DEFAULT_TILE;
    int base_rows = launch ? (int)launch->block[1] : EXPLAIN_MAP_DEFAULT_TILE;
    m->from_launch = launch != NULL;
    for (m->blocks_per_side = 1;; m->blocks_per_side *= 2) {
        m->tile_cols = base_cols * m->blocks_per_side;
        m->tile_rows = base_rows * m->blocks_per_side;
        m->tiles_across = ceil_div(m->cols, m->tile_cols);
        m->tiles_down = ceil_div(m->rows, m->tile_rows);
        if ((int64_t)m->tiles_across * m->tiles_down <= EXPLAIN_MAP_MAX_TILES)
            return;
    }
}

static void count_wrong(explain_map *m, const tl_product_ref *ref, const tl_matrix *P)
{
    int64_t n = (int64_t)P->rows * P->cols;
    for (int64_t i = 0; i < n; i++) {
        double bound;
        if (tl_product_ref_element_ok(ref, P, i, &bound))
            continue;
        int row = (int)(i / P->cols), col = (int)(i % P->cols);
        int t = (row / m->tile_rows) * m->tiles_across + col / m->tile_cols;
        if (m->bad[t]++ == 0)
            m->wrong_tiles++;
        m->wrong_elements++;
        m->nonfinite += !isfinite(P->data[i]);
        if (m->nfirst < EXPLAIN_MAP_FIRST_N)
            m->first[m->nfirst++] =
                (tl_mismatch){row, col, P->data[i], ref->expected.data[i], bound};
    }
}

int explain_map_build(explain_map *m, const tl_product_ref *ref, const char *result_path,
                      const caplog *log, const runner_result *r, tl_error *err)
{
    memset(m, 0, sizeof *m);
    tl_matrix P = {0, 0, NULL};
    int rc = -1;
    if (tl_matrix_read_result(result_path, &P, err) != 0)
        goto done;
    if (P.rows != ref->expected.rows || P.cols != ref->expected.cols) {
        tl_error_set(err, "%s: P is %d x %d, the product is %d x %d", result_path, P.rows, P.cols,
                     ref->expected.rows, ref->expected.cols);
        goto done;
    }
    m->rows = P.rows;
    m->cols = P.cols;
    set_tiles(m, recorded_launch(log, r));
    m->cell_down = m->cell_across = 1;
    m->cells_down = m->tiles_down;
    m->cells_across = m->tiles_across;
    m->bad = calloc((size_t)m->tiles_across * (size_t)m->tiles_down, sizeof *m->bad);
    if (!m->bad) {
        tl_error_set(err, "out of memory for the map of %s", result_path);
        goto done;
    }
    count_wrong(m, ref, &P);
    rc = 0;
done:
    tl_matrix_free(&P);
    if (rc != 0)
        explain_map_free(m);
    return rc;
}

void explain_map_free(explain_map *m)
{
    free(m->bad);
    m->bad = NULL;
}

/* ---- cells --------------------------------------------------------------------------------- */

explain_map_grid explain_map_fit(const explain_map *m, int max_across, int max_down)
{
    explain_map_grid g;
    g.group_across = m->cell_across * ceil_div(m->cells_across, max_across);
    g.group_down = m->cell_down * ceil_div(m->cells_down, max_down);
    g.cells_across = ceil_div(m->tiles_across, g.group_across);
    g.cells_down = ceil_div(m->tiles_down, g.group_down);
    return g;
}

static int min_int(int a, int b) { return a < b ? a : b; }

/* The grid's groups are whole cells of the map's: a cell of the grid sums the map's cells in it. */
explain_map_cell explain_map_cell_at(const explain_map *m, const explain_map_grid *g, int cy,
                                     int cx)
{
    int ty0 = cy * g->group_down, ty1 = min_int(ty0 + g->group_down, m->tiles_down);
    int tx0 = cx * g->group_across, tx1 = min_int(tx0 + g->group_across, m->tiles_across);
    explain_map_cell c = {ty0 * m->tile_rows, min_int(ty1 * m->tile_rows, m->rows),
                          tx0 * m->tile_cols, min_int(tx1 * m->tile_cols, m->cols), 0, 0};
    c.total = (int64_t)(c.row1 - c.row0) * (c.col1 - c.col0);
    for (int y = ty0 / m->cell_down; y < ceil_div(ty1, m->cell_down); y++)
        for (int x = tx0 / m->cell_across; x < ceil_div(tx1, m->cell_across); x++)
            c.bad += m->bad[y * m->cells_across + x];
    return c;
}

static int shade_of(const explain_map_cell *c)
{
    if (c->bad == 0)
        return 0;
    if (c->bad == c->total)
        return SHADES - 1;
    double f = (double)c->bad / (double)c->total;
    return f < SHADE_LIGHT ? 1 : f < SHADE_DARK ? 2 : 3;
}

/* ---- words --------------------------------------------------------------------------------- */

void explain_map_describe(const explain_map *m, const explain_map_grid *g, char *out, size_t size)
{
    int n = snprintf(out, size, "a tile is %d row%s x %d column%s of P", m->tile_rows,
                     m->tile_rows == 1 ? "" : "s", m->tile_cols, m->tile_cols == 1 ? "" : "s");
    if (n < 0 || (size_t)n >= size)
        return;
    if (!m->from_launch)
        n += snprintf(out + n, size - (size_t)n, " (no kernel launch was recorded)");
    else if (m->blocks_per_side > 1)
        n += snprintf(out + n, size - (size_t)n, ", %d x %d blocks of the launch",
                      m->blocks_per_side, m->blocks_per_side);
    else
        n += snprintf(out + n, size - (size_t)n, ", one block of the launch (blockDim.y x "
                      "blockDim.x)");
    if (g && (g->group_down > 1 || g->group_across > 1) && n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, "; each cell is %d x %d tiles (down x across)",
                 g->group_down, g->group_across);
}

void explain_map_heading(const explain_map *m, char *out, size_t size)
{
    long long tiles = (long long)m->tiles_down * m->tiles_across;
    long long elements = (long long)m->rows * m->cols;
    char nan[64] = "";
    if (m->nonfinite == elements)
        snprintf(nan, sizeof nan, ", every one NaN or Inf");
    else if (m->nonfinite == m->wrong_elements && m->nonfinite > 0)
        snprintf(nan, sizeof nan, ", all NaN or Inf");
    else if (m->nonfinite > 0)
        snprintf(nan, sizeof nan, ", %lld of them NaN or Inf", (long long)m->nonfinite);
    if (m->checked_run)
        snprintf(out, size, "P as the checked run left it: %lld of %lld tiles wrong (%lld of "
                 "%lld elements%s)", (long long)m->wrong_tiles, tiles,
                 (long long)m->wrong_elements, elements, nan);
    else
        snprintf(out, size, "where P is wrong: %lld of %lld tiles (%lld of %lld elements%s)",
                 (long long)m->wrong_tiles, tiles, (long long)m->wrong_elements, elements, nan);
}

/* ---- the terminal -------------------------------------------------------------------------- */

bool explain_colour_wanted(FILE *f)
{
    const char *term = getenv("TERM"), *no_colour = getenv("NO_COLOR");
    return isatty(fileno(f)) && term && term[0] && strcmp(term, "dumb") != 0 &&
           !(no_colour && no_colour[0]);
}

static void put_shade(FILE *f, int shade, int width, bool colour)
{
    if (colour && shade > 0)
        fputs(shade_colour[shade], f);
    for (int i = 0; i < width; i++)
        fputs(shade_glyph[shade], f);
    if (colour && shade > 0)
        fputs(COLOUR_RESET, f);
}

static void put_rule(FILE *f, const char *indent, const char *left, const char *right, int width)
{
    fprintf(f, "%s  %s", indent, left);
    for (int i = 0; i < width; i++)
        fputs("\u2500", f);
    fprintf(f, "%s\n", right);
}

void explain_map_print(FILE *f, const explain_map *m, bool colour, const char *indent)
{
    explain_map_grid g = explain_map_fit(m, EXPLAIN_MAP_TERMINAL_ACROSS, EXPLAIN_MAP_TERMINAL_DOWN);
    int width = g.cells_across <= WIDE_CELLS ? 2 : 1;
    char line[300];
    explain_map_heading(m, line, sizeof line);
    fprintf(f, "%s%s\n", indent, line);
    if (m->nonfinite == (int64_t)m->rows * m->cols)
        return;
    put_rule(f, indent, "\u250c", "\u2510", g.cells_across * width);
    for (int cy = 0; cy < g.cells_down; cy++) {
        fprintf(f, "%s  \u2502", indent);
        for (int cx = 0; cx < g.cells_across; cx++) {
            explain_map_cell c = explain_map_cell_at(m, &g, cy, cx);
            put_shade(f, shade_of(&c), width, colour);
        }
        fputs("\u2502\n", f);
    }
    put_rule(f, indent, "\u2514", "\u2518", g.cells_across * width);
    static const char *const words[SHADES] = {"none wrong", "under 25%", "under 75%",
                                              "under 100%", "all"};
    fprintf(f, "%s  ", indent);
    for (int s = 0; s < SHADES; s++) {
        fputs(s ? "  " : "", f);
        fputc('\'', f);
        put_shade(f, s, 1, colour);
        fprintf(f, "' %s", words[s]);
    }
    fputs("; row 0 at the top\n", f);
    explain_map_describe(m, &g, line, sizeof line);
    fprintf(f, "%s  %s\n", indent, line);
}
