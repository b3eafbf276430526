/* A launch stopped at its instruction limit or at its deadline (ptx_env): each says where the
 * warps were; at the deadline the message asks about an endless loop only when the loop trips
 * are beyond the ordinary ones the caller gives. */
#include "ptx.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every thread counts up forever, storing each count to shared memory (a store: not a spin). */
static const char endless[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.shared .align 4 .u32 s[64];\n"
    "mov.u32 %r1, %tid.x;\nshl.b32 %r1, %r1, 2;\nmov.u32 %r3, s;\nadd.u32 %r1, %r1, %r3;\n"
    "mov.u32 %r2, 0;\nLOOP:\nadd.u32 %r2, %r2, 1;\nst.shared.u32 [%r1], %r2;\nbra.uni LOOP;\n}\n";

/* `text`'s kernel `name` on `blocks` blocks of `threads` threads. */
static int launch_of(const char *text, const char *name, unsigned blocks, unsigned threads,
                     ptx_env env, ptx_error *err)
{
    ptx_module *m = ptx_module_parse("count.ptx", text, strlen(text), err);
    cr_assert_not_null(m, "%s", err->msg);
    const ptx_entry *e = ptx_module_entry(m, name);
    int rc = ptx_launch_env(e, (ptx_dim3){blocks, 1, 1}, (ptx_dim3){threads, 1, 1}, NULL, 0, &env,
                            NULL, err);
    ptx_module_free(m);
    return rc;
}

static int launch(ptx_env env, ptx_error *err) { return launch_of(endless, "k", 2, 64, env, err); }

Test(ptx_limit, the_instruction_limit_asks_about_an_endless_loop)
{
    ptx_error err;
    cr_assert_eq(launch((ptx_env){.threads = 1, .max_thread_instructions = 1000000}, &err), -1);
    cr_assert_eq(err.kind, PTX_ERROR_LIMIT);
    cr_assert(strstr(err.msg, "stopped at its limit of 1.0 million instructions, far more than "
                              "the work needs: an endless loop? In block ("), "%s", err.msg);
}

Test(ptx_limit, at_the_deadline_trips_beyond_the_ordinary_ask_about_an_endless_loop)
{
    ptx_error err;
    cr_assert_eq(launch((ptx_env){.threads = 1, .deadline_ns = 1, .ordinary_trips = 10}, &err), -1);
    cr_assert_eq(err.kind, PTX_ERROR_LIMIT);
    cr_assert(strstr(err.msg, "stopped at the time limit, ") && strstr(err.msg, "over 10 trips): "
                                                                               "an endless loop?"),
              "%s", err.msg);
}

Test(ptx_limit, at_the_deadline_ordinary_trips_do_not_blame_a_loop)
{
    ptx_error err;
    cr_assert_eq(launch((ptx_env){.threads = 1, .deadline_ns = 1, .ordinary_trips = 1000000000},
                        &err), -1);
    cr_assert(strstr(err.msg, "as many as the work can need (up to 1000000000): too slow to "
                              "finish in that time on the CPU backend"), "%s", err.msg);
    cr_assert(!strstr(err.msg, "endless"), "%s", err.msg);
    /* Without an estimate, neither. */
    cr_assert_eq(launch((ptx_env){.threads = 1, .deadline_ns = 1}, &err), -1);
    cr_assert(strstr(err.msg, "million instructions into the launch, before it finished. In block"),
              "%s", err.msg);
    cr_assert(!strstr(err.msg, "endless"), "%s", err.msg);
}

/* One loop of four trips per thread, then exit: ordinary work, many blocks of it. */
static const char four_trips[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .pred %p;\n.shared .align 4 .u32 s[64];\n"
    "mov.u32 %r1, %tid.x;\nshl.b32 %r1, %r1, 2;\nmov.u32 %r3, s;\nadd.u32 %r1, %r1, %r3;\n"
    "mov.u32 %r2, 0;\nLOOP:\nadd.u32 %r2, %r2, 1;\nst.shared.u32 [%r1], %r2;\n"
    "setp.lt.u32 %p, %r2, 5;\n@%p bra.uni LOOP;\nret;\n}\n";

static int launch_text(const char *text, ptx_dim3 grid, ptx_env env, ptx_error *err)
{
    ptx_module *m = ptx_module_parse("many.ptx", text, strlen(text), err);
    cr_assert_not_null(m, "%s", err->msg);
    int rc = ptx_launch_env(ptx_module_entry(m, "k"), grid, (ptx_dim3){64, 1, 1}, NULL, 0, &env,
                            NULL, err);
    ptx_module_free(m);
    return rc;
}

/* Straight-line code longer than the limit's batch (each thread runs 2048 adds, a barrier
 * halfway): the limit is found in the middle of a block. */
static char *long_straight(void)
{
    static const char head[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n.file 1 \"many.cu\"\n"
        ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.shared .align 4 .u32 s[64];\n"
        ".loc 1 7 0\nmov.u32 %r1, %tid.x;\nshl.b32 %r1, %r1, 2;\nmov.u32 %r3, s;\n"
        "add.u32 %r1, %r1, %r3;\nmov.u32 %r2, 0;\n";
    static const char add[] = "add.u32 %r2, %r2, 1;\n", tail[] = "st.shared.u32 [%r1], %r2;\nret;\n}\n";
    size_t n = sizeof head + 2048 * (sizeof add - 1) + sizeof tail + 16;
    char *text = malloc(n);
    cr_assert_not_null(text);
    char *at = text + sprintf(text, "%s", head);
    for (int i = 0; i < 2048; i++)
        at += sprintf(at, "%s%s", add, i == 1024 ? "bar.sync 0;\n" : "");
    sprintf(at, "%s", tail);
    return text;
}

Test(ptx_limit, a_block_that_made_no_loop_trip_is_never_blamed_on_a_loop)
{
    ptx_error err;
    char *text = long_straight();
    cr_assert_eq(launch_text(text, (ptx_dim3){64, 1, 1},
                             (ptx_env){.threads = 1, .max_thread_instructions = 950000,
                                       .ordinary_trips = 4096}, &err), -1);
    free(text);
    cr_assert_eq(err.kind, PTX_ERROR_LIMIT);
    cr_assert(strstr(err.msg, "though no loop of the block that crossed it had gone round: the "
                              "launch's 64 blocks of 64 threads together ran past it (more "
                              "blocks than the data needs?)"), "%s", err.msg);
    cr_assert(strstr(err.msg, "before any loop trip"), "%s", err.msg);
    cr_assert(!strstr(err.msg, "endless"), "%s", err.msg);
    cr_assert(!strstr(err.msg, "after 0 loop trips"), "%s", err.msg);
}

Test(ptx_limit, a_blocks_trips_are_its_own_not_its_slots_earlier_blocks)
{
    /* One host thread runs the blocks one after another in the same slot: the block that crosses
     * the limit counts only its own four trips, within the ordinary ones, so both causes are
     * named rather than an endless loop alone. */
    ptx_error err;
    cr_assert_eq(launch_text(four_trips, (ptx_dim3){4096, 1, 1},
                             (ptx_env){.threads = 1, .max_thread_instructions = 400000,
                                       .ordinary_trips = 100}, &err), -1);
    cr_assert(strstr(err.msg, "far more than the work needs: an endless loop, or more blocks than "
                              "the data needs (the launch has 4096 blocks of 64 threads)? In "
                              "block ("), "%s", err.msg);
}

/* The busy limits (ptx_env.max_warp_issue, max_block_issue): past them the caller knows the
 * launch is slower than it need measure; within them a kernel runs to its end. */
Test(ptx_limit, one_warp_past_the_warp_issue_limit_stops_the_launch_as_busy)
{
    ptx_error err;
    cr_assert_eq(launch((ptx_env){.threads = 1, .max_warp_issue = 100000}, &err), -1);
    cr_assert_eq(err.kind, PTX_ERROR_BUSY);
    cr_assert_str_eq(err.msg, "in k, one warp alone issues more than 100000 instructions");
}

Test(ptx_limit, one_block_past_the_block_issue_limit_stops_the_launch_as_busy)
{
    ptx_error err;
    cr_assert_eq(launch((ptx_env){.threads = 2, .max_block_issue = 300000}, &err), -1);
    cr_assert_eq(err.kind, PTX_ERROR_BUSY);
    cr_assert_str_eq(err.msg, "in k, one block's warps issue more than 300000 instructions");
}

/* 100 trips of three instructions per thread: about 300 warp instructions per warp. */
static const char finite[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry f()\n{\n.reg .b32 %r<3>;\n.reg .pred %p;\n"
    "mov.u32 %r1, 0;\nLOOP:\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p, %r1, 100;\n@%p bra LOOP;\n"
    "ret;\n}\n";

static int launch_finite(ptx_env env, ptx_error *err)
{
    return launch_of(finite, "f", 4, 128, env, err);
}

Test(ptx_limit, a_kernel_within_the_busy_limits_runs_to_its_end)
{
    ptx_error err;
    /* Four warps of about 300 instructions each: 1200 per block. */
    cr_assert_eq(launch_finite((ptx_env){.threads = 2, .max_warp_issue = 400,
                                         .max_block_issue = 1300}, &err), 0, "%s", err.msg);
    cr_assert_eq(launch_finite((ptx_env){.threads = 2, .max_warp_issue = 250}, &err), -1);
    cr_assert_eq(err.kind, PTX_ERROR_BUSY);
    cr_assert_eq(launch_finite((ptx_env){.threads = 2, .max_block_issue = 1100}, &err), -1);
    cr_assert_eq(err.kind, PTX_ERROR_BUSY);
}
