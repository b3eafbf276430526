/* tl_check_answer, the one check behind wbSolution and the grader: each -t type against its
 * expected file, each tolerance, libwb's image rule at its edges (the clamp, 0.2, the strict
 * comparison at zero) and where an image's mismatches are reported. */
#include <criterion/criterion.h>

#include "harness.h"
#include "scratch.h"

#include <cjson/cJSON.h>
#include <math.h>

TestSuite(answer, .init = scratch_init, .fini = scratch_fini);

static const char *write_text(const char *name, const char *text)
{
    return scratch_write(name, text, strlen(text));
}

static tl_check_report check_ok(const tl_answer_spec *spec, const tl_import *got,
                                const char *expected)
{
    tl_check_report rep;
    tl_error err;
    cr_assert_eq(tl_check_answer(spec, got, expected, &rep, &err), 0, "%s", err.msg);
    return rep;
}

static tl_import floats(float *data, int rows, int cols)
{
    return (tl_import){data, sizeof *data * (size_t)rows * (size_t)cols, rows, cols, 1};
}

static char *printed(const tl_check_report *rep)
{
    static char text[2048];
    FILE *f = fmemopen(text, sizeof text, "w");
    cr_assert_not_null(f);
    tl_check_report_print(f, rep);
    fclose(f);
    return text;
}

/* ---- matrices and vectors ---------------------------------------------------------------- */

/* A = [1 2; 3 4], B = I: A*B = A. */
static float a_vals[] = {1, 2, 3, 4}, b_vals[] = {1, 0, 0, 1};
static tl_matrix A = {2, 2, a_vals}, B = {2, 2, b_vals};

Test(answer, matrix_bound_applies_where_the_inputs_form_the_product)
{
    const char *expected = write_text("output.raw", "2 2\n1 2\n3 4\n");
    float near[] = {1, 2, 3, 4.001f};
    tl_import got = floats(near, 2, 2);
    tl_answer_spec spec = {TL_ANSWER_MATRIX, TL_TOLERANCE_BOUND, &A, &B};
    tl_check_report rep = check_ok(&spec, &got, expected);
    cr_assert_eq(rep.kind, TL_CHECK_BOUND);
    cr_assert_not(rep.pass, "0.001 off is far over the fp32 bound of a length-2 product");
    /* No inputs: nothing to bound, libwb's 0.2 decides. */
    spec.A = spec.B = NULL;
    rep = check_ok(&spec, &got, expected);
    cr_assert_eq(rep.kind, TL_CHECK_LIBWB);
    cr_assert(rep.pass);
}

Test(answer, vector_at_libwbs_edge)
{
    const char *expected = write_text("output.raw", "3\n0.5\n0\n2\n");
    float edge[] = {0.5f + 0.2f, 0.19f, 2};
    tl_import got = floats(edge, 3, 1);
    tl_answer_spec spec = {TL_ANSWER_VECTOR, TL_TOLERANCE_LIBWB, NULL, NULL};
    cr_assert(check_ok(&spec, &got, expected).pass, "0.2 off in float is within");
    edge[0] = nextafterf(0.7f, 1.0f);
    edge[1] = 0.2f;
    tl_check_report rep = check_ok(&spec, &got, expected);
    cr_assert_eq(rep.bad, 2, "one float past 0.2, and 0.2 against an exact 0 (strictly below)");
    cr_assert_eq(rep.first[1].row, 1);
}

/* A reduction's total the kit's generator added up in float (62673.17 for the exact 62673.60):
 * libwb's absolute 0.2 fails the right answer, the labs repository's libgputk passes it. */
Test(answer, libgputk_allows_a_share_of_the_value)
{
    const char *expected = write_text("output.raw", "1\n62673.17\n");
    float total[] = {62673.60f};
    tl_import got = floats(total, 1, 1);
    tl_answer_spec libwb = {TL_ANSWER_VECTOR, TL_TOLERANCE_LIBWB, NULL, NULL};
    tl_answer_spec libgputk = {TL_ANSWER_VECTOR, TL_TOLERANCE_LIBGPUTK, NULL, NULL};
    cr_assert(!check_ok(&libwb, &got, expected).pass);
    tl_check_report rep = check_ok(&libgputk, &got, expected);
    cr_assert(rep.pass);
    cr_assert_eq(rep.kind, TL_CHECK_LIBGPUTK);
    total[0] = 62674.0f; /* 0.83 off: past 0.2 + 1e-5 x 62674 = 0.827 */
    cr_assert(!check_ok(&libgputk, &got, expected).pass);
}

Test(answer, exact_means_equal_values)
{
    const char *expected = write_text("output.raw", "1 3\n1 0 -2\n");
    float same[] = {1, -0.0f, -2};
    tl_import got = floats(same, 1, 3);
    tl_answer_spec spec = {TL_ANSWER_MATRIX, TL_TOLERANCE_EXACT, &A, &B};
    tl_check_report rep = check_ok(&spec, &got, expected);
    cr_assert(rep.pass && rep.kind == TL_CHECK_IDENTICAL, "-0 equals 0");
    cr_assert_str_eq(printed(&rep), "PASS: all 3 elements equal to the expected ones\n");
    same[2] = nextafterf(-2.0f, 0.0f);
    cr_assert_not(check_ok(&spec, &got, expected).pass, "one ulp off");
}

