/* The dataset checker and its three rules: bound (the fp32 error bound plus the text's own
 * rounding), libwb (libwb's comparison) and exact (bit for bit). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "datagen_fixtures.h"

static const tl_tolerance all_rules[] = {TL_TOLERANCE_BOUND, TL_TOLERANCE_LIBWB, TL_TOLERANCE_EXACT};
#define NRULES 3

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[700];
    path_in(path, sizeof path, dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_geq(fputs(text, f), 0);
    cr_assert_eq(fclose(f), 0);
}

static tl_dataset_check check_ok(const char *dir, tl_tolerance rule)
{
    tl_dataset_check res;
    tl_error err = {""};
    cr_assert_eq(tl_dataset_check_dir(dir, rule, &res, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(res.rule, rule);
    return res;
}

/* A 1x1x1 dataset: A = [1], B = [0.123] (the float nearest 0.123), output.raw holds `e`. */
static void one_by_one(const char *dir, const char *a, const char *e)
{
    char text[64];
    snprintf(text, sizeof text, "1 1\n%s\n", a);
    write_text(dir, "input0.raw", text);
    write_text(dir, "input1.raw", "1 1\n0.123\n");
    snprintf(text, sizeof text, "1 1\n%s\n", e);
    write_text(dir, "output.raw", text);
}

/* Which rules pass `e` as the product of `a` and 0.123: a string of three letters, b l e. */
static void expect_rules(const char *dir, const char *a, const char *e, const char *want)
{
    one_by_one(dir, a, e);
    char got[NRULES + 1] = "";
    static const char letters[] = "ble";
    for (int r = 0; r < NRULES; r++)
        got[r] = check_ok(dir, all_rules[r]).ok ? letters[r] : '-';
    cr_assert_str_eq(got, want, "%s x 0.123 written as \"%s\": passes %s, expected %s", a, e, got,
                     want);
}

Test(rules, names)
{
    tl_tolerance t;
    for (int r = 0; r < NRULES; r++) {
        cr_assert_eq(tl_tolerance_parse(tl_tolerance_name(all_rules[r]), &t), 0);
        cr_assert_eq(t, all_rules[r]);
    }
    cr_assert_str_eq(tl_tolerance_name(TL_TOLERANCE_BOUND), "bound");
    cr_assert_eq(tl_tolerance_parse("relative", &t), -1);
    cr_assert_eq(tl_tolerance_parse(NULL, &t), -1);
}

/* The bound's quantisation: the product rounded to the digits written passes, one unit in the
 * last digit further off fails. */
Test(rules, bound_allows_the_rounding_to_the_digits_written)
{
    char dir[512];
    make_temp_dir(dir, sizeof dir);
    expect_rules(dir, "1", "0.123", "ble");
    expect_rules(dir, "1", "0.12", "bl-");  /* 0.123 rounded to two decimals */
    expect_rules(dir, "1", "0.1230", "ble"); /* a trailing zero claims a finer rounding */
    expect_rules(dir, "1", "0.13", "-l-");  /* 0.007 off: more than half of 0.01 */
    expect_rules(dir, "1", "0.11", "-l-");
    expect_rules(dir, "1", "0.124", "-l-"); /* 0.001 off at three decimals */
    expect_rules(dir, "1", "1.2e-1", "bl-"); /* the exponent moves the last digit too */
    expect_rules(dir, "1", "1.3e-1", "-l-");
    remove_tree(dir);
}

