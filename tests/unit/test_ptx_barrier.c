/* Barriers and scheduling in the PTX interpreter, with the semantics of compute capability 7.0
 * and later: arrivals counted per thread wherever they arrive, named barriers with counts,
 * bar.arrive, bar.red, and warps that take turns so that one can wait for another. */
#include "ptx_test_kernel.h"

#include <criterion/criterion.h>

#define LANES 32

/* %r7 = the warp (tid / 32); `body` runs on one block of `threads`; %r2 is stored. */
static int block_run(const char *decls, const char *body, unsigned threads, uint32_t *out,
                     ptx_error *err)
{
    char text[2048];
    snprintf(text, sizeof text, "shr.u32 %%r7, %%r0, 5;\n%s\nst.global.u32 [%%rd3], %%r2;", body);
    return run_kernel(decls, text, 1, threads, out, err);
}

Test(ptx_barrier, warps_may_wait_at_different_syncthreads)
{
    /* Warp 0 and warp 1 reach different bar.sync instructions; both count toward barrier 0,
     * so each sees what the other stored before it (the GPU does this since Volta). */
    const char *decls = ".shared .align 4 .b8 sh[256];\n";
    const char *body = "mov.u32 %r9, sh;\nshl.b32 %r10, %r0, 2;\nadd.u32 %r11, %r9, %r10;\n"
                       "st.shared.u32 [%r11], %r0;\nsetp.eq.u32 %p1, %r7, 0;\n@%p1 bra FIRST;\n"
                       "bar.sync 0;\nbra READ;\nFIRST:\nbar.sync 0;\n"
                       "READ:\nsub.u32 %r12, 63, %r0;\nshl.b32 %r12, %r12, 2;\n"
                       "add.u32 %r12, %r9, %r12;\nld.shared.u32 %r2, [%r12];";
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(block_run(decls, body, 64, out, &err), 0, "%s", err.msg);
    for (unsigned t = 0; t < 64; t++)
        cr_assert_eq(out[t], 63 - t, "thread %u", t);
}

