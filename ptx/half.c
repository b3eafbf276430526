/* Half precision, as the PTX ISA defines it on sm_90: add, sub, mul, fma, min, max, abs, neg,
 * setp, set and cvt on .f16 (IEEE binary16) and .bf16 (bfloat16) values and on their packed
 * pairs .f16x2 and .bf16x2 (two halves in 32 bits, element 0 in the low 16). cuda_fp16.h and
 * cuda_bf16.h compile to these.
 *
 * Results are bit-exact: each is the exact result rounded once, as the hardware does. A half is
 * decoded into a double exactly; a product of two halves is exact in a double (at most 22
 * significant bits, exponents far inside a double's range); a sum is rounded to odd in a double
 * (sum_to_odd), which a later rounding to 11 or 8 bits turns into the correctly rounded sum; the
 * one rounding into the half format (round_scaled) handles every mode, subnormals and overflow.
 * A NaN result is the canonical NaN 0x7fff (CUDART_NAN_FP16, CUDART_NAN_BF16). */
#include "decode.h"
#include "exec.h"

#include <math.h>
#include <string.h>

#define HALF_BITS 16
#define HALF_MASK 0xffffu
#define HALF_SIGN 0x8000u
#define CANONICAL_NAN16 0x7fffu
#define F16_EXPONENT_BITS 5
#define F16_MANTISSA_BITS 10
#define BF16_EXPONENT_BITS 8
#define BF16_MANTISSA_BITS 7
#define F32_ONE 0x3f800000u
#define DOUBLE_MANTISSA_BITS 52
#define DOUBLE_EXPONENT_MASK 0x7ffu
/* The exponent of a double's last significand place, for the biased exponent field 1: a
 * double is (significand as an integer) * 2^(field - DOUBLE_LAST_PLACE_BIAS). */
#define DOUBLE_LAST_PLACE_BIAS 1075
#define U64_BITS 64
#define MAX_HALF_SOURCES 3 /* fma's a, b, c; setp's a, b and the predicate c */

typedef struct half_format {
    unsigned man_bits; /* stored significand bits */
    unsigned exp_bits;
} half_format;

static const half_format F16 = {F16_MANTISSA_BITS, F16_EXPONENT_BITS};
static const half_format BF16 = {BF16_MANTISSA_BITS, BF16_EXPONENT_BITS};

/* The exponent of the smallest normal number (f16: -14; bf16: -126, as f32). */
static int min_exponent(const half_format *f) { return 2 - (1 << (f->exp_bits - 1)); }

static uint16_t inf_bits(const half_format *f)
{
    return (uint16_t)(((1u << f->exp_bits) - 1) << f->man_bits);
}

static uint16_t one_bits(const half_format *f)
{
    return (uint16_t)(((1u << (f->exp_bits - 1)) - 1) << f->man_bits);
}

static bool is_nan(uint16_t h, const half_format *f) { return (h & ~HALF_SIGN) > inf_bits(f); }

/* .ftz: a subnormal becomes a zero of the same sign. */
static uint16_t flush(uint16_t h, const half_format *f)
{
    return (h & inf_bits(f)) == 0 ? (uint16_t)(h & HALF_SIGN) : h;
}

static double to_double(uint16_t h, const half_format *f)
{
    unsigned field = (h & ~HALF_SIGN) >> f->man_bits;
    unsigned man = h & ((1u << f->man_bits) - 1);
    int last_place = min_exponent(f) - (int)f->man_bits; /* of a subnormal, and field 1 */
    double v;
    if (field == (1u << f->exp_bits) - 1)
        v = man ? NAN : INFINITY;
    else if (field == 0)
        v = ldexp(man, last_place);
    else
        v = ldexp(man | 1u << f->man_bits, last_place + (int)field - 1);
    return (h & HALF_SIGN) ? -v : v;
}

/* m * 2^e (negated when `neg`) rounded once to the format in the PTX rounding mode `rnd` (none
 * and the integer modes: to nearest, ties to even). Subnormal results have the fixed last place
 * of the smallest normal's binade; what overflows is infinity, or the largest finite number
 * where the mode rounds toward zero. */
