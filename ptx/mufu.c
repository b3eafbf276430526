/* ex2.approx, rcp.approx and rsqrt.approx (f32) as an H100 computes them. The PTX ISA only
 * bounds their error; the GPU's multi-function unit answers from tables. Measured on an H100
 * (tools/mufu-tables.cu), each instruction turned out to be a table over the mantissa (plus the
 * exponent's parity for rsqrt, the fraction truncated to 2^-23 for ex2) scaled by a power of
 * two, and ex2 of a negative number the reciprocal unit's answer for ex2 of its magnitude. The
 * tables hold, per entry, the GPU's result minus an exactly computable reference, in ulps
 * (two bits each: the GPU is never more than 2 ulps from it), compressed with gzip and linked
 * into the library (mufu_tables.S). */
#include "mufu.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MANTISSA_BITS 23
#define MANTISSA_MASK 0x7fffffu
#define EXPONENT_BIAS 127
#define CANONICAL_NAN 0x7fffffffu
#define POSITIVE_INF 0x7f800000u
#define SIGN 0x80000000u
#define EX2_ENTRIES (1u << MANTISSA_BITS)         /* 2^f for f = j / 2^23 */
#define RCP_ENTRIES (1u << MANTISSA_BITS)         /* 1/m for m = 1 + j / 2^23 */
#define RSQRT_ENTRIES (2u << MANTISSA_BITS)       /* 1/sqrt(y) for y in [1, 4) */
#define EX2_TRUNCATION_BITS 23                    /* ex2 sees its input in steps of 2^-23 */
#define EX2_OVERFLOW 128.0f                       /* 2^128 is past the largest float */

extern const unsigned char ptx_mufu_ex2_gz[], ptx_mufu_ex2_gz_end[];
extern const unsigned char ptx_mufu_rcp_gz[], ptx_mufu_rcp_gz_end[];
extern const unsigned char ptx_mufu_rsqrt_gz[], ptx_mufu_rsqrt_gz_end[];

static uint8_t *ex2_codes, *rcp_codes, *rsqrt_codes;
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
    ex2_codes = inflate_table(ptx_mufu_ex2_gz, ptx_mufu_ex2_gz_end, EX2_ENTRIES);
    rcp_codes = inflate_table(ptx_mufu_rcp_gz, ptx_mufu_rcp_gz_end, RCP_ENTRIES);
    rsqrt_codes = inflate_table(ptx_mufu_rsqrt_gz, ptx_mufu_rsqrt_gz_end, RSQRT_ENTRIES);
    tables_ok = ex2_codes && rcp_codes && rsqrt_codes;
}

bool ptx_mufu_ready(void)
{
    pthread_once(&tables_once, load_tables);
    return tables_ok;
}

static int code(const uint8_t *t, uint32_t i) { return t[i >> 2] >> (2 * (i & 3)) & 3; }

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The references the tables are relative to: operations whose results are the same on any
 * IEEE machine. 2^f by a Taylor series in double, term by term (no fused operations: the
 * library is built with -ffp-contract=off). */
static float reference_ex2(double f)
{
    const double ln2 = 0.6931471805599453094;
    double t = f * ln2, term = 1.0, sum = 1.0;
    for (int n = 1; n <= 20; n++) {
        term = term * t / n;
        sum = sum + term;
    }
    return (float)sum;
}

/* m (a value in [2^k, 2^(k+1)) given by its float bits, k within the normal range) scaled by
 * 2^shift, rounded to nearest even where it falls among the subnormals; with ftz, subnormals
 * are zero. */
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

uint32_t ptx_mufu_rcp(uint32_t x, bool ftz)
{
    uint32_t sign = x & SIGN, mag = x & ~SIGN;
    if (mag > POSITIVE_INF)
        return CANONICAL_NAN;
    if (mag == POSITIVE_INF)
        return sign;
    if (mag < (1u << MANTISSA_BITS)) /* zero, or subnormal: read as zero by this unit */
        return sign | POSITIVE_INF;
    uint32_t j = mag & MANTISSA_MASK;
    float m = float_of(0x3f800000u | j);
    uint32_t r = bits_of(1.0f / m) + (uint32_t)(code(rcp_codes, j) - 1);
    int e = (int)(mag >> MANTISSA_BITS) - EXPONENT_BIAS;
    return sign | scale(r, -e, ftz);
}

uint32_t ptx_mufu_rsqrt(uint32_t x, bool ftz)
{
    uint32_t mag = x & ~SIGN;
    if (mag > POSITIVE_INF)
        return CANONICAL_NAN;
    if (mag == 0)
        return (x & SIGN) | POSITIVE_INF;
    if (x & SIGN)
        return CANONICAL_NAN;
    if (mag == POSITIVE_INF)
        return 0;
    int e;
    uint32_t j;
    if (mag < (1u << MANTISSA_BITS)) {
        if (ftz)
            return POSITIVE_INF;
        /* A subnormal: normalised first (this unit reads them). */
        int shift = __builtin_clz(mag) - 8;
        j = (mag << shift) & MANTISSA_MASK;
        e = 1 - EXPONENT_BIAS - shift;
    } else {
        j = mag & MANTISSA_MASK;
        e = (int)(mag >> MANTISSA_BITS) - EXPONENT_BIAS;
    }
    /* x = y * 4^k with y in [1, 4): the odd exponents take the table's upper half. */
    int odd = e & 1, k = (e - odd) / 2;
    uint32_t i = (uint32_t)odd << MANTISSA_BITS | j;
    double y = (double)float_of(0x3f800000u + i);
    uint32_t r = bits_of((float)(1.0 / sqrt(y))) + (uint32_t)(code(rsqrt_codes, i) - 2);
    return scale(r, -k, ftz);
}

uint32_t ptx_mufu_ex2(uint32_t x, bool ftz)
{
    float v = float_of(x);
    if (isnan(v))
        return CANONICAL_NAN;
    if (x & SIGN) /* 2^-a: the reciprocal unit applied to 2^a */
        return ptx_mufu_rcp(ptx_mufu_ex2(x & ~SIGN, ftz), ftz);
    if (v >= EX2_OVERFLOW)
        return POSITIVE_INF;
    /* The input in fixed point, 2^-23 steps, truncated; integer part and fraction. */
    double t = floor(ldexp((double)v, EX2_TRUNCATION_BITS));
    double whole = floor(ldexp(t, -EX2_TRUNCATION_BITS));
    uint32_t j = (uint32_t)(t - ldexp(whole, EX2_TRUNCATION_BITS));
    uint32_t r = bits_of(reference_ex2(ldexp((double)j, -EX2_TRUNCATION_BITS))) +
                 (uint32_t)(code(ex2_codes, j) - 1);
    return scale(r, (int)whole, ftz);
}
