/* Asynchronous copies and mbarrier objects, as the PTX ISA defines them: cp.async (4, 8 or 16
 * bytes from global to shared memory, zero-filled past src-size), its commit and wait groups,
 * cp.async.mbarrier.arrive, cp.async.bulk with an mbarrier's transaction count, and mbarrier
 * init, inval, arrive, arrive_drop, expect_tx, complete_tx, test_wait, try_wait and
 * pending_count. cuda::memcpy_async, cuda::barrier, cuda::pipeline and __pipeline_memcpy_async
 * compile to these.
 *
 * The model: each copy is done when it is issued. That is one of the orders a GPU may take (a
 * copy's completion can only be observed through a wait or an mbarrier, and those come after
 * the issue), so a kernel that waits as it must sees what it would see on a GPU; one that reads
 * a destination before waiting races on a GPU and here sees the data early. Hence the group
 * waits have nothing to wait for, and cp.async.mbarrier.arrive has no copy to wait for either:
 * without .noinc it adds one pending arrival and makes it at once (no change), with .noinc it
 * is one arrival.
 *
 * An mbarrier is a 64-bit word of shared memory. Its layout here (the hardware's is not
 * documented):
 *   bits  0-19  arrivals still pending in the current phase
 *   bits 20-39  arrivals expected in each phase (mbarrier.init's count, less arrive_drop's)
 *   bits 40-60  the transaction count: bytes expected (expect_tx) less bytes completed
 *               (complete_tx, a bulk copy), 21-bit two's complement
 *   bit  63     the current phase's parity
 * A phase completes when no arrival is pending and the transaction count is zero: the parity
 * flips and the pending count starts again from the expected one. The state an arrive returns
 * is the word just after its arrival, before any completion: its bit 63 names the phase it
 * arrived on, its low bits the arrivals that were pending before its warp's arrive (all lanes
 * of one instruction arrive together, as on an H100). A wait that fails lets the other warps
 * run; when waits keep failing and no mbarrier changes, no thread can ever complete the phase,
 * and the kernel is stopped with a report, where a GPU would hang. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

#define WARP_LANES 32
#define MBAR_BYTES 8
#define MBAR_COUNT_BITS 20
#define MBAR_COUNT_MASK ((UINT64_C(1) << MBAR_COUNT_BITS) - 1)
#define MBAR_EXPECTED_SHIFT 20
#define MBAR_TX_SHIFT 40
#define MBAR_TX_BITS 21
#define MBAR_TX_MASK ((UINT64_C(1) << MBAR_TX_BITS) - 1)
#define MBAR_TX_LIMIT ((INT64_C(1) << (MBAR_TX_BITS - 1)) - 1) /* 2^20 - 1 either way */
#define MBAR_PHASE_SHIFT 63
/* Failed waits with no mbarrier changing in between: far more than warps that take turns ever
 * need (each failed wait yields), few enough to report a hang within a second or so. */
#define MBAR_STALL_LIMIT (UINT64_C(1) << 20)
#define BULK_ALIGN 16 /* cp.async.bulk: sizes and addresses are multiples of 16 */
#define BITS_PER_WORD 64

void ptx_async_reset(block_ctx *b)
{
    if (b->mbar_valid)
        memset(b->mbar_valid, 0,
               (b->mbar_words + BITS_PER_WORD - 1) / BITS_PER_WORD * sizeof *b->mbar_valid);
    b->mbar_failed_waits = 0;
}

static void set_reg(warp *w, const ptx_operand *o, int lane, uint64_t v)
{
    if (o->kind == OPK_REG)
        w->regs[(size_t)o->reg * WARP_LANES + (size_t)lane] = v;
}

static uint64_t mb_pending(uint64_t m) { return m & MBAR_COUNT_MASK; }
static uint64_t mb_expected(uint64_t m) { return m >> MBAR_EXPECTED_SHIFT & MBAR_COUNT_MASK; }
static unsigned mb_phase(uint64_t m) { return (unsigned)(m >> MBAR_PHASE_SHIFT); }

