/* Shared between the PTX parser and the interpreter: the pre-decoded form of a module. */
#ifndef TILELAB_PTX_INTERNAL_H
#define TILELAB_PTX_INTERNAL_H

#include "ptx.h"

/* Value types. Sizes come from ty_bytes. */
typedef enum ptx_type {
    TY_NONE = 0,
    TY_PRED,
    TY_B8, TY_B16, TY_B32, TY_B64,
    TY_U8, TY_U16, TY_U32, TY_U64,
    TY_S8, TY_S16, TY_S32, TY_S64,
    TY_F16, TY_F32, TY_F64,
    /* bfloat16, and the packed pairs: two halves in 32 bits, the first in the low 16 */
    TY_BF16, TY_F16X2, TY_BF16X2
} ptx_type;

typedef enum ptx_space { SP_GENERIC = 0, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST } ptx_space;

typedef enum ptx_opcode {
    OP_NOP = 0,
    OP_MOV, OP_LD, OP_ST, OP_CVT, OP_CVTA,
    OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM, OP_MIN, OP_MAX, OP_ABS, OP_NEG,
    OP_AND, OP_OR, OP_XOR, OP_NOT, OP_SHL, OP_SHR, OP_SETP, OP_SELP,
    OP_RCP, OP_SQRT, OP_RSQRT, OP_EX2, OP_LG2, OP_SIN, OP_COS,
    OP_BRA, OP_BAR,
    OP_WARPSYNC, /* bar.warp.sync (__syncwarp): the lanes its member mask names (warpsync.c) */
    OP_RET, OP_EXIT,
    OP_ATOM, OP_RED, OP_CALL,
    /* bits */
    OP_POPC, OP_CLZ, OP_BREV, OP_BFIND, OP_BFE, OP_BFI, OP_PRMT, OP_SHF, OP_COPYSIGN, OP_SAD,
    OP_TESTP, OP_MUL24, OP_MAD24,
    /* the warp's lanes together */
    OP_ACTIVEMASK, OP_VOTE, OP_SHFL, OP_REDUX, OP_MATCH,
    OP_TRAP,
    OP_SET, /* set.<cmp>.<dtype>.<stype>: a comparison's result as a value (half.c) */
    /* asynchronous copies and mbarrier objects (async.c) */
    OP_CPASYNC, OP_MBARRIER, OP_NANOSLEEP,
    /* membar and fence: every access here is already done in order; the performance model
     * charges what a GPU makes the warp wait (ptx_insn.sub: the scope) */
    OP_FENCE,
    OP_COUNT
} ptx_opcode;

/* Modifiers. */
enum {
    MOD_WIDE = 1 << 0, /* mul.wide / mad.wide */
    MOD_HI = 1 << 1,   /* mul.hi / mad.hi */
    MOD_FTZ = 1 << 2,
    MOD_SAT = 1 << 3,
    MOD_APPROX = 1 << 4,
    MOD_TO = 1 << 5,   /* cvta.to.<space> */
    MOD_SPLIT = 1 << 6, /* mov {a, b, ...}, x: x's bits into parts, lowest first */
    MOD_JOIN = 1 << 7,  /* mov x, {a, b, ...}: parts into x */
    MOD_PDEST = 1 << 8, /* a second destination, a predicate: d|p */
    MOD_CLAMP = 1 << 9, /* shf.clamp */
    MOD_SHIFTAMT = 1 << 10, /* bfind.shiftamt */
    MOD_SYNC = 1 << 11,     /* vote.sync, shfl.sync: a member mask is the last operand */
    MOD_CARRY_OUT = 1 << 12, /* add.cc, sub.cc, mad.cc: the carry (borrow) flag is written */
    MOD_CARRY_IN = 1 << 13,  /* addc, subc, madc: the carry (borrow) flag is added in */
    MOD_RELU = 1 << 14,      /* fma.relu, cvt.relu: negative results become +0 */
    MOD_NAN = 1 << 15,       /* min.NaN, max.NaN: a NaN input gives NaN */
    MOD_SATFINITE = 1 << 16, /* cvt.satfinite: infinities and overflows become the largest finite */
    MOD_FULL = 1 << 17,      /* div.full.f32 */
    MOD_ALU_SPECIAL = 1 << 18, /* set by the parser: vector moves, carries, halves, mufu.c's */
    MOD_MACHINE_QUERY = 1 << 19, /* set by the parser: reads a clock or an SM's or warp slot's id */
    MOD_CALL_PARAM = 1 << 20     /* set by the parser: a call's parameter, kept in local memory here
                                    and passed in registers on a GPU */
};

