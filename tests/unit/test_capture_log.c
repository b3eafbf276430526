/* The capture log: what the capture runtime writes reads back the same, and anything else is
 * refused with the line and the reason, never believed. */
#include "capture_log.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static char *write_to_string(const caplog *log, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    cr_assert_not_null(f);
    cr_assert_eq(caplog_write(f, log), 0);
    fclose(f);
    return text;
}

static void build_sample(caplog *log)
{
    tl_error err;
    caplog_init(log);
    cr_assert_eq(caplog_add_kernel(log, "_Z2mmPKfS0_Pfi", &err), 0, "%s", err.msg);
    cr_assert_eq(caplog_add_var(log, "table", 64, &err), 0, "%s", err.msg);
    int a1 = caplog_add_alloc(log, 4096, &err);
    cr_assert_eq(a1, CAPLOG_BUF_ALLOC);
    cr_assert_not_null(caplog_begin_call(log, CAPLOG_CALL_LAUNCH, 16, 32, 8, &err));
    caplog_op memset_op = {.kind = CAPLOG_MEMSET, .dst = {CAPLOG_BUF_P, 0}, .count = 512,
                           .value = 255};
    cr_assert_eq(caplog_add_op(log, &memset_op, &err), 0, "%s", err.msg);
    caplog_op copy_op = {.kind = CAPLOG_COPY, .dst = {a1, 16}, .src = {CAPLOG_BUF_M, 0},
                         .count = 1024};
    cr_assert_eq(caplog_add_op(log, &copy_op, &err), 0, "%s", err.msg);
    uint32_t sizes[] = {8, 8, 8, 4, 16};
    caplog_reloc relocs[] = {{0, {CAPLOG_BUF_M, 0}}, {8, {CAPLOG_BUF_N, 4}},
                             {16, {CAPLOG_BUF_P, -4}}, {36, {a1, 8}}};
    uint8_t bytes[44] = {0};
    bytes[24] = 16; /* an int 16 */
    bytes[28] = 0xab; /* a struct: 8 raw bytes then a pointer */
    caplog_launch l = {.kernel = 0, .grid = {2, 1, 1}, .block = {16, 16, 1}, .shared = 128,
                       .nargs = 5, .arg_size = sizes, .nbytes = 44, .bytes = bytes,
                       .nrelocs = 4, .relocs = relocs};
    caplog_op launch_op = {.kind = CAPLOG_LAUNCH, .launch = &l};
    cr_assert_eq(caplog_add_op(log, &launch_op, &err), 0, "%s", err.msg);
    caplog_op free_op = {.kind = CAPLOG_FREE, .dst = {a1, 0}};
    cr_assert_eq(caplog_add_op(log, &free_op, &err), 0, "%s", err.msg);
    caplog_end_call(log);
    cr_assert_not_null(caplog_begin_call(log, CAPLOG_CALL_HOST, 16, 32, 8, &err));
    caplog_op up = {.kind = CAPLOG_COPY, .dst = {a1, 0}, .src = {CAPLOG_BUF_HOST_N, 0},
                    .count = 1024};
    cr_assert_eq(caplog_add_op(log, &up, &err), 0, "%s", err.msg);
    caplog_op down = {.kind = CAPLOG_COPY, .dst = {CAPLOG_BUF_HOST_P, 0}, .src = {a1, 0},
                      .count = 512};
    cr_assert_eq(caplog_add_op(log, &down, &err), 0, "%s", err.msg);
    caplog_refuse(log, "cudaMemcpy from host memory\nthat is not an input");
    caplog_launch_failed(log, "k with grid (0,1,1) and block (16,16,1): a grid dimension is 0");
    caplog_launch_failed(log, "a second failure is not kept");
    caplog_end_call(log);
    log->complete = true;
}

