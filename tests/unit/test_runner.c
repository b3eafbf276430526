/* The runner's pieces that need no compiler: the verdict vocabulary, which verdicts of the
 * safety checks are final, and the child processes (what a child inherits, what it is given,
 * how it is stopped). */
#include "runner.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(verdicts, names_round_trip_and_exit_statuses)
{
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        tl_verdict back;
        cr_assert(tl_verdict_parse(tl_verdict_name((tl_verdict)v), &back));
        cr_expect_eq(back, v);
    }
    tl_verdict none;
    cr_expect(!tl_verdict_parse("fail", &none), "\"fail\" is not a verdict");
    cr_expect_eq(tl_verdict_exit_status(TL_VERDICT_PASS), TL_EXIT_OK);
    cr_expect_eq(tl_verdict_exit_status(TL_VERDICT_WRONG), TL_EXIT_WRONG);
    cr_expect_eq(tl_verdict_exit_status(TL_VERDICT_BAD_INPUT), TL_EXIT_BAD_INPUT);
    cr_expect_eq(tl_verdict_exit_status(TL_VERDICT_REFUSED), TL_EXIT_CRASH);
    cr_expect_str_eq(tl_verdict_label(TL_VERDICT_BUILD_FAILED), "BUILD FAILED");
    /* A summary shows the worst: wrong is milder than anything that did not run to the end. */
    cr_expect_eq(tl_verdict_worst(TL_VERDICT_PASS, TL_VERDICT_WRONG), TL_VERDICT_WRONG);
    cr_expect_eq(tl_verdict_worst(TL_VERDICT_CRASH, TL_VERDICT_WRONG), TL_VERDICT_CRASH);
    cr_expect_eq(tl_verdict_worst(TL_VERDICT_WRONG, TL_VERDICT_TIMEOUT), TL_VERDICT_TIMEOUT);
}

Test(safety, a_timeout_of_the_checks_is_not_final)
{
    /* The submission's doing: final on every backend. */
    tl_verdict final[] = {TL_VERDICT_UNSAFE, TL_VERDICT_WRONG, TL_VERDICT_CRASH, TL_VERDICT_REFUSED};
    for (size_t i = 0; i < sizeof final / sizeof *final; i++)
        cr_expect(runner_safety_final(final[i]), "%s", tl_verdict_name(final[i]));
    /* The CPU backend's limits are backstops: on a GPU the GPU's run decides. */
    cr_expect(!runner_safety_final(TL_VERDICT_TIMEOUT));
    cr_expect(!runner_safety_final(TL_VERDICT_PASS));
    runner_result r = {.verdict = TL_VERDICT_PASS};
    snprintf(r.detail, sizeof r.detail, "all 65536 elements within the fp32 error bound");
    runner_safety_incomplete(&r);
    cr_expect_str_eq(r.detail, "all 65536 elements within the fp32 error bound; the safety checks "
                               "are incomplete for this dataset: their CPU-backend replay stopped "
                               "at its limits before the end");
}

/* The interpreter's findings, as its diagnosis JSON gives them: typed, the file by its own name,
 * a missing field empty; the first one is the unsafe verdict's detail. */
static const char race_json[] =
    "{\"findings\": [{\"kind\": \"shared-memory race\", \"file\": \"/tmp/x/mm.cu\", \"line\": 24,"
    " \"line2\": 27, \"count\": 12, \"kernel\": \"_Z2mmPf\", \"block\": [1, 0, 0],"
    " \"thread\": [3, 0, 0], \"thread2\": [35, 0, 0], \"baseline\": false,"
    " \"detail\": \"a barrier after line 24 is missing\"},"
    " {\"kind\": \"out-of-bounds global access\", \"line\": -4, \"baseline\": true}]}";

