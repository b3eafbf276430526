/* What a launch's instructions cost an H100 beyond one issue slot each, counted for the
 * performance model (perfmodel/, docs/perfmodel.md): the SASS a PTX instruction becomes, the
 * slow pipes it uses, local memory as L1 traffic, atomics and the addresses they pile onto,
 * fences, sleeps and clock reads.
 *
 * The expansions are what ptxas (CUDA 13.0, sm_90) emits, read from cuobjdump -sass of
 * perfmodel/calibration/cost_classes.cu, whose kernels time each class on an H100. An
 * instruction this table does not know is charged as the plain one it is; the ones whose cost
 * cannot be bounded (a printf) are charged far more than any measured class. */
#include "diag.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* What one warp instruction of a class costs: issue cycles of the SASS it becomes (one per
 * instruction, two where the sequence is all half-rate integer instructions), and instructions
 * on the fp64 pipe (2 cycles a warp, 64 lanes per SM) and on the special-function and
 * conversion pipe (8 cycles a warp, 16 lanes per SM). */
typedef struct insn_cost {
    uint16_t slots;
    uint8_t fp64, xu;
} insn_cost;

typedef enum cost_class {
    CC_PLAIN = 0,
    CC_FP64,
    CC_MINMAX_F64,
    CC_DIV_F32,
    CC_DIV_APPROX_F32,
    CC_DIV_FULL_F32,
    CC_RCP_F32,
    CC_MUFU,      /* a lone special-function instruction */
    CC_SQRT_F32,
    CC_SQRT_APPROX_F32,
    CC_SIN_COS,
    CC_EX2_LG2,
    CC_DIV_F64,
    CC_RCP_F64,
    CC_SQRT_F64,
    CC_MUFU_F64,
    CC_DIV_I32,
    CC_DIV_IMM,
    CC_DIV_I64,
    CC_MUL_I64,
    CC_MULHI_I64,
    CC_MUL24,
    CC_CVT,       /* a conversion the XU pipe makes */
    CC_BITS,
    CC_BITS_64,
    CC_FENCE_CTA,
    CC_FENCE_GPU,
    CC_MATCH,
    CC_PRINTF,
    CC_COUNT
} cost_class;

