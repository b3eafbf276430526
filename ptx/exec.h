/* The interpreter's state, shared by the scheduler (exec.c) and the arithmetic (alu.c). */
#ifndef TILELAB_PTX_EXEC_H
#define TILELAB_PTX_EXEC_H

#include "internal.h"

#include <stdatomic.h>
#include <stdio.h>

/* The interpreter's hot loops are compiled twice on x86-64: for any x86-64, and for hosts with
 * FMA, POPCNT and AVX2 (x86-64-v3), the loader choosing when the program starts. Results are
 * the same (fmaf is exactly rounded either way); the second calls no library function for a
 * fused multiply-add. Elsewhere (arm64 has FMA in its baseline), and under the sanitizers (an
 * instrumented clone chooser runs before they are set up), one build. PTX_INLINE pulls a helper
 * into each clone of its caller. */
/* Clang is left out: it names a clone set's dispatcher so that calls from other files do not
 * find it. */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__clang__)
#if __has_attribute(target_clones)
#define PTX_HOT __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#ifndef PTX_HOT
#define PTX_HOT
#endif
#define PTX_INLINE inline __attribute__((always_inline))

/* What a block knows about one 4-byte word of shared memory under diagnosis: its last writer
 * and last reader, with the barrier epoch of each access. A conflicting access by a thread of
 * another warp in the same epoch (no barrier in between) is a race; so is one by another lane
 * of the same warp that no __syncwarp() has ordered after it, which the lanes' clocks tell
 * (warpsync.c): each access keeps its lane's own clock then, and the bytes of the word it
 * touched (lanes of a warp often store neighbouring bytes or halves of one word). */
struct shadow_word {
    int32_t wepoch, wpc, repoch, rpc;
    uint32_t wclock, rclock;
    int16_t wtid, rtid; /* a block has at most 1024 threads */
    /* The low bits of the block's warp instruction that wrote (block_ctx.issued), to tell the
     * lanes of one store apart from two stores: a store exactly 65536·n instructions earlier
     * passes for the same one (a race missed, never one made up). 32 bytes in all: the
     * diagnosis's time goes with this record's size. */
    uint16_t wissue;
    uint8_t wbytes, rbytes; /* bit i: byte i of the word */
};

#define PTX_BARRIERS 16 /* bar.sync 0..15 */

/* One of a block's barriers: threads arrived so far, the count that completes it, and bar.red's
 * running reductions of the arriving threads' predicates. */
struct ptx_barrier {
    int arrived, expected;
    uint32_t popc;
    bool all, any;
};

struct warp;

