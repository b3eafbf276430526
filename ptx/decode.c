/* Opcode strings (ld.global.v4.f32, setp.lt.s32, cvt.rn.f32.s32, ...) to pre-decoded fields. */
#include "decode.h"

#include <string.h>

static const char *const opcode_names[OP_COUNT] = {
    [OP_NOP] = "nop",   [OP_MOV] = "mov",     [OP_LD] = "ld",       [OP_ST] = "st",
    [OP_CVT] = "cvt",   [OP_CVTA] = "cvta",   [OP_ADD] = "add",     [OP_SUB] = "sub",
    [OP_MUL] = "mul",   [OP_MAD] = "mad",     [OP_FMA] = "fma",     [OP_DIV] = "div",
    [OP_REM] = "rem",   [OP_MIN] = "min",     [OP_MAX] = "max",     [OP_ABS] = "abs",
    [OP_NEG] = "neg",   [OP_AND] = "and",     [OP_OR] = "or",       [OP_XOR] = "xor",
    [OP_NOT] = "not",   [OP_SHL] = "shl",     [OP_SHR] = "shr",     [OP_SETP] = "setp",
    [OP_SELP] = "selp", [OP_RCP] = "rcp",     [OP_SQRT] = "sqrt",   [OP_RSQRT] = "rsqrt",
    [OP_EX2] = "ex2",   [OP_LG2] = "lg2",     [OP_SIN] = "sin",     [OP_COS] = "cos",
    [OP_BRA] = "bra",   [OP_BAR] = "bar",     [OP_RET] = "ret",     [OP_EXIT] = "exit",
    [OP_ATOM] = "atom", [OP_RED] = "red",   [OP_CALL] = "call",
};

const char *ptx_opcode_name(ptx_opcode op)
{
    return op < OP_COUNT && opcode_names[op] ? opcode_names[op] : "?";
}

typedef struct named {
    const char *name;
    int value;
} named;

static const named types[] = {
    {"pred", TY_PRED}, {"b8", TY_B8},   {"b16", TY_B16}, {"b32", TY_B32}, {"b64", TY_B64},
    {"u8", TY_U8},     {"u16", TY_U16}, {"u32", TY_U32}, {"u64", TY_U64}, {"s8", TY_S8},
    {"s16", TY_S16},   {"s32", TY_S32}, {"s64", TY_S64}, {"f16", TY_F16}, {"f32", TY_F32},
    {"f64", TY_F64},   {NULL, 0}};

static const named spaces[] = {{"global", SP_GLOBAL}, {"shared", SP_SHARED}, {"local", SP_LOCAL},
                               {"param", SP_PARAM},   {"const", SP_CONST},   {NULL, 0}};

static const named roundings[] = {{"rn", RND_RN},   {"rz", RND_RZ},   {"rm", RND_RM},
                                  {"rp", RND_RP},   {"rni", RND_RNI}, {"rzi", RND_RZI},
                                  {"rmi", RND_RMI}, {"rpi", RND_RPI}, {NULL, 0}};

static const named compares[] = {
    {"eq", CMP_EQ},   {"ne", CMP_NE},   {"lt", CMP_LT},   {"le", CMP_LE},   {"gt", CMP_GT},
    {"ge", CMP_GE},   {"lo", CMP_LO},   {"ls", CMP_LS},   {"hi", CMP_HI},   {"hs", CMP_HS},
    {"equ", CMP_EQU}, {"neu", CMP_NEU}, {"ltu", CMP_LTU}, {"leu", CMP_LEU}, {"gtu", CMP_GTU},
    {"geu", CMP_GEU}, {"num", CMP_NUM}, {"nan", CMP_NAN}, {NULL, 0}};

static const named atomics[] = {{"add", AT_ADD}, {"min", AT_MIN}, {"max", AT_MAX},
                                {"exch", AT_EXCH}, {"cas", AT_CAS}, {"and", AT_AND},
                                {"or", AT_OR},   {"xor", AT_XOR}, {"inc", AT_INC},
                                {"dec", AT_DEC}, {NULL, 0}};

/* Modifiers that change nothing an interpreter does: cache and memory-order hints. */
static const char *const ignored[] = {"uni", "sync", "aligned", "volatile", "relaxed", "acquire",
                                      "release", "gpu", "sys", "cta", "nc", "ca", "cg", "cs",
                                      "lu", "cv", "wb", "wt", "full", "lo", "weak", NULL};