Test(rules, libwb_is_absolute_and_strict_at_zero)
{
    char dir[512];
    make_temp_dir(dir, sizeof dir);
    expect_rules(dir, "1", "0.32", "-l-");  /* 0.197 off */
    expect_rules(dir, "1", "0.33", "---");  /* 0.207 off */
    expect_rules(dir, "0", "0.19", "-l-");  /* the product is 0: below 0.2 passes ... */
    expect_rules(dir, "0", "0.2", "---");   /* ... strictly */
    expect_rules(dir, "0", "0.00", "ble");
    /* -0 is the product's value but not its bits: 0 ulps apart, yet not bit-exact. */
    expect_rules(dir, "0", "-0.00", "bl-");
    one_by_one(dir, "0", "-0.00");
    tl_dataset_check res = check_ok(dir, TL_TOLERANCE_EXACT);
    cr_assert_eq(res.max_ulps, 0);
    cr_assert_eq(res.bad, 1);
    remove_tree(dir);
}

/* A binary file holds the floats themselves: no quantisation to allow for. */
Test(rules, binary_outputs_have_no_quantisation)
{
    char dir[512], path[700];
    make_temp_dir(dir, sizeof dir);
    one_by_one(dir, "1", "0.12");
    tl_matrix E;
    tl_error err;
    cr_assert_eq(tl_matrix_alloc(&E, 1, 1, &err), 0);
    E.data[0] = 0.12f;
    path_in(path, sizeof path, dir, "output.raw");
    cr_assert_eq(tl_matrix_write(path, &E, TL_FORMAT_BINARY, &err), 0, "%s", err.msg);
    tl_matrix_free(&E);
    cr_assert_not(check_ok(dir, TL_TOLERANCE_BOUND).ok, "0.12 in binary is 0.003 off");
    cr_assert(check_ok(dir, TL_TOLERANCE_LIBWB).ok);
    remove_tree(dir);
}

/* Rewrites output.raw with two decimals, as the teaching kit's datasets hold it. */
static void round_output_to_two_decimals(const char *dir)
{
    char path[700];
    path_in(path, sizeof path, dir, "output.raw");
    tl_matrix E;
    tl_error err;
    cr_assert_eq(tl_matrix_read(path, &E, &err), 0, "%s", err.msg);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%d %d\n", E.rows, E.cols);
    for (int i = 0; i < E.rows * E.cols; i++)
        fprintf(f, "%.2f%c", (double)E.data[i], (i + 1) % E.cols ? ' ' : '\n');
    cr_assert_eq(fclose(f), 0);
    tl_matrix_free(&E);
}

static float plus_one(float v) { return v + 1.0f; }
static float three_ulps_up(float v)
{
    for (int u = 0; u < 3; u++)
        v = nextafterf(v, INFINITY);
    return v;
}

/* Writes a fresh dataset of size s (seed 5), then changes its expected value at `at`. */
static void generate_with_change(const char *dir, tl_size s, tl_format format, int at,
                                 float (*change)(float))
{
    char path[700];
    const tl_gen_options o = {5, format, true, 1, false};
    tl_gen_result gr;
    tl_error err;
    cr_assert_eq(tl_dataset_generate(dir, 0, s, &o, &gr, &err), 0, "%s", err.msg);
    path_in(path, sizeof path, dir, "output.raw");
    tl_matrix E;
    cr_assert_eq(tl_matrix_read(path, &E, &err), 0, "%s", err.msg);
    E.data[at] = change(E.data[at]);
    cr_assert_eq(tl_matrix_write(path, &E, format, &err), 0, "%s", err.msg);
    tl_matrix_free(&E);
}

