/* ex2.approx, rcp.approx and rsqrt.approx (f32) as an H100 computes them. The PTX ISA only
 * bounds their error; the GPU's multi-function unit answers from tables. Measured on an H100
 * (tools/mufu-tables.cu), each instruction turned out to be a table over the mantissa (plus the
 * exponent's parity for rsqrt, the fraction truncated to 2^-23 for ex2) scaled by a power of
 * two, and ex2 of a negative number the reciprocal unit's answer for ex2 of its magnitude. The
 * tables hold, per entry, the GPU's result minus an exactly computable reference, in ulps
 * (two bits each: the GPU is never more than 2 ulps from it), compressed with gzip and linked
 * into the library (mufu_tables.S). */
#include "mufu.h"
#include "mufu_reference.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MANTISSA_BITS MUFU_MANTISSA_BITS
#define MANTISSA_MASK 0x7fffffu
#define EXPONENT_BIAS 127
#define CANONICAL_NAN 0x7fffffffu
#define POSITIVE_INF 0x7f800000u
#define SIGN 0x80000000u
#define EX2_TRUNCATION_BITS 23                    /* ex2 sees its input in steps of 2^-23 */
#define EX2_OVERFLOW 128.0f                       /* 2^128 is past the largest float */
#define EX2_UNDERFLOW -152.0f                     /* 2^-152 is below half the least float */
#define DIV_SCALE 0x1p24f                         /* brings a subnormal divisor into range */
#define DIV_APPROX_LIMIT 0x1p126f                 /* div.approx's divisor range ends here */
#define DIV_FULL_SCALE 0.25f                      /* div.full brings a larger one into it */
#define EX2_NORMAL_MIN -126.0f                    /* 2^-126: the least normal float */

extern const unsigned char ptx_mufu_ex2_gz[], ptx_mufu_ex2_gz_end[];
extern const unsigned char ptx_mufu_ex2n_gz[], ptx_mufu_ex2n_gz_end[];
extern const unsigned char ptx_mufu_rcp_gz[], ptx_mufu_rcp_gz_end[];
extern const unsigned char ptx_mufu_rsqrt_gz[], ptx_mufu_rsqrt_gz_end[];

static uint8_t *ex2_codes, *ex2n_codes, *rcp_codes, *rsqrt_codes;
static bool tables_ok;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static uint8_t *inflate_table(const unsigned char *gz, const unsigned char *end, size_t entries)
{
    size_t bytes = entries / 4;
    uint8_t *out = malloc(bytes);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!out || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) { /* 16: a gzip stream */
        free(out);
        return NULL;
    }
    z.next_in = (unsigned char *)(uintptr_t)gz;
    z.avail_in = (uInt)(end - gz);
    z.next_out = out;
    z.avail_out = (uInt)bytes;
    int rc = inflate(&z, Z_FINISH);
    bool whole = rc == Z_STREAM_END && z.total_out == bytes;
    inflateEnd(&z);
    if (!whole) {
        free(out);
        return NULL;
    }
    return out;
}

static void load_tables(void)
{
    ex2_codes = inflate_table(ptx_mufu_ex2_gz, ptx_mufu_ex2_gz_end, MUFU_EX2_ENTRIES);
    ex2n_codes = inflate_table(ptx_mufu_ex2n_gz, ptx_mufu_ex2n_gz_end, MUFU_EX2_ENTRIES);
    rcp_codes = inflate_table(ptx_mufu_rcp_gz, ptx_mufu_rcp_gz_end, MUFU_RCP_ENTRIES);
    rsqrt_codes = inflate_table(ptx_mufu_rsqrt_gz, ptx_mufu_rsqrt_gz_end, MUFU_RSQRT_ENTRIES);
    tables_ok = ex2_codes && ex2n_codes && rcp_codes && rsqrt_codes;
}

bool ptx_mufu_ready(void)
{
    pthread_once(&tables_once, load_tables);
    return tables_ok;
}

static int code(const uint8_t *t, uint32_t i) { return t[i >> 2] >> (2 * (i & 3)) & 3; }

/* m (a value in [2^k, 2^(k+1)) given by its float bits, k within the normal range) scaled by
 * 2^shift, rounded to nearest even where it falls among the subnormals (the GPU scales by a
 * float multiply); with ftz, subnormals are zero. */
static uint32_t scale(uint32_t m, int shift, bool ftz)
{
    int e = (int)(m >> MANTISSA_BITS & 0xff) + shift;
    uint32_t sign = m & SIGN;
    if (e >= 0xff)
        return sign | POSITIVE_INF;
    if (e > 0)
        return sign | (uint32_t)e << MANTISSA_BITS | (m & MANTISSA_MASK);
    if (ftz)
        return sign;
    /* Subnormal: the 24-bit significand shifted right by 1 - e, rounded to nearest even. */
    uint32_t sig = (m & MANTISSA_MASK) | (1u << MANTISSA_BITS);
    int drop = 1 - e;
    if (drop > 24)
        return sign;
    uint32_t kept = sig >> drop, rest = sig & ((1u << drop) - 1), half = 1u << (drop - 1);
    if (rest > half || (rest == half && (kept & 1)))
        kept++;
    return sign | kept;
}

