/* Shared-memory races and uninitialized shared reads under diagnosis: each lane's access checked
 * against the word's last writer and reader (struct shadow_word), and the message of a race,
 * which names the __syncthreads() or __syncwarp() that is missing by its lines. */
#include "diag.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(struct shadow_word) == 32, "a shadow word grew: the diagnosis slows with it");

void ptx_shadow_reset(block_ctx *b)
{
    if (!b->shadow)
        return;
    uint64_t words = b->static_words + (b->dynamic_bytes + 3) / 4;
    for (uint64_t i = 0; i < words; i++)
        b->shadow[i] = (struct shadow_word){.wepoch = -1, .wpc = -1, .repoch = -1, .rpc = -1,
                                            .wtid = -1, .rtid = -1};
    memset(b->shared_taint, 0, words * sizeof *b->shared_taint);
}

/* Whether an earlier access to a shared word, by thread `other` in barrier epoch `epoch` at its
 * lane clock `clock`, touching `bytes` of the word, races with thread tid's access of `mine`:
 * another lane of tid's warp, in the same epoch, overlapping, and no __syncwarp() since that
 * both passed (tid's clock of that lane is behind: warpsync.c). */
static inline bool lanes_race(const block_ctx *b, int tid, uint8_t mine, int32_t other,
                              int32_t epoch, uint32_t clock, uint8_t bytes)
{
    return epoch == b->epoch && other != tid && other / PTX_WARP_SIZE == tid / PTX_WARP_SIZE &&
           (bytes & mine) &&
           b->lane_known[(size_t)tid * PTX_WARP_SIZE + (size_t)other % PTX_WARP_SIZE] < clock;
}

/* Whether a store of `size` bytes leaves one word of them as it is. */
static inline bool same_bytes(const uint8_t *now, const uint8_t *stored, unsigned size)
{
    uint32_t a, b;
    if (size < 4)
        return size == 1 ? now[0] == stored[0] : now[0] == stored[0] && now[1] == stored[1];
    memcpy(&a, now, 4);
    memcpy(&b, stored, 4);
    return a == b;
}

/* Between warps a word is the unit; between lanes of one warp its bytes (a warp's lanes store
 * neighbouring bytes or halves of one word). */
