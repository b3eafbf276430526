/* bar.warp.sync (__syncwarp(mask)) as a GPU of compute capability 7.0 or later runs it, and the
 * order it gives the shared-memory accesses of a warp's lanes.
 *
 * Each lane waits until every lane its member mask names has reached a bar.warp.sync with the
 * same mask, wherever that is: the two sides of a branch may each have one (PTX ISA,
 * "Parallel Synchronization and Communication Instructions: bar.warp.sync", §9.7.13.2 in ISA
 * 8.x). The interpreter runs a warp's lanes together, so a sync in straight-line code is
 * complete as soon as it is reached; in divergent code the lanes that come first are parked
 * (LANE_WSYNC) and the others run until they come too.
 *
 * What orders two lanes' accesses. Since Volta (sm_70) the lanes of a warp are scheduled
 * independently: nothing but synchronisation orders one lane's shared-memory access before
 * another's, whatever order a GPU (or this interpreter) happened to run them in.
 * - bar.warp.sync: "bar.warp.sync also guarantee memory ordering among threads participating
 *   in barrier" (same section; the CUDA C++ Programming Guide says it of __syncwarp() under
 *   "Synchronization Functions"). Only the lanes of its mask: the warp is not a scope.
 * - Block barriers (bar.sync, barrier.sync, bar.red, an mbarrier phase) order every thread of
 *   the block; the race check sees them as epochs (barrier.c, async.c), for lanes as for warps.
 * - Not shuffles, votes, match or redux: they exchange registers, not memory, and the guide
 *   says of each of shfl.sync ("Warp Shuffle Functions"), vote.sync ("Warp Vote Functions")
 *   and match.sync ("Warp Match Functions") "These intrinsics do not imply a memory barrier.
 *   They do not guarantee any memory ordering."; of redux.sync ("Warp Reduce Functions", and
 *   the ISA's redux.sync) neither says more than that the lanes wait for each other, so it
 *   orders nothing either. Having no memory access, they are never a side of a race.
 * - Not fences (membar, fence, __threadfence_block()): a fence orders one thread's own accesses,
 *   not one thread's against another's (the old volatile warp-synchronous code relied on
 *   lockstep, which no fence gives).
 *
 * The order is kept as vector clocks, under diagnosis only: each thread has its own clock,
 * starting at 1, and what it knows of each other lane's of its warp, starting at 0. An access
 * keeps its lane's own clock. A completed sync gives each of its lanes the highest of every
 * clock they hold and moves each one's own clock on: lane j's access is then ordered after lane
 * i's access made at clock c exactly when j knows i's clock to be c or more (diag_race.c). */
#include "exec.h"

#include <string.h>

#define LANES PTX_WARP_SIZE

void ptx_lane_clocks_reset(block_ctx *b)
{
    if (!b->lane_clocks)
        return;
    size_t threads = (size_t)b->nwarps * LANES;
    for (size_t t = 0; t < threads; t++)
        b->lane_clocks[t] = 1;
    memset(b->lane_known, 0, threads * LANES * sizeof *b->lane_known);
}

/* The lanes of `lanes` have synchronised: each knows what any of them knew. */
static void join_clocks(block_ctx *b, const warp *w, uint32_t lanes)
{
    if (!b->lane_clocks || __builtin_popcount(lanes) < 2)
        return;
    uint32_t joined[LANES] = {0};
    uint32_t *clocks = b->lane_clocks + w->base, *known = b->lane_known + (size_t)w->base * LANES;
    for (int lane = 0; lane < LANES; lane++) {
        if (!(lanes >> lane & 1))
            continue;
        for (int k = 0; k < LANES; k++) {
            uint32_t c = k == lane ? clocks[lane] : known[lane * LANES + k];
            joined[k] = c > joined[k] ? c : joined[k];
        }
    }
    for (int lane = 0; lane < LANES; lane++) {
        if (!(lanes >> lane & 1))
            continue;
        memcpy(known + lane * LANES, joined, sizeof joined);
        clocks[lane] = joined[lane] + 1;
    }
}

/* Lanes that exist and have not exited. */
static uint32_t alive(const warp *w)
{
    uint32_t m = 0;
    for (int lane = 0; lane < w->nlanes; lane++)
        m |= (uint32_t)(w->state[lane] != LANE_DONE) << lane;
    return m;
}

/* The waiting lanes of one member mask go on together. */
static void release(block_ctx *b, warp *w, uint32_t group)
{
    join_clocks(b, w, group);
    w->wsync_waiting &= ~group;
    for (int lane = 0; lane < LANES; lane++)
        if ((group >> lane & 1) && w->state[lane] == LANE_WSYNC)
            w->state[lane] = LANE_RUN;
}

/* The lanes waiting with this member mask. */
static uint32_t waiting_with(const warp *w, uint32_t mask)
{
    uint32_t lanes = 0;
    for (int lane = 0; lane < LANES; lane++)
        if ((w->wsync_waiting >> lane & 1) && w->wsync_mask[lane] == mask)
            lanes |= 1u << lane;
    return lanes;
}

/* Releases every mask whose living lanes have all come with that same mask. */
static void release_complete(block_ctx *b, warp *w)
{
    uint32_t living = alive(w), todo = w->wsync_waiting;
    while (todo) {
        uint32_t mask = w->wsync_mask[__builtin_ctz(todo)], group = waiting_with(w, mask);
        todo &= ~group;
        if (!(mask & living & ~group))
            release(b, w, group);
    }
}

int ptx_warp_sync(block_ctx *b, warp *w, const ptx_insn *in, uint32_t exec)
{
    uint64_t buf[LANES];
    const uint64_t *m = ptx_lanes(b, w, &in->ops[0], buf);
    for (int lane = 0; lane < LANES; lane++)
        if (exec >> lane & 1)
            /* A lane its own mask leaves out is undefined on a GPU; here it is counted in. */
            w->wsync_mask[lane] = (uint32_t)m[lane] | 1u << lane;
    w->wsync_waiting |= exec;
    release_complete(b, w);
    uint32_t waiting = w->wsync_waiting & exec;
    if (!waiting)
        return 0;
    for (int lane = 0; lane < LANES; lane++)
        if (waiting >> lane & 1)
            w->state[lane] = LANE_WSYNC;
    return PTX_WAITS;
}

bool ptx_warp_sync_stalled(block_ctx *b, warp *w)
{
    /* The lanes awaited wait at a __syncthreads() or at a sync with another mask, which a GPU
     * would not get past either: the lanes go on, each mask's together, as the interpreter
     * did before it parked them, and the lanes still missing stay unordered with them. */
    if (!w->wsync_waiting)
        return false;
    while (w->wsync_waiting)
        release(b, w, waiting_with(w, w->wsync_mask[__builtin_ctz(w->wsync_waiting)]));
    return true;
}