Test(capture_log, round_trip)
{
    caplog a, b;
    build_sample(&a);
    size_t len;
    char *text = write_to_string(&a, &len);
    tl_error err;
    cr_assert_eq(caplog_parse("t.log", text, len, &b, &err), 0, "%s\n%s", err.msg, text);
    cr_expect(b.complete);
    cr_expect_eq(b.nkernels, 1);
    cr_expect_str_eq(b.kernels[0], "_Z2mmPKfS0_Pfi");
    cr_expect_eq(b.nvars, 1);
    cr_expect_eq(b.var_sizes[0], 64);
    cr_expect_eq(b.nallocs, 1);
    cr_assert_eq(b.ncalls, 2);
    const caplog_call *c = caplog_find_call(&b, CAPLOG_CALL_LAUNCH, 16, 32, 8);
    cr_assert_not_null(c);
    cr_assert_eq(c->nops, 4);
    cr_expect_eq(c->ops[0].kind, CAPLOG_MEMSET);
    cr_expect_eq(c->ops[0].value, 255);
    cr_expect_eq(c->ops[1].dst.offset, 16);
    const caplog_launch *l = c->ops[2].launch;
    cr_assert_not_null(l);
    cr_expect_eq(l->block[1], 16);
    cr_expect_eq(l->shared, 128);
    cr_assert_eq(l->nargs, 5);
    cr_expect_eq(l->arg_size[4], 16);
    cr_expect_eq(l->nbytes, 44);
    cr_expect_eq(l->bytes[24], 16);
    cr_expect_eq(l->bytes[28], 0xab);
    cr_assert_eq(l->nrelocs, 4);
    cr_expect_eq(l->relocs[2].ref.buf, CAPLOG_BUF_P);
    cr_expect_eq(l->relocs[2].ref.offset, -4);
    cr_expect_eq(l->relocs[3].at, 36);
    cr_expect_eq(c->ops[3].kind, CAPLOG_FREE);
    const caplog_call *h = caplog_find_call(&b, CAPLOG_CALL_HOST, 16, 32, 8);
    cr_assert_not_null(h);
    cr_expect_str_eq(h->refused, "cudaMemcpy from host memory that is not an input");
    cr_expect_str_eq(h->launch_failed,
                     "k with grid (0,1,1) and block (16,16,1): a grid dimension is 0");
    cr_expect_null(caplog_find_call(&b, CAPLOG_CALL_BASELINE, 16, 32, 8));
    /* The same text again: writing is a fixed point. */
    size_t len2;
    char *text2 = write_to_string(&b, &len2);
    cr_expect_str_eq(text2, text);
    free(text);
    free(text2);
    caplog_free(&a);
    caplog_free(&b);
}

Test(capture_log, a_log_cut_short_is_incomplete)
{
    caplog a, b;
    build_sample(&a);
    a.complete = false;
    a.calls[1].ended = false;
    size_t len;
    char *text = write_to_string(&a, &len);
    tl_error err;
    cr_assert_eq(caplog_parse("t.log", text, len, &b, &err), 0, "%s", err.msg);
    cr_expect(!b.complete);
    cr_expect(!b.calls[1].ended);
    free(text);
    caplog_free(&a);
    caplog_free(&b);
}

/* Case `i`: `head` then `body` must be refused with a message containing `says`. */
static void expect_refused(size_t i, const char *head, const char *body, const char *says)
{
    char text[512];
    snprintf(text, sizeof text, "%s%s", head, body);
    caplog log;
    tl_error err;
    int rc = caplog_parse("t.log", text, strlen(text), &log, &err);
    cr_expect_eq(rc, -1, "case %zu parsed: %s", i, body);
    if (rc == -1)
        cr_expect(strstr(err.msg, says) != NULL, "case %zu: %s", i, err.msg);
    else
        caplog_free(&log);
}

