/* Arithmetic, logic, comparison, conversion and move instructions, as the PTX ISA defines
 * them. Float results must be bit-identical to a GPU's for the same PTX: fma is fmaf (one
 * rounding), add/sub/mul round once each, and a NaN result is the canonical NaN 0x7fffffff. */
#include "decode.h"
#include "exec.h"
#include "mufu.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

#define CANONICAL_NAN32 UINT32_C(0x7fffffff)
#define CANONICAL_NAN64 UINT64_C(0xfff8000000000000) /* what an H100 gives */

static inline float f32(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline double f64(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static inline uint64_t bits32(float f)
{
    if (isnan(f))
        return CANONICAL_NAN32;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline uint64_t bits64(double d)
{
    if (isnan(d))
        return CANONICAL_NAN64;
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* .ftz: subnormal inputs and results become zero of the same sign. */
static inline float ftz(float f)
{
    return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

static inline uint64_t width_mask(unsigned bytes)
{
    return bytes >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (bytes * 8)) - 1;
}

/* An integer operand as a signed or unsigned 64-bit value of its type's width. */
static inline int64_t sval(uint64_t v, unsigned bytes)
{
    unsigned shift = 64 - bytes * 8;
    return (int64_t)(v << shift) >> shift;
}

static inline uint64_t uval(uint64_t v, unsigned bytes) { return v & width_mask(bytes); }

static uint64_t int_op(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    ptx_type t = (ptx_type)in->type;
    unsigned n = ty_bytes(t);
    int sgn = ty_is_signed(t);
    uint64_t m = width_mask(n);
    switch (in->op) {
    case OP_ADD: return (a + b) & m;
    case OP_SUB: return (a - b) & m;
    case OP_MUL:
    case OP_MAD: {
        uint64_t r;
        if (in->mods & MOD_WIDE) {
            /* The product of two n-byte values, 2n bytes wide. */
            r = sgn ? (uint64_t)(sval(a, n) * sval(b, n)) : uval(a, n) * uval(b, n);
            m = width_mask(2 * n);
        } else if (in->mods & MOD_HI) {
            if (n == 8) {
                r = sgn ? (uint64_t)(int64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64)
                        : (uint64_t)(((unsigned __int128)a * b) >> 64);
            } else {
                r = sgn ? (uint64_t)((sval(a, n) * sval(b, n)) >> (8 * n))
                        : (uval(a, n) * uval(b, n)) >> (8 * n);
            }
        } else {
            r = a * b;
        }
        if (in->op == OP_MAD)
            r += c;
        return r & m;
    }
    case OP_DIV:
    case OP_REM:
        /* Division by zero is unspecified in PTX; all ones (the quotient NVIDIA GPUs give) and
         * the dividend for the remainder. The one overflowing case, MIN / -1, wraps. */
        if (uval(b, n) == 0)
            return in->op == OP_DIV ? m : a & m;
        if (sgn) {
            int64_t x = sval(a, n), y = sval(b, n);
            if (y == -1)
                return in->op == OP_DIV ? (uint64_t)(-(uint64_t)x) & m : 0;
            return (uint64_t)(in->op == OP_DIV ? x / y : x % y) & m;
        }
        return (in->op == OP_DIV ? uval(a, n) / uval(b, n) : uval(a, n) % uval(b, n)) & m;
    case OP_MIN:
        return sgn ? (uint64_t)(sval(a, n) < sval(b, n) ? sval(a, n) : sval(b, n)) & m
                   : (uval(a, n) < uval(b, n) ? a : b) & m;
    case OP_MAX:
        return sgn ? (uint64_t)(sval(a, n) > sval(b, n) ? sval(a, n) : sval(b, n)) & m
                   : (uval(a, n) > uval(b, n) ? a : b) & m;
    case OP_ABS: return (uint64_t)(sval(a, n) < 0 ? -(uint64_t)a : a) & m;
    case OP_NEG: return (uint64_t)(-(uint64_t)a) & m;
    case OP_AND: return (a & b) & m;
    case OP_OR: return (a | b) & m;
    case OP_XOR: return (a ^ b) & m;
    case OP_NOT: return ~a & m;
    case OP_SHL: {
        /* Shift amounts past the width give 0 (PTX clamps them). */
        uint64_t s = (uint32_t)b;
        return s >= 8 * n ? 0 : (a << s) & m;
    }
    case OP_SHR: {
        uint64_t s = (uint32_t)b;
        if (sgn)
            return (uint64_t)(sval(a, n) >> (s >= 8 * n ? 8 * n - 1 : s)) & m;
        return s >= 8 * n ? 0 : uval(a, n) >> s;
    }
    default: return 0;
    }
}

/* The host's rounding mode for a PTX rounding modifier (.rn and none: to nearest). Set around
 * one operation and put back: the host's arithmetic then rounds as the GPU's does. */
static int host_rounding(int rnd)
{
    switch (rnd) {
    case RND_RZ: return FE_TOWARDZERO;
    case RND_RM: return FE_DOWNWARD;
    case RND_RP: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

static bool directed(int rnd) { return rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP; }

static uint64_t f32_op(const ptx_insn *in, uint64_t ra, uint64_t rb, uint64_t rc);
static uint64_t f64_op(const ptx_insn *in, uint64_t ra, uint64_t rb, uint64_t rc);
static uint64_t convert(const ptx_insn *in, uint64_t v);

/* An operation with a directed rounding modifier, computed in that mode. */
static uint64_t rounded(uint64_t (*op)(const ptx_insn *, uint64_t, uint64_t, uint64_t),
                        const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    int saved = fegetround();
    fesetround(host_rounding(in->rnd));
    uint64_t r = op(in, a, b, c);
    fesetround(saved);
    return r;
}

static uint64_t convert_op(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    (void)b, (void)c;
    return convert(in, a);
}

static uint64_t f32_op(const ptx_insn *in, uint64_t ra, uint64_t rb, uint64_t rc)
{
    bool z = in->mods & MOD_FTZ;
    float a = f32(ra), b = f32(rb), c = f32(rc), r;
    if (z) {
        a = ftz(a);
        b = ftz(b);
        c = ftz(c);
    }
    switch (in->op) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_FMA:
    case OP_MAD: r = fmaf(a, b, c); break;
    case OP_DIV: r = a / b; break;
    case OP_MIN: r = fminf(a, b); break;
    case OP_MAX: r = fmaxf(a, b); break;
    /* abs and neg only touch the sign bit, NaN payloads included. */
    case OP_ABS: return (uint32_t)ra & 0x7fffffffu;
    case OP_NEG: return (uint32_t)ra ^ 0x80000000u;
    case OP_RCP: r = 1.0f / a; break;
    case OP_SQRT: r = sqrtf(a); break;
    case OP_RSQRT: r = 1.0f / sqrtf(a); break;
    case OP_EX2: r = exp2f(a); break;
    case OP_LG2: r = log2f(a); break;
    case OP_SIN: r = sinf(a); break;
    case OP_COS: r = cosf(a); break;
    default: r = 0; break;
    }
    if (in->mods & MOD_SAT)
        r = isnan(r) ? 0.0f : fminf(fmaxf(r, 0.0f), 1.0f);
    return bits32(z ? ftz(r) : r);
}

static uint64_t f64_op(const ptx_insn *in, uint64_t ra, uint64_t rb, uint64_t rc)
{
    double a = f64(ra), b = f64(rb), c = f64(rc), r;
    switch (in->op) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_FMA:
    case OP_MAD: r = fma(a, b, c); break;
    case OP_DIV: r = a / b; break;
    case OP_MIN: r = fmin(a, b); break;
    case OP_MAX: r = fmax(a, b); break;
    case OP_ABS: return ra & ~(UINT64_C(1) << 63);
    case OP_NEG: return ra ^ (UINT64_C(1) << 63);
    case OP_RCP: r = 1.0 / a; break;
    case OP_SQRT: r = sqrt(a); break;
    case OP_RSQRT: r = 1.0 / sqrt(a); break;
    default: r = 0; break;
    }
    if (isnan(r)) {
        /* A NaN operand comes through with its sign and payload, made quiet (the first one
         * when several are); only a NaN made from numbers is the canonical one. */
        bool unary = in->op == OP_RCP || in->op == OP_SQRT || in->op == OP_RSQRT;
        bool fused = in->op == OP_FMA || in->op == OP_MAD;
        const uint64_t quiet = UINT64_C(1) << 51;
        if (isnan(a))
            return ra | quiet;
        if (!unary && isnan(b))
            return rb | quiet;
        if (fused && isnan(c))
            return rc | quiet;
    }
    return bits64(r);
}

bool ptx_compare_float(int cmp, double x, double y)
{
    bool unordered = isnan(x) || isnan(y);
    switch (cmp) {
    case CMP_EQ: return !unordered && x == y;
    case CMP_NE: return !unordered && x != y;
    case CMP_LT: return !unordered && x < y;
    case CMP_LE: return !unordered && x <= y;
    case CMP_GT: return !unordered && x > y;
    case CMP_GE: return !unordered && x >= y;
    case CMP_EQU: return unordered || x == y;
    case CMP_NEU: return unordered || x != y;
    case CMP_LTU: return unordered || x < y;
    case CMP_LEU: return unordered || x <= y;
    case CMP_GTU: return unordered || x > y;
    case CMP_GEU: return unordered || x >= y;
    case CMP_NUM: return !unordered;
    case CMP_NAN: return unordered;
    default: return false;
    }
}

static bool compare(const ptx_insn *in, uint64_t a, uint64_t b)
{
    ptx_type t = (ptx_type)in->type;
    unsigned n = ty_bytes(t);
    if (ty_is_float(t)) {
        double x = t == TY_F32 ? f32(a) : f64(a), y = t == TY_F32 ? f32(b) : f64(b);
        return ptx_compare_float(in->cmp, x, y);
    }
    int64_t sx = sval(a, n), sy = sval(b, n);
    uint64_t ux = uval(a, n), uy = uval(b, n);
    bool sgn = ty_is_signed(t);
    switch (in->cmp) {
    case CMP_EQ: return ux == uy;
    case CMP_NE: return ux != uy;
    case CMP_LT: return sgn ? sx < sy : ux < uy;
    case CMP_LE: return sgn ? sx <= sy : ux <= uy;
    case CMP_GT: return sgn ? sx > sy : ux > uy;
    case CMP_GE: return sgn ? sx >= sy : ux >= uy;
    case CMP_LO: return ux < uy;
    case CMP_LS: return ux <= uy;
    case CMP_HI: return ux > uy;
    case CMP_HS: return ux >= uy;
    default: return false;
    }
}

/* setp's optional boolean operation with a third predicate. */
static bool combine(int how, bool t, uint64_t c)
{
    switch (how) {
    case SETP_AND: return t && c;
    case SETP_OR: return t || c;
    case SETP_XOR: return t != (c != 0);
    default: return t;
    }
}

/* Float to integer with the cvt rounding mode; out-of-range values saturate, NaN gives 0. */
static uint64_t float_to_int(double x, ptx_type to, int rnd)
{
    switch (rnd) {
    case RND_RNI: case RND_RN: x = nearbyint(x); break;
    case RND_RMI: case RND_RM: x = floor(x); break;
    case RND_RPI: case RND_RP: x = ceil(x); break;
    default: x = trunc(x); break;
    }
    unsigned n = ty_bytes(to);
    if (isnan(x))
        return 0;
    if (ty_is_signed(to)) {
        double lo = -ldexp(1.0, 8 * (int)n - 1), hi = ldexp(1.0, 8 * (int)n - 1);
        int64_t v;
        if (x <= lo)
            v = n == 8 ? INT64_MIN : (int64_t)lo;
        else if (x >= hi)
            v = n == 8 ? INT64_MAX : (int64_t)hi - 1;
        else
            v = (int64_t)x;
        return (uint64_t)v & width_mask(n);
    }
    double hi = ldexp(1.0, 8 * (int)n);
    if (x <= 0)
        return 0;
    if (x >= hi)
        return width_mask(n);
    return (uint64_t)x;
}

static uint64_t convert(const ptx_insn *in, uint64_t v)
{
    ptx_type to = (ptx_type)in->type, from = (ptx_type)in->type2;
    unsigned nf = ty_bytes(from), nt = ty_bytes(to);
    if (ty_is_float(from) && ty_is_float(to)) {
        double x = from == TY_F32 ? f32(v) : f64(v);
        if (in->rnd == RND_RNI) x = nearbyint(x);
        else if (in->rnd == RND_RZI) x = trunc(x);
        else if (in->rnd == RND_RMI) x = floor(x);
        else if (in->rnd == RND_RPI) x = ceil(x);
        if (to == TY_F32) {
            float f = (float)x; /* round to nearest, the default and .rn */
            if (in->mods & MOD_FTZ)
                f = ftz(f);
            if (in->mods & MOD_SAT)
                f = isnan(f) ? 0.0f : fminf(fmaxf(f, 0.0f), 1.0f);
            return bits32(f);
        }
        if (isnan(x) && from == TY_F32) {
            /* A float NaN widens with its sign and payload, made quiet (as an H100 does, and
             * the host's conversion too), not into the canonical NaN of an operation. */
            uint64_t u;
            memcpy(&u, &x, sizeof u);
            return u;
        }
        return bits64(x);
    }
    if (ty_is_float(from))
        return float_to_int(from == TY_F32 ? f32(v) : f64(v), to, in->rnd);
    if (ty_is_float(to)) {
        /* Integer to float rounds to nearest (C's default mode, the same as .rn). */
        if (to == TY_F32)
            return bits32(ty_is_signed(from) ? (float)sval(v, nf) : (float)uval(v, nf));
        return bits64(ty_is_signed(from) ? (double)sval(v, nf) : (double)uval(v, nf));
    }
    /* Integer to integer: sign- or zero-extend from the source width, cut to the target. */
    uint64_t x = ty_is_signed(from) ? (uint64_t)sval(v, nf) : uval(v, nf);
    return x & width_mask(nt);
}

uint64_t ptx_convert_bits(const ptx_insn *in, uint64_t v)
{
    return directed(in->rnd) ? rounded(convert_op, in, v, 0, 0) : convert(in, v);
}

/* An operand's values for all 32 lanes (inactive lanes get harmless values). */
void ptx_gather(const block_ctx *b, const warp *w, const ptx_operand *o, uint64_t out[32])
{
    if (o->kind == OPK_REG && o->negate) {
        for (int lane = 0; lane < 32; lane++)
            out[lane] = !w->regs[(size_t)o->reg * 32 + (size_t)lane];
    } else if (o->kind == OPK_REG) {
        memcpy(out, w->regs + (size_t)o->reg * 32, 32 * sizeof *out);
    } else if (o->kind == OPK_SREG) {
        for (int lane = 0; lane < 32; lane++)
            out[lane] = ptx_operand_value(b, w, o, lane);
    } else {
        for (int lane = 0; lane < 32; lane++)
            out[lane] = (uint64_t)o->imm;
    }
}

/* The common cases as straight loops over 32 lanes; returns false for anything else. */
static PTX_INLINE bool fast_path(const ptx_insn *in, const uint64_t *a, const uint64_t *c, const uint64_t *d,
                      uint64_t *r)
{
    ptx_type t = (ptx_type)in->type;
    unsigned n = ty_bytes(t);
    bool plain = !(in->mods & (MOD_WIDE | MOD_HI | MOD_FTZ | MOD_SAT));
    uint64_t m = width_mask(n);
    if (in->op == OP_MOV) {
        memcpy(r, a, 32 * sizeof *r);
        return true;
    }
    if (!ty_is_float(t) && t != TY_PRED && plain && (n == 4 || n == 8)) {
        switch (in->op) {
        case OP_ADD: for (int l = 0; l < 32; l++) r[l] = (a[l] + c[l]) & m; return true;
        case OP_SUB: for (int l = 0; l < 32; l++) r[l] = (a[l] - c[l]) & m; return true;
        case OP_MUL: for (int l = 0; l < 32; l++) r[l] = (a[l] * c[l]) & m; return true;
        case OP_MAD: for (int l = 0; l < 32; l++) r[l] = (a[l] * c[l] + d[l]) & m; return true;
        case OP_AND: for (int l = 0; l < 32; l++) r[l] = a[l] & c[l] & m; return true;
        case OP_OR: for (int l = 0; l < 32; l++) r[l] = (a[l] | c[l]) & m; return true;
        case OP_XOR: for (int l = 0; l < 32; l++) r[l] = (a[l] ^ c[l]) & m; return true;
        default: break;
        }
    }
    if (t == TY_PRED) {
        switch (in->op) {
        case OP_AND: for (int l = 0; l < 32; l++) r[l] = (a[l] != 0) & (c[l] != 0); return true;
        case OP_OR: for (int l = 0; l < 32; l++) r[l] = (a[l] != 0) | (c[l] != 0); return true;
        case OP_XOR: for (int l = 0; l < 32; l++) r[l] = (a[l] != 0) ^ (c[l] != 0); return true;
        case OP_NOT: for (int l = 0; l < 32; l++) r[l] = a[l] == 0; return true;
        default: break;
        }
    }
    /* Loop bounds and boundary checks: setp on 32-bit integers. */
    if (in->op == OP_SETP && in->sub == SETP_PLAIN && !(in->mods & MOD_PDEST) && n == 4 &&
        !ty_is_float(t)) {
        bool sgn = ty_is_signed(t);
        switch (in->cmp) {
        case CMP_EQ: for (int l = 0; l < 32; l++) r[l] = (uint32_t)a[l] == (uint32_t)c[l]; return true;
        case CMP_NE: for (int l = 0; l < 32; l++) r[l] = (uint32_t)a[l] != (uint32_t)c[l]; return true;
        case CMP_LT:
            if (sgn) for (int l = 0; l < 32; l++) r[l] = (int32_t)a[l] < (int32_t)c[l];
            else for (int l = 0; l < 32; l++) r[l] = (uint32_t)a[l] < (uint32_t)c[l];
            return true;
        case CMP_LE:
            if (sgn) for (int l = 0; l < 32; l++) r[l] = (int32_t)a[l] <= (int32_t)c[l];
            else for (int l = 0; l < 32; l++) r[l] = (uint32_t)a[l] <= (uint32_t)c[l];
            return true;
        case CMP_GT:
            if (sgn) for (int l = 0; l < 32; l++) r[l] = (int32_t)a[l] > (int32_t)c[l];
            else for (int l = 0; l < 32; l++) r[l] = (uint32_t)a[l] > (uint32_t)c[l];
            return true;
        case CMP_GE:
            if (sgn) for (int l = 0; l < 32; l++) r[l] = (int32_t)a[l] >= (int32_t)c[l];
            else for (int l = 0; l < 32; l++) r[l] = (uint32_t)a[l] >= (uint32_t)c[l];
            return true;
        default: break;
        }
    }
    if (in->op == OP_MUL && (in->mods & MOD_WIDE) && n == 4) {
        if (ty_is_signed(t))
            for (int l = 0; l < 32; l++) r[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int32_t)c[l]);
        else
            for (int l = 0; l < 32; l++) r[l] = (uint64_t)(uint32_t)a[l] * (uint32_t)c[l];
        return true;
    }
    if (t == TY_F32 && plain && (in->rnd == RND_NONE || in->rnd == RND_RN)) {
        switch (in->op) {
        case OP_FMA: for (int l = 0; l < 32; l++) r[l] = bits32(fmaf(f32(a[l]), f32(c[l]), f32(d[l]))); return true;
        case OP_ADD: for (int l = 0; l < 32; l++) r[l] = bits32(f32(a[l]) + f32(c[l])); return true;
        case OP_SUB: for (int l = 0; l < 32; l++) r[l] = bits32(f32(a[l]) - f32(c[l])); return true;
        case OP_MUL: for (int l = 0; l < 32; l++) r[l] = bits32(f32(a[l]) * f32(c[l])); return true;
        default: break;
        }
    }
    return false;
}

/* mov.bN {p0, p1, ...}, x and mov.bN x, {p0, p1, ...}: part i is bits [i*w, (i+1)*w) of x,
 * w = N / parts (the lowest part first, as the PTX ISA packs vectors). */
static int vector_mov(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    unsigned parts = in->vec, bits = 8 * ty_bytes((ptx_type)in->type) / parts;
    uint64_t part_mask = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        if (in->mods & MOD_SPLIT) {
            uint64_t x = ptx_operand_value(b, w, &in->ops[parts], lane);
            for (unsigned i = 0; i < parts; i++)
                if (in->ops[i].kind == OPK_REG) /* "_" in PTX: a part nobody wants */
                    w->regs[(size_t)in->ops[i].reg * 32 + (size_t)lane] = x >> (i * bits) & part_mask;
        } else {
            uint64_t x = 0;
            for (unsigned i = 0; i < parts; i++)
                x |= (ptx_operand_value(b, w, &in->ops[1 + i], lane) & part_mask) << (i * bits);
            w->regs[(size_t)in->ops[0].reg * 32 + (size_t)lane] = x;
        }
    }
    return 0;
}

/* ex2.approx, rsqrt.approx, rcp.approx, div.approx and div.full on f32, rsqrt.approx and
 * rcp.approx on f64: the H100's answers (mufu.c). */
static int approx_mufu(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    if (!ptx_mufu_ready())
        return ptx_stopf(b, in, "the CPU backend's tables of the approximate instructions "
                         "cannot be read (out of memory?)");
    bool ftz = in->mods & MOD_FTZ;
    uint64_t buf[32], bufB[32];
    const uint64_t *A = ptx_lanes(b, w, &in->ops[1], buf);
    const uint64_t *B = in->op == OP_DIV ? ptx_lanes(b, w, &in->ops[2], bufB) : NULL;
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * 32;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        if (in->type == TY_F64) {
            dst[lane] = in->op == OP_RSQRT ? ptx_mufu_rsqrt64(A[lane]) : ptx_mufu_rcp64(A[lane]);
            continue;
        }
        uint32_t a = (uint32_t)A[lane];
        dst[lane] = B                    ? ptx_mufu_div(a, (uint32_t)B[lane], ftz,
                                                        in->mods & MOD_FULL)
                    : in->op == OP_EX2   ? ptx_mufu_ex2(a, ftz)
                    : in->op == OP_RSQRT ? ptx_mufu_rsqrt(a, ftz)
                                         : ptx_mufu_rcp(a, ftz);
    }
    return 0;
}

/* Half precision (moves and selects of halves are bits like any other; the modifiers only
 * half precision has here are half.c's too, which refuses them on other types). */
static bool is_half_work(const ptx_insn *in)
{
    return in->op != OP_MOV && in->op != OP_SELP &&
           (in->op == OP_SET || ty_is_half((ptx_type)in->type) ||
            ty_is_half((ptx_type)in->type2) || (in->mods & (MOD_RELU | MOD_NAN | MOD_SATFINITE)));
}

/* The H100's approximate instructions (mufu.c). */
static bool is_mufu_work(const ptx_insn *in)
{
    if (in->type == TY_F32)
        return in->op == OP_EX2 || in->op == OP_RSQRT ||
               ((in->op == OP_RCP || in->op == OP_DIV) && (in->mods & MOD_APPROX)) ||
               (in->op == OP_DIV && (in->mods & MOD_FULL));
    return in->type == TY_F64 &&
           (in->op == OP_RSQRT || (in->op == OP_RCP && (in->mods & MOD_APPROX)));
}

bool ptx_alu_special(const ptx_insn *in)
{
    return (in->mods & (MOD_SPLIT | MOD_JOIN | MOD_CARRY_IN | MOD_CARRY_OUT)) ||
           is_half_work(in) || is_mufu_work(in);
}

static int exec_special(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    if (in->mods & (MOD_SPLIT | MOD_JOIN))
        return vector_mov(b, w, in, mask);
    if (is_half_work(in))
        return ptx_exec_half(b, w, in, mask);
    if (in->mods & (MOD_CARRY_IN | MOD_CARRY_OUT))
        return ptx_exec_carry(b, w, in, mask);
    return approx_mufu(b, w, in, mask);
}

PTX_HOT int ptx_exec_alu(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    /* The families with files of their own, marked when the instruction was read. */
    if (in->mods & MOD_ALU_SPECIAL)
        return exec_special(b, w, in, mask);
    ptx_type t = (ptx_type)in->type;
    bool is_f32 = t == TY_F32, is_f64 = t == TY_F64;
    uint64_t bufA[32], bufC[32], bufD[32], R[32], Q[32];
    static const ptx_operand none = {.kind = OPK_IMM, .reg = -1};
    int s = (in->mods & MOD_PDEST) ? 2 : 1; /* setp p|q, a, b: the sources come after q */
    /* Sources are read in place; results go to R first, since a destination may be a source. */
    const uint64_t *A = ptx_lanes(b, w, in->nops > s ? &in->ops[s] : &none, bufA);
    const uint64_t *C = ptx_lanes(b, w, in->nops > s + 1 ? &in->ops[s + 1] : &none, bufC);
    const uint64_t *D = ptx_lanes(b, w, in->nops > s + 2 ? &in->ops[s + 2] : &none, bufD);
    if (!fast_path(in, A, C, D, R)) {
        for (int lane = 0; lane < 32; lane++) {
            if (!(mask >> lane & 1))
                continue;
            uint64_t a = A[lane], c2 = C[lane], c3 = D[lane], r;
            switch (in->op) {
            case OP_SETP: {
                /* setp.<cmp>.<bool> p|q, a, b, c: p = cmp <bool> c, q = !cmp <bool> c. */
                bool t0 = compare(in, a, c2);
                r = combine(in->sub, t0, c3);
                Q[lane] = combine(in->sub, !t0, c3);
                break;
            }
            case OP_SELP: r = c3 ? a : c2; break;
            case OP_CVT:
                r = directed(in->rnd) ? rounded(convert_op, in, a, c2, c3) : convert(in, a);
                break;
            case OP_CVTA: {
                uint64_t local_base = (uint64_t)(w->base + lane) * b->e->local_bytes;
                if (in->space == SP_SHARED)
                    r = (in->mods & MOD_TO) ? a - PTX_SHARED_WINDOW : a + PTX_SHARED_WINDOW;
                else if (in->space == SP_LOCAL)
                    r = (in->mods & MOD_TO) ? a - PTX_LOCAL_WINDOW - local_base
                                            : a + PTX_LOCAL_WINDOW + local_base;
                else
                    r = a; /* global addresses are the same in every view */
                break;
            }
            case OP_AND: case OP_OR: case OP_XOR: case OP_NOT:
                r = t == TY_PRED ? (in->op == OP_NOT ? !a
                                    : in->op == OP_AND ? (a && c2)
                                    : in->op == OP_OR ? (a || c2) : ((a != 0) != (c2 != 0)))
                                 : int_op(in, a, c2, c3);
                break;
            default:
                if (is_f32)
                    r = directed(in->rnd) ? rounded(f32_op, in, a, c2, c3) : f32_op(in, a, c2, c3);
                else if (is_f64)
                    r = directed(in->rnd) ? rounded(f64_op, in, a, c2, c3) : f64_op(in, a, c2, c3);
                else if (in->op >= OP_RCP && in->op <= OP_COS)
                    return ptx_stop_unsupported(b, in, ptx_opcode_name((ptx_opcode)in->op));
                else
                    r = int_op(in, a, c2, c3);
                break;
            }
            R[lane] = r;
        }
    }
    if ((in->mods & MOD_PDEST) && in->ops[1].kind == OPK_REG)
        for (int lane = 0; lane < 32; lane++)
            if (mask >> lane & 1)
                w->regs[(size_t)in->ops[1].reg * 32 + (size_t)lane] = Q[lane];
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * 32;
    if (mask == 0xffffffffu) {
        memcpy(dst, R, sizeof R);
    } else {
        for (int lane = 0; lane < 32; lane++)
            if (mask >> lane & 1)
                dst[lane] = R[lane];
    }
    return 0;
}

bool ptx_atomic_apply(const ptx_insn *in, uint64_t old, uint64_t v, uint64_t cmp, uint64_t *out)
{
    ptx_type t = (ptx_type)in->type;
    unsigned n = ty_bytes(t);
    uint64_t m = width_mask(n);
    if (ty_is_half(t) && in->atomic != AT_EXCH && in->atomic != AT_CAS)
        return false; /* half-precision atomic arithmetic is not modelled */
    switch (in->atomic) {
    case AT_ADD:
        if (t == TY_F32) *out = bits32(f32(old) + f32(v));
        else if (t == TY_F64) *out = bits64(f64(old) + f64(v));
        else *out = (old + v) & m;
        return true;
    case AT_MIN:
    case AT_MAX: {
        bool less = ty_is_signed(t) ? sval(v, n) < sval(old, n) : uval(v, n) < uval(old, n);
        if (ty_is_float(t))
            return false;
        *out = (in->atomic == AT_MIN) == less ? v & m : old;
        return true;
    }
    case AT_EXCH: *out = v & m; return true;
    case AT_CAS: *out = uval(old, n) == uval(v, n) ? cmp & m : old; return true;
    case AT_AND: *out = old & v & m; return true;
    case AT_OR: *out = (old | v) & m; return true;
    case AT_XOR: *out = (old ^ v) & m; return true;
    case AT_INC: *out = uval(old, n) >= uval(v, n) ? 0 : (old + 1) & m; return true;
    case AT_DEC: *out = (uval(old, n) == 0 || uval(old, n) > uval(v, n)) ? v & m : (old - 1) & m; return true;
    default: return false;
    }
}