Test(ptx_barrier, bar_red_counts_and_combines)
{
    uint32_t out[96];
    ptx_error err;
    /* __syncthreads_count(t % 3 == 0) over 96 threads: 32. */
    cr_assert_eq(block_run("", "rem.u32 %r4, %r0, 3;\nsetp.eq.u32 %p1, %r4, 0;\n"
                           "bar.red.popc.u32 %r2, 0, %p1;", 96, out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[95], 32u);
    cr_assert_eq(block_run("", "setp.lt.u32 %p1, %r0, 95;\nbar.red.and.pred %p2, 0, %p1;\n"
                           "bar.red.or.pred %p3, 0, %p1;\nselp.u32 %r4, 2, 0, %p2;\n"
                           "selp.u32 %r5, 1, 0, %p3;\nor.b32 %r2, %r4, %r5;", 96, out, &err),
                 0, "%s", err.msg);
    cr_assert_eq(out[0], 1u, "not all, but some");
    cr_assert_eq(block_run("", "setp.lt.u32 %p1, %r0, 95;\nbar.red.popc.u32 %r2, 0, !%p1;",
                           96, out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[3], 1u, "a negated predicate: only thread 95");
}

Test(ptx_barrier, a_producer_arrives_and_a_consumer_waits)
{
    /* Warp 0 stores and arrives at barrier 1 without waiting; warp 1 waits at barrier 1 for
     * 64 threads, then reads what warp 0 stored. */
    const char *decls = ".shared .align 4 .b8 sh[128];\n";
    const char *body = "mov.u32 %r9, sh;\nand.b32 %r8, %r0, 31;\nshl.b32 %r10, %r8, 2;\n"
                       "add.u32 %r11, %r9, %r10;\nmov.u32 %r2, 0;\n"
                       "setp.eq.u32 %p1, %r7, 0;\n@!%p1 bra CONSUME;\n"
                       "add.u32 %r12, %r8, 1000;\nst.shared.u32 [%r11], %r12;\n"
                       "bar.arrive 1, 64;\nbra END;\n"
                       "CONSUME:\nbar.sync 1, 64;\nld.shared.u32 %r2, [%r11];\nEND:";
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(block_run(decls, body, 64, out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[32 + 5], 1005u);
    cr_assert_eq(out[5], 0u);
}

Test(ptx_barrier, warps_spinning_on_flags_take_turns)
{
    /* A handshake: warp 0 sets `ping` and spins until `pong`; warp 1 spins until `ping`, then
     * sets `pong`. Whichever runs first spins on the other: this ends only if warps take turns. */
    const char *decls = ".shared .align 4 .b8 ping[4];\n.shared .align 4 .b8 pong[4];\n";
    const char *body = "mov.u32 %r9, ping;\nmov.u32 %r10, pong;\nsetp.eq.u32 %p1, %r0, 0;\n"
                       "@!%p1 bra WAIT;\nst.volatile.shared.u32 [%r9], 0;\n"
                       "st.volatile.shared.u32 [%r10], 0;\nWAIT:\nbar.sync 0;\n"
                       "setp.eq.u32 %p2, %r7, 1;\n@%p2 bra SECOND;\n"
                       "st.volatile.shared.u32 [%r9], 1;\n"
                       "SPIN0:\nld.volatile.shared.u32 %r2, [%r10];\nsetp.eq.u32 %p3, %r2, 0;\n"
                       "@%p3 bra SPIN0;\nbra END;\n"
                       "SECOND:\nld.volatile.shared.u32 %r4, [%r9];\nsetp.eq.u32 %p3, %r4, 0;\n"
                       "@%p3 bra SECOND;\nmov.u32 %r2, 7;\nst.volatile.shared.u32 [%r10], %r2;\n"
                       "END:";
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(block_run(decls, body, 64, out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[0], 7u, "warp 0 saw warp 1's answer");
    cr_assert_eq(out[40], 7u);
}

Test(ptx_barrier, threads_that_exit_while_others_wait_are_reported)
{
    uint32_t out[64];
    ptx_error err;
    int rc = block_run("", "setp.ge.u32 %p1, %r0, 40;\n@%p1 ret;\n.loc 1 17 1\nbar.sync 0;\n"
                       "mov.u32 %r2, 1;", 64, out, &err);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err.msg, ":17: barrier divergence: __syncthreads() at line 17 reached by 40 "
                     "of 64 threads; the other 24 exited") != NULL, "%s", err.msg);
}

Test(ptx_barrier, a_deadlock_names_each_waiting_warp)
{
    uint32_t out[96];
    ptx_error err;
    int rc = block_run("", "setp.eq.u32 %p1, %r7, 2;\n@%p1 ret;\nsetp.eq.u32 %p2, %r7, 1;\n"
                       "@%p2 bra B;\n.loc 1 30 1\nbar.sync 1, 64;\nbra END;\n"
                       "B:\n.loc 1 40 1\nbar.sync 2, 64;\nEND:\nmov.u32 %r2, 1;", 96, out, &err);
    cr_assert_neq(rc, 0);
    cr_assert(strstr(err.msg, "no thread can make progress: warp 0 waits at line 30 (barrier 1: "
                     "32 of 64 threads arrived); warp 1 waits at line 40 (barrier 2: 32 of 64 "
                     "threads arrived); 32 threads exited") != NULL, "%s", err.msg);
}

Test(ptx_barrier, bad_counts_and_ids_are_refused)
{
    uint32_t out[64];
    ptx_error err;
    cr_assert_neq(block_run("", "bar.sync 0, 48;\nmov.u32 %r2, 1;", 64, out, &err), 0);
    cr_assert(strstr(err.msg, "multiple of 32") != NULL, "%s", err.msg);
    cr_assert_neq(block_run("", "mov.u32 %r4, 16;\nbar.sync %r4;\nmov.u32 %r2, 1;", 64, out,
                            &err), 0);
    cr_assert(strstr(err.msg, "barrier 16 does not exist") != NULL, "%s", err.msg);
}

/* Divergent __syncwarp()s (compute capability 7.0 and later): each side of a branch has its
 * own bar.warp.sync; the lanes that reach theirs first wait there until the other side's
 * lanes reach theirs. Lanes 0-15 store t, 16-31 store t + 100; each then reads the word of its
 * partner in the other half, which must have been stored. */
static const char divergent_exchange[] =
    "mov.u32 %r9, sh;\nshl.b32 %r10, %r0, 2;\nadd.u32 %r11, %r9, %r10;\n"
    "setp.lt.u32 %p1, %r0, 16;\n@!%p1 bra HIGH;\n"
    "st.shared.u32 [%r11], %r0;\nbar.warp.sync -1;\nld.shared.u32 %r2, [%r11+64];\nbra END;\n"
    "HIGH:\nadd.u32 %r4, %r0, 100;\nst.shared.u32 [%r11], %r4;\nbar.warp.sync -1;\n"
    "ld.shared.u32 %r2, [%r11+-64];\nEND:";

Test(ptx_barrier, divergent_syncwarps_wait_for_each_other)
{
    uint32_t out[LANES];
    ptx_error err;
    cr_assert_eq(block_run(".shared .align 4 .b8 sh[128];\n", divergent_exchange, LANES, out,
                           &err), 0, "%s", err.msg);
    for (unsigned t = 0; t < LANES; t++)
        cr_assert_eq(out[t], t < 16 ? t + 16 + 100 : t - 16, "lane %u: %u", t, out[t]);
}

Test(ptx_barrier, a_syncwarp_does_not_wait_for_lanes_that_exited)
{
    /* Lanes 16-31 return; the others' __syncwarp() (all 32 named) completes without them. */
    uint32_t out[LANES];
    ptx_error err;
    cr_assert_eq(block_run("", "setp.ge.u32 %p1, %r0, 16;\n@%p1 ret;\nbar.warp.sync -1;\n"
                           "mov.u32 %r2, 5;", LANES, out, &err), 0, "%s", err.msg);
    cr_assert_eq(out[3], 5u);
}

Test(ptx_barrier, a_syncwarp_whose_lanes_never_come_goes_on)
{
    /* Lanes 0-15 wait at a __syncwarp() the others never reach (they wait at a __syncthreads()
     * instead; undefined on a GPU): the run does not hang, every thread reaches the end. */
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(block_run("", "and.b32 %r8, %r0, 31;\nsetp.lt.u32 %p1, %r8, 16;\n"
                           "@%p1 bar.warp.sync -1;\nbar.sync 0;\nmov.u32 %r2, 6;", 64, out, &err),
                 0, "%s", err.msg);
    cr_assert_eq(out[0], 6u);
    cr_assert_eq(out[63], 6u);
}

/* Blocks on several threads: the same results as one after another, atomics that lose no
 * update, and the same first failing block. */
static int launch_on(const char *body, unsigned grid, unsigned block, uint32_t *out, int threads,
                     ptx_error *err)
{
    char *text = kernel_text("", body);
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), err);
    free(text);
    if (!m)
        return -2;
    void *arg = out;
    void *args[] = {&arg};
    ptx_env env = {.threads = threads};
    int rc = ptx_launch_env(ptx_module_entry(m, "k"), (ptx_dim3){grid, 1, 1},
                            (ptx_dim3){block, 1, 1}, args, 0, &env, NULL, err);
    ptx_module_free(m);
    return rc;
}

