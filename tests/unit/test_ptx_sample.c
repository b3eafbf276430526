/* Sampled launches (ptx_env.sample_blocks): which blocks a seed draws, and what the diagnosis
 * records of them: what wrote each byte of device memory, and how many words of an answer's
 * memory each sampled block stored. */
#include "ptx_test_kernel.h"

#define GRID 256
#define BLOCK 32
#define SAMPLES 16
#define UNWRITTEN 0xababababu

/* Each thread stores its block's index into its own word of out; `extra` comes before. */
static const char store_block[] = "st.global.u32 [%rd3], %r5;";
/* The same word stored 10 times, as a running sum kept in P is. */
static const char store_ten_times[] =
    "mov.u32 %r7, 0;\n"
    "LOOP:\n"
    "st.global.u32 [%rd3], %r5;\n"
    "add.u32 %r7, %r7, 1;\n"
    "setp.lt.u32 %p1, %r7, 10;\n"
    "@%p1 bra LOOP;";

typedef struct sampled {
    uint32_t out[GRID * BLOCK];
    uint8_t shadow[GRID * BLOCK * 4];
    uint32_t owner[GRID * BLOCK];
    char *json;
} sampled;

/* One launch of `body` over GRID blocks, SAMPLES of them run, drawn by `seed`; with `diagnose`
 * the checks' shadows and the answer's owners are on and the diagnosis is kept as JSON. */
static void run_sampled(const char *body, uint64_t seed, bool diagnose, sampled *s)
{
    char *text = kernel_text("", body);
    ptx_error err;
    ptx_module *m = ptx_module_parse("test.ptx", text, strlen(text), &err);
    free(text);
    cr_assert_not_null(m, "%s", err.msg);
    memset(s, 0, sizeof *s);
    memset(s->out, 0xab, sizeof s->out);
    ptx_region region = {(uint64_t)(uintptr_t)s->out, sizeof s->out, diagnose ? s->shadow : NULL,
                         1, "P", diagnose ? s->owner : NULL};
    ptx_diag *diag = diagnose ? ptx_diag_new() : NULL;
    ptx_env env = {.regions = &region, .nregions = 1, .diag = diag, .threads = 2,
                   .sample_blocks = SAMPLES, .sample_seed = seed, .block_serial = 100};
    void *arg = s->out;
    void *args[] = {&arg};
    cr_assert_eq(ptx_launch_env(ptx_module_entry(m, "k"), (ptx_dim3){GRID, 1, 1},
                                (ptx_dim3){BLOCK, 1, 1}, args, 0, &env, NULL, &err), 0, "%s",
                 err.msg);
    if (diag) {
        size_t len = 0;
        FILE *f = open_memstream(&s->json, &len);
        ptx_diag_write_json(diag, f);
        fclose(f);
        ptx_diag_free(diag);
    }
    ptx_module_free(m);
}

/* The blocks that wrote their words, in order; their number. */
static int blocks_run(const sampled *s, int *blocks)
{
    int n = 0;
    for (int b = 0; b < GRID; b++) {
        bool wrote = s->out[b * BLOCK] != UNWRITTEN;
        for (int t = 0; t < BLOCK; t++) {
            cr_assert_eq(s->out[b * BLOCK + t] != UNWRITTEN, wrote, "block %d wrote part of its "
                         "words", b);
            if (wrote)
                cr_assert_eq(s->out[b * BLOCK + t], (uint32_t)b);
        }
        if (wrote)
            blocks[n++] = b;
    }
    return n;
}

Test(ptx_sample, one_block_from_each_stretch_of_the_grid)
{
    static sampled s;
    int blocks[GRID];
    run_sampled(store_block, 42, false, &s);
    cr_assert_eq(blocks_run(&s, blocks), SAMPLES);
    for (int i = 0; i < SAMPLES; i++)
        cr_assert(blocks[i] >= i * GRID / SAMPLES && blocks[i] < (i + 1) * GRID / SAMPLES,
                  "sample %d is block %d, outside its stretch", i, blocks[i]);
}

