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
    [OP_WARPSYNC] = "bar.warp.sync",
    [OP_ATOM] = "atom", [OP_RED] = "red",   [OP_CALL] = "call",
    [OP_POPC] = "popc", [OP_CLZ] = "clz",     [OP_BREV] = "brev",   [OP_BFIND] = "bfind",
    [OP_BFE] = "bfe",   [OP_BFI] = "bfi",     [OP_PRMT] = "prmt",   [OP_SHF] = "shf",
    [OP_COPYSIGN] = "copysign", [OP_SAD] = "sad", [OP_TESTP] = "testp", [OP_MUL24] = "mul24",
    [OP_MAD24] = "mad24", [OP_ACTIVEMASK] = "activemask", [OP_VOTE] = "vote",
    [OP_SHFL] = "shfl", [OP_REDUX] = "redux", [OP_MATCH] = "match", [OP_TRAP] = "trap",
    [OP_SET] = "set",
    [OP_CPASYNC] = "cp.async", [OP_MBARRIER] = "mbarrier", [OP_NANOSLEEP] = "nanosleep",
    [OP_FENCE] = "fence",
};

/* Modes, per instruction. */
static const struct {
    int op;
    const char *name;
    int sub;
} modes[] = {
    {OP_PRMT, "f4e", PRMT_F4E},      {OP_PRMT, "b4e", PRMT_B4E},     {OP_PRMT, "rc8", PRMT_RC8},
    {OP_PRMT, "ecl", PRMT_ECL},      {OP_PRMT, "ecr", PRMT_ECR},     {OP_PRMT, "rc16", PRMT_RC16},
    {OP_SHF, "l", SHF_L},            {OP_SHF, "r", SHF_R},
    {OP_TESTP, "finite", TESTP_FINITE}, {OP_TESTP, "infinite", TESTP_INFINITE},
    {OP_TESTP, "number", TESTP_NUMBER}, {OP_TESTP, "notanumber", TESTP_NOTANUMBER},
    {OP_TESTP, "normal", TESTP_NORMAL}, {OP_TESTP, "subnormal", TESTP_SUBNORMAL},
    {OP_VOTE, "all", VOTE_ALL},      {OP_VOTE, "any", VOTE_ANY},     {OP_VOTE, "uni", VOTE_UNI},
    {OP_VOTE, "ballot", VOTE_BALLOT},
    {OP_SHFL, "up", SHFL_UP},        {OP_SHFL, "down", SHFL_DOWN},   {OP_SHFL, "bfly", SHFL_BFLY},
    {OP_SHFL, "idx", SHFL_IDX},
    {OP_MATCH, "any", MATCH_ANY},    {OP_MATCH, "all", MATCH_ALL},
    {OP_BAR, "arrive", BAR_ARRIVE},  {OP_BAR, "popc", BAR_RED_POPC}, {OP_BAR, "and", BAR_RED_AND},
    {OP_BAR, "or", BAR_RED_OR},
    {OP_SETP, "and", SETP_AND},      {OP_SETP, "or", SETP_OR},       {OP_SETP, "xor", SETP_XOR},
    {OP_SET, "and", SETP_AND},       {OP_SET, "or", SETP_OR},        {OP_SET, "xor", SETP_XOR},
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
    {"f64", TY_F64},   {"bf16", TY_BF16}, {"f16x2", TY_F16X2}, {"bf16x2", TY_BF16X2},
    {NULL, 0}};

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
                                      "release", "acq_rel", "gpu", "sys", "cta", "nc", "ca", "cg",
                                      "cs", "lu", "cv", "wb", "wt", "full", "lo", "weak", NULL};

static int lookup(const named *table, const char *word)
{
    for (int i = 0; table[i].name; i++)
        if (strcmp(table[i].name, word) == 0)
            return table[i].value;
    return -1;
}