typedef struct block_ctx {
    const ptx_entry *e;
    ptx_dim3 grid, block, ctaid;
    int nthreads, nwarps;
    uint8_t *params;
    uint8_t *shared;
    uint64_t shared_bytes;  /* static shared memory */
    uint64_t dynamic_bytes; /* at PTX_DYNAMIC_SHARED_BASE */
    uint8_t *local; /* local_bytes for each thread of the block */
    ptx_stats *stats;
    uint64_t issued;         /* warp instructions of this block so far: %clock reads it */
    uint32_t serial;         /* ptx_env.block_serial's: whose stores an answer's owner holds */
    uint64_t answer_words;   /* words of an answer's memory (ptx_region.owner) it stored */
    uint64_t timer_base;     /* the host's time when the block began (%globaltimer) */
    bool parallel;           /* other blocks run at the same time: global atomics are atomic */
    ptx_error *err;
    const ptx_env *env;      /* checks; NULL or fields NULL when off */
    ptx_diag *diag;          /* diagnosis: record errors and go on */
    int32_t epoch;           /* barriers completed in this block, for race detection */
    struct shadow_word *shadow; /* per shared word, under diagnosis */
    /* Under diagnosis, per shared word: the origin (taint.c) of the value its last store
     * wrote, 0 when clean; a word never written is told by its shadow instead. */
    int32_t *shared_taint;
    /* Under diagnosis (warpsync.c): per thread, its clock, and PTX_WARP_SIZE clocks, what it
     * knows of each other lane's of its warp through the __syncwarp()s they passed together.
     * Apart: every access reads its own clock, few read the others'. */
    uint32_t *lane_clocks, *lane_known;
    uint64_t static_words;   /* words of static shared memory (the dynamic ones follow) */
    uint64_t host_params[8]; /* 64-bit parameters that are not device memory (host pointers?) */
    int host_param_index[8];
    int nhost_params;
    struct warp *warps;      /* the block's warps, for barriers that release other warps' lanes */
    /* What this block did that another of its warps could see: stores (any space), atomics
     * that changed memory, barrier arrivals, calls and returns. A warp that comes back to the
     * same state while this stays still is spinning (spin.c). */
    uint64_t writes;
    /* Stores outside shared and local memory, atomics that changed global memory, and the
     * barrier count when it last saw one: a block that passes many barriers without one may
     * be waiting for another block in a loop the spin check cannot see (exec.c). */
    uint64_t global_writes, global_writes_seen;
    int32_t quiet_epoch;
    /* The launch's count of such writes by blocks whose run so far has ended (launch.c): when
     * it stays still while every resident block spins, none of them can ever go on. */
    _Atomic uint64_t *changes;
    struct ptx_callstack *stacks; /* per thread, once a thread calls a device function */
    struct ptx_barrier bars[PTX_BARRIERS];
    /* mbarrier objects (async.c): one bit per 8-byte word of shared memory, set by
     * mbarrier.init (NULL until the first), and the waits that failed since an mbarrier last
     * changed, to tell a wait that can never end. */
    uint64_t *mbar_valid;
    uint64_t mbar_words;
    uint64_t mbar_failed_waits;
    /* The lanes of one arrive instruction arrive together, as a warp does on a GPU: the state
     * each gets holds the pending count from before the first of them (at this address). */
    bool mbar_batch_valid;
    uint64_t mbar_batch_addr, mbar_batch_pending;
    uint32_t reserved_offset; /* the reserved region's shared offset, when the entry has one */
    /* The launch's instruction limit (ptx_env; 0: none), the launch's count of thread
     * instructions run so far (launch.c), and this block's share not yet added to it. */
    uint64_t max_thread_instructions;
    _Atomic uint64_t *launch_instructions;
    uint64_t instructions_seen, instructions_pending;
    /* The launch's deadline and ordinary loop trips (ptx_env), and whether this block found
     * the deadline passed (rather than the instruction limit). */
    uint64_t deadline_ns, ordinary_trips;
    bool past_deadline;
    /* The launch's busy limits (ptx_env), and this block's global and shared wavefronts so
     * far (counted under diagnosis). */
    uint64_t max_warp_issue, max_block_issue, max_block_wavefronts, wavefronts;
} block_ctx;

/* A lane's state: running, waiting at a barrier, done (exited, or not part of the block), or
 * waiting at a bar.warp.sync for lanes of its warp that have not reached one (warpsync.c). */
enum { LANE_RUN = 0, LANE_BAR, LANE_DONE, LANE_WSYNC };

typedef struct warp {
    int base;          /* the block's thread index of lane 0 */
    int nlanes;        /* lanes that exist (the last warp may be partial) */
    uint64_t *regs;    /* nregs slots x 32 lanes, slot-major */
    int32_t pc[32];
    uint8_t state[32];
    int8_t bar_id[32]; /* the barrier a lane in LANE_BAR waits at */
    uint8_t carry[32]; /* each lane's carry (borrow) flag, for add.cc/addc and kin */
    struct spin_probe *probe; /* its state at an earlier loop, once it has looped for a while */
    bool spinning;     /* its last run ended back in a state it had been in, nothing written */
    uint64_t spin_stamp; /* the launch's change count that stayed still meanwhile, or NO_STAMP */
    uint64_t trips;      /* backward branches taken: loop trips, for the report of a stopped run */
    uint64_t issued;     /* warp instructions issued, for the busy limit (ptx_env) */
    bool stored_global;  /* under diagnosis: a global store since its last global load */
    /* Under diagnosis (taint.c): per register slot and lane, where its value came from when
     * that was a read of shared memory no thread had written (the read's pc + 1; 0: a clean
     * value), and whether any register of the warp holds such a value in this block. */
    int32_t *taint;
    bool tainted;
    uint32_t wsync_waiting;  /* lanes that reached a bar.warp.sync not yet complete */
    uint32_t wsync_mask[32]; /* the member mask each of them named */
} warp;

/* What ptx_block_run returns when every warp that can run is spinning. */
#define PTX_BLOCK_PARKED 1
#define PTX_NO_STAMP UINT64_MAX

uint64_t ptx_operand_value(const block_ctx *b, const warp *w, const ptx_operand *o, int lane);
/* An operand's values for all 32 lanes. */
void ptx_gather(const block_ctx *b, const warp *w, const ptx_operand *o, uint64_t out[32]);

