/* Asynchronous copies and mbarrier objects in the PTX interpreter: cp.async with zero fill and
 * ignore-src, cp.async.bulk completing an mbarrier's transaction count, mbarrier phases with
 * their states and parities, arrive_drop, and the misuse a GPU leaves undefined (a wait on an
 * mbarrier never initialised, a phase that can never complete) reported instead of hanging. */
#include "ptx_test_kernel.h"

#include <criterion/criterion.h>

#define WORD_FILL 0xababababu /* what run_kernel leaves in out[] */

/* out[t] = t + 100; after a barrier, thread t copies 16 bytes from &out[t & ~3] into its own
 * 16 bytes of shared memory, of which src-size = 4 * (t % 4) are read and the rest zero. */
static const char zero_fill[] =
    "add.u32 %r2, %r0, 100;\nst.global.u32 [%rd3], %r2;\nbar.sync 0;\n"
    "and.b32 %r11, %r0, -4;\nmul.wide.u32 %rd6, %r11, 4;\nadd.s64 %rd7, %rd1, %rd6;\n"
    "and.b32 %r12, %r0, 3;\nshl.b32 %r15, %r12, 2;\n"
    "mov.u32 %r9, buf;\nshl.b32 %r13, %r0, 4;\nadd.u32 %r14, %r9, %r13;\n"
    "cp.async.cg.shared.global [%r14], [%rd7], 16, %r15;\n"
    "cp.async.commit_group;\ncp.async.wait_group 0;\nbar.sync 0;\n"
    /* the last word read (t % 4 > 0) or word 0, and the first zero-filled word */
    "max.u32 %r16, %r12, 1;\nsub.u32 %r16, %r16, 1;\nshl.b32 %r16, %r16, 2;\n"
    "add.u32 %r17, %r14, %r16;\nld.shared.u32 %r18, [%r17];\n"
    "add.u32 %r17, %r14, %r15;\nld.shared.u32 %r19, [%r17];\n"
    "setp.eq.u32 %p1, %r12, 0;\nselp.u32 %r19, 0, %r19, %p1;\n"
    "or.b32 %r2, %r18, %r19;\nst.global.u32 [%rd3], %r2;";

Test(ptx_async, cp_async_zero_fills_past_src_size)
{
    uint32_t out[32];
    ptx_error err;
    cr_assert_eq(run_kernel(".shared .align 16 .b8 buf[512];\n", zero_fill, 1, 32, out, &err), 0,
                 "%s", err.msg);
    for (unsigned t = 0; t < 32; t++)
        cr_assert_eq(out[t], t % 4 ? t + 99 : 0u, "thread %u: %#x", t, out[t]);
}