Test(safety, findings_are_read_typed)
{
    cJSON *diag = cJSON_Parse(race_json);
    cr_assert_not_null(diag);
    cr_expect_eq(runner_findings_count(diag), 2);
    runner_finding f;
    cr_assert(runner_finding_get(diag, 0, &f));
    cr_expect_str_eq(f.kind, "shared-memory race");
    cr_expect_str_eq(f.file, "mm.cu", "the file's own name, not where it was built");
    cr_expect_str_eq(f.kernel, "_Z2mmPf");
    cr_expect_eq(f.line, 24);
    cr_expect_eq(f.line2, 27);
    cr_expect_eq(f.count, 12);
    cr_expect(f.has_where && f.block[0] == 1 && f.thread[0] == 3);
    cr_expect(f.has_thread2 && f.thread2[0] == 35);
    cr_expect(!f.baseline);
    cr_expect_str_eq(f.detail, "a barrier after line 24 is missing");
    cr_assert(runner_finding_get(diag, 1, &f));
    cr_expect(f.baseline);
    cr_expect_eq(f.line, 0, "a line that is no line reads as 0");
    cr_expect(!f.has_where && !f.has_thread2);
    cr_expect_str_eq(f.file, "");
    cr_expect(!runner_finding_get(diag, 2, &f));
    cJSON_Delete(diag);
    cr_expect_eq(runner_findings_count(NULL), 0);
    diag = cJSON_Parse("{\"findings\": {\"kind\": \"race\"}}");
    cr_expect_eq(runner_findings_count(diag), 0, "findings that are not a list are none");
    cJSON_Delete(diag);
}

Test(safety, any_finding_makes_the_result_unsafe)
{
    runner_result r = {.verdict = TL_VERDICT_PASS};
    char *text = strdup(race_json);
    cJSON *diag = cJSON_Parse(text);
    runner_safety_judge(text, diag, &r);
    cJSON_Delete(diag);
    cr_expect_eq(r.verdict, TL_VERDICT_UNSAFE);
    cr_expect_str_eq(r.detail, "shared-memory race at mm.cu:24 and line 27 (block (1,0,0), "
                               "thread (3,0,0)); 1 more finding");
    cr_expect_not_null(r.diagnosis, "the findings are kept to be shown");
    runner_result_free(&r);
    /* An honest kernel: no finding, the replay's own verdict stays. */
    runner_result ok = {.verdict = TL_VERDICT_PASS};
    text = strdup("{\"findings\": []}");
    diag = cJSON_Parse(text);
    runner_safety_judge(text, diag, &ok);
    cJSON_Delete(diag);
    cr_expect_eq(ok.verdict, TL_VERDICT_PASS);
    cr_expect_null(ok.diagnosis);
    runner_result_free(&ok);
}

static proc_result sh(const char *script, char *const *envp, double timeout)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    proc_spec spec = {.argv = argv, .envp = envp, .timeout_s = timeout, .capture_limit = 4096};
    proc_result r;
    cr_assert_eq(proc_run_spec(&spec, &r), 0);
    return r;
}

Test(proc, a_child_inherits_nothing_but_its_output)
{
    /* A descriptor of this process, not marked close-on-exec, must not reach the child. */
    int fd = open("/dev/null", O_RDONLY);
    cr_assert_geq(fd, 3);
    char *env[] = {"PATH=/usr/bin:/bin", "ONLY=this", NULL};
    setenv("TILELAB_SECRET_FOR_TEST", "leaked", 1);
    proc_result r = sh("ls /proc/self/fd | sort -n | tr '\\n' ' '; echo; env; "
                       "head -c 5 || echo nothing-on-stdin", env, 10);
    cr_expect(strncmp(r.out, "0 1 2 3 \n", 9) == 0 || strncmp(r.out, "0 1 2 \n", 7) == 0,
              "descriptors: %s", r.out); /* 3: ls's own view of the folder it reads */
    cr_expect(strstr(r.out, "ONLY=this") != NULL);
    cr_expect(strstr(r.out, "leaked") == NULL, "the grader's environment reached the child");
    cr_expect(strstr(r.out, "nothing-on-stdin") == NULL && r.exit_code == 0, "%s", r.out);
    proc_result_free(&r);
    close(fd);
    unsetenv("TILELAB_SECRET_FOR_TEST");
}

Test(proc, the_time_limit_ends_the_whole_group)
{
    double t0 = tl_clock_now();
    proc_result r = sh("(sleep 30; echo late) & sleep 30", NULL, 0.5);
    cr_expect(r.timed_out);
    cr_expect_lt(tl_clock_now() - t0, 5.0, "a grandchild kept the pipe open");
    cr_expect(strstr(r.out, "late") == NULL);
    proc_result_free(&r);
}

Test(proc, output_is_capped)
{
    proc_result r = sh("yes x | head -c 100000", NULL, 10);
    cr_expect_eq(strlen(r.out), 4096, "kept %zu bytes", strlen(r.out));
    cr_expect(r.truncated);
    proc_result_free(&r);
}

static void collect(void *ctx, const char *data, size_t n)
{
    char *buf = ctx;
    strncat(buf, data, n < 60 ? n : 60);
}

