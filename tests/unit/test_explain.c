/* explain: the error map built from a saved result with the launch's block as the tile, tiles
 * grouped into cells when P has too many to draw, shades by the fraction wrong, colour only when
 * asked for; an explanation's causes and map kept as JSON and read back; run's report page
 * escapes what it is given and draws a map per wrong dataset. */
#include "explain.h"
#include "report.h"
#include "util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A 100 x 1040 P in 16 x 16 tiles: 7 down, 65 across (one more than a terminal map draws). */
static explain_map wide_map(void)
{
    explain_map m;
    memset(&m, 0, sizeof m);
    m.rows = 100;
    m.cols = 1040;
    m.tile_rows = m.tile_cols = 16;
    m.from_launch = true;
    m.blocks_per_side = 1;
    m.tiles_down = 7;
    m.tiles_across = 65;
    m.cell_down = m.cell_across = 1;
    m.cells_down = 7;
    m.cells_across = 65;
    m.bad = calloc(7 * 65, sizeof *m.bad);
    cr_assert_not_null(m.bad);
    return m;
}

static char *printed(const explain_map *m, bool colour)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    explain_map_print(f, m, colour, "");
    cr_assert_eq(fclose(f), 0);
    return text;
}

Test(explain_map, groups_tiles_when_p_has_too_many_across)
{
    explain_map m = wide_map();
    explain_map_grid g = explain_map_fit(&m, EXPLAIN_MAP_TERMINAL_ACROSS, EXPLAIN_MAP_TERMINAL_DOWN);
    cr_expect_eq(g.group_across, 2);
    cr_expect_eq(g.cells_across, 33);
    cr_expect_eq(g.group_down, 1);
    cr_expect_eq(g.cells_down, 7);
    /* The last cell holds the 65th tile alone; the last row of tiles is 4 rows of P. */
    m.bad[6 * 65 + 64] = 64;
    explain_map_cell c = explain_map_cell_at(&m, &g, 6, 32);
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
    explain_map_free(&m);
}

Test(explain_map, shades_by_the_fraction_wrong)
{
    explain_map m = wide_map();
    int counts[] = {0, 1, 128, 255, 256};
    for (int i = 0; i < 5; i++)
        m.bad[i] = counts[i];
    m.wrong_tiles = 4;
    m.wrong_elements = 1 + 128 + 255 + 256;
    explain_map_grid g = explain_map_fit(&m, 65, 32);
    cr_assert_eq(g.group_across, 1);
    char *text = printed(&m, false);
    /* 65 cells is over 32, so one character each: none, under 25%, under 75%, under 100%,
     * all. */
    cr_expect(strstr(text, "where P is wrong: 4 of 455 tiles (640 of 104000 elements)") != NULL,
              "%s", text);
    free(text);
    m.tiles_across = m.cells_across = 5; /* now drawn whole, two characters a tile */
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
    explain_map_free(&m);
}

Test(explain_map, the_checked_run_is_named)
{
    explain_map m = wide_map();
    m.checked_run = true;
    char line[300];
    explain_map_heading(&m, line, sizeof line);
    cr_expect(strncmp(line, "P as the checked run left it: 0 of 455 tiles wrong", 50) == 0, "%s",
              line);
    explain_map_free(&m);
}

Test(explain_map, no_colour_off_a_terminal)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    setenv("TERM", "xterm-256color", 1);
    unsetenv("NO_COLOR");
    cr_expect(!explain_colour_wanted(f));
    fclose(f);
}

/* NaN counts in the heading; a P that is NaN everywhere gets the heading alone. */
Test(explain_map, says_how_many_are_nan)
{
    explain_map m = wide_map();
    m.bad[0] = 10;
    m.wrong_tiles = 1;
    m.wrong_elements = 10;
    m.nonfinite = 4;
    char line[300];
    explain_map_heading(&m, line, sizeof line);
    cr_expect(strstr(line, "(10 of 104000 elements, 4 of them NaN or Inf)") != NULL, "%s", line);
    m.nonfinite = 10;
    explain_map_heading(&m, line, sizeof line);
    cr_expect(strstr(line, "(10 of 104000 elements, all NaN or Inf)") != NULL, "%s", line);
    char *text = printed(&m, false);
    cr_expect(strstr(text, "\u250c") != NULL, "a map is drawn: %s", text);
    free(text);
    m.wrong_elements = m.nonfinite = 104000;
    text = printed(&m, false);
    cr_expect(strstr(text, "every one NaN or Inf)\n") != NULL, "%s", text);
    cr_expect(strstr(text, "\u250c") == NULL, "no map under a P of NaN alone: %s", text);
    free(text);
    explain_map_free(&m);
}

