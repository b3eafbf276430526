/* tl_import_file and tl_image_write: the values and shapes libwb's wbImport gives for images
 * (PPM/PGM, binary and plain, maxval up to 65535), CSV tables, text, and one exact error line
 * for each kind of bad input. */
#include <criterion/criterion.h>

#include "harness.h"
#include "scratch.h"

#include <math.h>

TestSuite(import, .init = scratch_init, .fini = scratch_fini);

/* Imports bytes written to `name`; asserts success. */
static tl_import import_ok(const char *name, const char *bytes, size_t len, tl_import_kind kind)
{
    const char *path = scratch_write(name, bytes, len);
    tl_import imp;
    tl_error err;
    cr_assert_eq(tl_import_file(path, kind, &imp, &err), 0, "%s", err.msg);
    return imp;
}

/* Imports bytes written to `name`; asserts the error is "<path><tail>". */
static void import_bad(const char *name, const char *bytes, size_t len, tl_import_kind kind,
                       const char *tail)
{
    const char *path = scratch_write(name, bytes, len);
    tl_import imp;
    tl_error err = {{0}};
    cr_assert_eq(tl_import_file(path, kind, &imp, &err), -1, "%s was accepted", name);
    cr_assert_null(imp.data);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s%s", path, tail);
    cr_assert_str_eq(err.msg, expected);
}

#define IMPORT_OK(name, text, kind) import_ok(name, text, sizeof text - 1, kind)
#define IMPORT_BAD(name, text, kind, tail) import_bad(name, text, sizeof text - 1, kind, tail)

/* libwb's conversion: the sample times the reciprocal of maxval, in float. */
static float level(unsigned v, unsigned maxval)
{
    return (float)v * (1.0f / (float)maxval);
}

static void assert_image(const tl_import *img, int width, int height, int channels,
                         const unsigned *samples, unsigned maxval)
{
    cr_assert_eq(img->cols, width);
    cr_assert_eq(img->rows, height);
    cr_assert_eq(img->channels, channels);
    size_t n = (size_t)width * (size_t)height * (size_t)channels;
    cr_assert_eq(img->bytes, n * sizeof(float));
    const float *v = img->data;
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(v[i], level(samples[i], maxval), "value %zu: %.9g, expected %u/%u", i,
                     (double)v[i], samples[i], maxval);
}

/* ---- images ------------------------------------------------------------------------------ */

Test(import, p6_with_comments_anywhere_in_the_header)
{
    /* A whole-line comment, one after the width, line breaks between every item. */
    static const char ppm[] = "P6\n# made by hand\n2 # width\n1\n255\n"
                              "\x00\x80\xff\x03\x07\x0c";
    tl_import img = IMPORT_OK("in.ppm", ppm, TL_IMPORT_IMAGE);
    const unsigned samples[] = {0, 128, 255, 3, 7, 12};
    assert_image(&img, 2, 1, 3, samples, 255);
    cr_assert_eq(((float *)img.data)[2], 1.0f, "maxval reads as 1");
    tl_import_free(&img);
    cr_assert_null(img.data);
}

Test(import, p5_with_maxval_65535_reads_two_big_endian_bytes)
{
    static const char pgm[] = "P5 3 1 65535\n\x01\x02\xff\xff\x00\x07";
    tl_import img = IMPORT_OK("in.pgm", pgm, TL_IMPORT_IMAGE);
    const unsigned samples[] = {0x0102, 65535, 7};
    assert_image(&img, 3, 1, 1, samples, 65535);
    tl_import_free(&img);
}

Test(import, crlf_after_the_maxval_when_the_raster_then_fits)
{
    /* A header written in text mode: "\r\n" is one separator when the raster then has its size,
     * and a "\r" followed by a first sample of 10 ('\n') is still one byte of white space. */
    static const char crlf[] = "P5\r\n2 1\r\n255\r\n\x05\x06";
    tl_import img = IMPORT_OK("crlf.pgm", crlf, TL_IMPORT_IMAGE);
    const unsigned want[] = {5, 6};
    assert_image(&img, 2, 1, 1, want, 255);
    tl_import_free(&img);
    static const char cr_then_10[] = "P5\n2 1\n255\r\n\x06";
    img = IMPORT_OK("cr.pgm", cr_then_10, TL_IMPORT_IMAGE);
    const unsigned samples[] = {10, 6};
    assert_image(&img, 2, 1, 1, samples, 255);
    tl_import_free(&img);
}

