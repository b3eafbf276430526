/* The exactly computable values the H100's tables (ptx/mufu/) are stored relative to: each
 * entry holds the GPU's result minus the reference, in units in the last place. Shared by the
 * interpreter (mufu.c) and the program that measures the tables on a GPU (tools/
 * mufu-tables.cu); both must be compiled without contraction (-ffp-contract=off) so that every
 * machine computes the same references. */
#ifndef TILELAB_PTX_MUFU_REFERENCE_H
#define TILELAB_PTX_MUFU_REFERENCE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MUFU_MANTISSA_BITS 23
#define MUFU_ONE_BITS 0x3f800000u                 /* 1.0f */
#define MUFU_EX2_ENTRIES (1u << MUFU_MANTISSA_BITS)   /* 2^f and 2^-f, f = j / 2^23 in [0, 1) */
#define MUFU_RCP_ENTRIES (1u << MUFU_MANTISSA_BITS)   /* 1/m, m = 1 + j / 2^23 in [1, 2) */
#define MUFU_RSQRT_ENTRIES (2u << MUFU_MANTISSA_BITS) /* 1/sqrt(y), y in [1, 4) */
#define MUFU_EX2_BIAS 1   /* stored code = GPU - reference + bias, two bits per entry */
#define MUFU_EX2N_BIAS 2
#define MUFU_RCP_BIAS 1
#define MUFU_RSQRT_BIAS 2
#define MUFU_TERMS 20     /* Taylor terms of 2^f: the 20th is below 2^-60 for f < 1 */

static inline uint32_t mufu_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float mufu_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 2^(s j / 2^23), s = 1 or -1, by its Taylor series in double, term by term, rounded once to
 * float. */
static inline uint32_t mufu_reference_exp2_series(uint32_t j, double s)
{
    const double ln2 = 0.6931471805599453094;
    double t = s * ldexp((double)j, -MUFU_MANTISSA_BITS) * ln2, term = 1.0, sum = 1.0;
    for (int n = 1; n <= MUFU_TERMS; n++) {
        term = term * t / n;
        sum = sum + term;
    }
    return mufu_bits((float)sum);
}

/* 2^(j / 2^23) and 2^-(j / 2^23), j < 2^23: the unit has a table for each sign. */
static inline uint32_t mufu_reference_ex2(uint32_t j) { return mufu_reference_exp2_series(j, 1); }
static inline uint32_t mufu_reference_ex2_negative(uint32_t j)
{
    return mufu_reference_exp2_series(j, -1);
}

/* 1/m for m = 1 + j / 2^23, correctly rounded (an IEEE division). */
static inline uint32_t mufu_reference_rcp(uint32_t j)
{
    return mufu_bits(1.0f / mufu_float(MUFU_ONE_BITS | j));
}

/* 1/sqrt(y) for y = the float with bits 1.0f + i, i < 2^24 (y in [1, 4)): double square root
 * and division, each correctly rounded, then rounded to float. */
static inline uint32_t mufu_reference_rsqrt(uint32_t i)
{
    double y = (double)mufu_float(MUFU_ONE_BITS + i);
    return mufu_bits((float)(1.0 / sqrt(y)));
}

#endif /* TILELAB_PTX_MUFU_REFERENCE_H */