Test(rules, two_decimal_outputs_pass_bound_and_libwb_and_report_the_largest_deviation)
{
    char dir[512], path[700];
    make_temp_dir(dir, sizeof dir);
    const tl_size s = {12, 40, 9};
    const tl_gen_options o = options(5, TL_FORMAT_TEXT);
    generate_ok(dir, 0, s, &o, TL_WRITE_CREATED);
    tl_matrix exact, rounded;
    tl_error err;
    path_in(path, sizeof path, dir, "output.raw");
    cr_assert_eq(tl_matrix_read(path, &exact, &err), 0, "%s", err.msg);
    round_output_to_two_decimals(dir);
    cr_assert_eq(tl_matrix_read(path, &rounded, &err), 0, "%s", err.msg);
    /* Where the rounding moved a value most, in ulps: the checker must name the same place. */
    uint64_t most = 0;
    int at = 0;
    for (int i = 0; i < s.m * s.n; i++) {
        uint64_t u = tl_ulps_between(rounded.data[i], exact.data[i]);
        if (u > most) {
            most = u;
            at = i;
        }
    }
    for (int r = 0; r < NRULES; r++) {
        tl_dataset_check res = check_ok(dir, all_rules[r]);
        cr_assert_eq(res.ok, all_rules[r] != TL_TOLERANCE_EXACT, "%s: %s",
                     tl_tolerance_name(all_rules[r]), res.detail);
        cr_assert_eq(res.max_ulps, most);
        cr_assert_eq(res.max_ulps_row, at / s.n);
        cr_assert_eq(res.max_ulps_col, at % s.n);
    }
    cr_assert_gt(most, 1000, "two decimals are far coarser than a float's ulp");
    tl_dataset_check b = check_ok(dir, TL_TOLERANCE_BOUND);
    cr_assert(b.max_error_ratio > 0.1 && b.max_error_ratio <= 1.0, "ratio %g", b.max_error_ratio);
    tl_matrix_free(&exact);
    tl_matrix_free(&rounded);
    remove_tree(dir);
}

Test(rules, an_element_off_by_one_fails_every_rule)
{
    char dir[512];
    make_temp_dir(dir, sizeof dir);
    const tl_size s = {12, 40, 9};
    for (int two_decimals = 0; two_decimals < 2; two_decimals++) {
        generate_with_change(dir, s, TL_FORMAT_TEXT, 4 * s.n + 7, plus_one);
        if (two_decimals)
            round_output_to_two_decimals(dir);
        for (int r = 0; r < NRULES; r++) {
            tl_dataset_check res = check_ok(dir, all_rules[r]);
            cr_assert_not(res.ok, "%s", tl_tolerance_name(all_rules[r]));
            if (two_decimals && all_rules[r] == TL_TOLERANCE_EXACT)
                cr_assert_gt(res.bad, s.m * s.n / 2, "rounded values are rarely bit-exact");
            else
                cr_assert_eq(res.bad, 1, "%s: %lld bad", tl_tolerance_name(all_rules[r]),
                             (long long)res.bad);
            if (all_rules[r] != TL_TOLERANCE_EXACT)
                cr_assert_not_null(strstr(res.detail, "row 4 col 7"), "%s", res.detail);
            cr_assert_eq(res.max_ulps_row, 4);
            cr_assert_eq(res.max_ulps_col, 7);
        }
    }
    remove_tree(dir);
}

Test(check, accepts_fresh_datasets_in_both_formats_under_every_rule)
{
    char dir[512];
    make_temp_dir(dir, sizeof dir);
    const tl_size sizes[] = {{1, 1, 1}, {37, 100, 1}, {67, 53, 64}};
    for (int f = 0; f < 2; f++) {
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            char sub[600];
            snprintf(sub, sizeof sub, "%s/%d-%zu", dir, f, i);
            const tl_gen_options o = options(77, (tl_format)f);
            generate_ok(sub, (int)i, sizes[i], &o, TL_WRITE_CREATED);
            for (int r = 0; r < NRULES; r++) {
                const tl_dataset_check res = check_ok(sub, all_rules[r]);
                cr_assert(res.ok && res.bad == 0, "%s, %s: %s", sub,
                          tl_tolerance_name(all_rules[r]), res.detail);
                cr_assert_eq(res.max_ulps, 0, "what tilelab writes is bit-exact");
                cr_assert_eq(res.format, (tl_format)f);
                cr_assert(res.size.m == sizes[i].m && res.size.k == sizes[i].k &&
                          res.size.n == sizes[i].n);
                cr_assert(res.max_error_ratio <= 1.0 && res.seconds >= 0.0);
            }
        }
    }
    remove_tree(dir);
}

