/* The checks' messages and the access figures under diagnosis: how an allocation is named,
 * and how much of what a warp fetches it uses. */
#include "ptx_test_kernel.h"

/* The test kernel around `body`. */
static ptx_module *module_of(const char *body)
{
    char *text = kernel_text("", body);
    ptx_error err;
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_not_null(m, "%s", err.msg);
    return m;
}

/* Runs m's kernel, one block, over out with one device allocation: the first `bytes` bytes of
 * out, so an access beyond them is out of bounds. A diagnosis refers to m: m outlives it. */
static int launch_checked(const ptx_module *m, unsigned block, uint32_t *out, uint64_t bytes,
                          int id, const char *name, ptx_diag *diag, ptx_error *err)
{
    ptx_region region = {(uint64_t)(uintptr_t)out, bytes, NULL, id, name, NULL};
    void *arg = out;
    void *args[] = {&arg};
    ptx_env env = {.regions = &region, .nregions = 1, .diag = diag, .threads = 1};
    return ptx_launch_env(ptx_module_entry(m, "k"), (ptx_dim3){1, 1, 1}, (ptx_dim3){block, 1, 1},
                          args, 0, &env, NULL, err);
}

/* One thread reads the word just past the allocation. */
static const char read_past[] = "ld.global.u32 %r2, [%rd1+16];\nst.global.u32 [%rd1], %r2;";

Test(ptx_diag, a_program_allocation_is_named_by_its_order)
{
    static const struct { int id; const char *words; } cases[] = {
        {1, "the 1st cudaMalloc'd buffer (16 bytes)"},   {2, "the 2nd cudaMalloc'd buffer"},
        {3, "the 3rd cudaMalloc'd buffer"},              {4, "the 4th cudaMalloc'd buffer"},
        {11, "the 11th cudaMalloc'd buffer"},            {12, "the 12th cudaMalloc'd buffer"},
        {13, "the 13th cudaMalloc'd buffer"},            {21, "the 21st cudaMalloc'd buffer"},
        {22, "the 22nd cudaMalloc'd buffer"},            {112, "the 112th cudaMalloc'd buffer"},
    };
    static uint32_t out[8];
    ptx_module *m = module_of(read_past);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ptx_error err;
        cr_assert_neq(launch_checked(m, 1, out, 16, cases[i].id, NULL, NULL, &err), 0);
        cr_assert(strstr(err.msg, "4 byte(s) past the end of ") != NULL, "%s", err.msg);
        cr_assert(strstr(err.msg, cases[i].words) != NULL, "id %d: %s", cases[i].id, err.msg);
        cr_assert(strstr(err.msg, "allocation #") == NULL, "%s", err.msg);
    }
    ptx_module_free(m);
}

Test(ptx_diag, an_owned_allocation_is_named_by_its_owner)
{
    static uint32_t out[8];
    ptx_error err;
    ptx_module *m = module_of(read_past);
    cr_assert_neq(launch_checked(m, 1, out, 16, 3, "M (2x2 floats, 16 bytes)", NULL, &err), 0);
    ptx_module_free(m);
    cr_assert(strstr(err.msg, "4 byte(s) past the end of M (2x2 floats, 16 bytes) (in k,") != NULL,
              "%s", err.msg);
}

/* The diagnosis as JSON (malloc'd); d, then the module it refers to, are freed. */
static char *json_of(ptx_diag *d, ptx_module *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    ptx_diag_write_json(d, f);
    fclose(f);
    ptx_diag_free(d);
    ptx_module_free(m);
    return text;
}

/* The diagnosis of one launch of `body` by one warp, as JSON (malloc'd). */
static char *diagnosis_of(const char *body, uint32_t *out, uint64_t bytes)
{
    ptx_diag *d = ptx_diag_new();
    cr_assert_not_null(d);
    ptx_module *m = module_of(body);
    ptx_error err;
    cr_assert_eq(launch_checked(m, 32, out, bytes, 1, NULL, d, &err), 0, "%s", err.msg);
    return json_of(d, m);
}

