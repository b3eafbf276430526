/* ncu's CSV rows (header found past ncu's notes, quoted fields, thousands separators, a unit's
 * prefix). */
#include "ncu_csv.h"

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