/* One row per class: the PTX, what it becomes, and its cost. */
static const struct {
    const char *ptx, *sass;
    insn_cost cost;
} costs[CC_COUNT] = {
    [CC_PLAIN] = {"anything else", "one instruction", {1, 0, 0}},
    [CC_FP64] = {"add, sub, mul, fma, mad, setp .f64", "DADD, DMUL, DFMA, DSETP", {1, 1, 0}},
    [CC_MINMAX_F64] = {"min, max .f64", "DSETP and two selects", {3, 1, 0}},
    [CC_DIV_F32] = {"div.rn.f32 (x / y)", "FCHK, MUFU.RCP, 5 FFMA, branches around a slow path",
                    {12, 0, 2}},
    [CC_DIV_APPROX_F32] = {"div.approx.f32 (__fdividef)", "MUFU.RCP, 2 FMUL", {3, 0, 1}},
    [CC_DIV_FULL_F32] = {"div.full.f32", "MUFU.RCP, FMUL, range scaling", {4, 0, 1}},
    [CC_RCP_F32] = {"rcp.rn.f32", "MUFU.RCP, FFMA refinement, a check and a slow path", {8, 0, 1}},
    [CC_MUFU] = {"rcp.approx.f32, rsqrt.approx.f32, ex2/lg2.approx.ftz",
                 "MUFU.RCP, MUFU.RSQ, MUFU.EX2, MUFU.LG2", {1, 0, 1}},
    [CC_SQRT_F32] = {"sqrt.rn.f32 (sqrtf)", "MUFU.RSQ, 4 FMUL/FFMA, a check, branches around a "
                     "slow path", {13, 0, 1}},
    [CC_SQRT_APPROX_F32] = {"sqrt.approx.f32", "MUFU.SQRT and a denormal fix-up", {2, 0, 1}},
    [CC_SIN_COS] = {"sin, cos .approx.f32 (__sinf)", "FMUL.RZ, MUFU.SIN", {2, 0, 1}},
    [CC_EX2_LG2] = {"ex2, lg2 .approx.f32 without .ftz", "FSETP, 2 FMUL scaling, MUFU.EX2",
                    {4, 0, 1}},
    [CC_DIV_F64] = {"div.rn.f64", "MUFU.RCP64H, 7 DFMA, DMUL, checks, a slow path", {20, 8, 1}},
    [CC_RCP_F64] = {"rcp.rn.f64", "MUFU.RCP64H, 4 DFMA, checks, a slow path", {12, 5, 1}},
    [CC_SQRT_F64] = {"sqrt.rn.f64", "MUFU.RSQ64H, 7 DFMA, DMUL, checks, a slow path", {20, 8, 1}},
    [CC_MUFU_F64] = {"rcp.approx.ftz.f64, rsqrt.approx.f64", "MUFU.RCP64H, MUFU.RSQ64H", {2, 0, 1}},
    [CC_DIV_I32] = {"div, rem .s32/.u32 by a register", "I2F.U32.RP, MUFU.RCP, F2I, IMAD.HI and "
                    "14 half-rate integer fix-ups: 32 cycles a warp measured", {30, 0, 3}},
    [CC_DIV_IMM] = {"div, rem by an immediate", "IMAD.HI and shifts", {4, 0, 0}},
    [CC_DIV_I64] = {"div, rem .s64/.u64",
                    "a call of a 70-instruction integer routine (I2F.U64.RP, MUFU.RCP, F2I.U64, "
                    "IMAD.HI, IADD3): 134 cycles a warp measured", {136, 0, 3}},
    [CC_MUL_I64] = {"mul.lo, mad.lo .s64/.u64", "IMAD.WIDE.U32, 2 IMAD and a move: 3.3 cycles a "
                    "warp measured", {4, 0, 0}},
    [CC_MULHI_I64] = {"mul.hi, mad.hi .s64/.u64", "IMAD.WIDE.U32, IMAD.HI and carries", {8, 0, 0}},
    [CC_MUL24] = {"mul24, mad24", "sign extensions and an IMAD", {3, 0, 0}},
    [CC_CVT] = {"cvt to or from .f64, float to integer, 64-bit integer to float, rounding to an "
                "integral float", "F2F.F64, I2F.F64, F2I, I2F.U64, FRND", {1, 0, 1}},
    [CC_BITS] = {"popc, clz, brev, bfind", "POPC, FLO, BREV", {1, 0, 1}},
    [CC_BITS_64] = {"popc, clz, brev, bfind .b64", "two of those and an add", {3, 0, 2}},
    [CC_FENCE_CTA] = {"membar.cta, fence.*.cta, fence.proxy", "MEMBAR.SC.CTA", {1, 0, 0}},
    [CC_FENCE_GPU] = {"membar.gl/.sys, fence.*.gpu/.cluster/.sys",
                      "MEMBAR.SC.GPU or .SYS, ERRBAR, CGAERRBAR, CCTL.IVALL", {4, 0, 0}},
    [CC_MATCH] = {"match.any, match.all", "MATCH (not measured: taken as 8)", {8, 0, 0}},
    [CC_PRINTF] = {"call vprintf (printf)", "a trip to the host's buffer (not bounded: taken as "
                   "a microsecond)", {2000, 0, 0}},
};

static bool is_i64(int t) { return t == TY_S64 || t == TY_U64 || t == TY_B64; }
static bool is_int(int t) { return t >= TY_B8 && t <= TY_S64; }

static cost_class classify_cvt(const ptx_insn *in)
{
    int to = in->type, from = in->type2;
    if (to == from)
        return to == TY_F64 ? CC_FP64 : in->rnd >= RND_RNI ? CC_CVT : CC_PLAIN;
    if (to == TY_F64 || from == TY_F64)
        return CC_CVT;
    if (ty_is_float((ptx_type)from) && is_int(to))
        return CC_CVT; /* F2I */
    if (is_i64(from) && ty_is_float((ptx_type)to))
        return CC_CVT; /* I2F.S64 (a 32-bit integer's is I2FP, a plain instruction) */
    return CC_PLAIN;
}