/* A nonzero magnitude's fraction bits and unbiased exponent; subnormals are normalised first
 * (without .ftz, these units read them). */
static uint32_t significand(uint32_t mag, int *e)
{
    if (mag >= (1u << MANTISSA_BITS)) {
        *e = (int)(mag >> MANTISSA_BITS) - EXPONENT_BIAS;
        return mag & MANTISSA_MASK;
    }
    int shift = __builtin_clz(mag) - (32 - 1 - MANTISSA_BITS);
    *e = 1 - EXPONENT_BIAS - shift;
    return (mag << shift) & MANTISSA_MASK;
}

uint32_t ptx_mufu_rcp(uint32_t x, bool ftz)
{
    uint32_t sign = x & SIGN, mag = x & ~SIGN;
    if (mag > POSITIVE_INF)
        return CANONICAL_NAN;
    if (mag == POSITIVE_INF)
        return sign;
    if (mag == 0 || (ftz && mag < (1u << MANTISSA_BITS)))
        return sign | POSITIVE_INF;
    int e;
    uint32_t j = significand(mag, &e);
    uint32_t r = mufu_reference_rcp(j) + (uint32_t)(code(rcp_codes, j) - MUFU_RCP_BIAS);
    /* 1/m lies in (1/2, 1]: 2^-e times it can still pass the largest float for e = -127. */
    return sign | scale(r, -e, ftz);
}

uint32_t ptx_mufu_rsqrt(uint32_t x, bool ftz)
{
    uint32_t mag = x & ~SIGN;
    if (mag > POSITIVE_INF)
        return CANONICAL_NAN;
    if (mag == 0 || (ftz && mag < (1u << MANTISSA_BITS))) /* -0 and its flushed kin: -inf */
        return (x & SIGN) | POSITIVE_INF;
    if (x & SIGN)
        return CANONICAL_NAN;
    if (mag == POSITIVE_INF)
        return 0;
    int e;
    uint32_t j = significand(mag, &e);
    /* x = y * 4^k with y in [1, 4): the odd exponents take the table's upper half. */
    int odd = e & 1, k = (e - odd) / 2;
    uint32_t i = (uint32_t)odd << MANTISSA_BITS | j;
    uint32_t r = mufu_reference_rsqrt(i) + (uint32_t)(code(rsqrt_codes, i) - MUFU_RSQRT_BIAS);
    return scale(r, -k, ftz);
}

uint32_t ptx_mufu_ex2(uint32_t x, bool ftz)
{
    float v = mufu_float(x);
    if (isnan(v))
        return CANONICAL_NAN;
    if (v >= EX2_OVERFLOW)
        return POSITIVE_INF;
    if (v <= EX2_UNDERFLOW)
        return 0;
    /* Without .ftz, results below the normal range come out as the GPU's code makes them:
     * 2^(x/2) squared by a float multiply, rounded to nearest. */
    if (!ftz && v < EX2_NORMAL_MIN) {
        float half = mufu_float(ptx_mufu_ex2(mufu_bits(v * 0.5f), true));
        return mufu_bits(half * half);
    }
    /* |x| in fixed point, 2^-23 steps, truncated; its integer part w and fraction j. Then
     * 2^x = 2^w T+(j) or 2^-w T-(j): one table per sign (2^-f is not the reciprocal of 2^f
     * here). */
    uint32_t t = (uint32_t)ldexp(fabs((double)v), EX2_TRUNCATION_BITS);
    int w = (int)(t >> EX2_TRUNCATION_BITS);
    uint32_t j = t & MANTISSA_MASK;
    if (x & SIGN) {
        uint32_t r = mufu_reference_ex2_negative(j) +
                     (uint32_t)(code(ex2n_codes, j) - MUFU_EX2N_BIAS);
        return scale(r, -w, ftz);
    }
    uint32_t r = mufu_reference_ex2(j) + (uint32_t)(code(ex2_codes, j) - MUFU_EX2_BIAS);
    return scale(r, w, ftz);
}

static float flush(float f) { return fabsf(f) < FLT_MIN ? copysignf(0.0f, f) : f; }