/* ---- integers -------------------------------------------------------------------------------- */

Test(answer, integer_types_are_compared_exactly_whatever_the_tolerance)
{
    const char *expected = write_text("output.raw", "4\n3\n0\n7\n1\n");
    int bins[] = {3, 0, 7, 1};
    tl_import got = {bins, sizeof bins, 4, 1, 1};
    tl_answer_spec spec = {TL_ANSWER_HISTOGRAM, TL_TOLERANCE_LIBWB, NULL, NULL};
    tl_check_report rep = check_ok(&spec, &got, expected);
    cr_assert(rep.pass && rep.kind == TL_CHECK_EXACT);
    bins[2] = 8;
    spec.type = TL_ANSWER_INTEGRAL_VECTOR;
    rep = check_ok(&spec, &got, expected);
    cr_assert_eq(rep.bad, 1, "one off, where libwb's 0.2 on floats would not see it either way");
    cr_assert_eq(rep.worst.row, 2);
    cr_assert_eq(tl_answer_import_kind(TL_ANSWER_HISTOGRAM), TL_IMPORT_INTEGER);
}

Test(answer, an_expected_fraction_for_integers_is_bad_input)
{
    const char *expected = write_text("output.raw", "2\n1\n2.5\n");
    int bins[] = {1, 2};
    tl_import got = {bins, sizeof bins, 2, 1, 1};
    tl_answer_spec spec = {TL_ANSWER_INTEGRAL_VECTOR, TL_TOLERANCE_BOUND, NULL, NULL};
    tl_check_report rep;
    tl_error err;
    cr_assert_eq(tl_check_answer(&spec, &got, expected, &rep, &err), -1);
    char want[512];
    snprintf(want, sizeof want, "%s: value 2 is 2.5; type integral_vector expects whole numbers "
                                "below 2^24 in magnitude (read exactly through float32)", expected);
    cr_assert_str_eq(err.msg, want);
}

Test(answer, an_unreadable_expected_file_is_bad_input)
{
    float v[] = {1};
    tl_import got = floats(v, 1, 1);
    tl_answer_spec spec = {TL_ANSWER_IMAGE, TL_TOLERANCE_LIBWB, NULL, NULL};
    tl_check_report rep;
    tl_error err;
    cr_assert_eq(tl_check_answer(&spec, &got, "/nonexistent/output.ppm", &rep, &err), -1);
    cr_assert_str_eq(err.msg, "/nonexistent/output.ppm: cannot open: No such file or directory");
    const char *raw = write_text("output.raw", "2 2\n1 2\n3 4\n");
    cr_assert_eq(tl_check_answer(&spec, &got, raw, &rep, &err), -1, "a matrix is not an image");
    cr_assert(strstr(err.msg, "not a PPM or PGM image"), "%s", err.msg);
}

/* ---- images ------------------------------------------------------------------------------ */

/* A 2 x 2 RGB image with maxval 4: every level (0, 0.25, 0.5, 0.75, 1) is exact in float. */
static const char rgb_ppm[] = "P3 2 2 4\n"
                              "0 1 2  2 2 2\n"
                              "4 3 0  0 0 4\n";
static float rgb_vals[] = {0, 0.25f, 0.5f, 0.5f, 0.5f, 0.5f, 1, 0.75f, 0, 0, 0, 1};

static tl_import rgb_got(float *data)
{
    memcpy(data, rgb_vals, sizeof rgb_vals);
    return (tl_import){data, sizeof rgb_vals, 2, 2, 3};
}

static const tl_answer_spec image_spec = {TL_ANSWER_IMAGE, TL_TOLERANCE_LIBWB, NULL, NULL};

Test(answer, image_at_libwbs_edge)
{
    const char *expected = scratch_write("output.ppm", rgb_ppm, sizeof rgb_ppm - 1);
    float v[12];
    tl_import got = rgb_got(v);
    v[3] = 0.5f + 0.2f; /* 0.2 above in float: within */
    v[4] = 0.3f;        /* 0.2 below: within */
    v[0] = 0.19f;       /* against an exact 0: strictly below 0.2 */
    v[6] = 1.5f;        /* clamped to 1, as libwb clamps both */
    v[8] = -0.4f;       /* clamped to 0 */
    tl_check_report rep = check_ok(&image_spec, &got, expected);
    cr_assert(rep.pass, "%s", printed(&rep));
    cr_assert_eq(rep.kind, TL_CHECK_IMAGE);
    cr_assert_eq(rep.checked, 12);
    cr_assert(strstr(printed(&rep), "PASS: all 12 elements within libwb's image tolerance"),
              "%s", printed(&rep));

    v[3] = nextafterf(0.7f, 1.0f); /* one float past */
    v[0] = 0.2f;                   /* not strictly below, against 0 */
    rep = check_ok(&image_spec, &got, expected);
    cr_assert_eq(rep.bad, 2, "%s", printed(&rep));
}

