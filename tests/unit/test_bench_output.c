/* What bench steps reads and writes: ncu's CSV rows (header found past ncu's notes, quoted
 * fields, thousands separators, a unit's prefix) and the roofline picture (escaped labels,
 * points without figures left out, points ordered by height in the label column). */
#include "report.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 8

typedef struct rows {
    int n;
    char kernel[MAX_ROWS][64], metric[MAX_ROWS][96];
    double value[MAX_ROWS];
} rows;

static void keep(const ncu_row *r, void *ctx)
{
    rows *k = ctx;
    cr_assert_lt(k->n, MAX_ROWS);
    snprintf(k->kernel[k->n], sizeof k->kernel[0], "%s", r->kernel);
    snprintf(k->metric[k->n], sizeof k->metric[0], "%s", r->metric);
    k->value[k->n++] = r->value;
}

Test(ncu_csv, rows_after_the_header)
{
    char csv[] = "==PROF== Connected to process 123\n"
                 "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                 "\"0\",\"Step(const float *, int)\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_"
                 "shared_op_ld.sum\",\"\",\"1,234,567\"\n"
                 "\"0\",\"Step(const float *, int)\",\"dram__bytes_read.sum\",\"Mbyte\",\"12.5\"\n"
                 "\"0\",\"Step(const float *, int)\",\"dram__bytes_write.sum\",\"byte\",\"4096\"\n"
                 "\"0\",\"Step(const float *, int)\",\"sm__warps_active.avg.pct_of_peak_"
                 "sustained_active\",\"%\",\"48.75\"\n"
                 "==PROF== Disconnected from process 123\n";
    rows k = {0};
    cr_assert_eq(ncu_csv_rows(csv, keep, &k), 4);
    cr_assert_str_eq(k.kernel[0], "Step(const float *, int)");
    cr_assert_str_eq(k.metric[0], "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
    cr_assert_float_eq(k.value[0], 1234567.0, 1e-9);
    cr_assert_float_eq(k.value[1], 12.5e6, 1e-3);
    cr_assert_float_eq(k.value[2], 4096.0, 1e-9);
    cr_assert_float_eq(k.value[3], 48.75, 1e-9);
}

Test(ncu_csv, no_header_is_minus_one)
{
    char csv[] = "==PROF== no kernels were profiled\n\"a\",\"b\"\n";
    rows k = {0};
    cr_assert_eq(ncu_csv_rows(csv, keep, &k), -1);
    cr_assert_eq(k.n, 0);
}

/* Where `what` is in `text`, or -1. */
static long offset_of(const char *text, const char *what)
{
    const char *at = strstr(text, what);
    return at ? (long)(at - text) : -1;
}

#define MAX_SVG_BYTES 65536

/* The picture of the points, read back from a temporary file. */
static char *picture(const roofline_point *points, int n, int *drawn)
{
    roofline r = {"a <b> & c", "note", 67e3, 3350, "peak", "bandwidth"};
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    *drawn = roofline_svg(f, &r, points, n);
    rewind(f);
    char *text = calloc(MAX_SVG_BYTES, 1);
    cr_assert_not_null(text);
    size_t len = fread(text, 1, MAX_SVG_BYTES - 1, f);
    cr_assert_gt(len, 0);
    cr_assert_lt(len, MAX_SVG_BYTES - 1);
    cr_assert_eq(fclose(f), 0);
    return text;
}

Test(roofline, labels_escaped_and_points_without_figures_left_out)
{
    roofline_point points[] = {{"slow & small", 100, 5000, false},
                               {"failed", 100, 0, false},
                               {"fast <best>", 100, 40000, false},
                               {"cuBLAS", 683, 50000, true}};
    int drawn;
    char *svg = picture(points, 4, &drawn);
    cr_assert_eq(drawn, 3);
    cr_assert_not_null(strstr(svg, ">a &lt;b&gt; &amp; c</text>"));
    cr_assert_not_null(strstr(svg, ">slow &amp; small (5000 GFLOP/s)</text>"));
    cr_assert_not_null(strstr(svg, ">fast &lt;best&gt; (40000 GFLOP/s)</text>"));
    cr_assert_null(strstr(svg, "failed"));
    cr_assert_null(strstr(svg, "<best>"));
    /* labels in the right-hand column from the highest point down */
    long top = offset_of(svg, ">cuBLAS ("), mid = offset_of(svg, ">fast "),
         low = offset_of(svg, ">slow ");
    cr_assert(top >= 0 && top < mid && mid < low);
    cr_assert_eq(strncmp(svg + strlen(svg) - 7, "</svg>\n", 7), 0);
    free(svg);
}