Test(import, plain_p3_and_p2)
{
    static const char ppm[] = "P3\n# plain\n2 2\n15\n0 1 2   3 4 5\n6 7 8 # row end\n9 10 15\n";
    tl_import img = IMPORT_OK("plain.ppm", ppm, TL_IMPORT_IMAGE);
    const unsigned rgb[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15};
    assert_image(&img, 2, 2, 3, rgb, 15);
    tl_import_free(&img);
    static const char pgm[] = "P2 3 1 300 0 150 300";
    img = IMPORT_OK("plain.pgm", pgm, TL_IMPORT_IMAGE);
    const unsigned gray[] = {0, 150, 300};
    assert_image(&img, 3, 1, 1, gray, 300);
    tl_import_free(&img);
}

Test(import, image_headers_that_are_wrong)
{
    IMPORT_BAD("a.ppm", "", TL_IMPORT_IMAGE, ": empty file (expected a PPM or PGM image)");
    IMPORT_BAD("a.ppm", "P7\n1 1\n255\n", TL_IMPORT_IMAGE,
               ": not a PPM or PGM image: expected \"P6\", \"P5\", \"P3\" or \"P2\" at byte 0, "
               "found \"P7\"");
    IMPORT_BAD("a.ppm", "3 3\n1 2 3", TL_IMPORT_IMAGE,
               ": not a PPM or PGM image: expected \"P6\", \"P5\", \"P3\" or \"P2\" at byte 0, "
               "found \"3 \"");
    IMPORT_BAD("a.ppm", "P6x 1 1 255\n", TL_IMPORT_IMAGE,
               ":1:3: expected white space after the magic number \"P6\", found \"x\"");
    IMPORT_BAD("a.ppm", "P6\n2 x\n255\n", TL_IMPORT_IMAGE,
               ":2:3: expected the height, a decimal number from 1 to 2147483647, found \"x\"");
    IMPORT_BAD("a.ppm", "P6\n0 1\n255\n", TL_IMPORT_IMAGE,
               ":2:1: expected the width, a decimal number from 1 to 2147483647, found \"0\"");
    IMPORT_BAD("a.ppm", "P6\n# no size\n", TL_IMPORT_IMAGE,
               ":3:1: the file ends before the width");
    IMPORT_BAD("a.pgm", "P5\n1 1\n65536\n\x00\x00", TL_IMPORT_IMAGE,
               ":3:1: expected the maxval, a decimal number from 1 to 65535, found \"65536\"");
    IMPORT_BAD("a.ppm", "P6\n1 1\n255#\n\x01\x02\x03", TL_IMPORT_IMAGE,
               ":3:4: expected one white-space character after the maxval, then the raster");
    IMPORT_BAD("a.ppm", "P6\n65536 65536\n255\n", TL_IMPORT_IMAGE,
               ": a 65536 x 65536 image of 3 channels is over the limit of 268435456 values "
               "(TL_MAX_ELEMENTS, 1 GiB of float32)");
}

Test(import, image_rasters_that_are_wrong)
{
    IMPORT_BAD("a.ppm", "P6\n2 1\n255\n\x01\x02\x03\x04\x05", TL_IMPORT_IMAGE,
               ": truncated raster: 5 bytes after the header (which ends at byte 11), but a 2 x 1 "
               "image of 3 channels with maxval 255 has 6");
    IMPORT_BAD("a.pgm", "P5\n2 1\n255\n\x01\x02\n", TL_IMPORT_IMAGE,
               ": bytes after the raster: 3 bytes after the header (which ends at byte 11), but a "
               "2 x 1 image of 1 channel with maxval 255 has 2");
    IMPORT_BAD("a.pgm", "P5\n2 1\n100\n\x01\xc8", TL_IMPORT_IMAGE,
               ": byte 12: sample 200 (row 0, column 1, channel 0) is over the maxval 100");
    IMPORT_BAD("a.pgm", "P5\n1 1\n1000\n\x03\xe9", TL_IMPORT_IMAGE,
               ": byte 12: sample 1001 (row 0, column 0, channel 0) is over the maxval 1000");
    IMPORT_BAD("a.ppm", "P3\n1 2\n255\n0 256 0\n", TL_IMPORT_IMAGE,
               ":4:3: expected sample 2 of 6 (row 0, column 0, channel 1), a decimal number from "
               "0 to the maxval 255, found \"256\"");
    IMPORT_BAD("a.ppm", "P3 1 1 255 1 2\n", TL_IMPORT_IMAGE,
               ":2:1: the file ends after 2 of 3 samples (the header's 1 x 1 x 3)");
    IMPORT_BAD("a.pgm", "P2 1 1 255 1 2\n", TL_IMPORT_IMAGE,
               ":1:14: more samples than the header's 1 x 1 x 1, found \"2\\x0a\"");
}

/* ---- writing images ------------------------------------------------------------------------ */

static char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s was not written", path);
    static char buf[4096];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

