/* Rubric files: the performance curve and the leaderboard keys (values, defaults, errors that
 * name the file and line), and the share of the performance points each curve gives. */
#include <criterion/criterion.h>

#include "grader.h"
#include "scratch.h"

#include <math.h>

#define SHIPPED_RUBRICS TILELAB_TEST_DATA "/../../grader/rubrics"

/* Reads `text` as a rubric file; returns rubric_read's status, the message in err. */
static int read_text(const char *text, rubric *r, tl_error *err)
{
    const char *path = scratch_write("r.rubric", text, strlen(text));
    err->msg[0] = '\0';
    return rubric_read(path, r, err);
}

static rubric curve(rubric_curve kind, double zero, double full)
{
    rubric r;
    memset(&r, 0, sizeof r);
    r.performance_curve = kind;
    r.performance_zero = zero;
    r.performance_full = full;
    return r;
}

TestSuite(rubric_keys, .init = scratch_init, .fini = scratch_fini);

Test(rubric_keys, curve_and_leaderboard_default_to_linear_and_off)
{
    rubric r;
    tl_error err;
    cr_assert_eq(read_text("performance = 20\n", &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.performance_curve, RUBRIC_CURVE_LINEAR);
    cr_assert(!r.leaderboard);
}

Test(rubric_keys, every_shipped_rubric_keeps_the_linear_curve_and_no_leaderboard)
{
    static const char *const labs[] = {"01-basic", "02-tiled", "03-arbitrary", "04-rectangular",
                                       "05-bank-conflicts", "program"};
    for (size_t i = 0; i < sizeof labs / sizeof labs[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.rubric", SHIPPED_RUBRICS, labs[i]);
        rubric r;
        tl_error err = {{0}};
        cr_assert_eq(rubric_read(path, &r, &err), 0, "%s", err.msg);
        cr_assert_eq(r.performance_curve, RUBRIC_CURVE_LINEAR, "%s", labs[i]);
        cr_assert(!r.leaderboard, "%s", labs[i]);
    }
}

Test(rubric_keys, reads_the_log_curve_and_the_leaderboard)
{
    rubric r;
    tl_error err;
    cr_assert_eq(read_text("performance_curve = log   # doublings\nperformance_zero = 0.1\n"
                           "performance_full = 1.0\nleaderboard = yes\n", &r, &err), 0, "%s",
                 err.msg);
    cr_assert_eq(r.performance_curve, RUBRIC_CURVE_LOG);
    cr_assert(r.leaderboard);
    cr_assert_float_eq(r.performance_full, 1.0, 1e-12);
    cr_assert_eq(read_text("performance_curve = log\nperformance_curve = linear\n"
                           "leaderboard = yes\nleaderboard = no\n", &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.performance_curve, RUBRIC_CURVE_LINEAR, "the last value counts");
    cr_assert(!r.leaderboard, "the last value counts");
}

Test(rubric_keys, bad_values_name_the_file_line_and_value)
{
    rubric r;
    tl_error err;
    cr_assert_eq(read_text("compile = 10\n\nperformance_curve = cubic\n", &r, &err), -1);
    cr_assert_not_null(strstr(err.msg, "r.rubric:3: performance_curve is linear or log, found "
                                       "\"cubic\""), "%s", err.msg);
    cr_assert_eq(read_text("leaderboard = maybe\n", &r, &err), -1);
    cr_assert_not_null(strstr(err.msg, "r.rubric:1: leaderboard is yes or no, found \"maybe\""),
                       "%s", err.msg);
    cr_assert_eq(read_text("leaderboard = YES\n", &r, &err), -1, "values are lower case");
    cr_assert_eq(read_text("hidden_visibility = sometimes\n", &r, &err), -1);
    cr_assert_not_null(strstr(err.msg, "r.rubric:1: hidden_visibility is hidden, after_due_date, "
                                       "after_published or visible, found \"sometimes\""),
                       "%s", err.msg);
    cr_assert_eq(read_text("speed = 3\n", &r, &err), -1);
    cr_assert_not_null(strstr(err.msg, "performance_curve"), "the known keys: %s", err.msg);
    cr_assert_not_null(strstr(err.msg, "leaderboard"), "the known keys: %s", err.msg);
}

Test(rubric_keys, the_log_curve_needs_a_zero_above_0)
{
    rubric r;
    tl_error err;
    cr_assert_eq(read_text("performance_zero = 0\n# the curve\nperformance_curve = log\n", &r,
                           &err), -1);
    cr_assert_not_null(strstr(err.msg, "r.rubric:3: performance_curve = log needs "
                                       "performance_zero above 0"), "%s", err.msg);
    cr_assert_eq(read_text("performance_zero = 0\n", &r, &err), 0, "linear takes 0: %s", err.msg);
}

TestSuite(performance_share);

Test(performance_share, log_gives_each_doubling_the_same_points)
{
    rubric lg = curve(RUBRIC_CURVE_LOG, 0.1, 1.0), lin = curve(RUBRIC_CURVE_LINEAR, 0.1, 1.0);
    /* 0.316 is about the geometric middle of 0.1 and 1.0 */
    cr_assert_float_eq(rubric_performance_share(&lg, 0.316), 0.5, 1e-3);
    cr_assert_float_eq(rubric_performance_share(&lin, 0.316), 0.24, 1e-3);
    cr_assert_float_eq(rubric_performance_share(&lg, 0.2), log(2) / log(10), 1e-9);
    cr_assert_float_eq(rubric_performance_share(&lg, 0.4) - rubric_performance_share(&lg, 0.2),
                       rubric_performance_share(&lg, 0.8) - rubric_performance_share(&lg, 0.4),
                       1e-9, "each doubling earns the same");
    cr_assert_float_eq(rubric_performance_share(&lin, 0.55), 0.5, 1e-9);
}

Test(performance_share, both_curves_clamp_at_zero_and_full)
{
    for (int k = 0; k < 2; k++) {
        rubric r = curve(k ? RUBRIC_CURVE_LOG : RUBRIC_CURVE_LINEAR, 0.1, 1.0);
        cr_assert_eq(rubric_performance_share(&r, 0), 0, "not timed");
        cr_assert_eq(rubric_performance_share(&r, 0.05), 0);
        cr_assert_eq(rubric_performance_share(&r, 0.1), 0);
        cr_assert_eq(rubric_performance_share(&r, 1.0), 1, "up to the reference");
        cr_assert_eq(rubric_performance_share(&r, 3.0), 1);
        cr_assert_eq(rubric_performance_share(&r, NAN), 0);
    }
}

Test(performance_share, linear_is_the_shipped_rule)
{
    rubric r = curve(RUBRIC_CURVE_LINEAR, 0.2, 0.8);
    for (double ratio = 0; ratio < 1.2; ratio += 0.05) {
        double old = (ratio - 0.2) / (0.8 - 0.2);
        old = old < 0 ? 0 : old > 1 ? 1 : old;
        cr_assert_float_eq(rubric_performance_share(&r, ratio), old, 1e-12, "ratio %g", ratio);
    }
}

Test(performance_share, a_predicted_ratio_is_scored_below_a_measured_one)
{
    /* The model's margin: a predicted 0.72x scores as 0.648x, a measured one as it is; no
     * ratio is scored higher for being predicted. */
    cr_assert_float_eq(grader_scored_ratio(0.72, false), 0.72, 1e-12);
    cr_assert_float_eq(grader_scored_ratio(0.72, true), 0.72 * (1 - GRADER_PREDICTED_MARGIN), 1e-12);
    for (double r = 0.05; r < 3; r += 0.05)
        cr_assert_leq(grader_scored_ratio(r, true), grader_scored_ratio(r, false));
    cr_assert_eq(grader_scored_ratio(0, true), 0);
}
