/* Bit-manipulation instructions, one lane at a time, as the PTX ISA defines them: popc, clz,
 * brev, bfind, bfe, bfi, prmt, shf, copysign, sad, testp, mul24 and mad24. Each is what a
 * CUDA intrinsic (__popc, __clz, __brev, __byte_perm, __funnelshift_l, __mul24, isfinite...)
 * compiles to. */
#include "exec.h"

#include <math.h>
#include <string.h>

#define BYTE_BITS 8
#define BITFIELD_FIELD_MASK 0xffu /* bfe/bfi take position and length from the low byte */

static uint64_t width_mask(unsigned bits)
{
    return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

static int64_t sign_extend(uint64_t v, unsigned bits)
{
    unsigned shift = 64 - bits;
    return (int64_t)(v << shift) >> shift;
}

static uint64_t count_leading_zeros(uint64_t v, unsigned bits)
{
    v &= width_mask(bits);
    return v == 0 ? bits : (uint64_t)(__builtin_clzll(v) - (64 - (int)bits));
}

static uint64_t reverse_bits(uint64_t v, unsigned bits)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= (v >> i & 1) << (bits - 1 - i);
    return r;
}

/* The position of the most significant bit that differs from the sign (for a signed type) or
 * is set (unsigned); all ones when there is none. .shiftamt gives the left shift that would
 * bring that bit to the top instead. */
static uint64_t find_msb(const ptx_insn *in, uint64_t v, unsigned bits)
{
    v &= width_mask(bits);
    if (ty_is_signed((ptx_type)in->type) && (v >> (bits - 1) & 1))
        v = ~v & width_mask(bits);
    if (v == 0)
        return UINT32_MAX;
    uint64_t pos = 63 - (uint64_t)__builtin_clzll(v);
    return (in->mods & MOD_SHIFTAMT) ? bits - 1 - pos : pos;
}

/* bfe: len bits of a from pos, zero- or sign-extended (the sign is the field's top bit, or the
 * value's top bit where the field runs past it). */
static uint64_t bit_extract(const ptx_insn *in, uint64_t a, uint64_t pos, uint64_t len,
                            unsigned bits)
{
    unsigned msb = bits - 1;
    pos &= BITFIELD_FIELD_MASK;
    len &= BITFIELD_FIELD_MASK;
    uint64_t sbit = 0;
    if (ty_is_signed((ptx_type)in->type) && len != 0) {
        uint64_t top = pos + len - 1 < msb ? pos + len - 1 : msb;
        sbit = a >> top & 1;
    }
    uint64_t d = 0;
    for (unsigned i = 0; i <= msb; i++) {
        uint64_t bit = (i < len && pos + i <= msb) ? a >> (pos + i) & 1 : sbit;
        d |= bit << i;
    }
    return d;
}

/* bfi: the low len bits of a into b at pos; bits past the top of the type are dropped. */
static uint64_t bit_insert(uint64_t a, uint64_t b, uint64_t pos, uint64_t len, unsigned bits)
{
    pos &= BITFIELD_FIELD_MASK;
    len &= BITFIELD_FIELD_MASK;
    uint64_t f = b & width_mask(bits);
    for (uint64_t i = 0; i < len && pos + i < bits; i++)
        f = (f & ~(UINT64_C(1) << (pos + i))) | ((a >> i & 1) << (pos + i));
    return f;
}

/* prmt: four bytes picked from the eight of b:a (a the low word). The generic form takes a
 * selector nibble per result byte (bit 3: replicate the byte's sign); the named modes take
 * the pattern from the table below, indexed by the low two bits of c. */