Test(proc, descriptor_three_is_the_result_pipe_when_asked)
{
    char got[128] = "";
    char *argv[] = {"/bin/sh", "-c", "echo result-line >&3; echo out", NULL};
    proc_spec spec = {.argv = argv, .timeout_s = 10, .capture_limit = 4096, .on_result = collect,
                      .result_ctx = got};
    proc_result r;
    cr_assert_eq(proc_run_spec(&spec, &r), 0);
    cr_expect_str_eq(got, "result-line\n");
    cr_expect_str_eq(r.out, "out\n");
    proc_result_free(&r);
}

Test(judge, the_checked_replay_decides_unless_more_is_asked_or_a_gpu_runs)
{
    tl_verdict final[] = {TL_VERDICT_UNSAFE, TL_VERDICT_WRONG, TL_VERDICT_CRASH,
                          TL_VERDICT_REFUSED};
    for (size_t i = 0; i < sizeof final / sizeof *final; i++)
        for (int more = 0; more < 2; more++) {
            cr_expect(!runner_replay_again(RUNNER_GPU, more, final[i]), "%s",
                      tl_verdict_name(final[i]));
            cr_expect(!runner_replay_again(RUNNER_CPU, more, final[i]), "%s",
                      tl_verdict_name(final[i]));
        }
    /* A GPU's own run decides, whatever was asked of it. */
    cr_expect(runner_replay_again(RUNNER_GPU, false, TL_VERDICT_PASS));
    cr_expect(runner_replay_again(RUNNER_GPU, false, TL_VERDICT_TIMEOUT));
    /* The CPU backend: the checked replay was this backend's; grade and run --no-time stop. */
    cr_expect(!runner_replay_again(RUNNER_CPU, false, TL_VERDICT_PASS));
    cr_expect(!runner_replay_again(RUNNER_CPU, false, TL_VERDICT_TIMEOUT));
    /* Timed (or lab 05's baseline): replayed again, unless the checks already timed out. */
    cr_expect(runner_replay_again(RUNNER_CPU, true, TL_VERDICT_PASS));
    cr_expect(!runner_replay_again(RUNNER_CPU, true, TL_VERDICT_TIMEOUT));
}

Test(judge, a_dataset_is_loaded_once_with_its_shape_and_reference)
{
    runner_loaded d;
    tl_error err;
    runner_dataset generated = {.generated = true, .seed = 7, .size = {5, 3, 4}};
    cr_assert_eq(runner_loaded_read(&generated, &d, &err), 0, "%s", err.msg);
    cr_expect(d.shape.m == 5 && d.shape.k == 3 && d.shape.n == 4);
    cr_expect(d.ref.expected.rows == 5 && d.ref.expected.cols == 4);
    cr_expect(d.from.generated && d.from.seed == 7);
    runner_loaded_free(&d);
    /* A folder that is not there: the error names it, and nothing is held. */
    runner_dataset missing = {.dir = "/nonexistent/tilelab-dataset"};
    cr_expect_eq(runner_loaded_read(&missing, &d, &err), -1);
    cr_expect(strstr(err.msg, "/nonexistent/tilelab-dataset") != NULL, "%s", err.msg);
    cr_expect_null(d.A.data);
    cr_expect_null(d.ref.expected.data);
    runner_loaded_free(&d);
}

Test(config, after_a_timeout_the_limit_is_lowered_never_raised)
{
    runner_config c;
    runner_config_default(&c, RUNNER_GPU);
    cr_expect(runner_config_after_timeout(&c));
    cr_expect_eq(c.replay_timeout_s, RUNNER_TIMEOUT_AFTER_A_TIMEOUT_S);
    cr_expect(!runner_config_after_timeout(&c));
    runner_config_set_timeout(&c, 3);
    cr_expect(!runner_config_after_timeout(&c));
    cr_expect_eq(c.replay_timeout_s, 3);
}

Test(config, a_capture_gets_the_replay_limit_up_to_its_own_cap)
{
    runner_config c;
    runner_config_default(&c, RUNNER_CPU);
    cr_assert_eq(c.replay_timeout_s, RUNNER_REPLAY_TIMEOUT_S);
    cr_assert_eq(c.capture_timeout_s, RUNNER_CAPTURE_MAX_S);
    runner_config_set_timeout(&c, 10);
    cr_assert_eq(c.replay_timeout_s, 10);
    cr_assert_eq(c.capture_timeout_s, 10);
    runner_config_set_timeout(&c, 600);
    cr_assert_eq(c.replay_timeout_s, 600);
    cr_assert_eq(c.capture_timeout_s, RUNNER_CAPTURE_MAX_S);
}
