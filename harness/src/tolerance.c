/* Tolerances shared by the dataset checker, the libwb layer and the answer check: the distance of
 * two floats in units in the last place, libwb's own comparison, the rules' names, and how finely
 * a text file wrote a value. */
#include "harness.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Exponents written in a token are clamped here before use: 10^±400 is already 0 or infinite
 * in double, and the clamp keeps the digit count from overflowing an int. */
#define EXPONENT_CLAMP 100000

/* A float's bits as an integer in value order: positives keep their bits, negatives are
 * mirrored below zero, so -0 and +0 meet at 0 and neighbouring floats are neighbouring
 * integers (also across zero and up to the infinities). */
static int64_t ordered(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

uint64_t tl_ulps_between(float a, float b)
{
    if (isnan(a) || isnan(b))
        return UINT64_MAX;
    int64_t d = ordered(a) - ordered(b);
    return d < 0 ? (uint64_t)(-d) : (uint64_t)d;
}

bool tl_libwb_close(float expected, float got)
{
    /* libwb treats an exact zero on either side apart, with a strict comparison. */
    if (expected == 0)
        return fabsf(got) < TL_LIBWB_TOLERANCE;
    if (got == 0)
        return fabsf(expected) < TL_LIBWB_TOLERANCE;
    /* The difference is rounded to float before the comparison, as libwb computes it. */
    float diff = fabsf(expected - got);
    return diff <= TL_LIBWB_TOLERANCE;
}

bool tl_libgputk_close(float expected, float got)
{
    if (isnan(expected) || isnan(got))
        return false;
    /* gpuTKSolution compares (expected, program's value) with _almostEqual(actual, expected),
     * so the share is of the program's value. */
    return fabsf(expected - got) <= TL_LIBWB_TOLERANCE + TL_LIBGPUTK_RELATIVE * fabsf(got);
}

static const char *const rule_names[] = {"bound", "libwb", "exact", "libgputk"};

int tl_tolerance_parse(const char *name, tl_tolerance *out)
{
    for (int i = 0; name && i <= TL_TOLERANCE_LIBGPUTK; i++) {
        if (strcmp(name, rule_names[i]) == 0) {
            *out = (tl_tolerance)i;
            return 0;
        }
    }
    return -1;
}

const char *tl_tolerance_name(tl_tolerance rule)
{
    return (int)rule >= 0 && rule <= TL_TOLERANCE_LIBGPUTK ? rule_names[rule] : "?";
}

static int digit_value(char c, bool hex)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (hex && isxdigit((unsigned char)c))
        return tolower((unsigned char)c) - 'a' + 10;
    return -1;
}

/* Reads [+-]digits at s[*i], saturating at EXPONENT_CLAMP; false if there are no digits. */
static bool read_exponent(const char *s, size_t len, size_t *i, long *out)
{
    bool negative = *i < len && s[*i] == '-';
    if (*i < len && (s[*i] == '-' || s[*i] == '+'))
        (*i)++;
    size_t start = *i;
    long v = 0;
    for (; *i < len && digit_value(s[*i], false) >= 0; (*i)++)
        if (v < EXPONENT_CLAMP)
            v = v * 10 + digit_value(s[*i], false);
    if (v > EXPONENT_CLAMP)
        v = EXPONENT_CLAMP;
    *out = negative ? -v : v;
    return *i > start;
}

double tl_text_quantum(const char *s, size_t len)
{
    size_t i = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    bool hex = len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
    if (hex)
        i += 2;
    size_t digits = 0;
    long decimals = 0;
    for (; i < len && digit_value(s[i], hex) >= 0; i++)
        digits++;
    if (i < len && s[i] == '.') {
        for (i++; i < len && digit_value(s[i], hex) >= 0; i++) {
            digits++;
            if (decimals < EXPONENT_CLAMP)
                decimals++;
        }
    }
    if (digits == 0)
        return NAN;
    long exponent = 0;
    if (i < len && (hex ? (s[i] == 'p' || s[i] == 'P') : (s[i] == 'e' || s[i] == 'E'))) {
        i++;
        if (!read_exponent(s, len, &i, &exponent))
            return NAN;
    }
    if (i != len)
        return NAN;
    /* Half a unit in the last digit written: 10^(exponent - decimals) / 2, or for a hex float
     * 2^(exponent - 4 decimals) / 2. */
    if (hex)
        return ldexp(1.0, (int)(exponent - 4 * decimals - 1));
    return 0.5 * pow(10.0, (double)(exponent - decimals));
}

/* ---- the quanta of a text file's values, in file order -------------------------------------- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips blanks; true if a line ended among them. */
static bool skip_blanks(tl_quanta *q)
{
    bool newline = false;
    for (; q->pos < q->len && is_blank(q->text[q->pos]); q->pos++)
        newline |= q->text[q->pos] == '\n' || q->text[q->pos] == '\r';
    return newline;
}

static void skip_token(tl_quanta *q)
{
    while (q->pos < q->len && !is_blank(q->text[q->pos]))
        q->pos++;
}

static int read_all(const char *path, FILE *f, char **text, size_t *len, tl_error *err)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0)
        return tl_error_set(err, "cannot read %s: %s", path, strerror(errno));
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return tl_error_set(err, "out of memory reading %s (%zu bytes)", path, size);
    if (fseek(f, 0, SEEK_SET) != 0 || fread(buf, 1, size, f) != size) {
        free(buf);
        return tl_error_set(err, "cannot read %s: %s", path,
                            ferror(f) ? strerror(errno) : "it became shorter while read");
    }
    *text = buf;
    *len = size;
    return 0;
}

int tl_quanta_open(tl_quanta *q, const char *path, tl_error *err)
{
    memset(q, 0, sizeof *q);
    FILE *f = fopen(path, "rb");
    if (!f)
        return tl_error_set(err, "cannot open %s: %s", path, strerror(errno));
    unsigned char head[TL_BINARY_MAGIC_BYTES];
    size_t got = fread(head, 1, sizeof head, f);
    int rc = 0;
    if (got != sizeof head || memcmp(head, TL_BINARY_MAGIC, sizeof head) != 0)
        rc = read_all(path, f, &q->text, &q->len, err);
    fclose(f);
    if (rc != 0 || !q->text)
        return rc;
    /* The header is the first token and, on the same line, a second one (the reader's rule). */
    skip_blanks(q);
    skip_token(q);
    size_t after_rows = q->pos;
    if (!skip_blanks(q))
        skip_token(q);
    else
        q->pos = after_rows;
    return 0;
}

double tl_quanta_next(tl_quanta *q)
{
    if (!q->text)
        return 0;
    skip_blanks(q);
    size_t start = q->pos;
    skip_token(q);
    if (q->pos == start)
        return NAN;
    return tl_text_quantum(q->text + start, q->pos - start);
}

void tl_quanta_close(tl_quanta *q)
{
    free(q->text);
    memset(q, 0, sizeof *q);
}
