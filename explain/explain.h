/* explain: why a dataset failed, in the words a student acts on, the same wherever it is shown.
 * The one public header of explain/.
 *
 *   map          where a saved P is wrong, tile by tile: each element checked with the kit's own
 *                fp32 bound (tl_product_ref_element_ok), the wrong ones counted per tile of P,
 *                a tile being the part of P one block of the recorded launch writes in the labs'
 *                kernels (blockDim.x columns by blockDim.y rows);
 *   explanation  a dataset's verdict and detail, its worst element, a hint, the causes the safety
 *                checks found (kind, both lines, what is missing) and the map: made from a
 *                runner_result, kept as JSON (the grader's journal), shown as text (run's
 *                terminal, the grader's feedback and results.json) or as HTML (run --report, the
 *                grader's student pages).
 * What a student is shown is decided here once; run and the grader only call it. The P a map is
 * drawn from is one the runner saved from the replay that gave the verdict, never anything the
 * student's code wrote. Strings that may come from a submission (a file name in a line marker, a
 * detail) are made inert wherever they are shown: one line of text, escaped in HTML. */
#ifndef TILELAB_EXPLAIN_H
#define TILELAB_EXPLAIN_H

#include "runner.h"

#include <cjson/cJSON.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the map ------------------------------------------------------------------------------- */
#define EXPLAIN_MAP_FIRST_N 20           /* wrong elements kept, in row-major order */
#define EXPLAIN_MAP_DEFAULT_TILE 16      /* a tile's side when no launch was recorded */
#define EXPLAIN_MAP_MAX_TILES (1 << 20)  /* more (tiny blocks on a large P): tiles of several blocks */
#define EXPLAIN_MAP_TERMINAL_ACROSS 64   /* cells of a text map, at most */
#define EXPLAIN_MAP_TERMINAL_DOWN 32
#define EXPLAIN_MAP_PAGE_CELLS 128       /* cells of a page's map each way, at most */

typedef struct explain_map {
    int rows, cols;                   /* P's */
    int tile_rows, tile_cols;         /* elements of P per tile */
    bool from_launch;                 /* the tile is the recorded launch's block */
    int blocks_per_side;              /* > 1: a tile holds that many blocks each way */
    int tiles_down, tiles_across;
    /* The counts are kept per cell of cell_down x cell_across tiles: 1 x 1 as built, more in a
     * map read back from JSON (explain_json keeps the cells a text map draws). */
    int cell_down, cell_across;
    int cells_down, cells_across;
    int *bad;                         /* wrong elements per cell, row-major (malloc'd) */
    int64_t wrong_tiles, wrong_elements;
    int64_t nonfinite;                /* of the wrong elements, NaN or Inf (NaN: never written,
                                         or computed from what was) */
    int nfirst;
    tl_mismatch first[EXPLAIN_MAP_FIRST_N];
    bool checked_run;                 /* P as the safety checks' run left it (unsafe) */
} explain_map;

/* Builds the map of the P saved at `result_path` against the dataset's reference product `ref`
 * (runner_loaded's: its expected values and bounds, computed once); the tile comes from the
 * launch `log` recorded for the result's call (r: its shape and calls). -1 with err when P
 * cannot be read or its shape is not the product's. */
int explain_map_build(explain_map *m, const tl_product_ref *ref, const char *result_path,
                      const caplog *log, const runner_result *r, tl_error *err);
void explain_map_free(explain_map *m);

/* The map in cells of group_down x group_across tiles (multiples of the map's own cells), as few
 * as make it fit max_down x max_across cells. */
typedef struct explain_map_grid {
    int group_down, group_across;
    int cells_down, cells_across;
} explain_map_grid;

typedef struct explain_map_cell {
    int row0, row1, col0, col1;       /* P's elements [row0, row1) x [col0, col1) */
    int64_t bad, total;
} explain_map_cell;

explain_map_grid explain_map_fit(const explain_map *m, int max_across, int max_down);
explain_map_cell explain_map_cell_at(const explain_map *m, const explain_map_grid *g, int cy,
                                     int cx);

/* "a tile is 16 rows x 16 columns of P, one block of the launch", and how many tiles a cell
 * holds. */
void explain_map_describe(const explain_map *m, const explain_map_grid *g, char *out, size_t size);
/* The heading: "where P is wrong: 4 of 16 tiles (1020 of 4096 elements, 12 of them NaN)" (or,
 * for an unsafe verdict, "P as the checked run left it: ..."). */
void explain_map_heading(const explain_map *m, char *out, size_t size);

/* Colour on `f` only for a terminal: f is a tty, TERM is set and not "dumb", NO_COLOR is unset
 * or empty (no-color.org). */
bool explain_colour_wanted(FILE *f);
/* The map as text, every line starting with `indent`: heading, a framed grid of shades of at
 * most EXPLAIN_MAP_TERMINAL_ACROSS x _DOWN cells, the legend; only the heading when every
 * element is NaN (a solid map would say nothing more). */