/* The mode of an instruction that has one (ptx_insn.sub). */
enum { PRMT_DEFAULT = 0, PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL, PRMT_ECR, PRMT_RC16 };
enum { SHF_L = 0, SHF_R };
enum { TESTP_FINITE = 0, TESTP_INFINITE, TESTP_NUMBER, TESTP_NOTANUMBER, TESTP_NORMAL,
       TESTP_SUBNORMAL };
enum { VOTE_ALL = 0, VOTE_ANY, VOTE_UNI, VOTE_BALLOT };
enum { SHFL_UP = 0, SHFL_DOWN, SHFL_BFLY, SHFL_IDX };
enum { MATCH_ANY = 0, MATCH_ALL };
enum { BAR_SYNC = 0, BAR_ARRIVE, BAR_RED_POPC, BAR_RED_AND, BAR_RED_OR }; /* bar.red.<op> last */
enum { SETP_PLAIN = 0, SETP_AND, SETP_OR, SETP_XOR }; /* setp.<cmp>.<bool>: combined with c */
/* A fence's scope: membar.cta and fence.*.cta (and proxy fences) order the block's own accesses;
 * .gl, .gpu and .cluster wait for the device's memory; .sys for the host's too. An unknown
 * scope is taken as the widest. */
enum { FENCE_SYS = 0, FENCE_CTA, FENCE_GPU };
/* cp.async.*: a copy of 4, 8 or 16 bytes, its groups, an mbarrier arrival when the thread's
 * copies are done; cp.async.bulk: a copy into shared memory that completes bytes of an
 * mbarrier's transaction count, or one out of shared memory in a bulk group. */
enum { CPA_COPY = 0, CPA_COMMIT, CPA_WAIT_GROUP, CPA_WAIT_ALL, CPA_MBAR_ARRIVE, CPA_BULK_SHARED,
       CPA_BULK_GLOBAL, CPA_BULK_COMMIT, CPA_BULK_WAIT, CPA_BULK_PREFETCH };
enum { MBAR_INIT = 0, MBAR_INVAL, MBAR_ARRIVE, MBAR_ARRIVE_DROP, MBAR_EXPECT_TX, MBAR_COMPLETE_TX,
       MBAR_TEST_WAIT, MBAR_TRY_WAIT, MBAR_PENDING_COUNT };
/* Their qualifiers, in ptx_insn.atomic (which only atom and red use otherwise). */
enum {
    ASYNC_PARITY = 1 << 0,     /* test_wait/try_wait.parity: the operand is a phase's parity */
    ASYNC_NOINC = 1 << 1,      /* cp.async.mbarrier.arrive.noinc */
    ASYNC_EXPECT_TX = 1 << 2,  /* mbarrier.arrive.expect_tx: a transaction count first */
    ASYNC_CACHE_HINT = 1 << 3, /* .L2::cache_hint: the last operand is a cache policy */
    ASYNC_IGNORE_SRC = 1 << 4  /* cp.async's fourth operand is a predicate: nothing read if set */
};

typedef enum ptx_round { RND_NONE = 0, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI } ptx_round;

typedef enum ptx_cmp {
    CMP_EQ = 0, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE,
    CMP_LO, CMP_LS, CMP_HI, CMP_HS,
    CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN
} ptx_cmp;

typedef enum ptx_atomic { AT_ADD = 0, AT_MIN, AT_MAX, AT_EXCH, AT_CAS, AT_AND, AT_OR, AT_XOR, AT_INC, AT_DEC } ptx_atomic;

