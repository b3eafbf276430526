/* The PTX interpreter's warp instructions: lanes reading each other's values (shfl), voting,
 * reducing and matching. A block of 32 threads is one warp; thread t writes out[t]. */
#include "ptx_test_kernel.h"

#include <criterion/criterion.h>

#define LANES 32

/* Runs `body` on one warp of `threads` lanes; %r0 is the lane, the result in %r2 is stored. */
static void warp_run(const char *body, unsigned threads, uint32_t *out)
{
    char text[1024];
    snprintf(text, sizeof text, "%s\nst.global.u32 [%%rd3], %%r2;", body);
    ptx_error err;
    cr_assert_eq(run_kernel("", text, 1, threads, out, &err), 0, "%s", err.msg);
}

Test(ptx_warp, shfl_modes_follow_the_lane_formula)
{
    uint32_t out[LANES];
    warp_run("shfl.sync.down.b32 %r2|%p1, %r0, 1, 31, -1;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], t < 31 ? t + 1 : 31, "down 1, lane %u (the last keeps its own)", t);
    warp_run("shfl.sync.up.b32 %r2|%p1, %r0, 2, 0, -1;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], t >= 2 ? t - 2 : t, "up 2, lane %u", t);
    warp_run("shfl.sync.bfly.b32 %r2|%p1, %r0, 16, 31, -1;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], t ^ 16, "xor 16, lane %u", t);
    warp_run("shfl.sync.idx.b32 %r2|%p1, %r0, 5, 31, -1;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], 5u, "broadcast of lane 5, lane %u", t);
}

Test(ptx_warp, shfl_in_sub_warps_of_eight)
{
    /* width 8: c = ((32 - 8) << 8) | 31 for idx and down, (32 - 8) << 8 for up. */
    uint32_t out[LANES];
    warp_run("shfl.sync.idx.b32 %r2|%p1, %r0, 3, 0x181F, -1;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], (t & ~7u) + 3, "lane 3 of each group of 8, lane %u", t);
    warp_run("shfl.sync.down.b32 %r2|%p1, %r0, 4, 0x181F, -1;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], (t & 7u) + 4 <= 7 ? t + 4 : t, "down 4 within 8, lane %u", t);
    warp_run("shfl.sync.up.b32 %r2|%p1, %r0, 1, 0x1800, -1;\n"
             "selp.u32 %r4, 1000, 0, %p1;\nadd.u32 %r2, %r2, %r4;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], (t & 7u) ? t - 1 + 1000 : t, "up 1 within 8 and its p, lane %u", t);
}

Test(ptx_warp, a_shuffle_reduction_sums_the_warp)
{
    uint32_t out[LANES];
    warp_run("mov.u32 %r2, %r0;\n"
             "shfl.sync.down.b32 %r4|%p1, %r2, 16, 31, -1;\nadd.u32 %r2, %r2, %r4;\n"
             "shfl.sync.down.b32 %r4|%p1, %r2, 8, 31, -1;\nadd.u32 %r2, %r2, %r4;\n"
             "shfl.sync.down.b32 %r4|%p1, %r2, 4, 31, -1;\nadd.u32 %r2, %r2, %r4;\n"
             "shfl.sync.down.b32 %r4|%p1, %r2, 2, 31, -1;\nadd.u32 %r2, %r2, %r4;\n"
             "shfl.sync.down.b32 %r4|%p1, %r2, 1, 31, -1;\nadd.u32 %r2, %r2, %r4;", LANES, out);
    cr_assert_eq(out[0], 496u, "0 + 1 + ... + 31");
}

Test(ptx_warp, votes)
{
    uint32_t out[LANES];
    warp_run("and.b32 %r4, %r0, 1;\nsetp.ne.u32 %p1, %r4, 0;\n"
             "vote.sync.ballot.b32 %r2, %p1, -1;", LANES, out);
    cr_assert_eq(out[7], 0xAAAAAAAAu, "odd lanes");
    warp_run("setp.lt.u32 %p1, %r0, 32;\nvote.sync.all.pred %p2, %p1, -1;\n"
             "vote.sync.any.pred %p3, !%p1, -1;\nselp.u32 %r4, 2, 0, %p2;\n"
             "selp.u32 %r5, 1, 0, %p3;\nor.b32 %r2, %r4, %r5;", LANES, out);
    cr_assert_eq(out[0], 2u, "all true, none false");
    warp_run("setp.lt.u32 %p1, %r0, 3;\nvote.sync.uni.pred %p2, %p1, -1;\n"
             "selp.u32 %r2, 1, 0, %p2;", LANES, out);
    cr_assert_eq(out[31], 0u, "not uniform");
    warp_run("setp.lt.u32 %p1, %r0, 3;\nsetp.lt.u32 %p4, %r0, 4;\n"
             "@%p4 vote.sync.ballot.b32 %r2, %p1, 0xF;", LANES, out);
    cr_assert_eq(out[0], 7u, "a member mask of four lanes");
}

Test(ptx_warp, activemask_in_a_branch)
{
    uint32_t out[LANES];
    warp_run("mov.u32 %r2, 0;\nsetp.ge.u32 %p1, %r0, 10;\n@%p1 bra DONE;\n"
             "activemask.b32 %r2;\nDONE:", LANES, out);
    cr_assert_eq(out[3], 0x3ffu, "lanes 0..9 took the branch together");
    cr_assert_eq(out[20], 0u);
}

Test(ptx_warp, redux_and_match)
{
    uint32_t out[LANES];
    warp_run("redux.sync.add.u32 %r2, %r0, -1;", LANES, out);
    cr_assert_eq(out[9], 496u);
    warp_run("sub.s32 %r4, 5, %r0;\nredux.sync.min.s32 %r2, %r4, -1;", LANES, out);
    cr_assert_eq(out[0], (uint32_t)-26, "5 - 31, signed");
    warp_run("sub.s32 %r4, 5, %r0;\nredux.sync.max.u32 %r2, %r4, -1;", LANES, out);
    cr_assert_eq(out[0], (uint32_t)-1, "5 - 6 = 0xffffffff is the largest unsigned");
    warp_run("mov.u32 %r2, 0;\nsetp.lt.u32 %p4, %r0, 16;\n@%p4 redux.sync.or.b32 %r2, %r0, 0xFFFF;",
             LANES, out);
    cr_assert_eq(out[3], 15u, "lanes 0..15 only");
    cr_assert_eq(out[16], 0u, "lane 16 did not run it");
    warp_run("shr.u32 %r4, %r0, 3;\nmatch.any.sync.b32 %r2, %r4, -1;", LANES, out);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], 0xffu << (8 * (t / 8)), "lanes with the same t/8, lane %u", t);
    warp_run("shr.u32 %r4, %r0, 6;\nmatch.all.sync.b32 %r2|%p1, %r4, -1;\n"
             "selp.u32 %r5, 1, 0, %p1;\nadd.u32 %r2, %r2, %r5;", LANES, out);
    cr_assert_eq(out[4], 0u, "all the same: the mask (-1) plus 1 wraps to 0");
    warp_run("shr.u32 %r4, %r0, 3;\nmatch.all.sync.b32 %r2|%p1, %r4, -1;\n"
             "selp.u32 %r5, 1, 0, %p1;\nadd.u32 %r2, %r2, %r5;", LANES, out);
    cr_assert_eq(out[4], 0u, "different: 0 and false");
    warp_run("shr.u32 %r4, %r0, 3;\nsetp.lt.u32 %p4, %r0, 8;\n@!%p4 bra DONE;\n"
             "match.all.sync.b32 %r2|%p1, %r4, 0xFF;\n"
             "selp.u32 %r5, 1, 0, %p1;\nadd.u32 %r2, %r2, %r5;\nDONE:", LANES, out);
    cr_assert_eq(out[4], 0x100u, "the same within the mask 0xff: 0xff + 1");
}

Test(ptx_warp, a_partial_warp_counts_only_its_lanes)
{
    uint32_t out[20];
    warp_run("vote.sync.ballot.b32 %r2, 1, -1;", 20, out);
    cr_assert_eq(out[0], 0xfffffu, "20 lanes exist; the mask's others have exited");
}

Test(ptx_warp, a_diverged_shfl_is_reported_with_its_line)
{
    uint32_t out[LANES];
    ptx_error err;
    int rc = run_kernel("", "setp.ge.u32 %p1, %r0, 16;\n@%p1 bra DONE;\n"
                        ".loc 1 42 1\nshfl.sync.idx.b32 %r2|%p2, %r0, 0, 31, -1;\n"
                        "DONE:\nst.global.u32 [%rd3], %r2;", 1, LANES, out, &err);
    cr_assert_neq(rc, 0, "lanes 16..31 never reach the shuffle their mask names");
    cr_assert(strstr(err.msg, "0xffff0000") != NULL, "%s", err.msg);
    cr_assert(strstr(err.msg, ":42:") != NULL, "the source line: %s", err.msg);
}