/* ---- from files: a dataset, a saved P and a capture log ------------------------------------ */

static char g_dir[64];

static void scratch_init(void)
{
    strcpy(g_dir, "/tmp/tilelab-map-test-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir));
}

static void scratch_fini(void) { files_remove_tree(g_dir); }

static const char *at(const char *name)
{
    static char path[4][512];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", g_dir, name);
    return p;
}

static void write_matrix(const char *name, int rows, int cols, const float *data)
{
    tl_matrix m = {rows, cols, (float *)data};
    tl_error err;
    cr_assert_eq(tl_matrix_write(at(name), &m, TL_FORMAT_BINARY, &err), 0, "%s", err.msg);
}

enum { J = 20, K = 6, L = 12 };

/* A J x K by K x L dataset in the scratch folder; *E gets its expected output. */
static void write_dataset(float E[J * L])
{
    float A[J * K], B[K * L];
    double exact[J * L];
    for (int i = 0; i < J * K; i++)
        A[i] = (float)(i % 7) - 3;
    for (int i = 0; i < K * L; i++)
        B[i] = (float)(i % 5) * 0.5f - 1;
    tl_gemm_f64(J, K, L, A, B, exact, NULL, 1);
    for (int i = 0; i < J * L; i++)
        E[i] = (float)exact[i];
    write_matrix("input0.raw", J, K, A);
    write_matrix("input1.raw", K, L, B);
    write_matrix("output.raw", J, L, E);
}

/* A log whose launch call starts the kernel with 8 x 4 blocks (8 columns, 4 rows of P). */
static void launch_log(caplog *log)
{
    tl_error err;
    caplog_init(log);
    cr_assert_eq(caplog_add_kernel(log, "_Z2mmPKfS0_Pfi", &err), 0, "%s", err.msg);
    cr_assert_not_null(caplog_begin_call(log, CAPLOG_CALL_LAUNCH, J, K, L, &err));
    uint32_t sizes[] = {8, 8, 8, 4};
    caplog_reloc relocs[] = {{0, {CAPLOG_BUF_M, 0}}, {8, {CAPLOG_BUF_N, 0}},
                             {16, {CAPLOG_BUF_P, 0}}};
    uint8_t bytes[28] = {0};
    caplog_launch l = {.kernel = 0, .grid = {2, 5, 1}, .block = {8, 4, 1}, .nargs = 4,
                       .arg_size = sizes, .nbytes = 28, .bytes = bytes, .nrelocs = 3,
                       .relocs = relocs};
    caplog_op op = {.kind = CAPLOG_LAUNCH, .launch = &l};
    cr_assert_eq(caplog_add_op(log, &op, &err), 0, "%s", err.msg);
    caplog_end_call(log);
    log->complete = true;
}

Test(explain_map, counts_the_saved_result_per_block_of_the_launch, .init = scratch_init,
     .fini = scratch_fini)
{
    float E[J * L], P[J * L];
    write_dataset(E);
    memcpy(P, E, sizeof P);
    P[0] += 1;                /* tile (0, 0) */
    P[5 * L + 9] += 0.5f;     /* row 5 is in the second row of tiles, col 9 the second column */
    P[19 * L + 11] = NAN;     /* the last tile */
    write_matrix("P.raw", J, L, P);
    caplog log;
    launch_log(&log);
    runner_result r;
    memset(&r, 0, sizeof r);
    r.verdict = TL_VERDICT_WRONG;
    r.shape = (tl_size){J, K, L};
    r.calls[CAPLOG_CALL_LAUNCH].run = true;
    explain_map m;
    tl_error err;
    runner_dataset d = {.dir = g_dir};
    runner_loaded data;
    cr_assert_eq(runner_loaded_read(&d, &data, &err), 0, "%s", err.msg);
    cr_expect(data.shape.m == J && data.shape.k == K && data.shape.n == L);
    cr_assert_eq(explain_map_build(&m, &data.ref, at("P.raw"), &log, &r, &err), 0, "%s", err.msg);
    cr_expect(m.from_launch);
    cr_expect_eq(m.tile_cols, 8);
    cr_expect_eq(m.tile_rows, 4);
    cr_expect_eq(m.tiles_across, 2);
    cr_expect_eq(m.tiles_down, 5);
    cr_expect_eq(m.wrong_tiles, 3);
    cr_expect_eq(m.wrong_elements, 3);
    cr_expect_eq(m.nonfinite, 1);
    for (int t = 0; t < 10; t++)
        cr_expect_eq(m.bad[t], t == 0 || t == 3 || t == 9, "tile %d", t);
    cr_assert_eq(m.nfirst, 3);
    cr_expect(m.first[1].row == 5 && m.first[1].col == 9 && m.first[1].bound > 0);
    cr_expect(m.first[2].row == 19 && m.first[2].col == 11 && isnan(m.first[2].got));
    explain_map_free(&m);
    caplog_free(&log);
    /* No launch recorded (a grid of 0 blocks is refused): tiles of the default size. */
    caplog_init(&log);
    cr_assert_eq(explain_map_build(&m, &data.ref, at("P.raw"), &log, &r, &err), 0, "%s", err.msg);
    cr_expect(!m.from_launch);
    cr_expect_eq(m.tile_rows, EXPLAIN_MAP_DEFAULT_TILE);
    cr_expect_eq(m.wrong_tiles, 2);
    explain_map_free(&m);
    /* A result of another shape is refused, naming the file. */
    write_matrix("Q.raw", L, J, P);
    cr_expect_eq(explain_map_build(&m, &data.ref, at("Q.raw"), &log, &r, &err), -1);
    cr_expect(strstr(err.msg, "Q.raw: P is 12 x 20, the product is 20 x 12") != NULL, "%s",
              err.msg);
    caplog_free(&log);
    runner_loaded_free(&data);
}

Test(run_report, escapes_everything_and_draws_a_map_per_wrong_dataset, .init = scratch_init,
     .fini = scratch_fini)
{
    run_report_entry e[2];
    memset(e, 0, sizeof e);
    e[0].dataset = "ds/<pass>";
    e[0].size = (tl_size){4, 4, 4};
    e[0].x.verdict = TL_VERDICT_PASS;
    e[1].dataset = "x&y";
    e[1].size = (tl_size){100, 1040, 1040};
    e[1].x.verdict = TL_VERDICT_WRONG;
    snprintf(e[1].x.detail, sizeof e[1].x.detail, "a <b> \"c\"");
    e[1].x.has_map = true;
    e[1].x.map = wide_map();
    e[1].x.map.bad[0] = 3;
    e[1].x.map.wrong_tiles = 1;
    e[1].x.map.wrong_elements = 3;
    e[1].x.ncauses = e[1].x.findings = 1;
    snprintf(e[1].x.causes[0].kind, sizeof e[1].x.causes[0].kind, "shared-memory race");
    snprintf(e[1].x.causes[0].file, sizeof e[1].x.causes[0].file, "<i>.cu");
    e[1].x.causes[0].line = 24;
    run_report_meta meta = {"03-arbitrary", "src/'q'.cu", "the CPU backend"};
    tl_error err;
    cr_assert_eq(run_report_write(at("page.html"), &meta, e, 2, &err), 0, "%s", err.msg);
    char *page = files_read(at("page.html"), NULL);
    cr_assert_not_null(page);
    cr_expect(strstr(page, "ds/&lt;pass&gt;") && !strstr(page, "<pass>"), "%s", page);
    cr_expect(strstr(page, "x&amp;y") && strstr(page, "a &lt;b&gt; &quot;c&quot;"));
    cr_expect(strstr(page, "src/&#39;q&#39;.cu") != NULL);
    cr_expect(strstr(page, "cause: shared-memory race at &lt;i&gt;.cu:24") != NULL, "%s", page);
    cr_expect(strstr(page, "Every dataset passed") == NULL);
    int svgs = 0, rects = 0;
    for (const char *p = page; (p = strstr(p, "<svg")); p++)
        svgs++;
    for (const char *p = page; (p = strstr(p, "<rect ")); p++)
        rects++;
    cr_expect_eq(svgs, 1);
    /* 65 tiles across fit the page's 128 cells: one rectangle a tile. */
    cr_expect_eq(rects, 7 * 65, "%d rects", rects);
    cr_expect(strstr(page, "<title>rows 0-15, columns 0-15: 3 of 256 wrong</title>") != NULL);
    free(page);
    explain_map_free(&e[1].x.map);
    cr_assert_eq(run_report_write(at("page.html"), &meta, e, 1, &err), 0, "%s", err.msg);
    page = files_read(at("page.html"), NULL);
    cr_expect(strstr(page, "Every dataset passed") != NULL);
    cr_expect(strstr(page, "<svg") == NULL);
    free(page);
}

/* ---- an explanation ------------------------------------------------------------------------ */

static runner_result raced_result(void)
{
    runner_result r;
    memset(&r, 0, sizeof r);
    r.verdict = TL_VERDICT_UNSAFE;
    snprintf(r.detail, sizeof r.detail, "shared-memory race at mm.cu:24 and line 27 (block 0)");
    r.diagnosis = strdup(
        "{\"findings\":[{\"kind\":\"shared-memory race\",\"file\":\"/x/y/mm.cu\",\"line\":24,"
        "\"line2\":27,\"detail\":\"a barrier after line 24 is missing\"},"
        "{\"kind\":\"out-of-bounds global access\",\"file\":\"mm.cu\",\"line\":30,"
        "\"detail\":\"row 40 of 32\",\"baseline\":true},"
        "{\"kind\":\"a\",\"file\":\"b\",\"line\":1,\"detail\":\"c\"},"
        "{\"kind\":\"d\",\"file\":\"e\",\"line\":2,\"detail\":\"f\"}]}");
    cr_assert_not_null(r.diagnosis);
    return r;
}

Test(explanation, causes_come_from_the_checks_findings_with_their_lines)
{
    runner_result r = raced_result();
    explanation x;
    explain_result(&x, &r, NULL);
    cr_expect_eq(x.ncauses, EXPLAIN_MAX_CAUSES);
    cr_expect_eq(x.findings, 4);
    cr_expect_str_eq(x.causes[0].file, "mm.cu", "the file's own name, not the sandbox's path");
    char *text = explain_student_text(&x, false);
    cr_assert_not_null(text);
    cr_expect(strncmp(text, "unsafe: shared-memory race at mm.cu:24", 38) == 0, "%s", text);
    cr_expect(strstr(text, "\ncause: shared-memory race at mm.cu:24 and line 27: a barrier "
                           "after line 24 is missing\n") != NULL, "%s", text);
    cr_expect(strstr(text, "mm.cu:30" EXPLAIN_BASELINE_LABEL ": row 40 of 32") != NULL, "%s", text);
    cr_expect(strstr(text, "(1 more finding)") != NULL, "%s", text);
    free(text);
    /* A hidden dataset: the verdict and detail, never its causes. */
    text = explain_student_text(&x, true);
    cr_expect(strstr(text, "cause:") == NULL, "%s", text);
    cr_expect(strncmp(text, "unsafe: shared-memory race", 26) == 0, "%s", text);
    free(text);
    explain_free(&x);
    runner_result_free(&r);
}

Test(explanation, kept_as_json_and_read_back)
{
    runner_result r = raced_result();
    explanation x, y;
    explain_result(&x, &r, NULL);
    x.verdict = TL_VERDICT_WRONG;
    x.has_worst = true;
    x.worst = (tl_mismatch){3, 4, NAN, 2.5, 1e-6};
    snprintf(x.hint, sizeof x.hint, "check the bounds");
    x.has_map = true;
    x.map = wide_map(); /* 65 tiles across: kept as 33 cells of 1 x 2 tiles */
    x.map.bad[64] = 7;
    x.map.bad[65] = 1;
    x.map.wrong_tiles = 2;
    x.map.wrong_elements = 8;
    x.map.nfirst = 1;
    x.map.first[0] = (tl_mismatch){0, 1024, INFINITY, 1, 1e-6};
    cJSON *o = explain_json(&x);
    cr_assert_not_null(o);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    o = cJSON_Parse(json);
    cr_assert_not_null(o, "%s", json);
    explain_from_json(&y, TL_VERDICT_WRONG, "8 of 104000 elements wrong", o);
    cr_expect(y.has_worst && isnan(y.worst.got) && y.worst.expected == 2.5, "%s", json);
    cr_expect_str_eq(y.hint, "check the bounds");
    cr_expect_eq(y.ncauses, 3);
    cr_expect_eq(y.findings, 4);
    cr_expect_eq(y.causes[0].line2, 27);
    cr_assert(y.has_map, "%s", json);
    cr_expect_eq(y.map.cells_across, 33);
    cr_expect_eq(y.map.cell_across, 2);
    cr_expect_eq(y.map.bad[32], 7, "tile 64 is the last cell of the first row");
    cr_expect_eq(y.map.bad[33], 1);
    cr_expect(isinf(y.map.first[0].got));
    /* Drawn from the JSON as from the map itself. */
    char *a = printed(&x.map, false), *b = printed(&y.map, false);
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
    /* A map that does not add up is dropped. */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(o, "map"), "cells_across",
                              cJSON_CreateNumber(34));
    explanation z;
    explain_from_json(&z, TL_VERDICT_WRONG, "", o);
    cr_expect(!z.has_map);
    cr_expect_eq(z.ncauses, 3);
    cJSON_Delete(o);
    free(json);
    explain_free(&x);
    explain_free(&y);
    explain_free(&z);
    runner_result_free(&r);
}