/* An operand's 32 lane values, read in place when it is a plain register (the register file
 * holds a register's lanes side by side), else gathered into `buf`. */
static inline const uint64_t *ptx_lanes(const block_ctx *b, const warp *w, const ptx_operand *o,
                                        uint64_t buf[32])
{
    if (o->kind == OPK_REG && !o->negate)
        return w->regs + (size_t)o->reg * 32;
    ptx_gather(b, w, o, buf);
    return buf;
}
/* Fills the block's error for an instruction (file:line from .loc) and returns -1. */
int ptx_stopf(block_ctx *b, const ptx_insn *in, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int ptx_stop_unsupported(block_ctx *b, const ptx_insn *in, const char *what);
/* Starts a block whose warps are set up (launch.c does that): barriers and histories reset. */
void ptx_block_begin(block_ctx *b, warp *warps);
/* Runs a begun block to its end (0), a failure (-1), or until every warp that can run spins
 * (PTX_BLOCK_PARKED): then it may be run again later, from where it stopped. */
int ptx_block_run(block_ctx *b);
/* limit.c: whether the launch has run past its instruction limit or deadline (looked at in
 * batches of instructions), and the
 * error that stops it, naming where the block's warps are and how many loop trips each made;
 * returns -1. */
bool ptx_over_limit(block_ctx *b);
int ptx_limit_report(block_ctx *b);
/* Whether warp w, or its block, has run past a busy limit (ptx_env); if so, b->err says
 * which (PTX_ERROR_BUSY). */
bool ptx_over_busy_limit(block_ctx *b, const warp *w);
/* At a warp's yield after many loops: compares its state with the one kept from an earlier
 * yield, and sets w->spinning and w->spin_stamp (spin.c). */
void ptx_spin_check(block_ctx *b, warp *w);
/* A parked block's stamp: the change count under which all its running warps spun, or
 * PTX_NO_STAMP when some did so while memory may have changed. */
uint64_t ptx_spin_stamp(const block_ctx *b);
/* Forgets the warps' earlier states (a block slot reused for another block), or frees them. */
void ptx_spin_reset(warp *warps, int nwarps);
void ptx_spin_free(warp *warps, int nwarps);
/* Where a spinning warp stands: its lowest running lane's instruction. */
const ptx_insn *ptx_spin_where(const block_ctx *b, const warp *w);
/* ld/st and atom/red for the lanes in `mask` (memory.c). */
int ptx_exec_memory(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask, int pc);
int ptx_exec_atomic(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask, int pc);
/* Where one lane's access lands: host memory, its space, and the shared offset or global
 * address. */
typedef struct ptx_place {
    uint8_t *ptr;
    unsigned space;
    uint64_t addr;
} ptx_place;
/* How an access made by ptx_access_lane counts under diagnosis: a read or a write (race and
 * uninitialised-read checks), or a synchronisation object's update (neither). */
enum { PTX_ACCESS_READ = 0, PTX_ACCESS_WRITE, PTX_ACCESS_SYNC };
/* One lane's access of `size` bytes through address operand `o`, as an ld or st of `space`
 * would make it: bounds-checked, and under diagnosis recorded. 0 with *out filled; 1 when the
 * lane is to be skipped (a finding under diagnosis); -1 when the kernel stops. */
int ptx_access_lane(block_ctx *b, const warp *w, const ptx_insn *in, const ptx_operand *o,
                    int lane, unsigned size, unsigned space, int mode, int pc, ptx_place *out);
/* cp.async, cp.async.bulk, mbarrier and nanosleep by the lanes in `mask` (async.c): 0, or
 * PTX_YIELD when the warp should let the others run (a wait that failed, a sleep), or -1. */
#define PTX_YIELD 1
int ptx_exec_async(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask, int pc);
/* A new block: no mbarrier is initialised (async.c). */
void ptx_async_reset(block_ctx *b);
/* Under diagnosis: forget the previous block's shared-memory history. */
void ptx_shadow_reset(block_ctx *b);
/* Under diagnosis, where a value read from never-written shared memory goes (taint.c). Such a
 * read is a finding only once its value can change what the kernel does or leaves: when
 * something derived from it is stored outside shared memory, decides a branch or a guard,
 * forms an address, or goes into an atomic, a barrier or a call. Before each instruction of a
 * warp holding such values (w->tainted): those uses reported, and the origins carried into
 * the instruction's results. Loads set their results' origins themselves (memory.c). */
void ptx_taint_step(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec, uint32_t mask,
                    int pc);
/* The finding for a value of `origin` (a read's pc + 1) that reaches instruction pc's `use`. */
void ptx_taint_report(block_ctx *b, const warp *w, int lane, int32_t origin, int pc,
                      const char *use);
/* The origin a register operand's value in `lane` has (0 for anything else). */
static inline int32_t ptx_taint_of(const warp *w, const ptx_operand *o, int lane)
{
    return (o->kind == OPK_REG || o->kind == OPK_ADDR) && o->reg >= 0
               ? w->taint[(size_t)o->reg * 32 + (size_t)lane]
               : 0;
}
/* A new block: no register holds such a value. */
void ptx_taint_reset(block_ctx *b, warp *warps);
/* One lane's ld or st of `size`-byte elements (in->vec of them) at shared offset `off`: the
 * origins a store leaves in each word it writes (`words`, zeroed by the caller), and the
 * origins a load's results take from the words diag_shared_history filled in. */
void ptx_taint_shared_store(const warp *w, const ptx_insn *in, int lane, uint64_t off,
                            unsigned size, int32_t *words);
void ptx_taint_shared_load(warp *w, const ptx_insn *in, int lane, uint64_t off, unsigned size,
                           const int32_t *words);
/* One lane's ld or st anywhere else (`space`), in a warp holding such values. */
void ptx_taint_elsewhere(block_ctx *b, warp *w, const ptx_insn *in, int lane, int pc,
                         unsigned space);
/* Arithmetic, logic, comparisons, conversions and moves, for the lanes in `mask`. */
int ptx_exec_alu(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* Half precision (.f16, .bf16, .f16x2, .bf16x2): add, sub, mul, fma, min, max, abs, neg,
 * setp, set and cvt, for the lanes in `mask` (half.c). */
int ptx_exec_half(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* cvt of one value whose source is not a half (alu.c): half.c converts halves out through it,
 * as exact doubles. */
uint64_t ptx_convert_bits(const ptx_insn *in, uint64_t v);
/* popc, clz, brev, bfind, bfe, bfi, prmt, shf, copysign, sad, testp, mul24, mad24 (bits.c). */
/* add, sub and mad with a carry in or out: .cc, addc, subc, madc (bits.c). */
int ptx_exec_carry(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
int ptx_exec_bits(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* activemask, vote, shfl, redux, match: the lanes in `mask` together (warp.c). */
int ptx_exec_warp(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* bar.warp.sync by the lanes in `exec` (warpsync.c): 0 when every one of them goes on, or
 * PTX_WAITS when some wait (parked) for lanes their member mask names; the warp picks again. */
#define PTX_WAITS 2
int ptx_warp_sync(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec);
/* No lane of w can run: lanes parked at a bar.warp.sync go on all the same, as if the lanes
 * they wait for had come. False when none was parked. */
bool ptx_warp_sync_stalled(block_ctx *b, warp *w);
/* Under diagnosis, a new block: no lane has synchronised with another yet. */
void ptx_lane_clocks_reset(block_ctx *b);
/* bar.sync, bar.arrive, bar.red by the lanes in `mask` (barrier.c). */
int ptx_bar_arrive(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* No lane can run and some wait at barriers: a report (or, under diagnosis, a finding and the
 * waiters released). Returns -1 when the launch stops. */
int ptx_bar_stalled(block_ctx *b);
/* A call of a device function or __assertfail by the lanes in `exec` of the group `mask`
 * (call.c); lanes not in `exec` go on past it. */
int ptx_exec_call(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec, uint32_t mask, int pc);
/* ret: back to the caller, or the end of the thread when it returns from the kernel. */
int ptx_exec_return(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec, uint32_t mask,
                    int pc);
/* Frees the block's call stacks (at the end of each block, and of a failed one). */
void ptx_calls_free(block_ctx *b);
/* A call of vprintf (the only function calls may name). */
int ptx_vprintf(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask);
/* Host memory behind device address `a`: local, shared, a module variable or (when accesses
 * are checked) a region; *avail bytes from there on belong to it. NULL when `a` is none. */
const uint8_t *ptx_span(const block_ctx *b, uint64_t a, uint64_t *avail);
/* One atomic update: the new value from the old one. False for an unsupported combination. */
bool ptx_atomic_apply(const ptx_insn *in, uint64_t old, uint64_t v, uint64_t cmp, uint64_t *out);

#endif /* TILELAB_PTX_EXEC_H */
