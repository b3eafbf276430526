/* The libwb layer's images and other formats: wbImage_t made, imported and exported, wbSolution
 * of an image (-t image, -o), wbImport's "Text" and a CSV mask. */
#include "wb.h"
#include "captured.h"
#include "scratch.h"

static void setup(void)
{
    scratch_init();
    cr_redirect_stdout();
}

static void teardown(void)
{
    scratch_fini();
    tl_wb_reset();
}

TestSuite(wb_image, .init = setup, .fini = teardown);

/* A 2 x 1 RGB image: (255, 0, 51), (0, 102, 255). */
static const char ppm[] = "P6\n2 1\n255\n\xff\x00\x33\x00\x66\xff";

static wbArg_t image_args(const char *type, const char *output)
{
    const char *expected = scratch_write("output.ppm", ppm, sizeof ppm - 1);
    char *argv[] = {"./gray", "-i", "input.ppm", "-e", (char *)expected, "-t", (char *)type,
                    "-o", (char *)output, NULL};
    int argc = 5 + (type ? 2 : 0);
    if (output && type)
        argc += 2;
    return tl_wb_arg_read(argc, argv);
}

Test(wb_image, image_new_is_zeros_with_libwbs_pitch)
{
    wbImage_t img = tl_wb_image_new(3, 2, 3);
    cr_assert_eq(img->width, 3);
    cr_assert_eq(img->height, 2);
    cr_assert_eq(img->pitch, 9, "floats per row: width * channels");
    for (int i = 0; i < 18; i++)
        cr_assert_eq(img->data[i], 0.0f);
    tl_wb_image_delete(img);
    tl_wb_image_delete(NULL);
}

Test(wb_image, image_new_of_no_pixels_exits_with_status_2, .exit_code = 2)
{
    tl_wb_image_new(0, 2, 3);
}

Test(wb_image, import_image_as_libwb)
{
    wbImage_t img = tl_wb_import_image(scratch_write("in.ppm", ppm, sizeof ppm - 1));
    cr_assert_eq(img->width, 2);
    cr_assert_eq(img->height, 1);
    cr_assert_eq(img->channels, 3);
    cr_assert_eq(img->pitch, 6);
    cr_assert_eq(img->data[2], 51.0f * (1.0f / 255.0f), "value * (1 / maxval) in float");
    cr_assert_eq(img->data[5], 1.0f);
    tl_wb_image_delete(img);
}

Test(wb_image, import_of_a_bad_image_exits_with_status_2, .exit_code = 2)
{
    tl_wb_import_image(scratch_write("in.ppm", "P6\n2 1\n255\n\x01", 12));
}

/* The expected image as floats, with one value changed by `delta`. */
static wbImage_t answer(int index, float delta)
{
    wbImage_t img = tl_wb_import_image(scratch_path("output.ppm"));
    img->data[index] += delta;
    return img;
}

Test(wb_image, solution_of_an_image_passes_within_libwbs_tolerance)
{
    wbArg_t a = image_args("image", NULL);
    wbImage_t img = answer(1, 0.15f);
    cr_assert(tl_wb_solution_image(a, img));
    tl_wb_image_delete(img);
    char *out = captured_stdout();
    cr_assert(strstr(out, "PASS: all 6 elements within libwb's image tolerance"), "%s", out);
}

Test(wb_image, solution_of_an_image_reports_the_pixel)
{
    wbArg_t a = image_args("IMAGE", NULL);
    wbImage_t img = answer(4, 0.25f);
    cr_assert_not(tl_wb_solution_image(a, img));
    tl_wb_image_delete(img);
    char *out = captured_stdout();
    cr_assert(strstr(out, "FAIL: 1 of 6 elements wrong"), "%s", out);
    cr_assert(strstr(out, "worst (row 0, col 4: pixel x 1, channel 1)"), "%s", out);
}

Test(wb_image, solution_without_a_type_takes_the_image_as_one)
{
    wbArg_t a = image_args(NULL, NULL);
    wbImage_t img = answer(0, 0);
    cr_assert(tl_wb_solution_image(a, img));
    tl_wb_image_delete(img);
}

Test(wb_image, data_handed_over_as_void_with_t_image_is_the_image)
{
    /* libwb's wbSolution(args, data, rows, cols) takes data as the wbImage_t for -t image. */
    wbArg_t a = image_args("image", NULL);
    wbImage_t img = answer(0, 0);
    cr_assert(tl_wb_solution(a, img, 1, 2));
    tl_wb_image_delete(img);
}

Test(wb_image, an_image_under_another_type_exits_with_status_2, .exit_code = 2)
{
    wbArg_t a = image_args("vector", NULL);
    tl_wb_solution_image(a, answer(0, 0));
}

Test(wb_image, output_argument_writes_the_image_as_ppm)
{
    const char *out_path = scratch_path("result.ppm");
    wbArg_t a = image_args("image", out_path);
    wbImage_t img = answer(0, -1.0f); /* 0 where 1 is expected: wrong, still written */
    cr_assert_not(tl_wb_solution_image(a, img));
    tl_wb_image_delete(img);
    FILE *f = fopen(out_path, "rb");
    cr_assert_not_null(f, "-o was not written");
    char bytes[64];
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    /* libwb's levels, ceil(v * 255) in float: 51 and 102 read in come out one above. */
    static const char want[] = "P6\n2 1\n255\n\x00\x00\x34\x00\x67\xff";
    cr_assert_eq(n, sizeof want - 1);
    cr_assert_arr_eq(bytes, want, n);
}

Test(wb_image, import_text_gives_the_chars_and_their_count)
{
    static const char text[] = "abc\ndef";
    int length = -1, cols = -1;
    char *data = tl_wb_import(scratch_write("input.txt", text, sizeof text - 1), &length, &cols,
                              "Text");
    cr_assert_eq(length, 7);
    cr_assert_eq(cols, 1);
    cr_assert_arr_eq(data, text, 7);
    free(data);
}

Test(wb_image, import_of_a_csv_mask)
{
    int rows = 0, cols = 0;
    float *mask = tl_wb_import(scratch_write("input1.csv", "0.25,0.5\n0.75,1\n", 16), &rows,
                               &cols, "Real");
    cr_assert_eq(rows, 2);
    cr_assert_eq(cols, 2);
    const float want[] = {0.25f, 0.5f, 0.75f, 1.0f};
    cr_assert_arr_eq(mask, want, sizeof want);
    free(mask);
}

Test(wb_image, unknown_import_type_exits_with_status_2, .exit_code = 2)
{
    int rows, cols;
    tl_wb_import(scratch_write("input.txt", "x", 1), &rows, &cols, "Blob");
}
