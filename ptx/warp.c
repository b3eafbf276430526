/* Instructions in which the lanes of a warp exchange values: activemask, vote, shfl, redux
 * and match (__activemask, __ballot_sync, __shfl_*_sync, __reduce_*_sync, __match_*_sync).
 * Each reads every participating lane's operand before any lane's result is written. */
#include "exec.h"

#include <string.h>

#define WARP_LANES 32
#define SHFL_LANE_BITS 0x1fu   /* shfl's b and c: a lane number in the low five bits */
#define SHFL_SEGMASK_SHIFT 8   /* c[12:8]: the segment mask (32 - width for a sub-warp) */

static const ptx_operand *member_operand(const ptx_insn *in)
{
    return (in->mods & MOD_SYNC) || in->op == OP_REDUX || in->op == OP_MATCH
               ? &in->ops[in->nops - 1]
               : NULL;
}

/* A .sync instruction must be reached by every lane its member mask names that has not
 * exited, at the same place; a lane running it must be named. A GPU hangs or gives undefined
 * values otherwise, so this stops the kernel with the lanes that are missing. */
static int check_members(block_ctx *b, const warp *w, const ptx_insn *in, uint32_t exec,
                         uint32_t member)
{
    uint32_t alive = 0;
    for (int lane = 0; lane < w->nlanes; lane++)
        alive |= (uint32_t)(w->state[lane] != LANE_DONE) << lane;
    uint32_t missing = member & alive & ~exec, stray = exec & ~member;
    if (!missing && !stray)
        return 0;
    const char *what = ptx_opcode_name((ptx_opcode)in->op);
    if (missing)
        return ptx_stopf(b, in, "warp %d: %s.sync names lanes 0x%08x in its member mask 0x%08x, "
                         "but only lanes 0x%08x reached it (the others took another branch "
                         "or wait elsewhere); every named lane that has not exited must run the "
                         "same %s", w->base / WARP_LANES, what, missing, member, exec, what);
    return ptx_stopf(b, in, "warp %d: lanes 0x%08x run %s.sync but are not in its member mask "
                     "0x%08x; a lane must name itself", w->base / WARP_LANES, stray, what, member);
}

static void write_lanes(warp *w, const ptx_operand *o, uint32_t exec, const uint64_t *v)
{
    if (o->kind != OPK_REG)
        return; /* "_" */
    uint64_t *dst = w->regs + (size_t)o->reg * WARP_LANES;
    for (int lane = 0; lane < WARP_LANES; lane++)
        if (exec >> lane & 1)
            dst[lane] = v[lane];
}

/* shfl: the PTX ISA's lane arithmetic. c packs the clamp value (c[4:0]) and the segment mask
 * (c[12:8]) that split the warp into sub-warps; p says whether the source lane was in range
 * (out of range, a lane keeps its own value). */
static void shuffle(const ptx_insn *in, const uint64_t *a, const uint64_t *bv,
                    const uint64_t *cv, uint32_t exec, uint64_t *d, uint64_t *p)
{
    for (int lane = 0; lane < WARP_LANES; lane++) {
        if (!(exec >> lane & 1))
            continue;
        int off = (int)(bv[lane] & SHFL_LANE_BITS);
        int clamp = (int)(cv[lane] & SHFL_LANE_BITS);
        int seg = (int)(cv[lane] >> SHFL_SEGMASK_SHIFT & SHFL_LANE_BITS);
        int max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
        int j;
        bool ok;
        switch (in->sub) {
        case SHFL_UP: j = lane - off; ok = j >= max_lane; break;
        case SHFL_DOWN: j = lane + off; ok = j <= max_lane; break;
        case SHFL_BFLY: j = lane ^ off; ok = j <= max_lane; break;
        default: j = min_lane | (off & ~seg); ok = j <= max_lane; break; /* SHFL_IDX */
        }
        if (!ok)
            j = lane;
        d[lane] = a[j];
        p[lane] = ok;
    }
}