void diag_shared_history(block_ctx *b, const warp *w, int lane, int pc, uint64_t off,
                         unsigned size, bool write, const uint8_t *stored, int32_t *taint)
{
    /* The system's reserved region: cooperative groups synchronise their use of it with
     * atomics and acquire loads, which the barrier epochs here do not see. */
    if (b->e->reserved_shared && off >= b->reserved_offset &&
        off < b->reserved_offset + PTX_RESERVED_SHARED_CAP)
        return;
    uint64_t first = off >= PTX_DYNAMIC_SHARED_BASE
                         ? b->static_words + (off - PTX_DYNAMIC_SHARED_BASE) / 4
                         : off / 4;
    int tid = w->base + lane;
    uint32_t clock = b->lane_clocks[tid];
    /* One instruction's lanes writing one word: one of them wins, on every GPU (the CUDA C++
     * Programming Guide, "SIMT Architecture": which thread performs the final write is
     * undefined); a race is between two instructions. */
    uint16_t issue = (uint16_t)b->issued;
    /* Sub-word accesses are naturally aligned: they stay within one word. */
    uint8_t bytes = size >= 4 ? 0xf : (uint8_t)(((1u << size) - 1) << (off % 4));
    for (uint64_t i = 0; i < (size + 3) / 4; i++) {
        struct shadow_word *s = &b->shadow[first + i];
        /* A store that leaves the word as it is (lanes storing one value that another already
         * stored there): whichever lane goes first, every later read sees the same word. */
        bool silent = stored && same_bytes(b->shared + off + 4 * i, stored + 4 * i, size);
        if (write) {
            if (s->wepoch == b->epoch && s->wtid / PTX_WARP_SIZE != tid / PTX_WARP_SIZE)
                diag_shared_race(b, s->wpc, pc, s->wtid, tid, RACE_WRITE_WRITE, false);
            else if (s->repoch == b->epoch && s->rtid / PTX_WARP_SIZE != tid / PTX_WARP_SIZE)
                diag_shared_race(b, s->rpc, pc, s->rtid, tid, RACE_READ_WRITE, false);
            else if (!silent && s->wissue != issue &&
                     lanes_race(b, tid, bytes, s->wtid, s->wepoch, s->wclock, s->wbytes))
                diag_shared_race(b, s->wpc, pc, s->wtid, tid, RACE_WRITE_WRITE, true);
            else if (!silent &&
                     lanes_race(b, tid, bytes, s->rtid, s->repoch, s->rclock, s->rbytes))
                diag_shared_race(b, s->rpc, pc, s->rtid, tid, RACE_READ_WRITE, true);
            s->wtid = (int16_t)tid;
            s->wepoch = b->epoch;
            s->wpc = pc;
            s->wclock = clock;
            s->wissue = issue;
            s->wbytes = bytes;
            b->shared_taint[first + i] = taint ? taint[i] : 0;
        } else {
            int32_t origin = s->wepoch < 0 ? pc + 1 : b->shared_taint[first + i];
            if (taint)
                taint[i] = origin;
            else if (origin)
                ptx_taint_report(b, w, lane, origin, pc, "a copy out of shared memory");
            if (s->wepoch == b->epoch && s->wtid / PTX_WARP_SIZE != tid / PTX_WARP_SIZE)
                diag_shared_race(b, s->wpc, pc, s->wtid, tid, RACE_WRITE_READ, false);
            else if (lanes_race(b, tid, bytes, s->wtid, s->wepoch, s->wclock, s->wbytes))
                diag_shared_race(b, s->wpc, pc, s->wtid, tid, RACE_WRITE_READ, true);
            s->rtid = (int16_t)tid;
            s->repoch = b->epoch;
            s->rpc = pc;
            s->rclock = clock;
            s->rbytes = bytes;
        }
    }
}

/* The last instruction strictly between two instructions of the code that orders a block's
 * threads (__syncthreads(): bar.sync, barrier.sync, bar.red), or with `warp_too` a warp's lanes
 * as well (__syncwarp(): bar.warp.sync); -1 when there is none. */
static int sync_between(const ptx_insn *code, int from, int to, bool warp_too)
{
    for (int pc = to - 1; pc > from; pc--)
        if ((code[pc].op == OP_BAR && code[pc].sub != BAR_ARRIVE) ||
            (warp_too && code[pc].op == OP_WARPSYNC))
            return pc;
    return -1;
}

/* Between two warps: with no barrier between the two accesses in program order, the missing
 * one goes between them. With one between them, they happened in different trips round a loop
 * (a warp already in the next phase overwrote, or read, a tile another warp was still using),
 * and what is missing is a barrier after the later line, before the loop comes back to the
 * earlier one. */
static void between_warps(char *detail, size_t size, const ptx_insn *code, int x, int y,
                          const char *what)
{
    int lx = code[x].line, ly = code[y].line, bar = sync_between(code, x, y, false);
    if (lx <= 0 || ly <= 0)
        snprintf(detail, size, "%s with no __syncthreads() between the two", what);
    else if (bar < 0 && lx < ly)
        snprintf(detail, size, "%s with no __syncthreads() between them: a barrier is missing "
                 "between line %d and line %d", what, lx, ly);
    else if (bar < 0 || code[bar].line <= 0)
        snprintf(detail, size, "%s: after line %d the loop comes back to line %d with no "
                 "__syncthreads() between: a barrier after line %d (before the next phase's "
                 "line %d) is missing", what, lx > ly ? lx : ly, lx < ly ? lx : ly,
                 lx > ly ? lx : ly, lx < ly ? lx : ly);
    else
        snprintf(detail, size, "%s: the __syncthreads() at line %d separates them within a "
                 "phase, but after line %d the loop comes back to line %d with none between: a "
                 "barrier after line %d (before the next phase's line %d) is missing", what,
                 code[bar].line, ly, lx, ly, lx);
}

