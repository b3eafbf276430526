/* run's error map: tiles grouped into cells when P has too many to draw, shades by the fraction
 * wrong, colour only when asked for. */
#include "run_map.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* A 100 x 1040 P in 16 x 16 tiles: 7 down, 65 across (one more than a terminal map draws). */
static run_map wide_map(void)
{
    run_map m;
    memset(&m, 0, sizeof m);
    m.rows = 100;
    m.cols = 1040;
    m.tile_rows = m.tile_cols = 16;
    m.from_launch = true;
    m.blocks_per_side = 1;
    m.tiles_down = 7;
    m.tiles_across = 65;
    m.bad = calloc(7 * 65, sizeof *m.bad);
    cr_assert_not_null(m.bad);
    return m;
}

static char *printed(const run_map *m, bool colour)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    run_map_print(f, m, colour, "");
    cr_assert_eq(fclose(f), 0);
    return text;
}

Test(run_map, groups_tiles_when_p_has_too_many_across)
{
    run_map m = wide_map();
    run_map_grid g = run_map_fit(&m, RUN_MAP_TERMINAL_ACROSS, RUN_MAP_TERMINAL_DOWN);
    cr_expect_eq(g.group_across, 2);
    cr_expect_eq(g.cells_across, 33);
    cr_expect_eq(g.group_down, 1);
    cr_expect_eq(g.cells_down, 7);
    /* The last cell holds the 65th tile alone; the last row of tiles is 4 rows of P. */
    m.bad[6 * 65 + 64] = 64;
    run_map_cell c = run_map_cell_at(&m, &g, 6, 32);
    cr_expect_eq(c.row0, 96);
    cr_expect_eq(c.row1, 100);
    cr_expect_eq(c.col0, 1024);
    cr_expect_eq(c.col1, 1040);
    cr_expect_eq(c.total, 64);
    cr_expect_eq(c.bad, 64);
    char *text = printed(&m, false);
    cr_expect(strstr(text, "each cell is 1 x 2 tiles (down x across)") != NULL, "%s", text);
    /* 33 cells of one character: the last row's last cell is all wrong, the rest right. */
    char want[256] = "\u2502";
    for (int i = 0; i < 32; i++)
        strcat(want, " ");
    strcat(want, "\u2588\u2502\n");
    cr_expect(strstr(text, want) != NULL, "%s", text);
    free(text);
    run_map_free(&m);
}

Test(run_map, shades_by_the_fraction_wrong)
{
    run_map m = wide_map();
    int counts[] = {0, 1, 128, 255, 256};
    for (int i = 0; i < 5; i++)
        m.bad[i] = counts[i];
    m.wrong_tiles = 4;
    m.wrong_elements = 1 + 128 + 255 + 256;
    run_map_grid g = run_map_fit(&m, 65, 32);
    cr_assert_eq(g.group_across, 1);
    char *text = printed(&m, false);
    /* 65 cells is over 32, so one character each: none, under 25%, under 75%, under 100%,
     * all. */
    cr_expect(strstr(text, "where P is wrong: 4 of 455 tiles (640 of 104000 elements)") != NULL,
              "%s", text);
    free(text);
    m.tiles_across = 5; /* now drawn whole, two characters a tile */
    m.cols = 80;
    text = printed(&m, false);
    cr_expect(strstr(text, "\u2502  \u2591\u2591\u2592\u2592\u2593\u2593\u2588\u2588\u2502") !=
                  NULL, "%s", text);
    cr_expect(strstr(text, "each cell") == NULL, "one tile a cell: no grouping said: %s", text);
    cr_expect(strchr(text, '\033') == NULL, "no colour was asked for: %s", text);
    free(text);
    text = printed(&m, true);
    cr_expect(strstr(text, "\033[31m\u2588\u2588\033[0m") != NULL, "%s", text);
    free(text);
    run_map_free(&m);
}

Test(run_map, the_checked_run_is_named)
{
    run_map m = wide_map();
    m.checked_run = true;
    char line[300];
    run_map_heading(&m, line, sizeof line);
    cr_expect(strncmp(line, "P as the checked run left it: 0 of 455 tiles wrong", 50) == 0, "%s",
              line);
    run_map_free(&m);
}

Test(run_map, no_colour_off_a_terminal)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    setenv("TERM", "xterm-256color", 1);
    unsetenv("NO_COLOR");
    cr_expect(!run_map_colour_wanted(f));
    fclose(f);
}

/* NaN counts in the heading; a P that is NaN everywhere gets the heading alone. */
Test(run_map, says_how_many_are_nan)
{
    run_map m = wide_map();
    m.bad[0] = 10;
    m.wrong_tiles = 1;
    m.wrong_elements = 10;
    m.nonfinite = 4;
    char line[300];
    run_map_heading(&m, line, sizeof line);
    cr_expect(strstr(line, "(10 of 104000 elements, 4 of them NaN or Inf)") != NULL, "%s", line);
    m.nonfinite = 10;
    run_map_heading(&m, line, sizeof line);
    cr_expect(strstr(line, "(10 of 104000 elements, all NaN or Inf)") != NULL, "%s", line);
    char *text = printed(&m, false);
    cr_expect(strstr(text, "\u250c") != NULL, "a map is drawn: %s", text);
    free(text);
    m.wrong_elements = m.nonfinite = 104000;
    text = printed(&m, false);
    cr_expect(strstr(text, "every one NaN or Inf)\n") != NULL, "%s", text);
    cr_expect(strstr(text, "\u250c") == NULL, "no map under a P of NaN alone: %s", text);
    free(text);
    run_map_free(&m);
}