static cost_class classify(const ptx_insn *in)
{
    int t = in->type;
    bool f32 = t == TY_F32, f64 = t == TY_F64, approx = in->mods & MOD_APPROX;
    switch (in->op) {
    case OP_DIV: case OP_REM:
        if (f32)
            return approx ? CC_DIV_APPROX_F32 : (in->mods & MOD_FULL) ? CC_DIV_FULL_F32 : CC_DIV_F32;
        if (f64)
            return CC_DIV_F64;
        if (in->ops[2].kind == OPK_IMM)
            return CC_DIV_IMM;
        return is_i64(t) ? CC_DIV_I64 : CC_DIV_I32;
    case OP_RCP:
        return f64 ? (approx ? CC_MUFU_F64 : CC_RCP_F64) : approx ? CC_MUFU : CC_RCP_F32;
    case OP_SQRT:
        return f64 ? CC_SQRT_F64 : approx ? CC_SQRT_APPROX_F32 : CC_SQRT_F32;
    case OP_RSQRT:
        return f64 ? CC_MUFU_F64 : CC_MUFU;
    case OP_SIN: case OP_COS:
        return CC_SIN_COS;
    case OP_EX2: case OP_LG2:
        return f32 && !(in->mods & MOD_FTZ) ? CC_EX2_LG2 : CC_MUFU;
    case OP_MUL: case OP_MAD:
        if (is_i64(t) && !(in->mods & MOD_WIDE))
            return (in->mods & MOD_HI) ? CC_MULHI_I64 : CC_MUL_I64;
        return f64 ? CC_FP64 : CC_PLAIN;
    case OP_ADD: case OP_SUB: case OP_FMA: case OP_SETP:
        return f64 ? CC_FP64 : CC_PLAIN;
    case OP_MIN: case OP_MAX:
        return f64 ? CC_MINMAX_F64 : CC_PLAIN;
    case OP_CVT:
        return classify_cvt(in);
    case OP_POPC: case OP_CLZ: case OP_BREV: case OP_BFIND:
        return is_i64(t) ? CC_BITS_64 : CC_BITS;
    case OP_MUL24: case OP_MAD24:
        return CC_MUL24;
    case OP_MATCH:
        return CC_MATCH;
    case OP_CALL:
        return in->ops[1].imm == PTX_FUNC_VPRINTF ? CC_PRINTF : CC_PLAIN;
    case OP_FENCE:
        return in->sub == FENCE_CTA ? CC_FENCE_CTA : CC_FENCE_GPU;
    default:
        return CC_PLAIN;
    }
}

static bool reads_clock(const ptx_insn *in)
{
    for (int i = 0; i < in->nops; i++)
        if (in->ops[i].kind == OPK_SREG && (in->ops[i].sreg == SR_CLOCK ||
                                            in->ops[i].sreg == SR_CLOCK64 ||
                                            in->ops[i].sreg == SR_GLOBALTIMER))
            return true;
    return false;
}

void diag_issue(ptx_diag *d, const ptx_insn *in, uint32_t exec)
{
    diag_costs *c = diag_now_costs(d);
    if (!c)
        return;
    /* A warp whose lanes are all predicated off issues the one instruction, not its expansion
     * (the compiler branches around those). */
    if (!exec) {
        c->issue_slots++;
        return;
    }
    const insn_cost *k = &costs[classify(in)].cost;
    c->issue_slots += k->slots;
    c->fp64_ops += k->fp64;
    c->xu_ops += k->xu;
    if (in->op == OP_FENCE)
        ++*(in->sub == FENCE_CTA ? &c->fences_cta : in->sub == FENCE_GPU ? &c->fences_gpu : &c->fences_sys);
    if ((in->mods & MOD_MACHINE_QUERY) && reads_clock(in))
        c->clock_reads++;
}