static uint64_t reduce(const ptx_insn *in, const uint64_t *a, uint32_t lanes)
{
    bool sgn = ty_is_signed((ptx_type)in->type);
    uint64_t r = 0;
    bool first = true;
    for (int lane = 0; lane < WARP_LANES; lane++) {
        if (!(lanes >> lane & 1))
            continue;
        uint32_t v = (uint32_t)a[lane];
        if (first) {
            r = v;
            first = false;
            continue;
        }
        switch (in->atomic) {
        case AT_ADD: r = (uint32_t)(r + v); break;
        case AT_AND: r &= v; break;
        case AT_OR: r |= v; break;
        case AT_XOR: r ^= v; break;
        case AT_MIN:
            r = sgn ? ((int32_t)v < (int32_t)r ? v : r) : (v < r ? v : r);
            break;
        default: /* AT_MAX */
            r = sgn ? ((int32_t)v > (int32_t)r ? v : r) : (v > r ? v : r);
            break;
        }
    }
    return r;
}

int ptx_exec_warp(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec)
{
    uint64_t mem[WARP_LANES];
    const ptx_operand *mo = member_operand(in);
    uint32_t member = exec;
    if (mo) {
        ptx_gather(b, w, mo, mem);
        /* Every lane passes the same mask in correct code; the first running lane's stands. */
        member = (uint32_t)mem[__builtin_ctz(exec)];
        if (check_members(b, w, in, exec, member) != 0)
            return -1;
    }
    uint32_t group = exec & member;
    int src = (in->mods & MOD_PDEST) ? 2 : 1;
    uint64_t a[WARP_LANES] = {0}, d[WARP_LANES] = {0}, p[WARP_LANES] = {0};
    if (in->op != OP_ACTIVEMASK)
        ptx_gather(b, w, &in->ops[src], a);
    unsigned bytes = ty_bytes((ptx_type)in->type);
    uint64_t width = bytes >= 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * bytes)) - 1;
    switch (in->op) {
    case OP_ACTIVEMASK:
        for (int lane = 0; lane < WARP_LANES; lane++)
            d[lane] = exec;
        break;
    case OP_VOTE: {
        uint32_t yes = 0;
        for (int lane = 0; lane < WARP_LANES; lane++)
            yes |= (uint32_t)((group >> lane & 1) && a[lane] != 0) << lane;
        uint64_t r = in->sub == VOTE_BALLOT ? yes
                     : in->sub == VOTE_ALL  ? yes == group
                     : in->sub == VOTE_ANY  ? yes != 0
                                            : (yes == 0 || yes == group); /* VOTE_UNI */
        for (int lane = 0; lane < WARP_LANES; lane++)
            d[lane] = r;
        break;
    }
    case OP_SHFL: {
        uint64_t bv[WARP_LANES], cv[WARP_LANES];
        ptx_gather(b, w, &in->ops[src + 1], bv);
        ptx_gather(b, w, &in->ops[src + 2], cv);
        shuffle(in, a, bv, cv, exec, d, p);
        break;
    }
    case OP_REDUX: {
        uint64_t r = reduce(in, a, group);
        for (int lane = 0; lane < WARP_LANES; lane++)
            d[lane] = r;
        break;
    }
    default: { /* OP_MATCH */
        bool all_same = true;
        for (int lane = 0; lane < WARP_LANES; lane++) {
            if (!(group >> lane & 1))
                continue;
            uint32_t same = 0;
            for (int other = 0; other < WARP_LANES; other++)
                same |= (uint32_t)((group >> other & 1) &&
                                   (a[other] & width) == (a[lane] & width)) << other;
            all_same &= same == group;
            d[lane] = same;
        }
        for (int lane = 0; lane < WARP_LANES; lane++) {
            if (in->sub == MATCH_ALL)
                d[lane] = all_same ? member : 0;
            p[lane] = all_same;
        }
        break;
    }
    }
    write_lanes(w, &in->ops[0], exec, d);
    if (in->mods & MOD_PDEST)
        write_lanes(w, &in->ops[1], exec, p);
    return 0;
}