Test(import, image_write_clamps_and_rounds_up_as_libwb)
{
    /* libwb's level is ceil(clamp(v, 0, 1) * 255) in float: 0.5 gives 128, NaN 0. */
    const float rgb[] = {0.0f, 0.5f, 1.0f, -1.0f, 2.0f, NAN};
    const char *path = scratch_path("out.ppm");
    tl_error err;
    cr_assert_eq(tl_image_write(path, rgb, 2, 1, 3, &err), 0, "%s", err.msg);
    size_t len;
    char *bytes = file_bytes(path, &len);
    static const char want[] = "P6\n2 1\n255\n\x00\x80\xff\x00\xff\x00";
    cr_assert_eq(len, sizeof want - 1);
    cr_assert_arr_eq(bytes, want, len);

    /* The float of level 3 read back is just above 3/255: libwb's ceil writes 4. */
    const float gray[] = {level(3, 255), level(2, 255)};
    cr_assert_eq(tl_image_write(path, gray, 1, 2, 1, &err), 0, "%s", err.msg);
    bytes = file_bytes(path, &len);
    static const char want_gray[] = "P5\n1 2\n255\n\x04\x02";
    cr_assert_eq(len, sizeof want_gray - 1);
    cr_assert_arr_eq(bytes, want_gray, len);
}

Test(import, image_write_refuses_other_channel_counts)
{
    const float two[] = {0, 0};
    const char *path = scratch_path("out.ppm");
    tl_error err;
    cr_assert_eq(tl_image_write(path, two, 1, 1, 2, &err), -1);
    char expected[512];
    snprintf(expected, sizeof expected,
             "%s: cannot write an image of 2 channels (a PGM has 1, a PPM 3)", path);
    cr_assert_str_eq(err.msg, expected);
    cr_assert_neq(access(path, F_OK), 0, "nothing written");
}

Test(import, written_images_read_back)
{
    const float rgb[] = {0.0f, 0.25f, 1.0f, 0.75f, 0.125f, 0.0f};
    const char *path = scratch_path("round.ppm");
    tl_error err;
    cr_assert_eq(tl_image_write(path, rgb, 1, 2, 3, &err), 0, "%s", err.msg);
    tl_import img;
    cr_assert_eq(tl_import_file(path, TL_IMPORT_IMAGE, &img, &err), 0, "%s", err.msg);
    const unsigned levels[] = {0, 64, 255, 192, 32, 0}; /* ceil of 63.75, 191.25, 31.875 */
    assert_image(&img, 1, 2, 3, levels, 255);
    tl_import_free(&img);
}

/* ---- CSV ----------------------------------------------------------------------------------- */

static void assert_floats(const tl_import *m, int rows, int cols, const float *want)
{
    cr_assert_eq(m->rows, rows);
    cr_assert_eq(m->cols, cols);
    cr_assert_eq(m->channels, 1);
    cr_assert_eq(m->bytes, sizeof(float) * (size_t)rows * (size_t)cols);
    cr_assert_arr_eq(m->data, want, m->bytes);
}

Test(import, csv_as_the_kit_writes_it)
{
    /* The kit's export: "%f" values, commas, a line break after every row. */
    static const char csv[] = "0.040000,0.000000,0.010000\n0.500000,-1.250000,3.000000\n";
    tl_import m = IMPORT_OK("input1.csv", csv, TL_IMPORT_REAL);
    const float want[] = {0.04f, 0, 0.01f, 0.5f, -1.25f, 3};
    assert_floats(&m, 2, 3, want);
    tl_import_free(&m);
}

Test(import, csv_spaces_crlf_and_trailing_blank_lines)
{
    static const char csv[] = " 1 , 2\r\n3,\t4 \r\n\r\n  \n";
    tl_import m = IMPORT_OK("mask.CSV", csv, TL_IMPORT_REAL);
    const float want[] = {1, 2, 3, 4};
    assert_floats(&m, 2, 2, want);
    tl_import_free(&m);
}

Test(import, csv_found_by_its_content_and_tsv_by_its_name)
{
    /* No .csv name, but a comma in the first line: not libwb raw text, whose header has none. */
    static const char csv[] = "1,2\n3,4\n";
    tl_import m = IMPORT_OK("mask.raw", csv, TL_IMPORT_REAL);
    const float want[] = {1, 2, 3, 4};
    assert_floats(&m, 2, 2, want);
    tl_import_free(&m);
    static const char tsv[] = "1\t2\n3\t4\n";
    m = IMPORT_OK("mask.tsv", tsv, TL_IMPORT_REAL);
    assert_floats(&m, 2, 2, want);
    tl_import_free(&m);
    /* One column: nothing but the name tells it from raw text. */
    static const char column[] = "5\n6\n";
    m = IMPORT_OK("column.csv", column, TL_IMPORT_REAL);
    const float col_want[] = {5, 6};
    assert_floats(&m, 2, 1, col_want);
    tl_import_free(&m);
}