static int64_t mb_tx(uint64_t m)
{
    uint64_t tx = m >> MBAR_TX_SHIFT & MBAR_TX_MASK;
    unsigned shift = 64 - MBAR_TX_BITS;
    return (int64_t)(tx << shift) >> shift;
}

static uint64_t mb_make(uint64_t pending, uint64_t expected, int64_t tx, unsigned phase)
{
    return pending | expected << MBAR_EXPECTED_SHIFT |
           ((uint64_t)tx & MBAR_TX_MASK) << MBAR_TX_SHIFT | (uint64_t)phase << MBAR_PHASE_SHIFT;
}

static uint64_t mb_load(const ptx_place *pl)
{
    uint64_t m;
    memcpy(&m, pl->ptr, sizeof m);
    return m;
}

static void mb_store(const ptx_place *pl, uint64_t m) { memcpy(pl->ptr, &m, sizeof m); }

/* The mbarrier that address operand `o` names for one lane: a word of shared memory, 8-byte
 * aligned and, but for mbarrier.init, initialised. 0 with *pl and *bit (its index in
 * mbar_valid), 1 to skip the lane (a finding under diagnosis), -1 to stop. */
static int mb_place(block_ctx *b, const warp *w, const ptx_insn *in, const ptx_operand *o,
                    unsigned space, int lane, int pc, bool init, ptx_place *pl, uint64_t *bit)
{
    int rc = ptx_access_lane(b, w, in, o, lane, MBAR_BYTES, space, PTX_ACCESS_SYNC, pc, pl);
    if (rc != 0)
        return rc;
    if (pl->space != SP_SHARED)
        return ptx_stopf(b, in, "an mbarrier at 0x%llx, which is not in shared memory",
                         (unsigned long long)pl->addr);
    if (pl->addr % MBAR_BYTES != 0)
        return ptx_stopf(b, in, "an mbarrier at shared byte %llu, which is not a multiple of %d "
                         "(misaligned)", (unsigned long long)pl->addr, MBAR_BYTES);
    *bit = pl->addr / MBAR_BYTES;
    if (!b->mbar_valid && init) {
        uint64_t extent = b->dynamic_bytes ? PTX_DYNAMIC_SHARED_BASE + b->dynamic_bytes
                                           : b->shared_bytes;
        b->mbar_words = extent / MBAR_BYTES + 1;
        b->mbar_valid = calloc((b->mbar_words + BITS_PER_WORD - 1) / BITS_PER_WORD,
                               sizeof *b->mbar_valid);
        if (!b->mbar_valid)
            return ptx_stopf(b, in, "out of memory");
    }
    bool valid = b->mbar_valid && *bit < b->mbar_words &&
                 (b->mbar_valid[*bit / BITS_PER_WORD] >> (*bit % BITS_PER_WORD) & 1);
    if (!init && !valid)
        return ptx_stopf(b, in, "the mbarrier at shared byte %llu is used before mbarrier.init "
                         "(a cuda::barrier's init()) or after mbarrier.inval: undefined on a "
                         "GPU", (unsigned long long)pl->addr);
    return 0;
}

static int mb_range(block_ctx *b, const ptx_insn *in, const ptx_place *pl, const char *what,
                    long long v)
{
    return ptx_stopf(b, in, "the mbarrier at shared byte %llu: %s (%lld); undefined on a GPU",
                     (unsigned long long)pl->addr, what, v);
}

/* `arrivals` arrive (and `dropped` leave every later phase too), the transaction count moves
 * by tx; the phase completes when nothing is pending. *state (if not NULL) gets the word
 * after the arrival, before the completion, with the pending count the phase had before the
 * instruction's first lane arrived (what an H100 reports: its warps arrive as one). */
