/* Matrix files: round trips (bit-exact), content detection, the exact text and binary layouts,
 * atomic writes, and one clear error for every kind of bad input in tests/data/malformed. */
#include <criterion/criterion.h>

#include "harness.h"
#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MALFORMED TILELAB_TEST_DATA "/malformed"

/* Names in the scratch folder, sorted and joined with spaces. */
static void list_dir(char *out, size_t size)
{
    char names[16][128];
    int n = 0;
    DIR *d = opendir(scratch_dir);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 16)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(names[n++], sizeof names[0], "%.100s", e->d_name);
    closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char t[128];
                memcpy(t, names[i], sizeof t);
                memcpy(names[i], names[j], sizeof t);
                memcpy(names[j], t, sizeof t);
            }
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strncat(out, " ", size - strlen(out) - 1);
        strncat(out, names[i], size - strlen(out) - 1);
    }
}

static void write_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = realloc(buf, cap + 1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* ---- matrices ---------------------------------------------------------------------------- */

static uint64_t g_rng = 0x9e3779b97f4a7c15u;

static uint32_t rand_u32(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Random finite bit patterns (every exponent, subnormals included), led by the awkward ones. */
static void fill_hard(tl_matrix *m)
{
    static const float special[] = {-0.0f, 0.0f, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN, FLT_MAX,
                                    -FLT_MAX, 0.1f, 1.0f / 3, 16777217.0f, 0x1.fffffep-127f,
                                    1e-40f, -3.4028234e38f, 1.17549421e-38f};
    int64_t n = (int64_t)m->rows * m->cols;
    for (int64_t i = 0; i < n; i++) {
        if (i < (int64_t)(sizeof special / sizeof special[0])) {
            m->data[i] = special[i];
            continue;
        }
        uint32_t u;
        do
            u = rand_u32();
        while ((u & 0x7f800000u) == 0x7f800000u);
        m->data[i] = from_bits(u);
    }
}

static void assert_empty(const tl_matrix *m)
{
    cr_assert_eq(m->rows, 0);
    cr_assert_eq(m->cols, 0);
    cr_assert_null(m->data);
}

static void assert_same(const tl_matrix *got, const tl_matrix *want)
{
    cr_assert_eq(got->rows, want->rows);
    cr_assert_eq(got->cols, want->cols);
    cr_assert_not_null(got->data);
    size_t bytes = (size_t)want->rows * (size_t)want->cols * sizeof(float);
    if (memcmp(got->data, want->data, bytes) != 0) {
        for (size_t i = 0; i < bytes / 4; i++)
            cr_assert_eq(to_bits(got->data[i]), to_bits(want->data[i]),
                         "element %zu: got 0x%08x, want 0x%08x", i, to_bits(got->data[i]),
                         to_bits(want->data[i]));
    }
}

static void roundtrip(int rows, int cols, tl_format format)
{
    tl_error err = {{0}};
    tl_matrix m, back = {0, 0, NULL};
    cr_assert_eq(tl_matrix_alloc(&m, rows, cols, &err), 0, "%s", err.msg);
    fill_hard(&m);
    const char *path = scratch_path(format == TL_FORMAT_TEXT ? "m.raw" : "m.bin");
    cr_assert_eq(tl_matrix_write(path, &m, format, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_read(path, &back, &err), 0, "%s", err.msg);
    assert_same(&back, &m);
    tl_matrix_free(&m);
    tl_matrix_free(&back);
}

static void parse_ok(const char *text, tl_matrix *m)
{
    tl_error err = {{0}};
    cr_assert_eq(tl_matrix_parse("mem.raw", text, strlen(text), m, &err), 0, "%s", err.msg);
}

/* Parses, expects failure with `phrase` in a one-line message, and an untouched-empty matrix. */
static void parse_bad(const char *text, size_t len, const char *phrase)
{
    tl_error err = {{0}};
    tl_matrix m = {7, 7, (float *)&m};
    cr_assert_eq(tl_matrix_parse("mem.raw", text, len, &m, &err), -1);
    assert_empty(&m);
    cr_assert_not_null(strstr(err.msg, phrase), "message \"%s\" lacks \"%s\"", err.msg, phrase);
    cr_assert_null(strchr(err.msg, '\n'), "message has a newline: %s", err.msg);
}

/* ---- allocation -------------------------------------------------------------------------- */

Test(matrix_io, alloc_and_free)
{
    tl_error err = {{0}};
    tl_matrix m;
    cr_assert_eq(tl_matrix_alloc(&m, 3, 4, &err), 0, "%s", err.msg);
    cr_assert_eq(m.rows, 3);
    cr_assert_eq(m.cols, 4);
    cr_assert_not_null(m.data);
    m.data[11] = 1.0f;
    tl_matrix_free(&m);
    assert_empty(&m);
    tl_matrix_free(&m); /* freeing an empty matrix is harmless */
    tl_matrix_free(NULL);
}

Test(matrix_io, alloc_rejects_bad_shapes)
{
    static const int shapes[][2] = {{0, 3}, {3, 0}, {-1, 5}, {5, -7}, {70000, 70000},
                                    {1 << 28, 2}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        tl_error err = {{0}};
        tl_matrix m;
        cr_assert_eq(tl_matrix_alloc(&m, shapes[i][0], shapes[i][1], &err), -1);
        assert_empty(&m);
        cr_assert_neq(err.msg[0], '\0');
    }
    tl_error err = {{0}};
    tl_matrix m;
    tl_matrix_alloc(&m, 70000, 70000, &err);
    cr_assert_not_null(strstr(err.msg, "4900000000 elements, over the limit of 268435456"), "%s",
                       err.msg);
}

/* ---- round trips --------------------------------------------------------------------------- */

Test(matrix_io, text_roundtrip_shapes, .init = scratch_init, .fini = scratch_fini)
{
    roundtrip(1, 1, TL_FORMAT_TEXT);
    roundtrip(1, 37, TL_FORMAT_TEXT);
    roundtrip(37, 1, TL_FORMAT_TEXT);
    roundtrip(300, 7, TL_FORMAT_TEXT);
    roundtrip(64, 65, TL_FORMAT_TEXT);
}

Test(matrix_io, binary_roundtrip_shapes, .init = scratch_init, .fini = scratch_fini)
{
    roundtrip(1, 1, TL_FORMAT_BINARY);
    roundtrip(1, 37, TL_FORMAT_BINARY);
    roundtrip(37, 1, TL_FORMAT_BINARY);
    roundtrip(300, 7, TL_FORMAT_BINARY);
    roundtrip(64, 65, TL_FORMAT_BINARY);
}

Test(matrix_io, text_roundtrip_every_exponent, .init = scratch_init, .fini = scratch_fini)
{
    /* One value per exponent (both signs, random mantissa) so every binade is exercised. */
    tl_error err = {{0}};
    tl_matrix m, back;
    cr_assert_eq(tl_matrix_alloc(&m, 2, 255, &err), 0);
    for (uint32_t e = 0; e < 255; e++) {
        m.data[e] = from_bits(e << 23 | (rand_u32() & 0x7fffffu));
        m.data[255 + e] = from_bits(0x80000000u | e << 23 | (rand_u32() & 0x7fffffu));
    }
    cr_assert_eq(tl_matrix_write(scratch_path("e.raw"), &m, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_read(scratch_path("e.raw"), &back, &err), 0, "%s", err.msg);
    assert_same(&back, &m);
    tl_matrix_free(&m);
    tl_matrix_free(&back);
}

Test(matrix_io, text_write_exact_layout, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1.0f, -0.0f, 0.1f, FLT_TRUE_MIN, FLT_MAX, 100.0f};
    tl_matrix m = {2, 3, v};
    cr_assert_eq(tl_matrix_write(scratch_path("x.raw"), &m, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    size_t len;
    char *s = read_bytes(scratch_path("x.raw"), &len);
    cr_assert_str_eq(s, "2 3\n1 -0 0.100000001\n1.40129846e-45 3.40282347e+38 100\n");
    free(s);
}

Test(matrix_io, binary_write_exact_layout, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1.0f, -2.0f, 0.5f};
    tl_matrix m = {1, 3, v};
    cr_assert_eq(tl_matrix_write(scratch_path("x.bin"), &m, TL_FORMAT_BINARY, &err), 0, "%s", err.msg);
    static const unsigned char want[] = {
        'T', 'I', 'L', 'E', 'L', 'A', 'B', 0, 1, 0, 0, 0, 1, 0, 0, 0, /* magic, version, type */
        1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,               /* rows, cols */
        0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x3f};
    size_t len;
    char *s = read_bytes(scratch_path("x.bin"), &len);
    cr_assert_eq(len, sizeof want);
    cr_assert_eq(memcmp(s, want, sizeof want), 0);
    free(s);
}

/* ---- text details -------------------------------------------------------------------------- */

Test(matrix_io, rows_only_header_means_one_column)
{
    tl_matrix m;
    parse_ok("3\n1.5\n-2\n4e-3\n", &m);
    cr_assert_eq(m.rows, 3);
    cr_assert_eq(m.cols, 1);
    cr_assert_eq(m.data[0], 1.5f);
    cr_assert_eq(m.data[1], -2.0f);
    cr_assert_eq(m.data[2], 4e-3f);
    tl_matrix_free(&m);
}

Test(matrix_io, crlf_tabs_and_free_layout)
{
    tl_matrix m;
    parse_ok("\r\n2\t3\r\n1\t2 \t3\r\n\r\n4\r\n5 6", &m);
    cr_assert_eq(m.rows, 2);
    cr_assert_eq(m.cols, 3);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(m.data[i], (float)(i + 1));
    tl_matrix_free(&m);
}

Test(matrix_io, line_numbers_count_crlf_once)
{
    /* CRLF is one line end: the bad token is on line 3, not line 5. */
    static const char s[] = "1 2\r\n1\r\nx\r\n";
    parse_bad(s, sizeof s - 1, "mem.raw:3:1: expected a number (value 2 of 2), found \"x\"");
    static const char t[] = "\n\n2 1\n1\n";
    parse_bad(t, sizeof t - 1, "mem.raw: ended after 1 of 2 values (header on line 3 says 2 x 1)");
}

Test(matrix_io, underflow_is_accepted_overflow_is_not)
{
    tl_matrix m;
    parse_ok("1 3\n1e-40 1e-50 -1e-46\n", &m);
    cr_assert_eq(to_bits(m.data[0]), to_bits(strtof("1e-40", NULL)));
    cr_assert_eq(to_bits(m.data[1]), 0u);
    cr_assert_eq(to_bits(m.data[2]), 0x80000000u, "-1e-46 must read as -0.0");
    tl_matrix_free(&m);
    static const char s[] = "1 2\n1 -1e39\n";
    parse_bad(s, sizeof s - 1, "mem.raw:2:3: value out of float32 range, found \"-1e39\"");
}

Test(matrix_io, parse_does_not_need_a_terminator)
{
    /* Exactly-sized heap copies: reading one byte past the end is caught by ASan. */
    static const char *texts[] = {"2 2\n1 2 3 4", "1", "2 2\n1 2 3 4.", "1 1\n123456789",
                                  "TILELAB"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        size_t len = strlen(texts[i]);
        char *buf = malloc(len);
        memcpy(buf, texts[i], len);
        tl_error err = {{0}};
        tl_matrix m;
        int rc = tl_matrix_parse("mem.raw", buf, len, &m, &err);
        if (i == 0 || i == 2 || i == 3) {
            cr_assert_eq(rc, 0, "%s: %s", texts[i], err.msg);
            cr_assert_eq(m.data[m.rows * m.cols - 1], i == 0 ? 4.0f : i == 2 ? 4.0f : 123456789.0f);
        } else {
            cr_assert_eq(rc, -1, "%s", texts[i]);
        }
        tl_matrix_free(&m);
        free(buf);
    }
}

Test(matrix_io, lying_header_is_reported_without_a_huge_allocation)
{
    static const char s[] = "16384 16384\n1 2 3\n";
    parse_bad(s, sizeof s - 1, "mem.raw: ended after 3 of 268435456 values (header on line 1 "
                               "says 16384 x 16384)");
    static const char t[] = "16384 16384\n1 2 x\n";
    parse_bad(t, sizeof t - 1, "mem.raw:2:5: expected a number (value 3 of 268435456)");
}

Test(matrix_io, magic_prefix_alone_is_text)
{
    parse_bad("TILELA", 6, "mem.raw:1:1: expected the number of rows, found \"TILELA\"");
}

Test(matrix_io, messages_stay_one_line)
{
    tl_error err = {{0}};
    tl_matrix m;
    static const char s[] = "1 1\n\"\x1b[31m\n";
    cr_assert_eq(tl_matrix_parse("odd\nname.raw", s, sizeof s - 1, &m, &err), -1);
    cr_assert_null(strchr(err.msg, '\n'), "%s", err.msg);
    cr_assert_null(strchr(err.msg, '\x1b'), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "odd\\x0aname.raw:2:1: expected a number"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "found \"\\x22\\x1b[31m\""), "%s", err.msg);
}

/* ---- binary details and format detection -------------------------------------------------- */

Test(matrix_io, binary_parse_from_unaligned_bytes)
{
    unsigned char buf[1 + 32 + 8];
    static const unsigned char hdr[32] = {'T', 'I', 'L', 'E', 'L', 'A', 'B', 0, 1, 0, 0, 0, 1, 0,
                                          0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    static const unsigned char payload[8] = {0x00, 0x00, 0x40, 0x40, 0x01, 0x00, 0x00, 0x80};
    memcpy(buf + 1, hdr, 32);
    memcpy(buf + 33, payload, 8);
    tl_error err = {{0}};
    tl_matrix m;
    cr_assert_eq(tl_matrix_parse("mem.bin", buf + 1, 40, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(m.rows, 2);
    cr_assert_eq(m.cols, 1);
    cr_assert_eq(m.data[0], 3.0f);
    cr_assert_eq(to_bits(m.data[1]), 0x80000001u, "negative subnormal kept bit for bit");
    tl_matrix_free(&m);
}

Test(matrix_io, format_is_detected_by_content, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1.25f, -3.5f, 1e-30f, 7.0f};
    tl_matrix m = {2, 2, v}, a, b;
    cr_assert_eq(tl_matrix_write(scratch_path("binary.raw"), &m, TL_FORMAT_BINARY, &err), 0);
    cr_assert_eq(tl_matrix_write(scratch_path("text.bin"), &m, TL_FORMAT_TEXT, &err), 0);
    size_t len;
    char *s = read_bytes(scratch_path("binary.raw"), &len);
    cr_assert_eq(memcmp(s, "TILELAB", 8), 0);
    free(s);
    s = read_bytes(scratch_path("text.bin"), &len);
    cr_assert_eq(strncmp(s, "2 2\n", 4), 0);
    free(s);
    cr_assert_eq(tl_matrix_read(scratch_path("binary.raw"), &a, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_read(scratch_path("text.bin"), &b, &err), 0, "%s", err.msg);
    assert_same(&a, &m);
    assert_same(&b, &m);
    tl_matrix_free(&a);
    tl_matrix_free(&b);
}

/* ---- reading errors ------------------------------------------------------------------------ */

Test(matrix_io, missing_file_and_folder)
{
    tl_error err = {{0}};
    tl_matrix m = {1, 1, NULL};
    cr_assert_eq(tl_matrix_read("no/such/dir/a.raw", &m, &err), -1);
    assert_empty(&m);
    cr_assert_str_eq(err.msg, "no/such/dir/a.raw: cannot open: No such file or directory");
    cr_assert_eq(tl_matrix_read(TILELAB_TEST_DATA, &m, &err), -1);
    assert_empty(&m);
    cr_assert_not_null(strstr(err.msg, ": cannot read: Is a directory"), "%s", err.msg);
}

/* ---- the malformed fixtures ------------------------------------------------------------------ */

static void expect_bad_file(const char *file, const char *phrase)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MALFORMED, file);
    tl_error err = {{0}};
    tl_matrix m = {3, 3, (float *)&err};
    cr_assert_eq(tl_matrix_read(path, &m, &err), -1, "%s read without error", file);
    assert_empty(&m);
    cr_assert_eq(strncmp(err.msg, path, strlen(path)), 0, "message lacks the path in front: %s",
                 err.msg);
    cr_assert_null(strchr(err.msg, '\n'), "message has a newline: %s", err.msg);
    cr_assert_not_null(strstr(err.msg, phrase), "%s: message \"%s\" lacks \"%s\"", file, err.msg,
                       phrase);
}

Test(malformed, header_errors_give_line_and_column)
{
    expect_bad_file("empty.raw", "empty.raw: empty file (expected a header line \"rows cols\")");
    expect_bad_file("header_not_numeric.raw",
                    "header_not_numeric.raw:1:1: expected the number of rows, found \"abc\"");
    expect_bad_file("negative_cols.raw", "negative_cols.raw:1:3: number of columns must be a "
                                         "positive integer, found \"-4\"");
    expect_bad_file("fractional_rows.raw", ":1:1: number of rows must be a positive integer, "
                                           "found \"3.5\"");
    expect_bad_file("sign_garbage_rows.raw", ":1:1: expected the number of rows, found \"+-3\"");
    expect_bad_file("rows_overflow.raw", ":1:1: number of rows must be a positive integer <= "
                                         "2147483647, found \"4294967297\"");
    expect_bad_file("header_third_field.raw", ":1:5: unexpected third field on the header line");
    expect_bad_file("too_many_elements.raw",
                    "too_many_elements.raw:1: matrix 70000 x 70000 has 4900000000 elements, over "
                    "the limit of 268435456 (TL_MAX_ELEMENTS, 1 GiB of float32)");
}

Test(malformed, value_errors_give_line_and_column)
{
    expect_bad_file("bad_token.raw",
                    "bad_token.raw:5:17: expected a number (value 23 of 24), found \"1.2.3\"");
    expect_bad_file("too_few_values.raw", "too_few_values.raw: ended after 20 of 24 values (header "
                                          "on line 1 says 4 x 6)");
    expect_bad_file("too_many_values.raw", "too_many_values.raw:10:1: more values than the "
                                           "header's 4 x 6 = 24, found \"0.5\"");
    expect_bad_file("nan_value.raw",
                    "nan_value.raw:3:8: NaN/Inf is not allowed in an input matrix, found \"nan\"");
    expect_bad_file("inf_value.raw", ":2:3: NaN/Inf is not allowed in an input matrix, found "
                                     "\"inf\"");
    expect_bad_file("infinity_value.raw", ":2:1: NaN/Inf is not allowed in an input matrix, "
                                          "found \"-Infinity\"");
    expect_bad_file("overflow_value.raw", ":2:1: value out of float32 range, found \"1e39\"");
    expect_bad_file("long_token.raw", ":2:1: expected a number (value 1 of 1), but this token "
                                      "has 71 characters (at most 64), found \"1000");
}

Test(malformed, binary_errors)
{
    expect_bad_file("binary_truncated.raw", "binary_truncated.raw: truncated binary payload: 40 "
                                            "bytes of data, header says 4 x 6 float32 needs 96");
    expect_bad_file("binary_bad_version.raw", "binary_bad_version.raw: unsupported binary version "
                                              "7 (this tilelab reads version 1)");
    expect_bad_file("binary_bad_type.raw", "unsupported binary element type 2");
    expect_bad_file("binary_short_header.raw", "truncated binary header: 20 bytes, needs 32");
    expect_bad_file("binary_trailing_bytes.raw", "4 trailing bytes after the binary payload");
    expect_bad_file("binary_nan.raw", "NaN/Inf is not allowed in an input matrix, found nan at "
                                      "(row 1, col 2)");
    expect_bad_file("binary_inf.raw", "found -inf at (row 0, col 1)");
    expect_bad_file("binary_zero_rows.raw", "number of rows must be a positive integer");
    expect_bad_file("binary_huge_dims.raw", "found 4294967297");
    expect_bad_file("binary_too_many_elements.raw", "over the limit of 268435456");
}

/* The README's table is the list of fixtures: every row must hold for its file, and every file
 * in the folder must have a row. */
Test(malformed, readme_lists_every_fixture_and_its_phrase)
{
    size_t len;
    char *readme = read_bytes(MALFORMED "/README.md", &len);
    char files[64][64];
    int nfiles = 0;
    for (char *line = strtok(readme, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "## ", 3) == 0)
            break;
        if (strncmp(line, "| `", 3) != 0)
            continue;
        char *f = line + 3, *fe = strchr(f, '`');
        cr_assert_not_null(fe, "bad README row: %s", line);
        char *p = strchr(fe + 1, '`');
        cr_assert_not_null(p, "README row without a phrase: %s", line);
        char *pe = strrchr(p + 1, '`');
        cr_assert(pe && pe > p, "README row without a phrase: %s", line);
        *fe = '\0';
        *pe = '\0';
        cr_assert_lt(nfiles, 64);
        snprintf(files[nfiles++], sizeof files[0], "%s", f);
        expect_bad_file(f, p + 1);
    }
    free(readme);
    cr_assert_geq(nfiles, 25, "only %d rows in the README table", nfiles);

    DIR *d = opendir(MALFORMED);
    cr_assert_not_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
            continue;
        bool listed = false;
        for (int i = 0; i < nfiles && !listed; i++)
            listed = strcmp(files[i], e->d_name) == 0;
        cr_assert(listed, "%s is not in malformed/README.md", e->d_name);
    }
    closedir(d);
}

/* Every valid data file shipped with the tests (anything outside malformed/) goes through
 * read -> write -> read in both formats unchanged; a libwb-style sample always does. */
static int roundtrip_file(const char *path, const char *name)
{
    tl_error err = {{0}};
    tl_matrix m, t, b;
    cr_assert_eq(tl_matrix_read(path, &m, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_write(scratch_path("rt.raw"), &m, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_write(scratch_path("rt.bin"), &m, TL_FORMAT_BINARY, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_read(scratch_path("rt.raw"), &t, &err), 0, "%s: %s", name, err.msg);
    cr_assert_eq(tl_matrix_read(scratch_path("rt.bin"), &b, &err), 0, "%s: %s", name, err.msg);
    assert_same(&t, &m);
    assert_same(&b, &m);
    tl_matrix_free(&m);
    tl_matrix_free(&t);
    tl_matrix_free(&b);
    return 1;
}

static int roundtrip_tree(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "malformed") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        size_t nl = strlen(e->d_name);
        bool matrix = nl > 4 && (strcmp(e->d_name + nl - 4, ".raw") == 0 ||
                                 strcmp(e->d_name + nl - 4, ".bin") == 0);
        if (S_ISDIR(st.st_mode))
            n += roundtrip_tree(path);
        else if (S_ISREG(st.st_mode) && matrix && st.st_size < (8 << 20))
            n += roundtrip_file(path, e->d_name);
    }
    closedir(d);
    return n;
}

Test(matrix_io, fixture_files_survive_write_then_read, .init = scratch_init, .fini = scratch_fini)
{
    static const char sample[] = "3 4\n"
                                 "0.5 -1.25 3e-2 7\n"
                                 "1.00000001 -0 4.4e-39 1e-45\n"
                                 "340282346638528859811704183484516925440 2 .5 -6.\n";
    write_bytes(scratch_path("sample.raw"), sample, sizeof sample - 1);
    cr_assert_eq(roundtrip_file(scratch_path("sample.raw"), "sample.raw"), 1);
    int n = roundtrip_tree(TILELAB_TEST_DATA);
    cr_log_info("%d data files outside malformed/ round-tripped", n);
}

/* ---- writing ------------------------------------------------------------------------------ */

Test(matrix_io, atomic_write_leaves_only_the_target, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1, 2, 3, 4, 5, 6};
    tl_matrix m = {3, 2, v};
    for (int i = 0; i < 3; i++)
        cr_assert_eq(tl_matrix_write(scratch_path("out.raw"), &m, i % 2 ? TL_FORMAT_BINARY
                                                                   : TL_FORMAT_TEXT, &err), 0);
    cr_assert_eq(tl_matrix_write(scratch_path("out.bin"), &m, TL_FORMAT_BINARY, &err), 0);
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "out.bin out.raw");
}

/* A kernel's result keeps its NaN (never written) and Inf elements; as an input it is refused,
 * and a text file is no result. */
Test(matrix_io, result_files_keep_nan_and_inf, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1, NAN, 3, -INFINITY};
    tl_matrix m = {2, 2, v}, back;
    const char *path = scratch_path("p.raw");
    cr_assert_eq(tl_matrix_write(path, &m, TL_FORMAT_BINARY, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_read(path, &back, &err), -1);
    cr_assert(strstr(err.msg, "NaN/Inf is not allowed") != NULL, "%s", err.msg);
    cr_assert_eq(tl_matrix_read_result(path, &back, &err), 0, "%s", err.msg);
    cr_assert_eq(back.rows, 2);
    cr_assert_eq(back.cols, 2);
    cr_expect_eq(back.data[0], 1.0f);
    cr_expect(isnan(back.data[1]));
    cr_expect_eq(back.data[2], 3.0f);
    cr_expect(isinf(back.data[3]) && back.data[3] < 0);
    tl_matrix_free(&back);
    const char *text = scratch_path("t.raw");
    cr_assert_eq(tl_matrix_write(text, &m, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    cr_assert_eq(tl_matrix_read_result(text, &back, &err), -1);
    cr_expect(strstr(err.msg, "t.raw: not a result file") != NULL, "%s", err.msg);
}

Test(matrix_io, write_replaces_an_existing_file, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    const char *path = scratch_path("old.raw");
    write_bytes(path, "this is not a matrix, and it is rather longer than the new file\n", 64);
    struct stat before;
    cr_assert_eq(stat(path, &before), 0);
    cr_assert_eq(chmod(path, 0640), 0);
    float v[] = {9.5f};
    tl_matrix m = {1, 1, v}, back;
    cr_assert_eq(tl_matrix_write(path, &m, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    size_t len;
    char *s = read_bytes(path, &len);
    cr_assert_str_eq(s, "1 1\n9.5\n");
    free(s);
    struct stat after;
    cr_assert_eq(stat(path, &after), 0);
    cr_assert_neq(after.st_ino, before.st_ino, "expected a rename over the old file");
    cr_assert_eq(after.st_mode & 0777, 0640u, "the replaced file's permissions are kept");
    cr_assert_eq(tl_matrix_read(path, &back, &err), 0, "%s", err.msg);
    assert_same(&back, &m);
    tl_matrix_free(&back);
}

Test(matrix_io, new_files_get_umask_permissions, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1};
    tl_matrix m = {1, 1, v};
    umask(022);
    cr_assert_eq(tl_matrix_write(scratch_path("p.raw"), &m, TL_FORMAT_TEXT, &err), 0, "%s", err.msg);
    struct stat st;
    cr_assert_eq(stat(scratch_path("p.raw"), &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0644u, "got %o (mkstemp's 0600 leaked through?)",
                 (unsigned)(st.st_mode & 0777));
}

Test(matrix_io, write_to_missing_folder_fails, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1};
    tl_matrix m = {1, 1, v};
    const char *path = scratch_path("nope/m.raw");
    cr_assert_eq(tl_matrix_write(path, &m, TL_FORMAT_TEXT, &err), -1);
    char want[512];
    snprintf(want, sizeof want, "%s: cannot create a temporary file in its folder: No such file "
                                "or directory", path);
    cr_assert_str_eq(err.msg, want);
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "");
}

Test(matrix_io, failed_rename_removes_the_temporary, .init = scratch_init, .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1, 2};
    tl_matrix m = {1, 2, v};
    cr_assert_eq(mkdir(scratch_path("target"), 0755), 0);
    cr_assert_eq(tl_matrix_write(scratch_path("target"), &m, TL_FORMAT_BINARY, &err), -1);
    cr_assert_not_null(strstr(err.msg, "target: cannot replace the file: Is a directory"), "%s",
                       err.msg);
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "target");
}

Test(matrix_io, write_rejects_empty_or_oversized_matrices, .init = scratch_init,
     .fini = scratch_fini)
{
    tl_error err = {{0}};
    float v[] = {1};
    tl_matrix empty = {0, 0, NULL}, nodata = {1, 1, NULL}, huge = {70000, 70000, v};
    cr_assert_eq(tl_matrix_write(scratch_path("a.raw"), &empty, TL_FORMAT_TEXT, &err), -1);
    cr_assert_not_null(strstr(err.msg, "cannot write an empty matrix"), "%s", err.msg);
    cr_assert_eq(tl_matrix_write(scratch_path("a.raw"), &nodata, TL_FORMAT_TEXT, &err), -1);
    cr_assert_eq(tl_matrix_write(scratch_path("a.raw"), &huge, TL_FORMAT_BINARY, &err), -1);
    cr_assert_not_null(strstr(err.msg, "over the limit"), "%s", err.msg);
    char names[512];
    list_dir(names, sizeof names);
    cr_assert_str_eq(names, "");
}
