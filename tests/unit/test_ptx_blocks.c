/* Blocks that wait for each other in the PTX interpreter: a block whose warps spin is parked
 * and another one runs, on one host thread as on several, and when no block can ever go on the
 * launch stops with a report instead of hanging. */
#include "ptx.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 512

/* A kernel around `body`: %r0 = %tid.x, %r5 = %ctaid.x, %rd3 = &out[global thread index],
 * %rd4 = flags (16 words, zero), %rd6 = &flags[%ctaid.x], %rd7 = &locks[%ctaid.x] (two words,
 * both 1: taken). The body leaves in %r2 what each thread stores. */
static int run_blocks(const char *body, unsigned grid, unsigned block, int threads, uint32_t *out,
                      ptx_error *err)
{
    static const char head[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".global .align 4 .b8 flags[64];\n"
        ".global .align 4 .u32 locks[2] = {1, 1};\n"
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n.reg .pred %p<10>;\n"
        ".shared .align 4 .u32 sflag;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r0, %tid.x;\nmov.u32 %r5, %ctaid.x;\nmov.u32 %r6, %ntid.x;\n"
        "mad.lo.s32 %r1, %r5, %r6, %r0;\n"
        "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\n"
        "mov.u64 %rd4, flags;\nmul.wide.u32 %rd5, %r5, 4;\nadd.s64 %rd6, %rd4, %rd5;\n"
        "mov.u64 %rd8, locks;\nadd.s64 %rd7, %rd8, %rd5;\n";
    size_t n = strlen(head) + strlen(body) + 64;
    char *text = malloc(n);
    snprintf(text, n, "%s%s\nst.global.u32 [%%rd3], %%r2;\nret;\n}\n", head, body);
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), err);
    free(text);
    if (!m)
        return -2;
    const ptx_entry *e = ptx_module_entry(m, "k");
    cr_assert_not_null(e);
    cr_assert(grid * block <= MAX_THREADS);
    memset(out, 0xab, sizeof(uint32_t) * grid * block);
    void *arg = out;
    void *args[] = {&arg};
    ptx_env env = {.threads = threads};
    int rc = ptx_launch_env(e, (ptx_dim3){grid, 1, 1}, (ptx_dim3){block, 1, 1}, args, 0, &env,
                            NULL, err);
    ptx_module_free(m);
    return rc;
}

Test(ptx_blocks, a_block_waits_for_a_later_one_whatever_the_loop_period)
{
    /* Block 0 spins with a delay loop inside (3 backward branches a round, which does not
     * divide the interpreter's yield interval) until block 1 sets the flag. */
    const char *body = "setp.ne.u32 %p1, %r5, 0;\n@%p1 bra PRODUCE;\n"
                       "WAIT:\nld.volatile.global.u32 %r2, [%rd4];\nmov.u32 %r8, 0;\n"
                       "DELAY:\nadd.u32 %r8, %r8, 1;\nsetp.lt.u32 %p2, %r8, 3;\n@%p2 bra DELAY;\n"
                       "setp.eq.u32 %p3, %r2, 0;\n@%p3 bra WAIT;\nbra DONE;\n"
                       "PRODUCE:\natom.global.exch.b32 %r9, [%rd4], 7;\nmov.u32 %r2, 7;\n"
                       "DONE:";
    for (int threads = 1; threads <= 2; threads++) {
        uint32_t out[64];
        ptx_error err;
        cr_assert_eq(run_blocks(body, 2, 32, threads, out, &err), 0, "%s", err.msg);
        for (int t = 0; t < 64; t++)
            cr_assert_eq(out[t], 7u, "%d threads: thread %d", threads, t);
    }
}

Test(ptx_blocks, a_long_loop_that_writes_nothing_is_not_a_wait)
{
    /* Block 1 counts in registers for a long time before it sets the flag block 0 waits for:
     * its state never repeats, so it is not taken for a spinning block. */
    const char *body = "setp.ne.u32 %p1, %r5, 0;\n@%p1 bra PRODUCE;\n"
                       "WAIT:\nld.volatile.global.u32 %r2, [%rd4];\nsetp.eq.u32 %p3, %r2, 0;\n"
                       "@%p3 bra WAIT;\nbra DONE;\n"
                       "PRODUCE:\nmov.u32 %r8, 0;\n"
                       "COUNT:\nadd.u32 %r8, %r8, 1;\nsetp.lt.u32 %p2, %r8, 200000;\n"
                       "@%p2 bra COUNT;\natom.global.exch.b32 %r9, [%rd4], %r8;\n"
                       "mov.u32 %r2, %r8;\n"
                       "DONE:";
    for (int threads = 1; threads <= 2; threads++) {
        uint32_t out[64];
        ptx_error err;
        cr_assert_eq(run_blocks(body, 2, 32, threads, out, &err), 0, "%s", err.msg);
        cr_assert_eq(out[0], 200000u);
        cr_assert_eq(out[63], 200000u);
    }
}