static int mb_update(block_ctx *b, const ptx_insn *in, const ptx_place *pl, uint64_t arrivals,
                     uint64_t dropped, int64_t tx, uint64_t *state)
{
    uint64_t m = mb_load(pl);
    uint64_t pending = mb_pending(m), expected = mb_expected(m);
    int64_t count = mb_tx(m) + tx;
    unsigned phase = mb_phase(m);
    if (arrivals > pending)
        return mb_range(b, in, pl, "more arrivals than its phase has pending",
                        (long long)arrivals);
    if (dropped > expected)
        return mb_range(b, in, pl, "arrive_drop below an expected count of zero",
                        (long long)dropped);
    if (count > MBAR_TX_LIMIT || count < -MBAR_TX_LIMIT)
        return mb_range(b, in, pl, "the transaction count leaves its range", (long long)count);
    if (!b->mbar_batch_valid || b->mbar_batch_addr != pl->addr) {
        b->mbar_batch_valid = true;
        b->mbar_batch_addr = pl->addr;
        b->mbar_batch_pending = pending;
    }
    pending -= arrivals;
    expected -= dropped;
    if (state)
        *state = mb_make(b->mbar_batch_pending, expected, count, phase);
    if (pending == 0 && count == 0) {
        phase ^= 1;
        pending = expected;
        /* The threads that wait for this phase are ordered after every arrival on it, as
         * after a __syncthreads(): the race detector starts a new epoch. */
        b->epoch++;
    }
    mb_store(pl, mb_make(pending, expected, count, phase));
    b->mbar_failed_waits = 0;
    return 0;
}

/* Waits keep failing and nothing changes any mbarrier: every thread that could arrive has
 * exited or waits itself, and a GPU would hang here. Under diagnosis, a finding, and the phase
 * is completed so that the kernel goes on. */
static int mb_stalled(block_ctx *b, warp *w, const ptx_insn *in, const ptx_place *pl, int lane)
{
    uint64_t m = mb_load(pl);
    char detail[256];
    snprintf(detail, sizeof detail, "waits for an mbarrier phase that never completes: %llu of "
             "%llu arrivals pending, transaction count %lld, and no thread left to arrive",
             (unsigned long long)mb_pending(m), (unsigned long long)mb_expected(m),
             (long long)mb_tx(m));
    if (!b->diag)
        return ptx_stopf(b, in, "%s", detail);
    diag_finding(b->diag, DK_BARRIER_DIVERGENCE, b, in, NULL, w->base + lane, -1, detail);
    mb_store(pl, mb_make(mb_expected(m), mb_expected(m), 0, mb_phase(m) ^ 1));
    b->mbar_failed_waits = 0;
    return 0;
}