static uint16_t round_scaled(bool neg, uint64_t m, int e, const half_format *f, int rnd)
{
    uint16_t sign = neg ? HALF_SIGN : 0;
    if (m == 0)
        return sign;
    int lead = e + (U64_BITS - 1) - __builtin_clzll(m); /* exponent of m's top bit */
    int top = lead > min_exponent(f) ? lead : min_exponent(f);
    int shift = top - (int)f->man_bits - e; /* the result's last place, in m's bits */
    uint64_t kept;
    bool above = false, tie = false, below = false; /* what is cut off, against half a place */
    if (shift <= 0) {
        kept = m << -shift; /* at most man_bits + 1 bits: m has no more */
    } else if (shift > U64_BITS) {
        kept = 0;
        below = true; /* m < 2^64 <= half a place */
    } else {
        unsigned __int128 wide = m, place = (unsigned __int128)1 << shift;
        unsigned __int128 rest = wide & (place - 1), half = place >> 1;
        kept = (uint64_t)(wide >> shift);
        above = rest > half;
        tie = rest == half;
        below = rest != 0 && rest < half;
    }
    bool inexact = above || tie || below, up;
    switch (rnd) {
    case RND_RZ: up = false; break;
    case RND_RM: up = neg && inexact; break;
    case RND_RP: up = !neg && inexact; break;
    default: up = above || (tie && (kept & 1)); break;
    }
    /* The exponent field and the significand added: a significand that rounds up to the next
     * power of two carries into the exponent, and a subnormal's into the smallest normal. */
    uint64_t bits = ((uint64_t)(top - min_exponent(f)) << f->man_bits) + kept + up;
    if (bits >= inf_bits(f)) {
        bool to_inf = rnd == RND_RZ ? false : rnd == RND_RM ? neg : rnd == RND_RP ? !neg : true;
        bits = to_inf ? inf_bits(f) : inf_bits(f) - 1u;
    }
    return (uint16_t)(sign | bits);
}

static uint16_t from_double(double x, const half_format *f, int rnd)
{
    if (isnan(x))
        return CANONICAL_NAN16;
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    bool neg = u >> (U64_BITS - 1);
    if (isinf(x))
        return (uint16_t)((neg ? HALF_SIGN : 0) | inf_bits(f));
    unsigned field = (unsigned)(u >> DOUBLE_MANTISSA_BITS) & DOUBLE_EXPONENT_MASK;
    uint64_t m = u & ((UINT64_C(1) << DOUBLE_MANTISSA_BITS) - 1);
    if (field)
        m |= UINT64_C(1) << DOUBLE_MANTISSA_BITS;
    return round_scaled(neg, m, (field ? (int)field : 1) - DOUBLE_LAST_PLACE_BIAS, f, rnd);
}

/* x + y rounded to odd: the truncated sum, its last bit set when anything was cut off. Rounding
 * that again to a format with at least two bits fewer gives the correctly rounded exact sum
 * (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
 * rounding to odd", IEEE TC 2008); a double has 53 bits, a half at most 11. The sum of two
 * halves, or of a product of two and a third, is not always exact in a double (bf16 spans 2^-266
 * to 2^256), hence this. The error of the rounded-to-nearest sum comes from TwoSum (Knuth),
 * exact in the host's default rounding, without changing the rounding mode. */
static double sum_to_odd(double x, double y)
{
    double s = x + y;
    if (!isfinite(s))
        return s;
    double bv = s - x;
    double err = (x - (s - bv)) + (y - bv); /* exactly (x + y) - s */
    if (err == 0)
        return s;
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    if ((err < 0) != (s < 0))
        u--; /* s was rounded away from zero: the truncated sum is one place nearer zero */
    u |= 1;
    memcpy(&s, &u, sizeof s);
    return s;
}

/* .sat: clamped to [+0, 1]; NaN gives +0. */
static uint16_t saturate(uint16_t h, const half_format *f)
{
    if (is_nan(h, f) || (h & HALF_SIGN))
        return 0;
    return h > one_bits(f) ? one_bits(f) : h;
}

/* .relu: negative results (-0 included) become +0; NaN stays the canonical NaN. */
static uint16_t relu(uint16_t h, const half_format *f)
{
    return is_nan(h, f) ? CANONICAL_NAN16 : (h & HALF_SIGN) ? 0 : h;
}

/* setp's and set's optional boolean operation with the predicate c. */
static bool combine(int how, bool t, uint64_t c)
{
    switch (how) {
    case SETP_AND: return t && c;
    case SETP_OR: return t || c;
    case SETP_XOR: return t != (c != 0);
    default: return t;
    }
}

static bool half_compare(const ptx_insn *in, const half_format *f, uint16_t a, uint16_t b)
{
    if (in->mods & MOD_FTZ) {
        a = flush(a, f);
        b = flush(b, f);
    }
    return ptx_compare_float(in->cmp, to_double(a, f), to_double(b, f));
}