uint32_t ptx_mufu_div(uint32_t a, uint32_t b, bool ftz, bool full)
{
    float fa = mufu_float(a), fb = mufu_float(b), r;
    if (ftz) {
        fa = flush(fa);
        fb = flush(fb);
    }
    float mb = fabsf(fb);
    if (mb != 0.0f && mb < FLT_MIN) /* 1/b would overflow: b scaled up, the quotient back */
        r = fa * mufu_float(ptx_mufu_rcp(mufu_bits(fb * DIV_SCALE), true)) * DIV_SCALE;
    else if (full && mb > DIV_APPROX_LIMIT && !isinf(mb)) /* div.full: both scaled down */
        r = (fa * DIV_FULL_SCALE) * mufu_float(ptx_mufu_rcp(mufu_bits(fb * DIV_FULL_SCALE), true));
    else /* 1/b flushed: beyond 2^126, div.approx gives zero, as the ISA says */
        r = fa * mufu_float(ptx_mufu_rcp(mufu_bits(fb), true));
    if (ftz)
        r = flush(r);
    return isnan(r) ? CANONICAL_NAN : mufu_bits(r);
}

/* The double forms. The unit reads a double's high word only (sign, exponent and 20 bits of
 * mantissa) and answers from the f32 tables: the f32 result, widened, cut to its high word. */
#define F64_SIGN (UINT64_C(1) << 63)
#define F64_INF UINT64_C(0x7ff0000000000000)
#define F64_QUIET (UINT64_C(1) << 51)
#define F64_CANONICAL_NAN UINT64_C(0xfff8000000000000)
#define F64_MANTISSA_BITS 52
#define F64_BIAS 1023
#define F64_HIGH_MANTISSA UINT64_C(0x000fffff00000000)
#define F64_HIGH_WORD UINT64_C(0xffffffff00000000)
#define F64_SUBNORMAL_SCALE 108 /* 2^108 brings any subnormal into the normal range */

static double f64_of(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t bits_of_f64(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* `unit` on the value of the high word of m (a double in [1, 4) whose low word is ignored),
 * scaled by 2^shift; 0 where that leaves the normal range downwards (.ftz). */
static uint64_t high_word_unit(uint32_t (*unit)(uint32_t, bool), uint64_t m, int shift)
{
    float in = (float)f64_of(m & F64_HIGH_WORD); /* 20 bits of mantissa: exact */
    uint64_t r = bits_of_f64((double)mufu_float(unit(mufu_bits(in), true))) & F64_HIGH_WORD;
    int64_t field = (int64_t)(r >> F64_MANTISSA_BITS) + shift;
    if (field <= 0)
        return 0;
    if (field >= 0x7ff)
        return F64_INF;
    return (uint64_t)field << F64_MANTISSA_BITS | (r & ((UINT64_C(1) << F64_MANTISSA_BITS) - 1));
}

uint64_t ptx_mufu_rcp64(uint64_t x)
{
    uint64_t sign = x & F64_SIGN, mag = x & ~F64_SIGN;
    if (mag > F64_INF) /* the f32 unit's NaN in the high word */
        return (uint64_t)CANONICAL_NAN << 32;
    if (mag == F64_INF)
        return sign;
    int field = (int)(mag >> F64_MANTISSA_BITS);
    if (field == 0) /* zero or subnormal, flushed */
        return sign | F64_INF;
    uint64_t m = (uint64_t)F64_BIAS << F64_MANTISSA_BITS | (mag & F64_HIGH_MANTISSA);
    return sign | high_word_unit(ptx_mufu_rcp, m, -(field - F64_BIAS));
}

uint64_t ptx_mufu_rsqrt64(uint64_t x)
{
    uint64_t mag = x & ~F64_SIGN;
    if (mag > F64_INF)
        return x | F64_QUIET;
    if (mag == 0)
        return (x & F64_SIGN) | F64_INF;
    if (x & F64_SIGN)
        return F64_CANONICAL_NAN;
    if (mag == F64_INF)
        return 0;
    int field = (int)(mag >> F64_MANTISSA_BITS);
    if (field == 0) /* subnormal: scaled into range, the result scaled back (exactly) */
        return bits_of_f64(f64_of(ptx_mufu_rsqrt64(bits_of_f64(
                                      f64_of(x) * ldexp(1.0, F64_SUBNORMAL_SCALE)))) *
                           ldexp(1.0, F64_SUBNORMAL_SCALE / 2));
    /* x = m 4^k with m in [1, 4): the unit's estimate y, then the GPU's one refinement step,
     * in the same operations (an H100 runs rsqrt.approx.f64 as this sequence). */
    int e = field - F64_BIAS, odd = e & 1, k = (e - odd) / 2;
    uint64_t m = (uint64_t)(F64_BIAS + odd) << F64_MANTISSA_BITS | (mag & F64_HIGH_MANTISSA);
    double y = f64_of(high_word_unit(ptx_mufu_rsqrt, m, -k)), v = f64_of(x);
    double err = fma(v, -(y * y), 1.0);
    double c = fma(err, 0.375, 0.5);
    double ye = y * err;
    return bits_of_f64(fma(c, ye, y));
}