Test(capture_log, malformed_logs_are_refused_with_the_line)
{
    static const struct {
        const char *body, *says;
    } cases[] = {
        {"", "t.log: empty, not a capture log"},
        {"x", "t.log:1: not a capture log"},
        {"kernel 1 k\n", "t.log:2: expected kernel 0"},
        {"kernel 0 bad-name\n", "is not a PTX name"},
        {"alloc a2 10\n", "expected allocation a1"},
        {"alloc a1 99999999999999999\n", "expected a number up to"},
        {"call launch 4 4 4\nmemset P 0 255 65\n", "t.log:3: 65 bytes at offset 0 pass the end of P"},
        {"call launch 4 4 4\nmemset hP 0 0 4\n", "buffer hP does not exist in a launch call"},
        {"call host 4 4 4\ncopy M 0 hM 0 4\n", "buffer M does not exist in a host call"},
        {"alloc a1 64\ncall host 4 4 4\ncopy hM 0 a1 0 4\n", "copies go device to device"},
        {"alloc a1 64\ncall host 4 4 4\ncopy a1 0 hP 0 4\n", "copies go device to device"},
        {"call launch 4 4 4\ncopy P -4 M 0 4\n", "pass the end of P"},
        {"call launch 4 4 4\nlaunch 0 1 1 1 1 1 1 0 x00\n", "no kernel was registered"},
        {"kernel 0 k\ncall launch 4 4 4\nlaunch 1 1 1 1 1 1 1 0\n", "expected a number up to 0"},
        {"kernel 0 k\ncall launch 4 4 4\nlaunch 0 1 1 1 1 1 1 0 x0\n", "pairs of hex digits"},
        {"kernel 0 k\ncall launch 4 4 4\nlaunch 0 1 1 1 1 1 1 0 xZZ\n", "lowercase hex"},
        {"kernel 0 k\ncall launch 4 4 4\nlaunch 0 1 1 1 1 1 1 0 @Q:0\n", "expected a buffer"},
        {"kernel 0 k\ncall host 4 4 4\nlaunch 0 1 1 1 1 1 1 0 @hM:0\n", "points into host memory"},
        {"kernel 0 k\ncall launch 4 4 4\nlaunch 0 1 1 1 1 1 1 0 y12\n", "expected an argument piece"},
        {"call launch 0 4 4\n", "a dimension of 0"},
        {"call launch 65536 65536 1\n", "larger than the harness allows"},
        {"call sideways 4 4 4\n", "unknown call kind"},
        {"call launch 4 4 4\ncall launch 4 4 4\n", "unexpected record \"call\""},
        {"done\nkernel 0 k\n", "a record after \"done\""},
        {"free a1\n", "unexpected record \"free\""},
        {"call launch 4 4 4\nfree M\n", "only a<n> buffers"},
        {"call launch 4 4 4\nmemset P 007 0 4\n", "expected a number"},
        {"call launch 4 4 4\nmemset P 0 256 4\n", "expected a number up to 255"},
        {"  \n", "an empty record"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(i, i < 2 ? "" : CAPLOG_MAGIC "\n", cases[i].body, cases[i].says);
}

Test(capture_log, limits_hold)
{
    /* A NUL byte, an over-long record, and a log larger than the limit. */
    caplog log;
    tl_error err;
    char nul[] = CAPLOG_MAGIC "\nkernel 0 k\0x\n";
    cr_expect_eq(caplog_parse("t.log", nul, sizeof nul - 1, &log, &err), -1);
    cr_expect(strstr(err.msg, "NUL byte") != NULL, "%s", err.msg);
    size_t big = CAPLOG_MAX_LINE + 100;
    char *line = malloc(big + 64);
    int n = snprintf(line, 64, "%s\nrefused ", CAPLOG_MAGIC);
    memset(line + n, 'a', big);
    cr_expect_eq(caplog_parse("t.log", line, (size_t)n + big, &log, &err), -1);
    cr_expect(strstr(err.msg, "longer than") != NULL, "%s", err.msg);
    free(line);
    cr_expect_eq(caplog_parse("t.log", "x", (size_t)CAPLOG_MAX_BYTES + 1, &log, &err), -1);
    cr_expect(strstr(err.msg, "more than a capture log may hold") != NULL, "%s", err.msg);
    /* Too many operations are refused when the log is built, too. */
    caplog_init(&log);
    cr_assert_not_null(caplog_begin_call(&log, CAPLOG_CALL_LAUNCH, 4, 4, 4, &err));
    caplog_op op = {.kind = CAPLOG_MEMSET, .dst = {CAPLOG_BUF_P, 0}, .count = 4};
    int rc = 0, i = 0;
    for (; i <= CAPLOG_MAX_OPS && rc == 0; i++)
        rc = caplog_add_op(&log, &op, &err);
    cr_expect_eq(rc, -1);
    cr_expect_eq(i, CAPLOG_MAX_OPS + 1);
    caplog_free(&log);
}

/* A libwb program's call: imported inputs, the answer's buffer, a module variable written from
 * an input. */
Test(capture_log, program_call_round_trip)
{
    caplog a, b;
    tl_error err;
    caplog_init(&a);
    cr_assert_eq(caplog_add_kernel(&a, "_Z4convPfS_ii", &err), 0, "%s", err.msg);
    cr_assert_eq(caplog_add_var(&a, "mask", 100, &err), 0, "%s", err.msg);
    int a1 = caplog_add_alloc(&a, 4096, &err);
    cr_assert_not_null(caplog_begin_call(&a, CAPLOG_CALL_PROGRAM, 1, 1, 1, &err));
    cr_assert_eq(caplog_add_input(&a, 0, CAPLOG_INPUT_IMAGE, 4096, &err), 0, "%s", err.msg);
    cr_assert_eq(caplog_add_input(&a, 1, CAPLOG_INPUT_REAL, 100, &err), 0, "%s", err.msg);
    caplog_op up = {.kind = CAPLOG_COPY, .dst = {a1, 0}, .src = {CAPLOG_BUF_INPUT, 0},
                    .count = 4096};
    caplog_op sym = {.kind = CAPLOG_COPY, .dst = {CAPLOG_BUF_VAR, 0},
                     .src = {CAPLOG_BUF_INPUT + 1, 0}, .count = 100};
    caplog_op down = {.kind = CAPLOG_COPY, .dst = {CAPLOG_BUF_ANSWER, 8}, .src = {a1, 0},
                      .count = 64};
    cr_assert_eq(caplog_add_op(&a, &up, &err), 0, "%s", err.msg);
    cr_assert_eq(caplog_add_op(&a, &sym, &err), 0, "%s", err.msg);
    cr_assert_eq(caplog_add_op(&a, &down, &err), 0, "%s", err.msg);
    caplog_add_filler(&a, 40);
    caplog_add_filler(&a, 2);
    /* The answer is known at wbSolution, after the copies; the writer puts it first. */
    cr_assert_eq(caplog_set_answer(&a, 72, 8, 4, &err), 0, "%s", err.msg);
    cr_expect_eq(caplog_set_answer(&a, 72, 8, 4, &err), -1);
    cr_expect(strstr(err.msg, "a second answer") != NULL, "%s", err.msg);
    caplog_end_call(&a);
    a.complete = true;
    size_t len;
    char *text = write_to_string(&a, &len);
    cr_expect(strstr(text, "call program 1 1 1\ninput 0 0 image 4096\ninput 1 1 real 100\n"
                           "answer 72 8 4\ncopy a1 0 hI0 0 4096\ncopy v1 0 hI1 0 100\n"
                           "copy hO 8 a1 0 64\nfiller 42\nend\n") != NULL, "%s", text);
    cr_assert_eq(caplog_parse("t.log", text, len, &b, &err), 0, "%s\n%s", err.msg, text);
    const caplog_call *c = caplog_find_call(&b, CAPLOG_CALL_PROGRAM, 1, 1, 1);
    cr_assert_not_null(c);
    cr_expect_eq(c->ninputs, 2);
    cr_expect_eq(c->input_kind[0], CAPLOG_INPUT_IMAGE);
    cr_expect_eq(c->input_bytes[1], 100);
    cr_expect_eq(c->input_file[1], 1);
    cr_expect(c->answered);
    cr_expect_eq(c->out_bytes, 72);
    cr_expect_eq(c->answer_offset, 8);
    cr_expect_eq(c->answer_bytes, 4);
    cr_expect_eq(c->filler_bytes, 42);
    cr_assert_eq(c->nops, 3);
    cr_expect_eq(c->ops[1].dst.buf, CAPLOG_BUF_VAR);
    cr_expect_eq(c->ops[2].dst.buf, CAPLOG_BUF_ANSWER);
    free(text);
    caplog_free(&a);
    caplog_free(&b);
}

Test(capture_log, program_calls_keep_their_rules)
{
    static const struct {
        const char *body, *says;
    } cases[] = {
        {"call launch 4 4 4\ninput 0 0 real 4\n", "input records belong to program calls"},
        {"call program 1 1 1\ninput 1 0 real 4\n", "expected input 0"},
        {"call program 1 1 1\ninput 0 0 float 4\n", "unknown input kind"},
        {"alloc a1 8\ncall program 1 1 1\nmemset a1 0 0 8\ninput 0 0 real 4\n",
         "input after the call's first operation"},
        {"call program 1 1 1\nanswer 8 6 4\n", "outside its 8-byte buffer"},
        {"alloc a1 8\ncall program 1 1 1\ncopy hO 0 a1 0 4\n", "buffer hO does not exist"},
        {"alloc a1 8\ncall program 1 1 1\ninput 0 0 real 8\ncopy a1 0 hI0 4 8\n",
         "pass the end of hI0"},
        {"alloc a1 8\ncall program 1 1 1\ninput 0 0 real 8\nanswer 8 0 8\ncopy hO 0 hI0 0 8\n",
         "copies go device to device, from an hI"},
        {"alloc a1 8\ncall program 1 1 1\ninput 0 0 real 8\ncopy hI0 0 a1 0 8\n",
         "copies go device to device, from an hI"},
        {"var t 8\nalloc a1 8\ncall program 1 1 1\ncopy a1 0 v1 0 8\n",
         "copies from a module variable"},
        {"var t 8\ncall launch 4 4 4\ncopy P 0 v1 0 8\n", "buffer v1 does not exist"},
        {"call launch 4 4 4\nfiller 8\n", "filler is recorded only in a program call"},
        {"call program 1 1 1\nfiller 281474976710657\n", "expected a number up to"},
        {"call launch 4 4 4\ncopy P 0 hI0 0 4\n", "buffer hI0 does not exist"},
        {"kernel 0 k\ncall program 1 1 1\ninput 0 0 real 8\nlaunch 0 1 1 1 1 1 1 0 @hI0:0\n",
         "points into host memory"},
        {"kernel 0 k\nvar t 8\ncall program 1 1 1\nlaunch 0 1 1 1 1 1 1 0 @v1:0\n",
         "a module variable's address"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(i, CAPLOG_MAGIC "\n", cases[i].body, cases[i].says);
}