static int lookup(const named *table, const char *word)
{
    for (int i = 0; table[i].name; i++)
        if (strcmp(table[i].name, word) == 0)
            return table[i].value;
    return -1;
}

int ptx_decode_opcode(const char *word, ptx_insn *in, char *why, size_t why_size)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", word);
    char *save = NULL;
    char *base = strtok_r(buf, ".", &save);
    if (!base) { /* nothing but dots */
        snprintf(why, why_size, "the instruction \"%s\"", word);
        return -1;
    }
    int op = -1;
    for (int i = 0; i < OP_COUNT; i++)
        if (opcode_names[i] && strcmp(opcode_names[i], base) == 0)
            op = i;
    if (strcmp(base, "barrier") == 0)
        op = OP_BAR;
    if (op < 0) {
        snprintf(why, why_size, "the instruction \"%s\"", word);
        return -1;
    }
    in->op = (uint8_t)op;
    in->vec = 1;
    int ntypes = 0;
    bool atomic_op_seen = false;
    for (char *m = strtok_r(NULL, ".", &save); m; m = strtok_r(NULL, ".", &save)) {
        int v;
        if ((v = lookup(types, m)) >= 0) {
            /* cvt.<dst>.<src>: the first type is the destination's. */
            if (ntypes++ == 0)
                in->type = (uint8_t)v;
            else
                in->type2 = (uint8_t)v;
        } else if ((op == OP_ATOM || op == OP_RED) && !atomic_op_seen && (v = lookup(atomics, m)) >= 0) {
            in->atomic = (uint8_t)v;
            atomic_op_seen = true;
        } else if ((v = lookup(spaces, m)) >= 0) {
            in->space = (uint8_t)v;
        } else if (op == OP_SETP && (v = lookup(compares, m)) >= 0) {
            in->cmp = (uint8_t)v;
        } else if ((v = lookup(roundings, m)) >= 0) {
            in->rnd = (uint8_t)v;
        } else if (strcmp(m, "wide") == 0) {
            in->mods |= MOD_WIDE;
        } else if (strcmp(m, "hi") == 0) {
            in->mods |= MOD_HI;
        } else if (strcmp(m, "ftz") == 0) {
            in->mods |= MOD_FTZ;
        } else if (strcmp(m, "sat") == 0) {
            in->mods |= MOD_SAT;
        } else if (strcmp(m, "approx") == 0) {
            in->mods |= MOD_APPROX;
        } else if (strcmp(m, "to") == 0) {
            in->mods |= MOD_TO;
        } else if (strcmp(m, "v2") == 0) {
            in->vec = 2;
        } else if (strcmp(m, "v4") == 0) {
            in->vec = 4;
        } else if (strcmp(m, "warp") == 0 && op == OP_BAR) {
            in->op = OP_NOP; /* bar.warp.sync: warps run in lockstep here */
        } else {
            bool skip = false;
            for (int i = 0; ignored[i]; i++)
                skip |= strcmp(ignored[i], m) == 0;
            if (!skip) {
                snprintf(why, why_size, "the modifier \".%s\" of \"%s\"", m, word);
                return -1;
            }
        }
    }
    if (op == OP_SETP && ntypes == 2) {
        /* setp.<cmp>.<bool>.<type> is not emitted for the labs; refuse rather than guess. */
        snprintf(why, why_size, "the instruction \"%s\"", word);
        return -1;
    }
    return 0;
}

int ptx_special_register(const char *word)
{
    static const named sregs[] = {
        {"%tid.x", SR_TID_X},       {"%tid.y", SR_TID_Y},       {"%tid.z", SR_TID_Z},
        {"%ntid.x", SR_NTID_X},     {"%ntid.y", SR_NTID_Y},     {"%ntid.z", SR_NTID_Z},
        {"%ctaid.x", SR_CTAID_X},   {"%ctaid.y", SR_CTAID_Y},   {"%ctaid.z", SR_CTAID_Z},
        {"%nctaid.x", SR_NCTAID_X}, {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z},
        {"%laneid", SR_LANEID},     {"%warpid", SR_WARPID},     {"%nwarpid", SR_NWARPID},
        {"WARP_SZ", SR_WARPSZ},     {NULL, 0}};
    return lookup(sregs, word);
}

int ptx_type_from_directive(const char *word)
{
    return word[0] == '.' ? lookup(types, word + 1) : -1;
}
