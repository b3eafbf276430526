/* A launch stopped at its instruction limit or at its deadline (ptx_env): each says where the
 * warps were; at the deadline the message asks about an endless loop only when the loop trips
 * are beyond the ordinary ones the caller gives. */
#include "ptx.h"

#include <criterion/criterion.h>
#include <string.h>

/* Every thread counts up forever, storing each count to shared memory (a store: not a spin). */
static const char endless[] =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.shared .align 4 .u32 s[64];\n"
    "mov.u32 %r1, %tid.x;\nshl.b32 %r1, %r1, 2;\nmov.u32 %r3, s;\nadd.u32 %r1, %r1, %r3;\n"
    "mov.u32 %r2, 0;\nLOOP:\nadd.u32 %r2, %r2, 1;\nst.shared.u32 [%r1], %r2;\nbra.uni LOOP;\n}\n";

static int launch(ptx_env env, ptx_error *err)
{
    ptx_module *m = ptx_module_parse("count.ptx", endless, strlen(endless), err);
    cr_assert_not_null(m, "%s", err->msg);
    const ptx_entry *e = ptx_module_entry(m, "k");
    int rc = ptx_launch_env(e, (ptx_dim3){2, 1, 1}, (ptx_dim3){64, 1, 1}, NULL, 0, &env, NULL, err);
    ptx_module_free(m);
    return rc;
}

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
