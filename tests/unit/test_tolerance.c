/* The tolerances' building blocks: ulps, libwb's comparison, the quantum of a written value. */
#include "harness.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(ulps, counts_the_floats_between_two_values)
{
    cr_assert_eq(tl_ulps_between(1.0f, 1.0f), 0);
    cr_assert_eq(tl_ulps_between(1.0f, nextafterf(1.0f, 2.0f)), 1);
    cr_assert_eq(tl_ulps_between(nextafterf(1.0f, 0.0f), 1.0f), 1, "symmetric, below 1 too");
    /* [1, 2) holds 2^23 floats. */
    cr_assert_eq(tl_ulps_between(1.0f, 2.0f), UINT64_C(1) << 23);
    cr_assert_eq(tl_ulps_between(-1.0f, -2.0f), UINT64_C(1) << 23);
}

Test(ulps, zero_and_the_sign)
{
    cr_assert_eq(tl_ulps_between(0.0f, -0.0f), 0, "the two zeros are the same value");
    const float tiny = 0x1p-149f; /* the smallest subnormal */
    cr_assert_eq(tl_ulps_between(0.0f, tiny), 1);
    cr_assert_eq(tl_ulps_between(-0.0f, tiny), 1);
    cr_assert_eq(tl_ulps_between(-tiny, tiny), 2, "counted across zero");
    /* From -1 to 1: 0x3f800000 floats on each side of zero. */
    cr_assert_eq(tl_ulps_between(-1.0f, 1.0f), UINT64_C(2) * 0x3f800000);
}

Test(ulps, extremes_and_nan)
{
    cr_assert_eq(tl_ulps_between(FLT_MAX, INFINITY), 1);
    cr_assert_eq(tl_ulps_between(-INFINITY, INFINITY), UINT64_C(2) * 0x7f800000);
    cr_assert_eq(tl_ulps_between(NAN, 1.0f), UINT64_MAX);
    cr_assert_eq(tl_ulps_between(0.0f, NAN), UINT64_MAX);
}

Test(libwb_close, absolute_two_tenths)
{
    cr_assert(tl_libwb_close(10.0f, 10.2f), "0.2 (rounded to float) is within");
    cr_assert(tl_libwb_close(10.0f, 9.8f));
    cr_assert_not(tl_libwb_close(10.0f, 10.25f));
    /* Not relative: a large value one ulp away is 0.25 apart and fails. */
    cr_assert_not(tl_libwb_close(4194304.0f, nextafterf(4194304.0f, INFINITY)));
    /* Small values: anything below 0.2 matches anything below 0.2. */
    cr_assert(tl_libwb_close(0.001f, 0.15f));
}

Test(libwb_close, strict_where_a_side_is_zero)
{
    cr_assert(tl_libwb_close(0.0f, 0.19f));
    cr_assert_not(tl_libwb_close(0.0f, 0.2f), "strictly below 0.2 where expected is 0");
    cr_assert_not(tl_libwb_close(0.2f, 0.0f), "and where got is 0");
    cr_assert(tl_libwb_close(0.5f, 0.3f), "non-zero sides: at most 0.2");
    /* 0.2f + 2^-30 exactly, but rounded to float the difference is 0.2f: libwb passes it. */
    cr_assert(tl_libwb_close(0.2f, -0x1p-30f));
    cr_assert(tl_libwb_close(-0.0f, 0.1f));
}

Test(libwb_close, nan_never)
{
    cr_assert_not(tl_libwb_close(1.0f, NAN));
    cr_assert_not(tl_libwb_close(0.0f, NAN));
    cr_assert_not(tl_libwb_close(1.0f, INFINITY));
}

static double quantum(const char *token)
{
    return tl_text_quantum(token, strlen(token));
}

Test(libgputk_close, two_tenths_and_a_share_of_the_expected_value)
{
    cr_expect(tl_libgputk_close(1.0f, 1.2f));
    cr_expect(!tl_libgputk_close(1.0f, 1.21f));
    /* 0.2 + 1e-5 x the value got: 9.22 at 901935.81 */
    cr_expect(tl_libgputk_close(901936.75f, 901935.81f));
    cr_expect(!tl_libgputk_close(901936.75f, 901926.0f));
    /* The share is of the value got, not of the expected one: 1e-5 x 1e6 = 10 */
    cr_expect(tl_libgputk_close(0, 1e6f) == false);
    cr_expect(tl_libgputk_close(999990.0f, 1e6f));
    cr_expect(!tl_libgputk_close(1e6f, 999989.0f));
    cr_expect(!tl_libgputk_close(0, NAN));
    /* Unlike libwb, 0.2 against an exact 0 is within (no strict case). */
    cr_expect(tl_libgputk_close(0.2f, 0));
    tl_tolerance t;
    cr_assert_eq(tl_tolerance_parse("libgputk", &t), 0);
    cr_expect_eq(t, TL_TOLERANCE_LIBGPUTK);
    cr_expect_str_eq(tl_tolerance_name(TL_TOLERANCE_LIBGPUTK), "libgputk");
}