typedef enum ptx_sreg {
    SR_TID_X = 0, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_WARPSZ,
    SR_CLOCK, SR_CLOCK64, SR_GLOBALTIMER,
    SR_LANEMASK_EQ, SR_LANEMASK_LE, SR_LANEMASK_LT, SR_LANEMASK_GE, SR_LANEMASK_GT,
    SR_SMID, SR_NSMID, SR_GRIDID,
    /* The region of shared memory reserved for the system (cooperative groups keep barriers
     * there): its start, end and capacity, and the two offsets into it. */
    SR_RESERVED_SMEM_BEGIN, SR_RESERVED_SMEM_END, SR_RESERVED_SMEM_CAP,
    SR_RESERVED_SMEM_OFFSET_0, SR_RESERVED_SMEM_OFFSET_1
} ptx_sreg;

typedef enum ptx_operand_kind {
    OPK_NONE = 0,
    OPK_REG,   /* a register slot */
    OPK_IMM,   /* an immediate: integer bits or float/double bits */
    OPK_SREG,  /* a special register */
    OPK_ADDR   /* [reg + imm] or [symbol + imm]; for symbols reg < 0 and imm holds the address */
} ptx_operand_kind;

typedef struct ptx_operand {
    uint8_t kind;
    uint8_t sreg;
    uint8_t negate;  /* !%p: the predicate's opposite */
    uint8_t local_sym; /* the value is a local variable's offset (moved when a function is linked) */
    int32_t reg;   /* slot, or -1 */
    int64_t imm;
} ptx_operand;

#define PTX_MAX_OPERANDS 6

typedef struct ptx_insn {
    uint8_t op;
    uint8_t type;     /* the instruction's type (destination type for cvt) */
    uint8_t type2;    /* cvt: source type; setp: unused */
    uint8_t space;    /* ld/st/cvta/atom */
    uint8_t cmp;      /* setp */
    uint8_t rnd;
    uint8_t atomic;   /* atom/red: the operation; cp.async, mbarrier: ASYNC_* qualifiers */
    uint8_t vec;      /* 1, 2 or 4 */
    uint8_t sub;      /* the mode of prmt, shf, testp, vote, shfl, match, setp */
    uint32_t mods;
    int16_t guard;    /* predicate slot, or -1 */
    uint8_t guard_neg;
    uint8_t nops;
    ptx_operand ops[PTX_MAX_OPERANDS]; /* ops[0] is the destination where there is one */
    int32_t target;   /* bra: instruction index */
    int32_t line;     /* source line from .loc, 0 if none */
    int16_t file;     /* .loc file index */
} ptx_insn;

typedef struct ptx_param {
    char name[128];
    uint32_t offset, size;
} ptx_param;

#define PTX_MAX_CALL_ARGS 32
#define PTX_WARP_SIZE 32      /* lanes per warp */
#define PTX_SHARED_BANKS 32   /* 4-byte banks of shared memory */

/* Bytes to copy within a thread's local memory, from one offset to another. */
typedef struct ptx_copy {
    uint32_t from, to, size;
} ptx_copy;

/* A call of a device function: call (retval), f, (param0, ...). The parser records the
 * caller's side; linking (link.c) adds where f's code, registers and local memory sit in the
 * calling entry, and where each argument and the result go. */
typedef struct ptx_callsite {
    char callee[256];
    int builtin;               /* PTX_FUNC_ASSERTFAIL, or 0 for a function of the module */
    int32_t target;            /* the callee's first instruction in the entry */
    int32_t reg_base, nregs;   /* the callee's register slots */
    uint32_t local_base, local_bytes; /* the callee's local memory */
    int nargs;
    ptx_copy args[PTX_MAX_CALL_ARGS]; /* caller's .param -> callee's parameter */
    bool has_ret;
    ptx_copy ret;              /* callee's func_retval0 -> caller's retval .param */
} ptx_callsite;