Test(ptx_async, cp_async_ignore_src_reads_nothing)
{
    /* The source is address 16, where nothing is (the test's runs do not check addresses):
     * with ignore-src set, nothing is read and the destination is zero. */
    const char *body = "mov.u32 %r9, buf;\nmov.u64 %rd6, 16;\nsetp.eq.u32 %p1, %r0, %r0;\n"
                       "cp.async.ca.shared.global [%r9], [%rd6], 4, %p1;\n"
                       "cp.async.wait_all;\nld.shared.u32 %r2, [%r9];\n"
                       "st.global.u32 [%rd3], %r2;";
    uint32_t out[1];
    ptx_error err;
    cr_assert_eq(run_kernel(".shared .align 16 .b8 buf[16];\n", body, 1, 1, out, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(out[0], 0u);
}

/* 64 threads arrive on an mbarrier for 64, twice; each waits with the state its arrival
 * returned, then asks which phases are complete and how many arrivals its state had pending. */
static const char phases[] =
    "mov.u32 %r9, bar;\nsetp.ne.u32 %p1, %r0, 0;\n@%p1 bra ARRIVE;\n"
    "mbarrier.init.shared.b64 [%r9], 64;\nARRIVE:\nbar.sync 0;\n"
    "mbarrier.arrive.shared.b64 %rd5, [%r9];\n"
    "WAIT:\nmbarrier.try_wait.shared.b64 %p2, [%r9], %rd5;\n@!%p2 bra WAIT;\n"
    "mbarrier.test_wait.parity.shared.b64 %p3, [%r9], 0;\n"
    "mbarrier.test_wait.parity.shared.b64 %p4, [%r9], 1;\n"
    "mbarrier.pending_count.b64 %r12, %rd5;\n"
    "mbarrier.arrive.release.cta.shared::cta.b64 _, [%r9];\n"
    "WAIT2:\nmbarrier.try_wait.parity.shared.b64 %p5, [%r9], 1;\n@!%p5 bra WAIT2;\n"
    "mbarrier.test_wait.parity.shared.b64 %p6, [%r9], 0;\n"
    "selp.u32 %r2, 1, 0, %p3;\nselp.u32 %r3, 2, 0, %p4;\nor.b32 %r2, %r2, %r3;\n"
    "selp.u32 %r3, 4, 0, %p6;\nor.b32 %r2, %r2, %r3;\n"
    "shl.b32 %r12, %r12, 8;\nor.b32 %r2, %r2, %r12;\nst.global.u32 [%rd3], %r2;";

Test(ptx_async, mbarrier_phases_states_and_parities)
{
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(run_kernel(".shared .align 8 .b8 bar[8];\n", phases, 1, 64, out, &err), 0, "%s",
                 err.msg);
    for (unsigned t = 0; t < 64; t++) {
        /* After phase 0: parity 0 complete, parity 1 (the current phase) not; after phase 1,
         * parity 0 names the current phase again: not complete. */
        cr_assert_eq(out[t] & 0xff, 1u, "thread %u: %#x", t, out[t]);
    }
    /* Each warp arrives as one, as on an H100: its lanes' states all hold the count from
     * before it arrived, 64 for the first warp and 32 for the second, in whichever order. */
    for (unsigned t = 0; t < 64; t++)
        cr_assert_eq(out[t] >> 8, out[t / 32 * 32] >> 8, "thread %u: %#x", t, out[t]);
    unsigned first = out[0] >> 8, second = out[32] >> 8;
    cr_assert((first == 64 && second == 32) || (first == 32 && second == 64), "%u and %u", first,
              second);
}

/* Thread 0 expects 16 bytes and copies them with cp.async.bulk; the phase completes when all
 * 32 threads have arrived and the bytes have come. */
static const char bulk[] =
    "setp.lt.u32 %p3, %r0, 4;\nmul.lo.u32 %r2, %r0, 7;\n@%p3 st.global.u32 [%rd3], %r2;\n"
    "mov.u32 %r9, bar;\nmov.u32 %r10, buf;\nsetp.ne.u32 %p1, %r0, 0;\n@%p1 bra START;\n"
    "mbarrier.init.shared.b64 [%r9], 32;\nSTART:\nbar.sync 0;\n@%p1 bra OTHERS;\n"
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r10], [%rd1], 16, "
    "[%r9];\n"
    "mbarrier.arrive.expect_tx.shared.b64 %rd5, [%r9], 16;\nbra WAIT;\n"
    "OTHERS:\nmbarrier.arrive.shared.b64 %rd5, [%r9];\n"
    "WAIT:\nmbarrier.try_wait.shared.b64 %p2, [%r9], %rd5;\n@!%p2 bra WAIT;\n"
    "and.b32 %r11, %r0, 3;\nshl.b32 %r11, %r11, 2;\nadd.u32 %r11, %r10, %r11;\n"
    "ld.shared.u32 %r2, [%r11];\nst.global.u32 [%rd3], %r2;";

Test(ptx_async, bulk_copy_completes_the_transaction_count)
{
    uint32_t out[32];
    ptx_error err;
    cr_assert_eq(run_kernel(".shared .align 16 .b8 buf[16];\n.shared .align 8 .b8 bar[8];\n",
                            bulk, 1, 32, out, &err), 0, "%s", err.msg);
    for (unsigned t = 0; t < 32; t++)
        cr_assert_eq(out[t], t % 4 * 7, "thread %u", t);
}

Test(ptx_async, arrive_drop_lowers_the_expected_count)
{
    /* Warp 1 leaves for good after phase 0: phase 1 completes with warp 0's arrivals. */
    const char *body =
        "mov.u32 %r9, bar;\nshr.u32 %r7, %r0, 5;\nsetp.ne.u32 %p1, %r0, 0;\n@%p1 bra GO;\n"
        "mbarrier.init.shared.b64 [%r9], 64;\nGO:\nbar.sync 0;\nsetp.eq.u32 %p3, %r7, 1;\n"
        "@%p3 mbarrier.arrive_drop.shared.b64 %rd5, [%r9];\n@%p3 bra DONE;\n"
        "mbarrier.arrive.shared.b64 %rd5, [%r9];\n"
        "W0:\nmbarrier.try_wait.shared.b64 %p2, [%r9], %rd5;\n@!%p2 bra W0;\n"
        "mbarrier.arrive.shared.b64 %rd5, [%r9];\n"
        "W1:\nmbarrier.try_wait.shared.b64 %p2, [%r9], %rd5;\n@!%p2 bra W1;\n"
        "DONE:\nmov.u32 %r2, 5;\nst.global.u32 [%rd3], %r2;";
    uint32_t out[64];
    ptx_error err;
    cr_assert_eq(run_kernel(".shared .align 8 .b8 bar[8];\n", body, 1, 64, out, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(out[0], 5u);
    cr_assert_eq(out[63], 5u);
}

Test(ptx_async, a_wait_on_an_uninitialised_mbarrier_is_reported)
{
    const char *body = "mov.u32 %r9, bar;\nmov.u64 %rd5, 0;\n"
                       "mbarrier.test_wait.shared.b64 %p1, [%r9], %rd5;\nmov.u32 %r2, 1;";
    uint32_t out[1];
    ptx_error err;
    cr_assert_neq(run_kernel(".shared .align 8 .b8 bar[8];\n", body, 1, 1, out, &err), 0);
    cr_assert(strstr(err.msg, "before mbarrier.init") != NULL, "%s", err.msg);
}

Test(ptx_async, a_phase_that_cannot_complete_is_reported_not_hung)
{
    /* Expected: 64 arrivals; the block has 32 threads. */
    const char *body = "mov.u32 %r9, bar;\nsetp.ne.u32 %p1, %r0, 0;\n@%p1 bra GO;\n"
                       "mbarrier.init.shared.b64 [%r9], 64;\nGO:\nbar.sync 0;\n"
                       "mbarrier.arrive.shared.b64 %rd5, [%r9];\n"
                       "W:\nmbarrier.try_wait.shared.b64 %p2, [%r9], %rd5;\n@!%p2 bra W;\n"
                       "mov.u32 %r2, 1;";
    uint32_t out[32];
    ptx_error err;
    cr_assert_neq(run_kernel(".shared .align 8 .b8 bar[8];\n", body, 1, 32, out, &err), 0);
    cr_assert(strstr(err.msg, "never completes: 32 of 64 arrivals pending") != NULL, "%s",
              err.msg);
}

Test(ptx_async, misshapen_operands_are_refused_when_read)
{
    const char *body = "mov.u32 %r9, buf;\ncp.async.ca.shared.global [%r9], [%rd1], 12;";
    uint32_t out[1];
    ptx_error err;
    cr_assert_eq(run_kernel(".shared .align 16 .b8 buf[16];\n", body, 1, 1, out, &err), -2);
    cr_assert(strstr(err.msg, "4|8|16") != NULL, "%s", err.msg);
}