void explain_map_print(FILE *f, const explain_map *m, bool colour, const char *indent);

/* ---- a dataset's explanation --------------------------------------------------------------- */
#define EXPLAIN_MAX_CAUSES 3  /* the checks' first findings shown, most severe first */
/* Follows a finding of lab 05's given baseline kernel (the harness launches it too), so that a
 * student does not take it for a fault of their own kernel. */
#define EXPLAIN_BASELINE_LABEL " (the given baseline kernel)"

typedef struct explain_cause {
    char kind[64];            /* "shared-memory race", "out-of-bounds global access", ... */
    char file[256];           /* the source file's own name */
    int line, line2;          /* line2: the other access of a race, 0 when none */
    char detail[700];         /* what happened and what is missing */
    bool baseline;
} explain_cause;

typedef struct explanation {
    tl_verdict verdict;
    char detail[768];
    bool has_worst;           /* a wrong result's element furthest over its bound */
    tl_mismatch worst;
    char hint[640];           /* empty: none */
    int ncauses, findings;    /* causes kept of the checks' findings */
    explain_cause causes[EXPLAIN_MAX_CAUSES];
    bool has_map;
    explain_map map;
    char note[300];           /* a wrong or unsafe result without a map: why */
} explanation;

/* A result's explanation: verdict, detail, worst element, hint, and the causes in `diagnosis`
 * (the interpreter's findings as diagnose's JSON; NULL: the result's own, r->diagnosis). No map
 * yet. */
void explain_result(explanation *x, const runner_result *r, const char *diagnosis);
/* The map of a wrong or unsafe result from the P saved at `saved` by the replay that gave the
 * verdict (NULL: it saved none), or the note that says why there is none. Nothing for other
 * verdicts. */
void explain_add_map(explanation *x, const tl_product_ref *ref, const char *saved, const caplog *log,
                     const runner_result *r);
void explain_free(explanation *x);
/* Two unsafe verdicts name the same finding: the same kind at the same lines ("shared-memory
 * race at f.cu:22 and line 25"), whichever block and thread showed it first. */
bool explain_same_finding(const char *detail_a, const char *detail_b);

/* As JSON, for the grader's journal: {"worst", "hint", "causes", "findings", "map" (the cells a
 * text map draws), "first", "map_note"}, each only when there is one; verdict and detail stay
 * with the dataset's entry. NULL when memory runs out. */
cJSON *explain_json(const explanation *x);
/* Read back (verdict and detail given; `o` may be NULL): any field missing or malformed is left
 * out, a map that does not add up is dropped. */
void explain_from_json(explanation *x, tl_verdict verdict, const char *detail, const cJSON *o);

/* ---- what a student is shown --------------------------------------------------------------- */
/* A dataset's words for a student, the grader's test output and feedback: "VERDICT: " and, for
 * a dataset the student has (not hidden), everything explain_print shows; for a hidden one the
 * verdict and detail only, never its worst element, causes or map: those would show the secret
 * dataset's values and where they trip the kernel. Malloc'd; NULL when memory runs out. */
char *explain_student_text(const explanation *x, bool hidden);

/* ---- as text ------------------------------------------------------------------------------- */
/* "DETAIL; worst at (row R, col C): got G, expected E", then "hint: HINT" on a line of its own. */
void explain_print_detail(FILE *f, const explanation *x, const char *indent);
/* The map, or in parentheses why there is none. */
void explain_print_map(FILE *f, const explanation *x, bool colour, const char *indent);
/* A cause in words: "KIND at FILE:LINE and line LINE2: DETAIL" (not yet made inert). */
void explain_cause_text(const explain_cause *c, char *out, size_t size);
/* "cause: " and its words, one line per cause kept, then how many more the checks found. */
void explain_print_causes(FILE *f, const explanation *x, const char *indent);
/* Everything, in run's order: the detail and hint, the map, the causes. */
void explain_print(FILE *f, const explanation *x, bool colour, const char *indent);

/* ---- as HTML ------------------------------------------------------------------------------- */
/* The style sheet the pages share (inside <style>). */
extern const char explain_html_style[];
/* Text from a dataset's folder name, a submission's file name or a detail: made inert (one line,
 * valid UTF-8), then escaped. */
void explain_html_text(FILE *f, const char *s);
/* A page's start, up to and with <body>: its title (escaped) and the shared style. */
void explain_html_begin(FILE *f, const char *title);
/* One dataset's section (id "dataset-INDEX"): its name, `what` (its size in words), the verdict
 * and detail, the worst element, the hint, the causes, and the map as an SVG (a rectangle a
 * cell, its rows, columns and count in a tooltip) with the first wrong elements under it. */
void explain_html_dataset(FILE *f, const explanation *x, const char *name, const char *what,
                          int index);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_EXPLAIN_H */