/* ---- local memory ------------------------------------------------------------------------- */
/* A GPU interleaves local memory by thread: word i of a warp's thread t sits at
 * (i * 32 + t % 32) * 4 in the warp's region, so a warp reading the same index of its arrays
 * reads one line, and lanes at different indices read different lines. The sectors are kept
 * apart from global ones in the L2 count by a base no device address reaches. */
#define LINE_BYTES 128
#define LOCAL_SECTOR_BASE (UINT64_C(1) << 39)

void diag_local_access(ptx_diag *d, const block_ctx *b, const warp *w, const uint64_t *offsets,
                       uint32_t mask, unsigned size)
{
    diag_costs *c = diag_now_costs(d);
    if (!c)
        return;
    uint64_t region = (uint64_t)(w->base / PTX_WARP_SIZE) * b->e->local_bytes * PTX_WARP_SIZE;
    unsigned words = size >= 4 ? size / 4 : 1;
    c->local_requests++;
    /* Each word of a vector access is a request of its own: words are interleaved too. */
    for (unsigned k = 0; k < words; k++) {
        uint64_t lines[PTX_WARP_SIZE];
        int nlines = 0;
        for (int lane = 0; lane < PTX_WARP_SIZE; lane++) {
            if (!(mask >> lane & 1))
                continue;
            uint64_t at = region + ((offsets[lane] / 4 + k) * PTX_WARP_SIZE + (uint64_t)lane) * 4;
            bool seen = false;
            for (int j = 0; j < nlines && !seen; j++)
                seen = lines[j] == at / LINE_BYTES;
            if (!seen)
                lines[nlines++] = at / LINE_BYTES;
            diag_l2_sector(d, b, LOCAL_SECTOR_BASE + at / 32);
        }
        c->local_wavefronts += (uint64_t)nlines;
    }
}

/* ---- atomics ------------------------------------------------------------------------------ */
/* The addresses a launch's atomics updated: open addressing on the address (global) or on the
 * block and offset (shared), each with its count and whether more than one block updated it.
 * Past DIAG_ATOMIC_ADDRESSES the table stops growing, and every further update is counted as
 * one more on the busiest shared address (the model errs slow). */
#define DIAG_ATOMIC_ADDRESSES (1u << 20)
#define SHARED_KEY (UINT64_C(1) << 63)

typedef struct atomic_slot {
    uint64_t key; /* 0: empty */
    uint32_t count, block;
    bool several_blocks;
} atomic_slot;

struct diag_atomics {
    atomic_slot *slots;
    size_t cap, used;
    uint64_t overflow;
};

static size_t slot_hash(uint64_t key, size_t cap)
{
    return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 24) & (cap - 1);
}

static bool atomics_grow(struct diag_atomics *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    atomic_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].key)
            continue;
        size_t h = slot_hash(t->slots[i].key, cap);
        while (slots[h].key)
            h = (h + 1) & (cap - 1);
        slots[h] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return true;
}

static void atomics_add(diag_costs *c, uint64_t key, uint32_t block)
{
    struct diag_atomics *t = c->atomics;
    if (!t && !(t = c->atomics = calloc(1, sizeof *t)))
        return;
    if (t->used * 2 >= t->cap && (t->used >= DIAG_ATOMIC_ADDRESSES || !atomics_grow(t))) {
        t->overflow++;
        return;
    }
    size_t h = slot_hash(key, t->cap);
    while (t->slots[h].key && t->slots[h].key != key)
        h = (h + 1) & (t->cap - 1);
    atomic_slot *s = &t->slots[h];
    if (!s->key) {
        *s = (atomic_slot){key, 0, block, false};
        t->used++;
    }
    s->count++;
    s->several_blocks |= s->block != block;
}