Test(ptx_diag, a_broadcast_uses_each_word_once)
{
    /* Every lane reads out[0] (one word, one sector), then stores its own word. */
    static _Alignas(128) uint32_t out[32];
    char *json = diagnosis_of("ld.global.u32 %r2, [%rd1];\nst.global.u32 [%rd3], %r2;", out,
                              sizeof out);
    cr_assert(strstr(json, "\"op\": \"load\", \"space\": \"global\", \"executions\": 1, "
                           "\"sectors\": 1, \"bytes\": 128, \"used_bytes\": 4, "
                           "\"needed_sectors\": 1") != NULL, "%s", json);
    cr_assert(strstr(json, "\"op\": \"store\", \"space\": \"global\", \"executions\": 1, "
                           "\"sectors\": 4, \"bytes\": 128, \"used_bytes\": 128, "
                           "\"needed_sectors\": 4") != NULL, "%s", json);
    free(json);
}

Test(ptx_diag, lanes_reading_the_same_word_in_pairs_share_it)
{
    /* Lane t reads out[t / 2]: 16 distinct words, 64 bytes in 2 sectors. */
    static _Alignas(128) uint32_t out[32];
    char *json = diagnosis_of("shr.u32 %r2, %r0, 1;\nmul.wide.u32 %rd4, %r2, 4;\n"
                              "add.s64 %rd5, %rd1, %rd4;\nld.global.u32 %r3, [%rd5];\n"
                              "st.global.u32 [%rd3], %r3;",
                              out, sizeof out);
    cr_assert(strstr(json, "\"sectors\": 2, \"bytes\": 128, \"used_bytes\": 64, "
                           "\"needed_sectors\": 2") != NULL, "%s", json);
    free(json);
}