/* min and max: the other input where one is NaN (.NaN: NaN), and -0 below +0. */
static uint16_t min_max(const ptx_insn *in, const half_format *f, uint16_t a, uint16_t b)
{
    bool na = is_nan(a, f), nb = is_nan(b, f);
    if (na || nb) {
        if ((in->mods & MOD_NAN) || (na && nb))
            return CANONICAL_NAN16;
        return na ? b : a;
    }
    double x = to_double(a, f), y = to_double(b, f);
    bool a_first = x < y || (x == y && (a & HALF_SIGN)); /* a is the smaller */
    return (in->op == OP_MIN) == a_first ? a : b;
}

/* One element of add, sub, mul, fma, min, max, abs or neg. */
static uint16_t element(const ptx_insn *in, const half_format *f, uint16_t a, uint16_t b,
                        uint16_t c)
{
    bool ftz = in->mods & MOD_FTZ;
    if (ftz) {
        a = flush(a, f);
        b = flush(b, f);
        c = flush(c, f);
    }
    /* abs and neg touch the sign bit only; a NaN comes out canonical (as on an H100). */
    if ((in->op == OP_ABS || in->op == OP_NEG) && is_nan(a, f))
        return CANONICAL_NAN16;
    if (in->op == OP_ABS)
        return (uint16_t)(a & ~HALF_SIGN);
    if (in->op == OP_NEG)
        return (uint16_t)(a ^ HALF_SIGN);
    if (in->op == OP_MIN || in->op == OP_MAX)
        return min_max(in, f, a, b);
    double x = to_double(a, f), y = to_double(b, f), r;
    switch (in->op) {
    case OP_ADD: r = sum_to_odd(x, y); break;
    case OP_SUB: r = sum_to_odd(x, -y); break;
    case OP_MUL: r = x * y; break; /* exact */
    default: r = sum_to_odd(x * y, to_double(c, f)); break; /* OP_FMA: x * y is exact */
    }
    uint16_t h = from_double(r, f, RND_RN);
    if (ftz)
        h = flush(h, f);
    if (in->mods & MOD_SAT)
        h = saturate(h, f);
    if (in->mods & MOD_RELU)
        h = relu(h, f);
    return h;
}

static const half_format *format_of(ptx_type t)
{
    return t == TY_F16 || t == TY_F16X2 ? &F16 : t == TY_BF16 || t == TY_BF16X2 ? &BF16 : NULL;
}

static bool is_pair(ptx_type t) { return t == TY_F16X2 || t == TY_BF16X2; }

static uint64_t width_mask(unsigned bytes)
{
    return bytes >= sizeof(uint64_t) ? ~UINT64_C(0) : (UINT64_C(1) << (bytes * 8)) - 1;
}

/* element() on each element: both halves of a pair, or the one half. */
static uint64_t per_element(const ptx_insn *in, const half_format *f, bool pair,
                            const uint64_t v[MAX_HALF_SOURCES])
{
    uint64_t r = element(in, f, (uint16_t)v[0], (uint16_t)v[1], (uint16_t)v[2]);
    if (pair)
        r |= (uint64_t)element(in, f, (uint16_t)(v[0] >> HALF_BITS), (uint16_t)(v[1] >> HALF_BITS),
                               (uint16_t)(v[2] >> HALF_BITS)) << HALF_BITS;
    return r;
}

/* set: what a true comparison writes, per element: 1.0 for a float destination, all ones for
 * an integer one (each 16-bit half of it for a pair of comparisons). */
static uint64_t set_true(ptx_type dst, const half_format *src_pair)
{
    const half_format *f = format_of(dst);
    if (f)
        return one_bits(f);
    if (dst == TY_F32)
        return F32_ONE;
    return src_pair ? HALF_MASK : width_mask(ty_bytes(dst));
}

static uint64_t set_value(const ptx_insn *in, const uint64_t v[MAX_HALF_SOURCES])
{
    ptx_type src = (ptx_type)in->type2, dst = (ptx_type)in->type;
    const half_format *f = format_of(src);
    bool pair = is_pair(src);
    uint64_t one = set_true(dst, pair ? f : NULL);
    uint64_t r = combine(in->sub, half_compare(in, f, (uint16_t)v[0], (uint16_t)v[1]), v[2])
                     ? one : 0;
    if (pair && combine(in->sub, half_compare(in, f, (uint16_t)(v[0] >> HALF_BITS),
                                              (uint16_t)(v[1] >> HALF_BITS)), v[2]))
        r |= one << HALF_BITS;
    return r;
}

/* A double NaN and a half NaN into each other as an H100 converts them: the sign and the
 * payload's leading bits kept, the NaN made quiet (f32 to a half gives the canonical NaN). */