static int mode_of(int op, const char *word)
{
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (modes[i].op == op && strcmp(modes[i].name, word) == 0)
            return modes[i].sub;
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
    /* Asynchronous copies, mbarrier objects and nanosleep have their own decoder (async.c). */
    if (strcmp(base, "cp") == 0 || strcmp(base, "mbarrier") == 0 ||
        strcmp(base, "nanosleep") == 0)
        return ptx_decode_async(word, in, why, why_size);
    int op = -1;
    for (int i = 0; i < OP_COUNT; i++)
        if (opcode_names[i] && strcmp(opcode_names[i], base) == 0)
            op = i;
    if (strcmp(base, "barrier") == 0)
        op = OP_BAR;
    /* Memory ordering: every access here is done in order, one thread after another; the
     * fence stays, for what it costs a GPU (its scope). */
    if (strcmp(base, "membar") == 0 || strcmp(base, "fence") == 0) {
        in->op = OP_FENCE;
        in->sub = FENCE_SYS;
        for (char *m = strtok_r(NULL, ".", &save); m; m = strtok_r(NULL, ".", &save)) {
            if (strcmp(m, "cta") == 0 || strncmp(m, "proxy", 5) == 0)
                in->sub = FENCE_CTA;
            else if (strcmp(m, "gl") == 0 || strcmp(m, "gpu") == 0 || strcmp(m, "cluster") == 0)
                in->sub = FENCE_GPU;
        }
        return 0;
    }
    if (strcmp(base, "brkpt") == 0)
        op = OP_TRAP;
    /* Extended-precision arithmetic: addc, subc, madc take the carry in. */
    if (strcmp(base, "addc") == 0 || strcmp(base, "subc") == 0 || strcmp(base, "madc") == 0) {
        op = base[0] == 'a' ? OP_ADD : base[0] == 's' ? OP_SUB : OP_MAD;
        in->mods |= MOD_CARRY_IN;
    }
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
        } else if ((op == OP_ATOM || op == OP_RED || op == OP_REDUX) && !atomic_op_seen &&
                   (v = lookup(atomics, m)) >= 0) {
            in->atomic = (uint8_t)v;
            atomic_op_seen = true;
        } else if ((v = lookup(spaces, m)) >= 0) {
            in->space = (uint8_t)v;
        } else if ((op == OP_SETP || op == OP_SET) && (v = lookup(compares, m)) >= 0) {
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
        } else if (strcmp(m, "full") == 0 && op == OP_DIV) {
            in->mods |= MOD_FULL;
        } else if (strcmp(m, "relu") == 0) {
            in->mods |= MOD_RELU;
        } else if (strcmp(m, "NaN") == 0) {
            in->mods |= MOD_NAN;
        } else if (strcmp(m, "satfinite") == 0) {
            in->mods |= MOD_SATFINITE;
        } else if (strcmp(m, "approx") == 0) {
            in->mods |= MOD_APPROX;
        } else if (strcmp(m, "to") == 0) {
            in->mods |= MOD_TO;
        } else if (strcmp(m, "v2") == 0) {
            in->vec = 2;
        } else if (strcmp(m, "v4") == 0) {
            in->vec = 4;
        } else if (strcmp(m, "cc") == 0 && (op == OP_ADD || op == OP_SUB || op == OP_MAD)) {
            in->mods |= MOD_CARRY_OUT;
        } else if (strcmp(m, "sync") == 0) {
            in->mods |= MOD_SYNC;
        } else if (op == OP_BAR && strcmp(m, "red") == 0) {
            /* bar.red.<op>: the operation that follows says which */
        } else if (strcmp(m, "warp") == 0 && op == OP_BAR) {
            in->op = OP_WARPSYNC; /* bar.warp.sync */
        } else if (op == OP_SHF && (strcmp(m, "clamp") == 0 || strcmp(m, "wrap") == 0)) {
            in->mods |= m[0] == 'c' ? MOD_CLAMP : 0;
        } else if (op == OP_BFIND && strcmp(m, "shiftamt") == 0) {
            in->mods |= MOD_SHIFTAMT;
        } else if (mode_of(op, m) >= 0) {
            in->sub = (uint8_t)mode_of(op, m);
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

int ptx_expected_operands(const ptx_insn *in)
{
    static const int8_t base[OP_COUNT] = {
        [OP_POPC] = 2, [OP_CLZ] = 2,    [OP_BREV] = 2,     [OP_BFIND] = 2, [OP_BFE] = 4,
        [OP_BFI] = 5,  [OP_PRMT] = 4,   [OP_SHF] = 4,      [OP_COPYSIGN] = 3, [OP_SAD] = 4,
        [OP_TESTP] = 2, [OP_MUL24] = 3, [OP_MAD24] = 4,    [OP_ACTIVEMASK] = 1,
        [OP_VOTE] = 2, [OP_SHFL] = 4,   [OP_REDUX] = 2,    [OP_MATCH] = 2,
    };
    if (in->op >= OP_COUNT || base[in->op] == 0)
        return -1;
    int n = base[in->op] + ((in->mods & MOD_PDEST) ? 1 : 0);
    /* The member mask: always there for redux and match, with .sync for vote and shfl. */
    if (in->op == OP_REDUX || in->op == OP_MATCH ||
        ((in->op == OP_VOTE || in->op == OP_SHFL) && (in->mods & MOD_SYNC)))
        n++;
    return n;
}

int ptx_special_register(const char *word)
{
    static const named sregs[] = {
        {"%tid.x", SR_TID_X},       {"%tid.y", SR_TID_Y},       {"%tid.z", SR_TID_Z},
        {"%ntid.x", SR_NTID_X},     {"%ntid.y", SR_NTID_Y},     {"%ntid.z", SR_NTID_Z},
        {"%ctaid.x", SR_CTAID_X},   {"%ctaid.y", SR_CTAID_Y},   {"%ctaid.z", SR_CTAID_Z},
        {"%nctaid.x", SR_NCTAID_X}, {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z},
        {"%laneid", SR_LANEID},     {"%warpid", SR_WARPID},     {"%nwarpid", SR_NWARPID},
        {"WARP_SZ", SR_WARPSZ},     {"%clock", SR_CLOCK},       {"%clock64", SR_CLOCK64},
        {"%globaltimer", SR_GLOBALTIMER},     {"%lanemask_eq", SR_LANEMASK_EQ},
        {"%lanemask_le", SR_LANEMASK_LE},     {"%lanemask_lt", SR_LANEMASK_LT},
        {"%lanemask_ge", SR_LANEMASK_GE},     {"%lanemask_gt", SR_LANEMASK_GT},
        {"%smid", SR_SMID},         {"%nsmid", SR_NSMID},       {"%gridid", SR_GRIDID},
        {"%reserved_smem_offset_begin", SR_RESERVED_SMEM_BEGIN},
        {"%reserved_smem_offset_end", SR_RESERVED_SMEM_END},
        {"%reserved_smem_offset_cap", SR_RESERVED_SMEM_CAP},
        {"%reserved_smem_offset_0", SR_RESERVED_SMEM_OFFSET_0},
        {"%reserved_smem_offset_1", SR_RESERVED_SMEM_OFFSET_1},
        {NULL, 0}};
    return lookup(sregs, word);
}

const char *ptx_type_name(int type)
{
    for (int i = 0; types[i].name; i++)
        if (types[i].value == type)
            return types[i].name;
    return "?";
}

int ptx_type_from_directive(const char *word)
{
    return word[0] == '.' ? lookup(types, word + 1) : -1;
}