struct ptx_entry {
    char name[256];
    ptx_param *params;
    int nparams;
    uint32_t param_bytes;
    ptx_insn *code;
    int ncode;
    int nregs;            /* register slots, 64 bits each */
    uint32_t shared_bytes;
    uint32_t local_bytes; /* per thread */
    const ptx_module *module;
    ptx_callsite *calls;  /* device-function calls, indexed by a call instruction's target */
    int ncalls;
    /* A device function (.func): its parameters live in its local memory (params[i].offset),
     * as does its result (ret_offset, ret_size; has_ret). `defined` once its body is read. */
    bool is_func, defined, has_ret;
    /* It reads a %reserved_smem_offset_* register: its blocks get the reserved region. */
    bool reserved_shared;
    uint32_t ret_offset, ret_size;
    /* The first instruction the interpreter cannot run, with its source line: a launch of this
     * entry is refused with it ("" when there is none). Other entries are not affected. */
    char unsupported[640];
};

/* A module-scope .global/.const variable: host memory holding its initial bytes. */
typedef struct ptx_global {
    char name[128];
    uint8_t *data;
    size_t size;
} ptx_global;

/* What a call names (ops[1].imm of a call): the device runtime's printf, or a device function
 * (the call-site table says which), or assert()'s __assertfail. */
enum { PTX_FUNC_VPRINTF = 1, PTX_FUNC_DEVICE, PTX_FUNC_ASSERTFAIL };

/* Dynamic shared memory (extern .shared arrays) starts here, past any static shared memory. */
#define PTX_DYNAMIC_SHARED_BASE UINT64_C(0x10000)

/* The shared memory reserved for the system, for a kernel that reads where it is
 * (%reserved_smem_offset_*; cooperative groups of several warps keep their barriers there):
 * right after the kernel's own shared memory (after the dynamic part when there is one), at a
 * multiple of the allocation unit, as GPUs of compute capability 8.x report it: 288 bytes in
 * use (%reserved_smem_offset_end) and 1 KiB in all (_cap). */
#define PTX_RESERVED_SHARED_ALIGN 128
#define PTX_RESERVED_SHARED_USED 0x120
#define PTX_RESERVED_SHARED_CAP 0x400

struct ptx_module {
    char name[256];
    ptx_global *globals;
    int nglobals;
    /* The module's extern .shared arrays: every one names the launch's dynamic shared
     * memory (a kernel uses one; a module may declare one per kernel). */
    char (*dynamic_shared)[128];
    int ndynamic_shared;
    ptx_entry *entries;
    int nentries;
    ptx_entry *funcs;     /* .func device functions, declared or defined */
    int nfuncs;
    char **files;         /* .file index -> path */
    int nfiles;
};

/* Windows for generic addresses of shared and local memory: kernel-half addresses, which no
 * user-space host pointer can equal. */
#define PTX_SHARED_WINDOW UINT64_C(0xffff800000000000)
#define PTX_LOCAL_WINDOW UINT64_C(0xffffc00000000000)

static inline unsigned ty_bytes(ptx_type t)
{
    switch (t) {
    case TY_PRED: return 1;
    case TY_B8: case TY_U8: case TY_S8: return 1;
    case TY_B16: case TY_U16: case TY_S16: case TY_F16: case TY_BF16: return 2;
    case TY_B32: case TY_U32: case TY_S32: case TY_F32: case TY_F16X2: case TY_BF16X2: return 4;
    case TY_B64: case TY_U64: case TY_S64: case TY_F64: return 8;
    default: return 0;
    }
}

static inline int ty_is_signed(ptx_type t) { return t >= TY_S8 && t <= TY_S64; }
static inline int ty_is_float(ptx_type t) { return t >= TY_F16; }
/* The half-precision types: f16 and bf16, alone or in packed pairs (half.c runs them). */
static inline int ty_is_half(ptx_type t) { return t == TY_F16 || t >= TY_BF16; }

const char *ptx_opcode_name(ptx_opcode op);

/* Gives each entry that calls device functions its own copy of every function it reaches, with
 * registers, local memory and branch targets moved past the entry's, and resolves its call
 * sites (link.c). A call the module cannot satisfy refuses that entry's launches only. */
int ptx_link_module(ptx_module *m, ptx_error *err);

/* The source file of an instruction of m (NULL: the module's own name), by its own name: the
 * folder it was compiled in means nothing to the reader (names.c). */
const char *ptx_source_file(const ptx_module *m, const ptx_insn *in);

#endif /* TILELAB_PTX_INTERNAL_H */