void diag_atomic(ptx_diag *d, const block_ctx *b, const uint64_t *addr, uint32_t mask,
                 unsigned space)
{
    diag_costs *c = diag_now_costs(d);
    if (!c)
        return;
    uint32_t block = (uint32_t)(((uint64_t)b->ctaid.z * b->grid.y + b->ctaid.y) * b->grid.x +
                                b->ctaid.x);
    if (space == SP_SHARED) {
        /* Lanes on one word take a pass each (a float add is a compare-and-swap loop that one
         * lane wins per round), lanes on one bank too. */
        uint32_t per_bank[PTX_SHARED_BANKS] = {0}, passes = 0;
        for (int lane = 0; lane < PTX_WARP_SIZE; lane++) {
            if (!(mask >> lane & 1))
                continue;
            uint32_t n = ++per_bank[addr[lane] / 4 % PTX_SHARED_BANKS];
            passes = n > passes ? n : passes;
            atomics_add(c, SHARED_KEY | (uint64_t)block << 32 | (addr[lane] & 0xffffffffu), block);
        }
        c->shared_atomic_requests++;
        c->shared_atomic_wavefronts += passes;
        return;
    }
    uint64_t sectors[PTX_WARP_SIZE];
    int n = 0;
    for (int lane = 0; lane < PTX_WARP_SIZE; lane++) {
        if (!(mask >> lane & 1))
            continue;
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = sectors[j] == addr[lane] / 32;
        if (!seen)
            sectors[n++] = addr[lane] / 32;
        atomics_add(c, (addr[lane] & ~SHARED_KEY) + 1, block);
    }
    c->atomic_requests++;
    c->atomic_sectors += (uint64_t)n;
}

void diag_costs_done(diag_costs *c)
{
    struct diag_atomics *t = c->atomics;
    if (!t)
        return;
    for (size_t i = 0; i < t->cap; i++) {
        const atomic_slot *s = &t->slots[i];
        uint64_t *max = !s->key                    ? NULL
                        : (s->key & SHARED_KEY)    ? &c->shared_atomic_address_max
                        : s->several_blocks        ? &c->atomic_address_max_shared
                                                   : &c->atomic_address_max_block;
        if (max && s->count > *max)
            *max = s->count;
    }
    c->atomic_address_max_shared += t->overflow;
    free(t->slots);
    free(t);
    c->atomics = NULL;
}

/* ---- stores and the loads after them ------------------------------------------------------ */
void diag_store_order(ptx_diag *d, warp *w, bool load)
{
    diag_costs *c = diag_now_costs(d);
    if (!load)
        w->stored_global = true;
    else if (w->stored_global && c) {
        w->stored_global = false;
        c->store_load_waits++;
    }
}

/* ---- sleeps ------------------------------------------------------------------------------- */
void diag_sleep(ptx_diag *d, const block_ctx *b, const warp *w, const ptx_insn *in, uint32_t mask)
{
    diag_costs *c = diag_now_costs(d);
    if (!c)
        return;
    uint64_t longest = 0;
    for (int lane = 0; lane < PTX_WARP_SIZE; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t ns = (uint32_t)ptx_operand_value(b, w, &in->ops[0], lane);
        longest = ns > longest ? ns : longest;
    }
    c->sleeps++;
    c->sleep_ns += longest;
}

/* ---- JSON --------------------------------------------------------------------------------- */
#define FIELD(name) {#name, offsetof(diag_costs, name)}
static const struct {
    const char *name;
    size_t offset;
} fields[] = {
    FIELD(issue_slots), FIELD(fp64_ops), FIELD(xu_ops), FIELD(local_requests),
    FIELD(local_wavefronts), FIELD(l2_store_sectors), FIELD(atomic_requests),
    FIELD(atomic_sectors), FIELD(atomic_address_max_block), FIELD(atomic_address_max_shared),
    FIELD(shared_atomic_address_max), FIELD(shared_atomic_requests),
    FIELD(shared_atomic_wavefronts), FIELD(fences_cta), FIELD(fences_gpu), FIELD(fences_sys),
    FIELD(sleeps), FIELD(sleep_ns), FIELD(clock_reads), FIELD(store_load_waits),
};

void diag_costs_write_json(FILE *out, const diag_costs *c)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        uint64_t v;
        memcpy(&v, (const char *)c + fields[i].offset, sizeof v);
        fprintf(out, ", \"%s\": %llu", fields[i].name, (unsigned long long)v);
    }
}