/* Three ulps off in one element: exact finds it; the bound (k = 50) lets it through and names
 * it as the largest deviation. */
Test(check, an_element_off_by_a_few_ulps)
{
    char dir[512];
    make_temp_dir(dir, sizeof dir);
    const tl_size s = {20, 50, 30};
    const int row = 13, col = 21;
    for (int f = 0; f < 2; f++) {
        generate_with_change(dir, s, (tl_format)f, row * s.n + col, three_ulps_up);
        tl_dataset_check res = check_ok(dir, TL_TOLERANCE_EXACT);
        cr_assert(!res.ok);
        cr_assert_eq(res.bad, 1);
        cr_assert_gt(res.max_error_ratio, 1.0);
        cr_assert_not_null(strstr(res.detail, "row 13 col 21"), "detail: %s", res.detail);
        cr_assert_not_null(strstr(res.detail, "(3 ulps)"), "detail: %s", res.detail);

        res = check_ok(dir, TL_TOLERANCE_BOUND);
        cr_assert(res.ok, "3 ulps are far within gamma_51: %s", res.detail);
        cr_assert_eq(res.max_ulps, 3);
        cr_assert(res.max_ulps_row == row && res.max_ulps_col == col);
    }
    remove_tree(dir);
}

Test(check, fails_on_shapes_that_do_not_form_a_product)
{
    char dir[512], in1[700], out[700];
    make_temp_dir(dir, sizeof dir);
    path_in(in1, sizeof in1, dir, "input1.raw");
    path_in(out, sizeof out, dir, "output.raw");
    const tl_gen_options o = options(1, TL_FORMAT_TEXT);
    generate_ok(dir, 0, (tl_size){8, 5, 7}, &o, TL_WRITE_CREATED);

    tl_matrix M;
    tl_error err = {""};
    cr_assert_eq(tl_matrix_alloc(&M, 6, 7, &err), 0);
    for (int i = 0; i < 42; i++)
        M.data[i] = 0.5f;
    cr_assert_eq(tl_matrix_write(in1, &M, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    tl_matrix_free(&M);
    tl_dataset_check res;
    cr_assert_eq(tl_dataset_check_dir(dir, TL_TOLERANCE_BOUND, &res, 1, &err), -1);
    cr_assert(strstr(err.msg, "8x5") && strstr(err.msg, "6x7"), "%s", err.msg);
    cr_assert(strstr(err.msg, "input0.raw") && strstr(err.msg, "input1.raw"), "%s", err.msg);

    /* Inputs fine again, but the output has the wrong shape. */
    generate_ok(dir, 0, (tl_size){8, 5, 7}, &(tl_gen_options){1, TL_FORMAT_TEXT, true, 1, false},
                TL_WRITE_REPLACED);
    cr_assert_eq(tl_matrix_alloc(&M, 7, 8, &err), 0);
    for (int i = 0; i < 56; i++)
        M.data[i] = 0.0f;
    cr_assert_eq(tl_matrix_write(out, &M, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    tl_matrix_free(&M);
    cr_assert_eq(tl_dataset_check_dir(dir, TL_TOLERANCE_BOUND, &res, 1, &err), -1);
    cr_assert(strstr(err.msg, "7x8") && strstr(err.msg, "8x7") && strstr(err.msg, "output.raw"),
              "%s", err.msg);
    remove_tree(dir);
}

Test(check, fails_on_a_missing_file)
{
    char dir[512];
    make_temp_dir(dir, sizeof dir);
    tl_dataset_check res;
    tl_error err = {""};
    cr_assert_eq(tl_dataset_check_dir(dir, TL_TOLERANCE_BOUND, &res, 1, &err), -1);
    cr_assert_not_null(strstr(err.msg, "input0.raw"), "%s", err.msg);
    remove_tree(dir);
}

