/* Timer math: statistics, GFLOP/s, host phases and the monotonic clock. */
#include "harness.h"

#include <criterion/criterion.h>
#include <time.h>

Test(stats, odd_count_median_min_max_mean)
{
    double s[] = {5, 1, 4, 2, 3};
    tl_stats st;
    tl_stats_compute(s, 5, &st);
    cr_assert_eq(st.n, 5);
    cr_assert_float_eq(st.median, 3, 1e-12);
    cr_assert_float_eq(st.min, 1, 1e-12);
    cr_assert_float_eq(st.max, 5, 1e-12);
    cr_assert_float_eq(st.mean, 3, 1e-12);
    cr_assert_float_eq(s[0], 5, 0, "the caller's samples keep their order");
}

Test(stats, even_count_median_is_the_mean_of_the_middle_two)
{
    double s[] = {10, 2, 8, 4};
    tl_stats st;
    tl_stats_compute(s, 4, &st);
    cr_assert_float_eq(st.median, 6, 1e-12);
    cr_assert_float_eq(st.mean, 6, 1e-12);
}

Test(stats, an_outlier_moves_the_mean_not_the_median)
{
    double s[100];
    for (int i = 0; i < 100; i++) s[i] = 1.0;
    s[37] = 1000.0;
    tl_stats st;
    tl_stats_compute(s, 100, &st); /* more than the on-stack buffer holds */
    cr_assert_float_eq(st.median, 1.0, 1e-12);
    cr_assert_float_eq(st.max, 1000.0, 1e-12);
    cr_assert_gt(st.mean, 10.0);
}

Test(stats, one_sample)
{
    double s = 2.5;
    tl_stats st;
    tl_stats_compute(&s, 1, &st);
    cr_assert_float_eq(st.median, 2.5, 0);
    cr_assert_float_eq(st.min, 2.5, 0);
    cr_assert_float_eq(st.max, 2.5, 0);
}

Test(gflops, two_mkn_over_seconds)
{
    cr_assert_float_eq(tl_gflops(1024, 1024, 1024, 1e-3), 2.0 * 1024 * 1024 * 1024 / 1e-3 / 1e9, 1e-6);
    cr_assert_float_eq(tl_gflops(4096, 4096, 4096, 2.7e-3), 50903.3, 0.1, "cuBLAS-class figure");
    cr_assert_float_eq(tl_gflops(100, 2, 3, 1.0), 1.2e-6, 1e-15, "rectangular: 2*m*k*n");
    cr_assert_eq(tl_gflops(10, 10, 10, 0), 0);
}

Test(phases, start_and_stop_record_the_elapsed_time)
{
    tl_phase_log log;
    tl_phase_log_init(&log);
    cr_assert_eq(tl_phase_start(&log, "IO", "import"), 0);
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    cr_assert_eq(tl_phase_stop(&log, "IO", "import"), 0);
    cr_assert_geq(log.phases[0].seconds, 0.019);
    cr_assert_lt(log.phases[0].seconds, 5.0);
}

Test(phases, stop_matches_kind_and_name_most_recent_first)
{
    tl_phase_log log;
    tl_phase_log_init(&log);
    tl_phase_start(&log, "GPU", "outer");
    tl_phase_start(&log, "Copy", "outer");
    tl_phase_start(&log, "GPU", "outer");
    cr_assert_eq(tl_phase_stop(&log, "GPU", "outer"), 2);
    cr_assert_eq(tl_phase_stop(&log, "GPU", "outer"), 0);
    cr_assert_eq(tl_phase_stop(&log, "GPU", "outer"), -1, "nothing left running");
    cr_assert_lt(log.phases[1].seconds, 0, "the Copy phase still runs");
    cr_assert_eq(tl_phase_stop(&log, "Compute", "never started"), -1);
}

Test(phases, a_full_log_refuses_more)
{
    tl_phase_log log;
    tl_phase_log_init(&log);
    for (int i = 0; i < TL_MAX_PHASES; i++)
        cr_assert_eq(tl_phase_start(&log, "Generic", "x"), i);
    cr_assert_eq(tl_phase_start(&log, "Generic", "x"), -1);
}

Test(clock, is_monotonic)
{
    double prev = tl_clock_now();
    for (int i = 0; i < 10000; i++) {
        double now = tl_clock_now();
        cr_assert_geq(now, prev);
        prev = now;
    }
}