static uint16_t nan_from_double(uint64_t d, const half_format *f)
{
    unsigned quiet = 1u << (f->man_bits - 1);
    uint64_t payload = (d & ((UINT64_C(1) << DOUBLE_MANTISSA_BITS) - 1)) >>
                       (DOUBLE_MANTISSA_BITS - f->man_bits);
    return (uint16_t)((d >> (U64_BITS - HALF_BITS) & HALF_SIGN) | inf_bits(f) | quiet | payload);
}

static uint64_t nan_to_double(uint16_t h, const half_format *f)
{
    uint64_t payload = (uint64_t)(h & ((1u << f->man_bits) - 1))
                       << (DOUBLE_MANTISSA_BITS - f->man_bits);
    return (uint64_t)(h & HALF_SIGN) << (U64_BITS - HALF_BITS) |
           (uint64_t)DOUBLE_EXPONENT_MASK << DOUBLE_MANTISSA_BITS |
           UINT64_C(1) << (DOUBLE_MANTISSA_BITS - 1) | payload;
}

/* A value converted into a half: from a half, a float or an integer, in cvt's rounding mode,
 * then .relu, .satfinite and .sat. */
static uint16_t to_half(const ptx_insn *in, const half_format *f, uint64_t v)
{
    ptx_type from = (ptx_type)in->type2;
    int rnd = in->rnd;
    uint16_t h;
    if (from == TY_F64 && (v & ~(UINT64_C(1) << (U64_BITS - 1))) >
                              (uint64_t)DOUBLE_EXPONENT_MASK << DOUBLE_MANTISSA_BITS) {
        h = nan_from_double(v, f);
    } else if (ty_is_float(from)) {
        double x;
        if (format_of(from)) {
            x = to_double((uint16_t)v, format_of(from));
        } else if (from == TY_F32) {
            uint32_t u = (uint32_t)v;
            float s;
            memcpy(&s, &u, sizeof s);
            if ((in->mods & MOD_FTZ) && fpclassify(s) == FP_SUBNORMAL)
                s = copysignf(0.0f, s);
            x = s;
        } else {
            memcpy(&x, &v, sizeof x);
        }
        /* Integer rounding (cvt.rni.f16.f32 ...): to an integral value, then to nearest. */
        switch (rnd) {
        case RND_RNI: x = nearbyint(x); break;
        case RND_RZI: x = trunc(x); break;
        case RND_RMI: x = floor(x); break;
        case RND_RPI: x = ceil(x); break;
        default: break;
        }
        h = from_double(x, f, rnd);
    } else {
        /* Integers are rounded from their exact value (a 64-bit one may not fit a double). */
        unsigned n = ty_bytes(from);
        uint64_t u = v & width_mask(n);
        bool neg = ty_is_signed(from) && (u >> (8 * n - 1) & 1);
        h = round_scaled(neg, neg ? (~u + 1) & width_mask(n) : u, 0, f, rnd);
    }
    if (in->mods & MOD_RELU)
        h = relu(h, f);
    if ((in->mods & MOD_SATFINITE) && !is_nan(h, f) && (h & ~HALF_SIGN) == inf_bits(f))
        h = (uint16_t)(h - 1); /* the largest finite number of the same sign */
    if (in->mods & MOD_SAT)
        h = saturate(h, f);
    return h;
}

/* cvt from a half to a float or an integer: the half's exact value, as a double, through the
 * conversions of other types. bf16 to f32 is exact bit for bit (the upper half of the f32). */
static uint64_t from_half(const ptx_insn *in, uint64_t v)
{
    ptx_type from = (ptx_type)in->type2;
    if (from == TY_BF16 && in->type == TY_F32 && in->rnd == RND_NONE &&
        !(in->mods & (MOD_SAT | MOD_FTZ)))
        return (v & HALF_MASK) << HALF_BITS;
    if (in->type == TY_F64 && is_nan((uint16_t)v, format_of(from)))
        return nan_to_double((uint16_t)v, format_of(from));
    double x = to_double((uint16_t)v, format_of(from));
    ptx_insn as_double = *in;
    as_double.type2 = TY_F64;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return ptx_convert_bits(&as_double, bits);
}

static int refuse(block_ctx *b, const ptx_insn *in, const char *why)
{
    char what[160];
    const char *mods = (in->mods & (MOD_RELU | MOD_NAN | MOD_SATFINITE))
                           ? " with .relu, .NaN or .satfinite" : "";
    snprintf(what, sizeof what, "%s%s.%s%s%s%s%s", ptx_opcode_name((ptx_opcode)in->op),
             (in->mods & MOD_APPROX) ? ".approx" : "", ptx_type_name(in->type),
             in->type2 ? "." : "", in->type2 ? ptx_type_name(in->type2) : "", mods, why);
    return ptx_stop_unsupported(b, in, what);
}

