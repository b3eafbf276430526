/* Where a result is wrong, tile by tile: each element of a saved P checked with the kit's own
 * fp32 bound (tl_product_ref_element_ok), the wrong ones counted per tile of P. A tile is the
 * part of P one block of the recorded launch writes in the labs' kernels: blockDim.x columns by
 * blockDim.y rows. Drawn on a terminal here, in a page by run_report.c. */
#ifndef TILELAB_CLI_RUN_MAP_H
#define TILELAB_CLI_RUN_MAP_H

#include "runner.h"

#include <stdio.h>

#define RUN_MAP_FIRST_N 20            /* wrong elements kept, in row-major order */
#define RUN_MAP_DEFAULT_TILE 16       /* a tile's side when no launch was recorded */
#define RUN_MAP_MAX_TILES (1 << 20)   /* more (tiny blocks on a large P): tiles of several blocks */
#define RUN_MAP_TERMINAL_ACROSS 64    /* cells of a terminal map, at most */
#define RUN_MAP_TERMINAL_DOWN 32

typedef struct run_map {
    int rows, cols;                   /* P's */
    int tile_rows, tile_cols;         /* elements of P per tile */
    bool from_launch;                 /* the tile is the recorded launch's block */
    int blocks_per_side;              /* > 1: a tile holds that many blocks each way */
    int tiles_down, tiles_across;
    int *bad;                         /* wrong elements per tile, row-major (malloc'd) */
    int64_t wrong_tiles, wrong_elements;
    int64_t nonfinite;                /* of the wrong elements, NaN or Inf (NaN: never written,
                                         or computed from what was) */
    int nfirst;
    tl_mismatch first[RUN_MAP_FIRST_N];
    bool checked_run;                 /* P as the safety checks' run left it (unsafe) */
} run_map;

/* Builds the map of the P saved at `result_path` for the dataset in `dataset_dir`; the tile
 * comes from the launch `log` recorded for the result's call (r: its shape and calls). -1 with
 * err when a file cannot be read or P's shape is not the product's. */
int run_map_build(run_map *m, const char *dataset_dir, const char *result_path, const caplog *log,
                  const runner_result *r, tl_error *err);
void run_map_free(run_map *m);

/* The map in cells of group_down x group_across tiles, as few as make it fit max_down x
 * max_across cells. */
typedef struct run_map_grid {
    int group_down, group_across;
    int cells_down, cells_across;
} run_map_grid;

typedef struct run_map_cell {
    int row0, row1, col0, col1;       /* P's elements [row0, row1) x [col0, col1) */
    int64_t bad, total;
} run_map_cell;

run_map_grid run_map_fit(const run_map *m, int max_across, int max_down);
run_map_cell run_map_cell_at(const run_map *m, const run_map_grid *g, int cy, int cx);

/* "16 rows x 16 columns of P, one block of the launch", and how many tiles a cell holds. */
void run_map_describe(const run_map *m, const run_map_grid *g, char *out, size_t size);
/* The heading: "where P is wrong: 4 of 16 tiles (1020 of 4096 elements, 12 of them NaN)" (or,
 * for an unsafe verdict, "P as the checked run left it: ..."). */
void run_map_heading(const run_map *m, char *out, size_t size);

/* Colour on `f` only for a terminal: f is a tty, TERM is set and not "dumb", NO_COLOR is unset
 * or empty (no-color.org). */
bool run_map_colour_wanted(FILE *f);
/* The map as text, every line starting with `indent`: heading, a framed grid of shades, the
 * legend; only the heading when every element is NaN (a solid map would say nothing more). */
void run_map_print(FILE *f, const run_map *m, bool colour, const char *indent);

#endif /* TILELAB_CLI_RUN_MAP_H */