static uint64_t permute_bytes(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    static const uint8_t modes[][4][4] = {
        /* for each mode and c[1:0]: the source byte of d.b0, d.b1, d.b2, d.b3 */
        [PRMT_F4E] = {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},
        [PRMT_B4E] = {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},
        [PRMT_RC8] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},
        [PRMT_ECL] = {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},
        [PRMT_ECR] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},
        [PRMT_RC16] = {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},
    };
    uint64_t src = (a & UINT32_MAX) | (b & UINT32_MAX) << 32;
    uint64_t d = 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned sel, pick;
        bool sign = false;
        if (in->sub == PRMT_DEFAULT) {
            sel = (unsigned)(c >> (4 * i)) & 0xf;
            pick = sel & 7;
            sign = sel & 8;
        } else {
            pick = modes[in->sub][c & 3][i];
        }
        uint64_t byte = src >> (BYTE_BITS * pick) & 0xff;
        if (sign)
            byte = (byte & 0x80) ? 0xff : 0;
        d |= byte << (BYTE_BITS * i);
    }
    return d;
}

/* shf: the 64-bit value b:a shifted, the upper (.l) or lower (.r) word kept. The amount is c
 * modulo 32 (.wrap) or at most 32 (.clamp). */
static uint64_t funnel_shift(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    uint32_t n = (uint32_t)c;
    n = (in->mods & MOD_CLAMP) ? (n > 32 ? 32 : n) : n & 31;
    uint64_t x = (a & UINT32_MAX) | (b & UINT32_MAX) << 32;
    return in->sub == SHF_L ? (uint32_t)((x << n) >> 32) : (uint32_t)(x >> n);
}

static bool test_property(const ptx_insn *in, uint64_t a)
{
    double x;
    if (in->type == TY_F32) {
        uint32_t u = (uint32_t)a;
        float f;
        memcpy(&f, &u, sizeof f);
        x = f;
        /* Classify in the value's own precision: a float subnormal is normal as a double.
         * Zero counts as normal (an H100 says so; the PTX ISA's wording leaves it open). */
        int k = fpclassify(f);
        if (in->sub == TESTP_NORMAL)
            return k == FP_NORMAL || k == FP_ZERO;
        if (in->sub == TESTP_SUBNORMAL)
            return k == FP_SUBNORMAL;
    } else {
        memcpy(&x, &a, sizeof x);
    }
    switch (in->sub) {
    case TESTP_FINITE: return isfinite(x);
    case TESTP_INFINITE: return isinf(x);
    case TESTP_NUMBER: return !isnan(x);
    case TESTP_NOTANUMBER: return isnan(x);
    case TESTP_NORMAL: return fpclassify(x) == FP_NORMAL || fpclassify(x) == FP_ZERO;
    default: return fpclassify(x) == FP_SUBNORMAL;
    }
}

/* mul24/mad24: the 48-bit product of the low 24 bits of a and b (sign-extended for .s32);
 * .lo keeps its low 32 bits, .hi its high 32. */
static uint64_t multiply24(const ptx_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    bool sgn = ty_is_signed((ptx_type)in->type);
    int64_t x = sgn ? sign_extend(a, 24) : (int64_t)(a & 0xffffff);
    int64_t y = sgn ? sign_extend(b, 24) : (int64_t)(b & 0xffffff);
    uint64_t p = (uint64_t)(x * y);
    uint64_t part = (in->mods & MOD_HI) ? p >> 16 : p;
    uint64_t r = (uint32_t)part;
    if (in->op == OP_MAD24) {
        if ((in->mods & MOD_SAT) && sgn) {
            int64_t s = (int64_t)(int32_t)r + (int64_t)(int32_t)c;
            s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
            return (uint32_t)s;
        }
        r = (uint32_t)(r + c);
    }
    return r;
}