Test(import, csv_tables_that_are_wrong)
{
    IMPORT_BAD("m.csv", "1,2,3\n4,5\n", TL_IMPORT_REAL,
               ":2: row 2 has 2 values, row 1 (line 1) has 3: every row of a CSV table has as "
               "many");
    IMPORT_BAD("m.csv", "1,,3\n", TL_IMPORT_REAL,
               ":1:3: expected a number (row 1, column 2), found \"\"");
    IMPORT_BAD("m.csv", "1,2\n3, x\n", TL_IMPORT_REAL,
               ":2:4: expected a number (row 2, column 2), found \"x\"");
    IMPORT_BAD("m.csv", "1,2\n\n3,4\n", TL_IMPORT_REAL,
               ":2: blank line between two rows (a CSV table has one matrix row on each line, "
               "none empty)");
    IMPORT_BAD("m.csv", "\n1,2\n", TL_IMPORT_REAL,
               ":1: blank line before the first row (a CSV table has one matrix row on each "
               "line, none empty)");
    IMPORT_BAD("m.csv", "", TL_IMPORT_REAL,
               ": empty file (expected a CSV table: one matrix row on each line, its values "
               "separated by commas)");
    IMPORT_BAD("m.csv", "1,nan\n", TL_IMPORT_REAL,
               ":1:3: NaN/Inf is not allowed in an input matrix, found \"nan\"");
    IMPORT_BAD("m.csv", "1,2.5\n", TL_IMPORT_INTEGER,
               ": value 2 (row 0, col 1) is 2.5, not an integer (type Integer)");
}

Test(import, integers_from_csv_and_raw)
{
    static const char csv[] = "1,-2\n3,40\n";
    tl_import m = IMPORT_OK("bins.csv", csv, TL_IMPORT_INTEGER);
    const int want[] = {1, -2, 3, 40};
    cr_assert_eq(m.bytes, sizeof want);
    cr_assert_arr_eq(m.data, want, sizeof want);
    tl_import_free(&m);
    static const char raw[] = "4\n1\n-2\n3\n40\n";
    m = IMPORT_OK("bins.raw", raw, TL_IMPORT_INTEGER);
    cr_assert_eq(m.rows, 4);
    cr_assert_eq(m.cols, 1);
    cr_assert_arr_eq(m.data, want, sizeof want);
    tl_import_free(&m);
}

Test(import, raw_text_and_binary_as_before)
{
    static const char raw[] = "2 2\n1 2\n3 4\n";
    tl_import m = IMPORT_OK("a.raw", raw, TL_IMPORT_REAL);
    const float want[] = {1, 2, 3, 4};
    assert_floats(&m, 2, 2, want);
    tl_import_free(&m);
    tl_matrix b = {2, 2, (float *)want};
    tl_error err;
    cr_assert_eq(tl_matrix_write(scratch_path("b.raw"), &b, TL_FORMAT_BINARY, &err), 0);
    cr_assert_eq(tl_import_file(scratch_path("b.raw"), TL_IMPORT_REAL, &m, &err), 0, "%s",
                 err.msg);
    assert_floats(&m, 2, 2, want);
    tl_import_free(&m);
    IMPORT_BAD("c.raw", "2 2\n1 2 3\n", TL_IMPORT_REAL,
               ": ended after 3 of 4 values (header on line 1 says 2 x 2)");
}

/* ---- text ---------------------------------------------------------------------------------- */

Test(import, text_is_the_files_bytes)
{
    static const char text[] = "The quick\nbrown\0fox\r\n";
    tl_import t = IMPORT_OK("input.txt", text, TL_IMPORT_TEXT);
    cr_assert_eq(t.rows, (int)sizeof text - 1);
    cr_assert_eq(t.cols, 1);
    cr_assert_eq(t.bytes, sizeof text - 1);
    cr_assert_arr_eq(t.data, text, sizeof text - 1, "every byte, the NUL and CR included");
    cr_assert_eq(((char *)t.data)[t.bytes], '\0', "a NUL follows, not counted");
    tl_import_free(&t);
    t = import_ok("empty.txt", "", 0, TL_IMPORT_TEXT);
    cr_assert_eq(t.rows, 0);
    cr_assert_eq(t.bytes, 0);
    tl_import_free(&t);
}

Test(import, a_missing_file_is_named)
{
    tl_import imp;
    tl_error err;
    cr_assert_eq(tl_import_file("/nonexistent/in.ppm", TL_IMPORT_IMAGE, &imp, &err), -1);
    cr_assert_str_eq(err.msg, "/nonexistent/in.ppm: cannot open: No such file or directory");
    cr_assert_eq(tl_import_file("/nonexistent/in.txt", TL_IMPORT_TEXT, &imp, &err), -1);
    cr_assert_str_eq(err.msg, "/nonexistent/in.txt: cannot open: No such file or directory");
}