/* Which instructions and forms are run here; anything else is refused by name. */
static int check_form(block_ctx *b, const ptx_insn *in)
{
    ptx_type t = (ptx_type)in->type, t2 = (ptx_type)in->type2;
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA:
        if (in->rnd != RND_NONE && in->rnd != RND_RN)
            return refuse(b, in, " (a rounding other than .rn)");
        /* fall through */
    case OP_MIN: case OP_MAX: case OP_ABS: case OP_NEG:
        if (!format_of(t) || t2 != TY_NONE)
            return refuse(b, in, "");
        return 0;
    case OP_SETP:
        return format_of(t) && t2 == TY_NONE ? 0 : refuse(b, in, "");
    case OP_SET:
        if (!format_of(t2))
            return refuse(b, in, " (set with other than a half-precision source)");
        /* A pair of comparisons: a pair of halves, or two 16-bit masks in a 32-bit integer. */
        if (is_pair(t2) ? !(t == t2 || t == TY_U32 || t == TY_S32)
                        : (is_pair(t) || t == TY_NONE || t == TY_PRED || t == TY_F64))
            return refuse(b, in, "");
        return 0;
    case OP_CVT:
        if ((!format_of(t) && !format_of(t2)) || t == TY_NONE || t2 == TY_NONE ||
            is_pair(t2) || (is_pair(t) && t2 != TY_F32) || t == TY_PRED || t2 == TY_PRED)
            return refuse(b, in, "");
        return 0;
    default:
        return refuse(b, in, "");
    }
}

int ptx_exec_half(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    ptx_type t = (ptx_type)in->type;
    bool pdest = in->mods & MOD_PDEST;
    int ndst = pdest ? 2 : 1;
    int nsrc = in->op == OP_FMA ? 3 : in->op == OP_ABS || in->op == OP_NEG ? 1 : 2;
    if (in->op == OP_CVT)
        nsrc = is_pair(t) ? 2 : 1;
    if ((in->op == OP_SETP || in->op == OP_SET) && in->sub != SETP_PLAIN)
        nsrc = 3;
    if (check_form(b, in) != 0)
        return -1;
    if (in->nops < ndst + nsrc || in->ops[0].kind != OPK_REG)
        return ptx_stopf(b, in, "%s on halves takes %d operands, the first a register",
                         ptx_opcode_name((ptx_opcode)in->op), ndst + nsrc);
    uint64_t bufs[MAX_HALF_SOURCES][32];
    const uint64_t *src[MAX_HALF_SOURCES];
    static const uint64_t zeros[32];
    for (int i = 0; i < MAX_HALF_SOURCES; i++)
        src[i] = i < nsrc ? ptx_lanes(b, w, &in->ops[ndst + i], bufs[i]) : zeros;
    const half_format *f = format_of(t);
    bool pair = is_pair(t);
    uint64_t R[32], Q[32];
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t v[MAX_HALF_SOURCES] = {src[0][lane], src[1][lane], src[2][lane]};
        switch (in->op) {
        case OP_SETP: {
            /* setp.<cmp>.f16 p|q: q is the opposite; setp.<cmp>.f16x2 p|q: p compares the low
             * halves, q the high ones. */
            bool lo = half_compare(in, f, (uint16_t)v[0], (uint16_t)v[1]);
            bool hi = pair ? half_compare(in, f, (uint16_t)(v[0] >> HALF_BITS),
                                          (uint16_t)(v[1] >> HALF_BITS))
                           : !lo;
            R[lane] = combine(in->sub, lo, v[2]);
            Q[lane] = combine(in->sub, hi, v[2]);
            break;
        }
        case OP_SET: R[lane] = set_value(in, v); break;
        case OP_CVT:
            if (f && pair) /* cvt.f16x2.f32 d, a, b: a into the upper half, b the lower */
                R[lane] = (uint64_t)to_half(in, f, v[0]) << HALF_BITS | to_half(in, f, v[1]);
            else if (f)
                R[lane] = to_half(in, f, v[0]);
            else
                R[lane] = from_half(in, v[0]);
            break;
        default: R[lane] = per_element(in, f, pair, v); break;
        }
    }
    if (pdest && in->ops[1].kind == OPK_REG)
        for (int lane = 0; lane < 32; lane++)
            if (mask >> lane & 1)
                w->regs[(size_t)in->ops[1].reg * 32 + (size_t)lane] = Q[lane];
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * 32;
    for (int lane = 0; lane < 32; lane++)
        if (mask >> lane & 1)
            dst[lane] = R[lane];
    return 0;
}