static uint64_t one_lane(const ptx_insn *in, const uint64_t *v)
{
    unsigned bits = BYTE_BITS * ty_bytes((ptx_type)in->type);
    uint64_t m = width_mask(bits);
    switch (in->op) {
    case OP_POPC: return (uint64_t)__builtin_popcountll(v[0] & m);
    case OP_CLZ: return count_leading_zeros(v[0], bits);
    case OP_BREV: return reverse_bits(v[0], bits);
    case OP_BFIND: return find_msb(in, v[0], bits);
    case OP_BFE: return bit_extract(in, v[0], v[1], v[2], bits);
    case OP_BFI: return bit_insert(v[0], v[1], v[2], v[3], bits);
    case OP_PRMT: return permute_bytes(in, v[0], v[1], v[2]);
    case OP_SHF: return funnel_shift(in, v[0], v[1], v[2]);
    case OP_COPYSIGN: {
        /* d = |b| with a's sign: only the sign bit moves, NaN payloads included. */
        uint64_t sign = UINT64_C(1) << (bits - 1);
        return ((v[1] & ~sign) | (v[0] & sign)) & m;
    }
    case OP_SAD: {
        bool sgn = ty_is_signed((ptx_type)in->type);
        bool less = sgn ? sign_extend(v[0], bits) < sign_extend(v[1], bits)
                        : (v[0] & m) < (v[1] & m);
        return (v[2] + (less ? v[1] - v[0] : v[0] - v[1])) & m;
    }
    case OP_TESTP: return test_property(in, v[0]);
    default: return multiply24(in, v[0], v[1], v[2]); /* OP_MUL24, OP_MAD24 */
    }
}

int ptx_exec_bits(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    enum { MAX_SOURCES = PTX_MAX_OPERANDS - 1 };
    uint64_t src[MAX_SOURCES][32];
    int nsrc = in->nops - 1;
    for (int i = 0; i < nsrc; i++)
        ptx_gather(b, w, &in->ops[1 + i], src[i]);
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * 32;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t v[MAX_SOURCES] = {0};
        for (int i = 0; i < nsrc; i++)
            v[i] = src[i][lane];
        dst[lane] = one_lane(in, v);
    }
    return 0;
}

/* Extended-precision arithmetic, as libdevice's argument reduction for sin and cos of large
 * doubles uses it: each lane has a carry flag that add.cc/sub.cc/mad.cc write and
 * addc/subc/madc read (for subtraction it is the borrow). */
int ptx_exec_carry(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask)
{
    unsigned bits = BYTE_BITS * ty_bytes((ptx_type)in->type);
    uint64_t m = width_mask(bits);
    bool sgn = ty_is_signed((ptx_type)in->type);
    uint64_t A[32], B[32], C[32] = {0};
    ptx_gather(b, w, &in->ops[1], A);
    ptx_gather(b, w, &in->ops[2], B);
    if (in->op == OP_MAD)
        ptx_gather(b, w, &in->ops[3], C);
    uint64_t *dst = w->regs + (size_t)in->ops[0].reg * 32;
    for (int lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        unsigned __int128 cin = (in->mods & MOD_CARRY_IN) ? w->carry[lane] : 0;
        uint64_t a = A[lane] & m, x = B[lane] & m, c = C[lane] & m;
        unsigned __int128 wide;
        bool out;
        if (in->op == OP_SUB) {
            /* a - x - borrow: a borrow out when that is below zero. */
            wide = (unsigned __int128)a - x - cin;
            out = (unsigned __int128)a < (unsigned __int128)x + cin;
        } else {
            uint64_t first = a, second = x;
            if (in->op == OP_MAD) {
                __int128 product = sgn ? (__int128)sign_extend(a, bits) * sign_extend(x, bits)
                                       : (__int128)((unsigned __int128)a * x);
                first = (uint64_t)((in->mods & MOD_HI) ? (unsigned __int128)product >> bits
                                                       : (unsigned __int128)product) & m;
                second = c;
            }
            wide = (unsigned __int128)first + second + cin;
            out = (wide >> bits) != 0;
        }
        dst[lane] = (uint64_t)wide & m;
        if (in->mods & MOD_CARRY_OUT)
            w->carry[lane] = out;
    }
    return 0;
}