Test(quantum, half_a_unit_in_the_last_digit)
{
    cr_assert_float_eq(quantum("1.25"), 0.005, 1e-18);
    cr_assert_float_eq(quantum("-0.00"), 0.005, 1e-18);
    cr_assert_float_eq(quantum("+12.5"), 0.05, 1e-18);
    cr_assert_float_eq(quantum("3"), 0.5, 1e-18);
    cr_assert_float_eq(quantum("3."), 0.5, 1e-18);
    cr_assert_float_eq(quantum(".5"), 0.05, 1e-18);
    cr_assert_float_eq(quantum("0.123456791"), 5e-10, 1e-24);
}

Test(quantum, exponents)
{
    cr_assert_float_eq(quantum("1.5e-3"), 5e-5, 1e-20);
    cr_assert_float_eq(quantum("1.5E+3"), 50.0, 1e-12);
    cr_assert_float_eq(quantum("2e2"), 50.0, 1e-12);
    cr_assert_float_eq(quantum("1.000000e-45"), 5e-52, 1e-66);
    cr_assert_eq(quantum("1e-999999999999"), 0.0, "a huge exponent saturates, no overflow");
}

Test(quantum, hex_floats)
{
    cr_assert_eq(quantum("0x1.8p1"), 0x1p-4, "last hex digit 2^(1-4), half of it");
    cr_assert_eq(quantum("0X10P-2"), 0x1p-3);
    cr_assert_eq(quantum("-0x1p0"), 0.5);
}

Test(quantum, not_a_number)
{
    const char *bad[] = {"", "-", ".", "nan", "inf", "1e", "1e+", "1.2.3", "0x", "1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert(isnan(quantum(bad[i])), "\"%s\"", bad[i]);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(fputs(text, f) >= 0, true);
    cr_assert_eq(fclose(f), 0);
}

/* Criterion's assertions evaluate their arguments more than once: read the value first. */
static void expect_next(tl_quanta *q, double want)
{
    double got = tl_quanta_next(q);
    cr_assert_float_eq(got, want, 1e-18, "got %g, expected %g", got, want);
}

Test(quanta, text_files_in_value_order)
{
    char path[] = "/tmp/tilelab-quanta-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    /* Two dimensions on the header line, values on the next lines. */
    write_file(path, "2 2\n1.25 3\n\r\n0.5e1\t-0.125\n");
    tl_quanta q;
    tl_error err;
    cr_assert_eq(tl_quanta_open(&q, path, &err), 0, "%s", err.msg);
    const double want[] = {0.005, 0.5, 0.5, 0.0005};
    for (int i = 0; i < 4; i++)
        expect_next(&q, want[i]);
    cr_assert(isnan(tl_quanta_next(&q)), "past the last value");
    tl_quanta_close(&q);

    /* A column vector: "rows" alone, the first value on the next line. */
    write_file(path, "3\n1.5\n2.25\n7\n");
    cr_assert_eq(tl_quanta_open(&q, path, &err), 0, "%s", err.msg);
    expect_next(&q, 0.05); /* 1.5 is a value, not a header field */
    expect_next(&q, 0.005);
    expect_next(&q, 0.5);
    tl_quanta_close(&q);
    unlink(path);
}

Test(quanta, binary_files_are_exact)
{
    char path[] = "/tmp/tilelab-quanta-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    tl_matrix m;
    tl_error err;
    cr_assert_eq(tl_matrix_alloc(&m, 1, 2, &err), 0);
    m.data[0] = 0.1f;
    m.data[1] = 2.5f;
    cr_assert_eq(tl_matrix_write(path, &m, TL_FORMAT_BINARY, &err), 0, "%s", err.msg);
    tl_matrix_free(&m);
    tl_quanta q;
    cr_assert_eq(tl_quanta_open(&q, path, &err), 0, "%s", err.msg);
    expect_next(&q, 0.0);
    expect_next(&q, 0.0);
    tl_quanta_close(&q);
    unlink(path);
}

Test(quanta, missing_file)
{
    tl_quanta q;
    tl_error err;
    cr_assert_eq(tl_quanta_open(&q, "/nonexistent/output.raw", &err), -1);
    cr_assert(strstr(err.msg, "/nonexistent/output.raw"), "%s", err.msg);
}