Test(ptx_sample, the_seed_decides_which_blocks)
{
    static sampled a, b, c;
    int x[GRID], y[GRID], z[GRID];
    run_sampled(store_block, 1, false, &a);
    run_sampled(store_block, 1, false, &b);
    run_sampled(store_block, 2, false, &c);
    cr_assert_eq(blocks_run(&a, x), SAMPLES);
    cr_assert_eq(blocks_run(&b, y), SAMPLES);
    cr_assert_eq(blocks_run(&c, z), SAMPLES);
    cr_assert_arr_eq(x, y, sizeof(int) * SAMPLES, "the same seed drew other blocks");
    int same = 0;
    for (int i = 0; i < SAMPLES; i++)
        same += x[i] == z[i];
    /* Each stretch holds 16 blocks: two seeds agree on about one stretch in 16. */
    cr_assert_lt(same, SAMPLES / 2, "seeds 1 and 2 drew %d of %d blocks alike", same, SAMPLES);
    /* Not the old fixed sample (block i * GRID / SAMPLES) for either. */
    int fixed = 0;
    for (int i = 0; i < SAMPLES; i++)
        fixed += x[i] == i * GRID / SAMPLES && z[i] == i * GRID / SAMPLES;
    cr_assert_lt(fixed, SAMPLES / 2);
}

Test(ptx_sample, a_kernel_store_is_recorded_as_one)
{
    static sampled s;
    int blocks[GRID];
    run_sampled(store_block, 7, true, &s);
    cr_assert_eq(blocks_run(&s, blocks), SAMPLES);
    for (int w = 0; w < GRID * BLOCK; w++) {
        uint8_t want = s.out[w] != UNWRITTEN ? PTX_HELD_KERNEL : PTX_HELD_NOTHING;
        for (int i = 0; i < 4; i++)
            cr_assert_eq(s.shadow[4 * w + i], want, "word %d byte %d: %d", w, i, s.shadow[4 * w + i]);
        /* Serials start after block_serial, one per block run. */
        if (want == PTX_HELD_KERNEL)
            cr_assert(s.owner[w] > 100 && s.owner[w] <= 100 + SAMPLES, "owner %u", s.owner[w]);
        else
            cr_assert_eq(s.owner[w], 0);
    }
    free(s.json);
}

/* The "samples" of the diagnosis: the blocks, and each block's answer words. */
static void check_samples(const char *json, const int *blocks, unsigned words)
{
    const char *at = strstr(json, "\"samples\": [");
    cr_assert_not_null(at, "%s", json);
    for (int i = 0; i < SAMPLES; i++) {
        char want[160];
        snprintf(want, sizeof want, "{\"launch\": 0, \"block\": [%d, 0, 0], \"warp_instructions\": ",
                 blocks[i]);
        at = strstr(at, want);
        cr_assert_not_null(at, "no sample of block %d in %s", blocks[i], json);
        const char *aw = strstr(at, "\"answer_words\": ");
        cr_assert_not_null(aw);
        cr_assert_eq(strtoul(aw + 16, NULL, 10), words, "block %d", blocks[i]);
        at = aw;
    }
    cr_assert_null(strstr(at + 1, "{\"launch\""), "more samples than blocks run");
}

Test(ptx_sample, each_sampled_block_counts_its_answer_words)
{
    static sampled s;
    int blocks[GRID];
    run_sampled(store_block, 9, true, &s);
    cr_assert_eq(blocks_run(&s, blocks), SAMPLES);
    check_samples(s.json, blocks, BLOCK);
    free(s.json);
}

Test(ptx_sample, a_word_stored_again_counts_once)
{
    static sampled s;
    int blocks[GRID];
    run_sampled(store_ten_times, 9, true, &s);
    cr_assert_eq(blocks_run(&s, blocks), SAMPLES);
    check_samples(s.json, blocks, BLOCK);
    free(s.json);
}