/* Within a warp the same, with __syncwarp(); also two accesses of one line (`s[i] += s[j]`:
 * a lane's write of s[i] against another's read of it as its s[j]), and a __syncwarp() between
 * them whose mask leaves one of the two lanes out. */
static void within_warp(char *detail, size_t size, const ptx_insn *code, int x, int y,
                        int lane1, int lane2, const char *what, bool reads)
{
    static const char why[] = "lanes of a warp are not in lockstep since Volta (sm_70)";
    int lx = code[x].line, ly = code[y].line, sync = sync_between(code, x, y, true);
    const ptx_insn *s = sync >= 0 ? &code[sync] : NULL;
    if (lx <= 0 || ly <= 0)
        snprintf(detail, size, "%s with no __syncwarp() between the two; %s", what, why);
    else if (!s && lx < ly)
        snprintf(detail, size, "%s with no __syncwarp() between them; %s: a __syncwarp() is "
                 "missing between line %d and line %d", what, why, lx, ly);
    else if (!s && lx == ly)
        snprintf(detail, size, "%s, both at line %d; %s: a __syncwarp() is missing between the "
                 "two accesses%s", what, lx, why,
                 reads ? " (read into a variable, __syncwarp(), then write)" : "");
    else if (s && s->op == OP_WARPSYNC && s->ops[0].kind == OPK_IMM && s->line > 0 &&
             (~(uint32_t)s->ops[0].imm & (1u << lane1 | 1u << lane2)))
        snprintf(detail, size, "%s: the __syncwarp(0x%08x) at line %d leaves lane %d out; %s: "
                 "a __syncwarp() naming both is missing between line %d and line %d", what,
                 (uint32_t)s->ops[0].imm, s->line,
                 (uint32_t)s->ops[0].imm >> lane1 & 1 ? lane2 : lane1, why, lx, ly);
    else
        snprintf(detail, size, "%s: after line %d the loop comes back to line %d with no "
                 "__syncwarp() between; %s: a __syncwarp() after line %d (before line %d) is "
                 "missing", what, lx > ly ? lx : ly, lx < ly ? lx : ly, why, lx > ly ? lx : ly,
                 lx < ly ? lx : ly);
}

/* The text is made once per pair of lines: a race repeats. */
void diag_shared_race(block_ctx *b, int pc1, int pc2, int tid1, int tid2, race_kind kind,
                      bool within)
{
    static const char *const warps[] = {
        [RACE_WRITE_WRITE] = "threads of two warps write the same shared word",
        [RACE_READ_WRITE] = "one warp reads a shared word (first line) and another overwrites "
                            "it (second line)",
        [RACE_WRITE_READ] = "one warp writes a shared word (first line) and another reads it "
                            "(second line)",
    };
    static const char *const lanes[] = {
        [RACE_WRITE_WRITE] = "both write the same shared word",
        [RACE_READ_WRITE] = "one reads a shared word (first line) and the other overwrites it "
                            "(second line)",
        [RACE_WRITE_READ] = "one writes a shared word (first line) and the other reads it "
                            "(second line)",
    };
    const ptx_insn *code = b->e->code;
    if (diag_race_known(b->diag, b, &code[pc1], &code[pc2], within))
        return;
    int x = pc1 < pc2 ? pc1 : pc2, y = pc1 < pc2 ? pc2 : pc1;
    char detail[DIAG_DETAIL_MAX];
    if (within) {
        char what[128];
        int lane1 = tid1 % PTX_WARP_SIZE, lane2 = tid2 % PTX_WARP_SIZE;
        snprintf(what, sizeof what, "lanes %d and %d of warp %d: %s", lane1, lane2,
                 tid1 / PTX_WARP_SIZE, lanes[kind]);
        within_warp(detail, sizeof detail, code, x, y, lane1, lane2, what,
                    kind != RACE_WRITE_WRITE);
    } else {
        between_warps(detail, sizeof detail, code, x, y, warps[kind]);
    }
    diag_race_finding(b->diag, b, &code[pc1], &code[pc2], tid1, tid2, within, detail);
}