Test(answer, image_mismatches_name_pixel_row_and_column_times_channels)
{
    const char *expected = scratch_write("output.ppm", rgb_ppm, sizeof rgb_ppm - 1);
    float v[12];
    tl_import got = rgb_got(v);
    v[11] = 0.5f; /* pixel x 1, y 1, channel 2 (blue): expected 1 */
    tl_check_report rep = check_ok(&image_spec, &got, expected);
    cr_assert_eq(rep.bad, 1);
    cr_assert_eq(rep.worst.row, 1);
    cr_assert_eq(rep.worst.col, 1 * 3 + 2);
    cr_assert(strstr(printed(&rep), "worst (row 1, col 5: pixel x 1, channel 2): got 0.5, "
                                    "expected 1"), "%s", printed(&rep));
    cr_assert(strstr(printed(&rep), "rule: values clamped to [0,1], then libwb:"), "%s",
              printed(&rep));
}

Test(answer, an_unwritten_pixel_fails_although_libwbs_clamp_would_pass_it)
{
    const char *expected = scratch_write("output.ppm", rgb_ppm, sizeof rgb_ppm - 1);
    float v[12];
    tl_import got = rgb_got(v);
    v[0] = NAN; /* expected 0: libwb's clamp would make it 0 */
    tl_check_report rep = check_ok(&image_spec, &got, expected);
    cr_assert_not(rep.pass);
    cr_assert_eq(rep.nonfinite, 1);
}

Test(answer, image_shapes_that_differ)
{
    const char *expected = scratch_write("output.ppm", rgb_ppm, sizeof rgb_ppm - 1);
    float v[12] = {0};
    tl_import wide = {v, sizeof v, 2, 2, 3};
    wide.cols = 1; /* 1 x 2, same rows */
    tl_check_report rep = check_ok(&image_spec, &wide, expected);
    cr_assert(rep.shape_mismatch);
    cr_assert_str_eq(printed(&rep), "FAIL: image is 1 x 2 with 3 channels (width x height), "
                                    "expected 2 x 2 with 3\n");
    /* The same 12 values read as a 6 x 2 gray image: a mismatch too. */
    tl_import gray = {v, sizeof v, 2, 6, 1};
    rep = check_ok(&image_spec, &gray, expected);
    cr_assert(rep.shape_mismatch);
    cr_assert_str_eq(printed(&rep), "FAIL: image is 6 x 2 with 1 channel (width x height), "
                                    "expected 2 x 2 with 3\n");
    cJSON *json = tl_check_report_json(&rep);
    char *text = cJSON_PrintUnformatted(json);
    cr_assert(strstr(text, "\"got_shape\":[2,6,1],\"expected_shape\":[2,2,3]"), "%s", text);
    free(text);
    cJSON_Delete(json);
}

Test(answer, image_exact_compares_the_clamped_values)
{
    const char *expected = scratch_write("output.ppm", rgb_ppm, sizeof rgb_ppm - 1);
    float v[12];
    tl_import got = rgb_got(v);
    v[6] = 1.25f; /* clamped: equal */
    tl_answer_spec spec = {TL_ANSWER_IMAGE, TL_TOLERANCE_EXACT, NULL, NULL};
    tl_check_report rep = check_ok(&spec, &got, expected);
    cr_assert(rep.pass, "%s", printed(&rep));
    v[3] = 0.5f + 0x1p-20f;
    cr_assert_not(check_ok(&spec, &got, expected).pass);
}

Test(answer, images_of_more_channels_are_not_clamped)
{
    float e[] = {1, 1, 1, 1}, g[] = {1, 1, 1, 1.5f};
    tl_import expected = {e, sizeof e, 1, 1, 4}, got = {g, sizeof g, 1, 1, 4};
    tl_check_report rep;
    tl_check_image(&expected, &got, TL_TOLERANCE_LIBWB, &rep);
    cr_assert_eq(rep.bad, 1, "1.5 is 0.5 off: libwb clamps images of up to 3 channels only");
    cr_assert_str_eq(rep.policy, "libwb: |got-expected| <= 0.2 in float, < 0.2 where either is 0");
}

Test(answer, type_names_are_libwbs)
{
    tl_answer_type t;
    cr_assert_eq(tl_answer_type_parse("IMAGE", &t), 0);
    cr_assert_eq(t, TL_ANSWER_IMAGE);
    cr_assert_eq(tl_answer_type_parse("Integral_Vector", &t), 0);
    cr_assert_eq(t, TL_ANSWER_INTEGRAL_VECTOR);
    cr_assert_eq(tl_answer_type_parse("text", &t), -1);
    cr_assert_str_eq(tl_answer_type_name(TL_ANSWER_HISTOGRAM), "histogram");
}