Test(ptx_parallel, blocks_on_threads_give_the_same_results)
{
    /* out[t + 1] = t * 3 + its block; every thread adds 1 to out[0] atomically. */
    const char *body = "mul.lo.u32 %r2, %r1, 3;\nadd.u32 %r2, %r2, %r5;\n"
                       "st.global.u32 [%rd3+4], %r2;\natom.global.add.u32 %r4, [%rd1], 1;";
    enum { GRID = 64, BLOCK = 64, N = GRID * BLOCK + 1 };
    static uint32_t one[N], four[N];
    ptx_error err;
    memset(one, 0, sizeof one);
    memset(four, 0, sizeof four);
    cr_assert_eq(launch_on(body, GRID, BLOCK, one, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(launch_on(body, GRID, BLOCK, four, 4, &err), 0, "%s", err.msg);
    cr_assert_eq(four[0], (uint32_t)(GRID * BLOCK), "no atomic update lost: %u", four[0]);
    cr_assert_eq(memcmp(one, four, sizeof one), 0);
}

Test(ptx_parallel, the_first_failing_block_is_reported)
{
    /* Blocks 5 and 40 stop themselves (trap); 40 may well run before 5 has finished. */
    const char *body = "setp.eq.u32 %p1, %r5, 5;\nsetp.eq.u32 %p2, %r5, 40;\n"
                       "or.pred %p3, %p1, %p2;\n@%p3 trap;\nst.global.u32 [%rd3], %r1;";
    static uint32_t out[64 * 32];
    ptx_error err;
    for (int threads = 1; threads <= 4; threads *= 2) {
        cr_assert_neq(launch_on(body, 64, 32, out, threads, &err), 0);
        cr_assert(strstr(err.msg, "block (5,0,0)") != NULL, "%d threads: %s", threads, err.msg);
    }
}