static int mbarrier_lane(block_ctx *b, warp *w, const ptx_insn *in, int lane, int pc,
                         bool *failed)
{
    const ptx_operand *o = in->ops;
    int sub = in->sub;
    if (sub == MBAR_PENDING_COUNT) {
        set_reg(w, &o[0], lane, mb_pending(ptx_operand_value(b, w, &o[1], lane)));
        return 0;
    }
    bool waits = sub == MBAR_TEST_WAIT || sub == MBAR_TRY_WAIT;
    int at = (sub == MBAR_ARRIVE || sub == MBAR_ARRIVE_DROP || waits) ? 1 : 0;
    ptx_place pl;
    uint64_t bit = 0;
    int rc = mb_place(b, w, in, &o[at], in->space, lane, pc, sub == MBAR_INIT, &pl, &bit);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    uint64_t v = in->nops > at + 1 ? ptx_operand_value(b, w, &o[at + 1], lane) : 1;
    uint64_t *valid = &b->mbar_valid[bit / BITS_PER_WORD];
    uint64_t one = UINT64_C(1) << (bit % BITS_PER_WORD);
    switch (sub) {
    case MBAR_INIT:
        v = (uint32_t)v;
        if (v == 0 || v > MBAR_COUNT_MASK)
            return mb_range(b, in, &pl, "an expected count outside 1 to 2^20 - 1", (long long)v);
        mb_store(&pl, mb_make(v, v, 0, 0));
        *valid |= one;
        b->mbar_failed_waits = 0;
        return 0;
    case MBAR_INVAL:
        *valid &= ~one;
        return 0;
    case MBAR_ARRIVE: case MBAR_ARRIVE_DROP: {
        bool tx = in->atomic & ASYNC_EXPECT_TX;
        uint64_t count = tx ? 1 : (uint32_t)v, state = 0;
        if (count == 0 || count > MBAR_COUNT_MASK)
            return mb_range(b, in, &pl, "an arrival count outside 1 to 2^20 - 1",
                            (long long)count);
        if (mb_update(b, in, &pl, count, sub == MBAR_ARRIVE_DROP ? count : 0,
                      tx ? (int64_t)(uint32_t)v : 0, &state) != 0)
            return -1;
        set_reg(w, &o[0], lane, state);
        return 0;
    }
    case MBAR_EXPECT_TX: case MBAR_COMPLETE_TX: {
        int64_t bytes = (int64_t)(uint32_t)v;
        return mb_update(b, in, &pl, 0, 0, sub == MBAR_EXPECT_TX ? bytes : -bytes, NULL);
    }
    default: { /* test_wait, try_wait */
        uint64_t m = mb_load(&pl);
        unsigned asked = (in->atomic & ASYNC_PARITY) ? (unsigned)(v & 1)
                                                     : (unsigned)(v >> MBAR_PHASE_SHIFT);
        bool done = mb_phase(m) != asked;
        set_reg(w, &o[0], lane, done);
        if (!done && ++b->mbar_failed_waits >= MBAR_STALL_LIMIT)
            return mb_stalled(b, w, in, &pl, lane);
        *failed |= !done;
        return 0;
    }
    }
}

/* A copy of `size` bytes, src-size of them read (the rest zero): cp.async, cp.async.bulk. */
/* `seen` (may be NULL): where the lane's source and destination addresses go, for the
 * diagnosis's counts. */
static int copy_lane(block_ctx *b, warp *w, const ptx_insn *in, int lane, int pc, unsigned dst_sp,
                     unsigned src_sp, uint64_t size, uint64_t src_size, uint64_t align,
                     uint64_t seen[2])
{
    ptx_place dst, src;
    int rc = ptx_access_lane(b, w, in, &in->ops[0], lane, (unsigned)size, dst_sp,
                             PTX_ACCESS_WRITE, pc, &dst);
    if (rc == 0 && src_size)
        rc = ptx_access_lane(b, w, in, &in->ops[1], lane, (unsigned)src_size, src_sp,
                             PTX_ACCESS_READ, pc, &src);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (dst.addr % align != 0 || (src_size && src.addr % align != 0))
        return ptx_stopf(b, in, "misaligned address: a copy of %llu bytes from 0x%llx to 0x%llx "
                         "needs both at multiples of %llu", (unsigned long long)size,
                         (unsigned long long)(src_size ? src.addr : 0),
                         (unsigned long long)dst.addr, (unsigned long long)align);
    if (src_size)
        memmove(dst.ptr, src.ptr, src_size);
    memset(dst.ptr + src_size, 0, size - src_size);
    if (seen) {
        seen[0] = src_size ? src.addr : 0;
        seen[1] = dst.addr;
    }
    return 0;
}