Test(ptx_diag, the_baselines_launches_are_kept_apart)
{
    /* The same kernel, once as the submission's call and once as the baseline's: two sets of
     * figures, the second marked, and the traffic of each call on its own. */
    static _Alignas(128) uint32_t out[32];
    ptx_diag *d = ptx_diag_new();
    cr_assert_not_null(d);
    ptx_error err;
    ptx_module *m = module_of("ld.global.u32 %r2, [%rd3];\nst.global.u32 [%rd3], %r2;");
    cr_assert_eq(launch_checked(m, 32, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    ptx_diag_set_baseline(d, true);
    cr_assert_eq(launch_checked(m, 32, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    cr_assert_eq(launch_checked(m, 32, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    char *json = json_of(d, m);
    cr_assert(strstr(json, "\"baseline\": false, \"op\": \"load\", \"space\": \"global\", "
                           "\"executions\": 1,") != NULL, "%s", json);
    cr_assert(strstr(json, "\"baseline\": true, \"op\": \"load\", \"space\": \"global\", "
                           "\"executions\": 2,") != NULL, "%s", json);
    cr_assert(strstr(json, "\"traffic\": {\"flops\": 0, \"fmas\": 0, \"global_load_bytes\": 128, "
                           "\"global_store_bytes\": 128,") != NULL, "%s", json);
    cr_assert(strstr(json, "\"baseline_traffic\": {\"flops\": 0, \"fmas\": 0, "
                           "\"global_load_bytes\": 256, \"global_store_bytes\": 256,") != NULL,
              "%s", json);
    free(json);
}

/* ---- the performance model's cost classes (diag_cost.c) ------------------------------------- */

/* The first launch's count `name` in a diagnosis's JSON. */
static uint64_t count_of(const char *json, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "\"%s\": ", name);
    const char *at = strstr(strstr(json, "\"launch_counts\""), key);
    cr_assert_not_null(at, "no %s in %s", name, json);
    return strtoull(at + strlen(key), NULL, 10);
}

/* The diagnosis of one launch of `decls` and `body` by `blocks` blocks of one warp each. */
static char *costs_of(const char *decls, const char *body, unsigned blocks)
{
    static _Alignas(128) uint32_t out[64];
    char *text = kernel_text(decls, body);
    ptx_error err;
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_not_null(m, "%s", err.msg);
    ptx_diag *d = ptx_diag_new();
    ptx_region region = {(uint64_t)(uintptr_t)out, sizeof out, NULL, 1, NULL, NULL};
    void *arg = out;
    void *args[] = {&arg};
    ptx_env env = {.regions = &region, .nregions = 1, .diag = d, .threads = 1};
    cr_assert_eq(ptx_launch_env(ptx_module_entry(m, "k"), (ptx_dim3){blocks, 1, 1},
                                (ptx_dim3){32, 1, 1}, args, 0, &env, NULL, &err), 0, "%s", err.msg);
    return json_of(d, m);
}

Test(ptx_diag, an_expanded_instruction_counts_its_sass)
{
    /* A double division is ~20 issue cycles, 8 of them on the fp64 pipe and one on the
     * special-function pipe; an add is one and one. Charged as one slot, the two would be
     * the same. */
    static const char set[] = "mov.f64 %fd2, 0d4000000000000000;\nmov.f64 %fd3, 0d4008000000000000;\n";
    char body[256];
    snprintf(body, sizeof body, "%sdiv.rn.f64 %%fd1, %%fd2, %%fd3;", set);
    char *div = costs_of("", body, 1);
    snprintf(body, sizeof body, "%sadd.f64 %%fd1, %%fd2, %%fd3;", set);
    char *add = costs_of("", body, 1);
    cr_assert_eq(count_of(div, "warp_instructions"), count_of(add, "warp_instructions"));
    cr_assert_eq(count_of(div, "issue_slots") - count_of(add, "issue_slots"), 19u, "%s", div);
    cr_assert_eq(count_of(div, "fp64_ops"), 8u);
    cr_assert_eq(count_of(add, "fp64_ops"), 1u);
    cr_assert_eq(count_of(div, "xu_ops"), 1u);
    cr_assert_eq(count_of(add, "xu_ops"), 0u);
    free(div);
    free(add);
    /* 64-bit integer division is a routine of some 70 half-rate instructions; by an immediate,
     * a multiply and shifts. */
    char *i64 = costs_of("", "cvt.u64.u32 %rd4, %r0;\nadd.u64 %rd4, %rd4, 3;\n"
                             "div.u64 %rd5, %rd1, %rd4;", 1);
    char *imm = costs_of("", "cvt.u64.u32 %rd4, %r0;\nadd.u64 %rd4, %rd4, 3;\n"
                             "div.u64 %rd5, %rd1, 3;", 1);
    cr_assert_gt(count_of(i64, "issue_slots"), count_of(imm, "issue_slots") + 100);
    free(i64);
    free(imm);
}

Test(ptx_diag, a_lane_indexed_local_array_is_a_line_per_lane)
{
    /* Local memory is interleaved by thread: the same index in every lane is one 128-byte
     * line, an index per lane is 32 lines. */
    static const char decls[] = ".local .align 4 .b8 buf[128];\n";
    char *same = costs_of(decls, "mov.u64 %rd4, buf;\nst.local.u32 [%rd4], %r0;\n"
                                 "ld.local.u32 %r2, [%rd4];", 1);
    char *lane = costs_of(decls, "mov.u64 %rd4, buf;\nmul.wide.u32 %rd5, %r0, 4;\n"
                                 "add.s64 %rd6, %rd4, %rd5;\nst.local.u32 [%rd6], %r0;\n"
                                 "ld.local.u32 %r2, [%rd6];", 1);
    cr_assert_eq(count_of(same, "local_requests"), 2u, "%s", same);
    cr_assert_eq(count_of(same, "local_wavefronts"), 2u);
    cr_assert_eq(count_of(lane, "local_wavefronts"), 64u, "%s", lane);
    free(same);
    free(lane);
}

Test(ptx_diag, a_calls_parameters_are_not_local_traffic)
{
    /* Arguments and results go through local memory here, through registers on a GPU. */
    static const char text[] =
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".func (.param .b32 func_retval0) twice(.param .b32 twice_param_0)\n{\n"
        ".reg .b32 %r<3>;\nld.param.u32 %r1, [twice_param_0];\nadd.s32 %r2, %r1, %r1;\n"
        "st.param.b32 [func_retval0+0], %r2;\nret;\n}\n"
        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\nmov.u32 %r1, 21;\n"
        "{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n.param .b32 retval0;\n"
        "call.uni (retval0), twice, (param0);\nld.param.b32 %r2, [retval0+0];\n}\n"
        "st.global.u32 [%rd1], %r2;\nret;\n}\n";
    static _Alignas(128) uint32_t out[32];
    ptx_error err;
    ptx_module *m = ptx_module_parse("t.ptx", text, strlen(text), &err);
    cr_assert_not_null(m, "%s", err.msg);
    ptx_diag *d = ptx_diag_new();
    cr_assert_eq(launch_checked(m, 32, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    char *json = json_of(d, m);
    cr_assert_eq(out[0], 42u);
    cr_assert_eq(count_of(json, "local_requests"), 0u, "%s", json);
    free(json);
}

Test(ptx_diag, atomics_are_counted_by_address)
{
    /* Every lane of both blocks adds to out[0]: 64 updates of one address by two blocks; each
     * lane to its own word: one each, 4 sectors a warp. */
    char *same = costs_of("", "atom.global.add.u32 %r2, [%rd1], 1;", 2);
    cr_assert_eq(count_of(same, "atomic_address_max_shared"), 64u, "%s", same);
    cr_assert_eq(count_of(same, "atomic_address_max_block"), 0u);
    cr_assert_eq(count_of(same, "atomic_sectors"), 2u);
    free(same);
    char *own = costs_of("", "red.global.add.u32 [%rd3], 1;", 2);
    cr_assert_eq(count_of(own, "atomic_address_max_block"), 1u, "%s", own);
    cr_assert_eq(count_of(own, "atomic_address_max_shared"), 0u);
    cr_assert_eq(count_of(own, "atomic_sectors"), 8u);
    free(own);
    /* On shared memory, lanes on one word take a pass each. */
    static const char decls[] = ".shared .align 4 .b8 s[128];\n";
    char *one = costs_of(decls, "mov.u32 %r3, s;\natom.shared.add.u32 %r2, [%r3], 1;", 1);
    cr_assert_eq(count_of(one, "shared_atomic_wavefronts"), 32u, "%s", one);
    cr_assert_eq(count_of(one, "shared_atomic_address_max"), 32u);
    free(one);
    char *spread = costs_of(decls, "mov.u32 %r3, s;\nshl.b32 %r4, %r0, 2;\nadd.s32 %r3, %r3, %r4;\n"
                                   "atom.shared.add.u32 %r2, [%r3], 1;", 1);
    cr_assert_eq(count_of(spread, "shared_atomic_wavefronts"), 1u, "%s", spread);
    free(spread);
}

Test(ptx_diag, fences_sleeps_and_clocks_are_counted)
{
    char *json = costs_of("", "membar.cta;\nmembar.gl;\nmembar.sys;\nfence.sc.gpu;\n"
                              "fence.proxy.async;\nfence.acq_rel.sys;\nnanosleep.u32 %r0;\n"
                              "nanosleep.u32 100;\nmov.u64 %rd4, %clock64;", 1);
    cr_assert_eq(count_of(json, "fences_cta"), 2u, "%s", json);
    cr_assert_eq(count_of(json, "fences_gpu"), 2u);
    cr_assert_eq(count_of(json, "fences_sys"), 2u);
    cr_assert_eq(count_of(json, "sleeps"), 2u);
    cr_assert_eq(count_of(json, "sleep_ns"), 31u + 100u); /* the longest lane's, each time */
    cr_assert_eq(count_of(json, "clock_reads"), 1u);
    free(json);
}

Test(ptx_diag, a_load_after_a_store_waits_once)
{
    char *json = costs_of("", "st.global.u32 [%rd3], %r0;\nld.global.u32 %r2, [%rd3];\n"
                              "ld.global.u32 %r4, [%rd3];\nst.global.u32 [%rd3], %r2;", 1);
    cr_assert_eq(count_of(json, "store_load_waits"), 1u, "%s", json);
    cr_assert_eq(count_of(json, "l2_store_sectors"), 8u); /* every store's 4 sectors */
    free(json);
}

/* The diagnosis of one block of `threads` running `body` over sh (256 bytes of shared
 * memory), as JSON (malloc'd). */
static char *diagnosis_of_shared(const char *body, unsigned threads)
{
    static _Alignas(128) uint32_t out[64];
    ptx_diag *d = ptx_diag_new();
    cr_assert_not_null(d);
    char *text = kernel_text(".shared .align 4 .b8 sh[256];\n", body);
    ptx_error err;
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_not_null(m, "%s", err.msg);
    cr_assert_eq(launch_checked(m, threads, out, sizeof out, 1, NULL, d, &err), 0, "%s", err.msg);
    return json_of(d, m);
}

/* Races between lanes of one warp. Each lane stores its tid to sh[tid] (line 10) and, after
 * what `between` puts there, reads the word of lane tid ^ `partner` (line 12). */
static char *lanes_exchange(const char *between, unsigned partner, unsigned threads)
{
    char body[2048];
    snprintf(body, sizeof body,
             "mov.u32 %%r9, sh;\nshl.b32 %%r10, %%r0, 2;\nadd.u32 %%r11, %%r9, %%r10;\n"
             "xor.b32 %%r12, %%r0, %u;\nshl.b32 %%r12, %%r12, 2;\nadd.u32 %%r13, %%r9, %%r12;\n"
             "and.b32 %%r8, %%r0, 31;\n"
             ".loc 1 10 1\nst.shared.u32 [%%r11], %%r0;\n%s\n"
             ".loc 1 12 1\nld.shared.u32 %%r2, [%%r13];\nst.global.u32 [%%rd3], %%r2;",
             partner, between);
    return diagnosis_of_shared(body, threads);
}

static int errors_in(const char *json)
{
    const char *at = strstr(json, "\"errors\": ");
    cr_assert_not_null(at, "%s", json);
    return atoi(at + strlen("\"errors\": "));
}

Test(ptx_diag, a_lane_reading_another_lanes_store_with_nothing_between_races)
{
    char *json = lanes_exchange("", 1, 32);
    cr_assert_gt(errors_in(json), 0, "%s", json);
    cr_assert(strstr(json, "\"kind\": \"shared-memory race\", \"file\": \"test.ptx\", \"line\": 10, "
                           "\"line2\": 12,") != NULL, "%s", json);
    cr_assert(strstr(json, "\"detail\": \"lanes 1 and 0 of warp 0: one writes a shared word "
                           "(first line) and the other reads it (second line) with no "
                           "__syncwarp() between them; lanes of a warp are not in lockstep "
                           "since Volta (sm_70): a __syncwarp() is missing between line 10 and "
                           "line 12\"") != NULL, "%s", json);
    free(json);
}

Test(ptx_diag, a_syncwarp_or_a_barrier_orders_the_lanes)
{
    const char *between[] = {"bar.warp.sync -1;", "mov.u32 %r4, -1;\nbar.warp.sync %r4;",
                             "bar.sync 0;"};
    for (size_t i = 0; i < sizeof between / sizeof *between; i++) {
        char *json = lanes_exchange(between[i], 1, 32);
        cr_assert_eq(errors_in(json), 0, "%s: %s", between[i], json);
        free(json);
    }
}

Test(ptx_diag, shuffles_votes_match_and_redux_order_nothing)
{
    /* They exchange registers, not memory: the lanes' accesses stay unordered (the CUDA C++
     * Programming Guide: they "do not imply a memory barrier"), and alone they are no race. */
    const char *collectives = "shfl.sync.bfly.b32 %r4|%p1, %r0, 1, 31, -1;\n"
                              "vote.sync.ballot.b32 %r5, %p1, -1;\n"
                              "match.any.sync.b32 %r6, %r8, -1;\n"
                              "redux.sync.add.u32 %r14, %r8, -1;";
    char *json = lanes_exchange(collectives, 1, 32);
    cr_assert_gt(errors_in(json), 0, "%s", json);
    cr_assert(strstr(json, "a __syncwarp() is missing between line 10 and line 12") != NULL,
              "%s", json);
    free(json);
    json = diagnosis_of(collectives, (uint32_t[32]){0}, 32 * sizeof(uint32_t));
    cr_assert_eq(errors_in(json), 0, "%s", json);
    free(json);
}

Test(ptx_diag, a_syncwarp_orders_only_the_lanes_of_its_mask)
{
    /* Each half of the warp syncs on its own: lanes 0 and 1 are ordered, lanes 0 and 16 not. */
    const char *halves = "setp.lt.u32 %p1, %r8, 16;\n.loc 1 11 1\n@%p1 bar.warp.sync 0x0000ffff;\n"
                         "@!%p1 bar.warp.sync 0xffff0000;";
    char *json = lanes_exchange(halves, 1, 32);
    cr_assert_eq(errors_in(json), 0, "%s", json);
    free(json);
    json = lanes_exchange(halves, 16, 32);
    cr_assert_gt(errors_in(json), 0, "%s", json);
    cr_assert(strstr(json, "lanes 16 and 0 of warp 0: one writes a shared word (first line) and "
                           "the other reads it (second line): the __syncwarp(0xffff0000) at line "
                           "11 leaves lane 0 out;") != NULL, "%s", json);
    free(json);
}

Test(ptx_diag, a_race_between_warps_restates_one_within_a_warp)
{
    /* 64 threads read sh[tid ^ 33]: lane 0 of warp 0 reads lane 1's store first (within the
     * warp), then warp 1's lanes read warp 0's stores at the same two lines (between warps). The
     * finding at lines 10 and 12 is the one between warps, counted with the other. */
    char *json = lanes_exchange("", 33, 64);
    const char *at = strstr(json, "\"line\": 10, \"line2\": 12,");
    cr_assert_not_null(at, "%s", json);
    const char *end = strchr(at, '}');
    cr_assert(strstr(at, "one warp writes a shared word (first line) and another reads it") < end,
              "%s", json);
    free(json);
    json = lanes_exchange("", 1, 64);
    cr_assert(strstr(json, "lanes 1 and 0 of warp 0") != NULL, "%s", json);
    free(json);
}

/* The errors of one warp running `body` over sh. */
static int errors_of_warp(const char *body)
{
    char *json = diagnosis_of_shared(body, 32);
    int n = errors_in(json);
    free(json);
    return n;
}

Test(ptx_diag, atomics_on_one_word_do_not_race)
{
    cr_assert_eq(errors_of_warp("mov.u32 %r9, sh;\natom.shared.add.u32 %r4, [%r9], 1;\n"
                                "red.shared.add.u32 [%r9], 2;\natom.shared.exch.b32 %r5, [%r9], 3;"),
                 0);
}

Test(ptx_diag, lanes_storing_parts_of_one_word_do_not_race)
{
    /* Lane t stores byte t (a char array: four lanes per word), then reads it back; likewise
     * halves. Reading a neighbour's byte, though, is a race. */
    const char *mine = "mov.u32 %r9, sh;\nadd.u32 %r10, %r9, %r0;\nst.shared.u8 [%r10], %r0;\n"
                       "ld.shared.u8 %r2, [%r10];\nshl.b32 %r11, %r0, 1;\nadd.u32 %r12, %r9, %r11;\n"
                       "st.shared.u16 [%r12+64], %r0;\nld.shared.u16 %r2, [%r12+64];";
    cr_assert_eq(errors_of_warp(mine), 0);
    cr_assert_gt(errors_of_warp("mov.u32 %r9, sh;\nadd.u32 %r10, %r9, %r0;\n"
                                "st.shared.u8 [%r10], %r0;\nld.shared.u8 %r2, [%r10+1];"), 0);
}

Test(ptx_diag, one_store_of_many_lanes_to_one_word_is_no_race)
{
    /* One instruction whose lanes all store to one word: one of them wins, on every GPU. Two
     * instructions storing different values to it from different lanes, though, race; the
     * same value, whichever goes last, leaves the same word. */
#define TWO_STORES(a, b)                                                                        \
    "mov.u32 %r9, sh;\nsetp.eq.u32 %p1, %r0, 0;\nsetp.eq.u32 %p2, %r0, 1;\n"                      \
    "@%p1 st.shared.u32 [%r9], " a ";\n@%p2 st.shared.u32 [%r9], " b ";"
    cr_assert_eq(errors_of_warp("mov.u32 %r9, sh;\nst.shared.u32 [%r9], %r0;"), 0);
    cr_assert_gt(errors_of_warp(TWO_STORES("%r0", "%r0")), 0);
    cr_assert_eq(errors_of_warp(TWO_STORES("7", "7")), 0);
#undef TWO_STORES
}

Test(ptx_diag, divergent_syncwarps_order_their_lanes)
{
    /* Each half stores, syncs at its own __syncwarp() and reads the other half's word. */
    cr_assert_eq(errors_of_warp("mov.u32 %r9, sh;\nshl.b32 %r10, %r0, 2;\n"
                                "add.u32 %r11, %r9, %r10;\nsetp.lt.u32 %p1, %r0, 16;\n"
                                "@!%p1 bra HIGH;\nst.shared.u32 [%r11], %r0;\nbar.warp.sync -1;\n"
                                "ld.shared.u32 %r2, [%r11+64];\nbra END;\nHIGH:\n"
                                "st.shared.u32 [%r11], %r0;\nbar.warp.sync -1;\n"
                                "ld.shared.u32 %r2, [%r11+-64];\nEND:"),
                 0);
}

/* Reads of shared memory nothing wrote (taint.c): each lane reads a never-written word of sh at
 * line 20 into %r2, then `use` does something with it at line 30. The diagnosis of one warp. */
static char *unwritten_read(const char *use)
{
    char body[2048];
    snprintf(body, sizeof body,
             "mov.u32 %%r9, sh;\nsetp.ne.u32 %%p1, %%r0, %%r0;\n"
             ".loc 1 20 1\nld.shared.u32 %%r2, [%%r9+128];\n.loc 1 30 1\n%s", use);
    return diagnosis_of_shared(body, 32);
}

Test(ptx_diag, an_unwritten_shared_value_that_reaches_nothing_is_no_finding)
{
    static const char *const clean[] = {
        "st.global.u32 [%rd3], %r0;", /* read, never used */
        "mov.u32 %r2, 5;\nst.global.u32 [%rd3], %r2;", /* overwritten first */
        "selp.b32 %r3, %r2, 7, %p1;\nst.global.u32 [%rd3], %r3;", /* selp takes the 7 */
        "add.u32 %r3, %r2, 1;\n@%p1 st.global.u32 [%rd3], %r3;", /* no lane stores it */
        "add.u32 %r3, %r2, 1;\nmov.u32 %r4, sh;\nst.shared.u32 [%r4], %r3;", /* kept in shared */
    };
    for (size_t i = 0; i < sizeof clean / sizeof *clean; i++) {
        char *json = unwritten_read(clean[i]);
        cr_assert_eq(errors_in(json), 0, "%s: %s", clean[i], json);
        free(json);
    }
}

Test(ptx_diag, an_unwritten_shared_value_that_reaches_a_use_is_a_finding_at_its_read)
{
    static const struct { const char *use, *says; } cases[] = {
        {"mul.lo.u32 %r3, %r2, 3;\nst.global.u32 [%rd3], %r3;", "a store to global memory"},
        {"setp.eq.u32 %p2, %r2, 0;\n@%p2 bra DONE;\nst.global.u32 [%rd3], %r0;\nDONE:",
         "the condition of an if or a loop"},
        {"and.b32 %r4, %r2, 0;\nmul.wide.u32 %rd6, %r4, 4;\nadd.s64 %rd7, %rd1, %rd6;\n"
         "ld.global.u32 %r5, [%rd7];", "an address"},
        {"shfl.sync.idx.b32 %r3, %r2, 0, 31, -1;\nst.global.u32 [%rd3], %r3;",
         "a store to global memory"},
        {"atom.global.add.u32 %r3, [%rd3], %r2;", "an atomic operation"},
        /* through shared memory to another lane, then out */
        {"mov.u32 %r4, sh;\nshl.b32 %r5, %r0, 2;\nadd.u32 %r6, %r4, %r5;\nst.shared.u32 [%r6], %r2;\n"
         "bar.sync 0;\nxor.b32 %r7, %r5, 4;\nadd.u32 %r7, %r4, %r7;\nld.shared.u32 %r8, [%r7];\n"
         "st.global.u32 [%rd3], %r8;", "a store to global memory"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *json = unwritten_read(cases[i].use);
        char says[256];
        snprintf(says, sizeof says, "a value made from it reaches %s at line 30\"",
                 cases[i].says);
        cr_assert_gt(errors_in(json), 0, "%s: %s", cases[i].use, json);
        cr_assert(strstr(json, "\"kind\": \"uninitialized shared read\", \"file\": \"test.ptx\", "
                               "\"line\": 20,") != NULL, "%s: %s", cases[i].use, json);
        cr_assert(strstr(json, says) != NULL, "%s: %s", cases[i].use, json);
        free(json);
    }
}