Test(ptx_blocks, a_chain_of_waits_runs_backwards)
{
    /* Block i waits for block i + 1's flag, then sets its own one higher: on one host thread
     * every block but the last is parked before the last one starts. */
    const char *body = "setp.eq.u32 %p1, %r5, 15;\n@%p1 bra LAST;\n"
                       "WAIT:\nld.volatile.global.u32 %r3, [%rd6+4];\nsetp.eq.u32 %p2, %r3, 0;\n"
                       "@%p2 bra WAIT;\nadd.u32 %r2, %r3, 1;\nbra STORE;\n"
                       "LAST:\nmov.u32 %r2, 1;\n"
                       "STORE:\nst.volatile.global.u32 [%rd6], %r2;";
    for (int threads = 1; threads <= 3; threads++) {
        uint32_t out[16 * 32];
        ptx_error err;
        cr_assert_eq(run_blocks(body, 16, 32, threads, out, &err), 0, "%s", err.msg);
        for (int b = 0; b < 16; b++)
            cr_assert_eq(out[b * 32 + 5], 16u - (unsigned)b, "%d threads: block %d", threads, b);
    }
}

Test(ptx_blocks, a_lock_nobody_releases_is_reported)
{
    /* Each block takes a lock that is already taken: atom.cas fails forever, and a failing
     * compare-and-swap writes nothing, so every block spins while nothing changes. */
    const char *body = "SPIN:\natom.global.cas.b32 %r2, [%rd7], 0, 1;\nsetp.ne.u32 %p1, %r2, 0;\n"
                       "@%p1 bra SPIN;";
    for (int threads = 1; threads <= 2; threads++) {
        uint32_t out[64];
        ptx_error err;
        cr_assert_eq(run_blocks(body, 2, 32, threads, out, &err), -1);
        cr_assert_eq(err.kind, PTX_ERROR_FAULT);
        cr_assert(strstr(err.msg, "no block can make progress: block (0,0,0) warp 0 spins at "
                                  "test.ptx:0; block (1,0,0) warp 0 spins at test.ptx:0;"),
                  "%s", err.msg);
        cr_assert(strstr(err.msg, "(a GPU hangs here)"), "%s", err.msg);
    }
}

Test(ptx_blocks, a_warp_waiting_for_its_own_block_forever_is_reported)
{
    /* Warp 0 waits for a shared flag that warp 1, which exits, never sets. */
    const char *body = "shr.u32 %r7, %r0, 5;\nsetp.ne.u32 %p1, %r7, 0;\n@%p1 bra OUT;\n"
                       "SPIN:\nld.volatile.shared.u32 %r2, [sflag];\n"
                       "setp.ne.u32 %p2, %r2, 12345;\n@%p2 bra SPIN;\n"
                       "OUT:\nmov.u32 %r2, 1;";
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(run_blocks(body, 1, 64, 1, out, &err), -1);
    cr_assert(strstr(err.msg, "no block can make progress: block (0,0,0) warp 0 spins at "),
              "%s", err.msg);
    cr_assert_eq(out[40], 1u, "warp 1 finished");
}

Test(ptx_blocks, a_wait_that_syncs_every_round_lets_the_others_run)
{
    /* Block 0's thread 0 copies the flag into shared memory, then the block syncs and tests
     * it: every round writes and passes a barrier, so it is not found spinning, but a block
     * that passes thousands of barriers without writing global memory is parked all the same,
     * and block 1 gets to set the flag. */
    const char *body = "setp.ne.u32 %p1, %r5, 0;\n@%p1 bra PRODUCE;\n"
                       "setp.ne.u32 %p4, %r0, 0;\n"
                       "POLL:\n@%p4 bra SYNC;\nld.volatile.global.u32 %r9, [%rd4];\n"
                       "st.shared.u32 [sflag], %r9;\n"
                       "SYNC:\nbar.sync 0;\nld.shared.u32 %r2, [sflag];\nbar.sync 0;\n"
                       "setp.eq.u32 %p3, %r2, 0;\n@%p3 bra POLL;\nbra DONE;\n"
                       "PRODUCE:\natom.global.exch.b32 %r9, [%rd4], 9;\nmov.u32 %r2, 9;\n"
                       "DONE:";
    for (int threads = 1; threads <= 2; threads++) {
        uint32_t out[128];
        ptx_error err;
        cr_assert_eq(run_blocks(body, 2, 64, threads, out, &err), 0, "%s", err.msg);
        for (int t = 0; t < 128; t++)
            cr_assert_eq(out[t], 9u, "%d threads: thread %d", threads, t);
    }
}