static int cp_async_lane(block_ctx *b, warp *w, const ptx_insn *in, int lane, int pc,
                         uint64_t seen[2])
{
    const ptx_operand *o = in->ops;
    int n = in->nops - ((in->atomic & ASYNC_CACHE_HINT) ? 1 : 0);
    switch (in->sub) {
    case CPA_COPY: {
        uint64_t size = (uint64_t)o[2].imm, src_size = size;
        if (n == 4 && (in->atomic & ASYNC_IGNORE_SRC))
            src_size = ptx_operand_value(b, w, &o[3], lane) ? 0 : size;
        else if (n == 4)
            src_size = (uint32_t)ptx_operand_value(b, w, &o[3], lane);
        if (src_size > size)
            return ptx_stopf(b, in, "cp.async of %llu bytes with src-size %llu: src-size must "
                             "not exceed the copy's size", (unsigned long long)size,
                             (unsigned long long)src_size);
        return copy_lane(b, w, in, lane, pc, SP_SHARED, SP_GLOBAL, size, src_size, size, seen);
    }
    case CPA_MBAR_ARRIVE: {
        ptx_place pl;
        uint64_t bit = 0;
        int rc = mb_place(b, w, in, &o[0], in->space, lane, pc, false, &pl, &bit);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        /* The thread's copies are done: .noinc makes the arrival one of the expected ones;
         * without it the pending count goes up by one and back down (nothing changes). */
        return (in->atomic & ASYNC_NOINC) ? mb_update(b, in, &pl, 1, 0, 0, NULL) : 0;
    }
    case CPA_BULK_SHARED: case CPA_BULK_GLOBAL: {
        uint64_t size = (uint32_t)ptx_operand_value(b, w, &o[2], lane);
        if (size % BULK_ALIGN != 0)
            return ptx_stopf(b, in, "cp.async.bulk of %llu bytes: the size must be a multiple "
                             "of %d", (unsigned long long)size, BULK_ALIGN);
        bool in_shared = in->sub == CPA_BULK_SHARED;
        if (size && copy_lane(b, w, in, lane, pc, in_shared ? SP_SHARED : SP_GLOBAL,
                              in_shared ? SP_GLOBAL : SP_SHARED, size, size, BULK_ALIGN,
                              NULL) != 0)
            return -1;
        if (!in_shared)
            return 0;
        /* The bytes have arrived: the mbarrier's transaction count goes down by as many. */
        ptx_place pl;
        uint64_t bit = 0;
        int rc = mb_place(b, w, in, &o[3], SP_SHARED, lane, pc, false, &pl, &bit);
        if (rc != 0)
            return rc < 0 ? -1 : 0;
        return mb_update(b, in, &pl, 0, 0, -(int64_t)size, NULL);
    }
    default: /* groups and their waits: every copy is already complete; prefetches */
        return 0;
    }
}

int ptx_exec_async(block_ctx *b, warp *w, const ptx_insn *in, uint32_t mask, int pc)
{
    /* __nanosleep: the ISA lets the sleep be anything from 0 to twice the time asked. None:
     * a wait that sleeps between its reads then comes back to the same state and is seen to
     * spin (spin.c), so the block is parked for the others. */
    if (in->op == OP_NANOSLEEP) {
        if (b->diag)
            diag_sleep(b->diag, b, w, in, mask);
        return 0;
    }
    if (in->op == OP_FENCE)
        return 0;
    bool failed = false;
    b->mbar_batch_valid = false;
    /* Under diagnosis, a warp's element copies count as one global request and one shared. */
    bool counted = b->diag && in->op == OP_CPASYNC && in->sub == CPA_COPY;
    uint64_t from[WARP_LANES], to[WARP_LANES];
    uint32_t copied = 0;
    for (int lane = 0; lane < WARP_LANES; lane++) {
        if (!(mask >> lane & 1))
            continue;
        uint64_t seen[2] = {0, 0};
        int rc = in->op == OP_CPASYNC ? cp_async_lane(b, w, in, lane, pc, counted ? seen : NULL)
                                      : mbarrier_lane(b, w, in, lane, pc, &failed);
        if (rc != 0)
            return -1;
        if (counted && seen[1]) {
            from[lane] = seen[0];
            to[lane] = seen[1];
            copied |= UINT32_C(1) << lane;
        }
    }
    if (counted && copied)
        b->wavefronts += diag_async_copy(b->diag, b, from, to, copied,
                                         (unsigned)in->ops[2].imm);
    return failed ? PTX_YIELD : 0;
}
