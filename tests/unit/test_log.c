/* Logging: level names, the threshold and the line format. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(log, parses_every_level_name)
{
    static const char *names[] = {"fatal", "ERROR", "Warn", "info", "debug", "trace"};
    for (int i = 0; i < 6; i++) {
        tl_log_level l;
        cr_assert_eq(tl_log_parse_level(names[i], &l), 0, "%s", names[i]);
        cr_assert_eq((int)l, i);
    }
    tl_log_level l;
    cr_assert_eq(tl_log_parse_level("warning", &l), 0);
    cr_assert_eq(l, TL_LOG_WARN);
    cr_assert_eq(tl_log_parse_level("loud", &l), -1);
    cr_assert_eq(tl_log_parse_level(NULL, &l), -1);
    cr_assert_str_eq(tl_log_level_name(TL_LOG_TRACE), "trace");
}

Test(log, drops_messages_above_the_threshold)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    tl_log_set_stream(out);
    tl_log_set_level(TL_LOG_WARN);
    tl_log(TL_LOG_ERROR, "disk %d is full", 3);
    tl_log(TL_LOG_INFO, "hidden");
    tl_log(TL_LOG_WARN, "careful");
    tl_log_set_stream(NULL);
    fclose(out);
    cr_assert_str_eq(text, "[error] disk 3 is full\n[warn] careful\n");
    free(text);
}

Test(log, threshold_comes_from_the_environment)
{
    /* A fresh process: Criterion runs each test in its own. */
    setenv("TILELAB_LOG", "trace", 1);
    cr_assert_eq(tl_log_get_level(), TL_LOG_TRACE);
}

Test(error, set_formats_and_returns_minus_one)
{
    tl_error err;
    cr_assert_eq(tl_error_set(&err, "%s:%d: bad", "a.raw", 7), -1);
    cr_assert_str_eq(err.msg, "a.raw:7: bad");
    cr_assert_eq(tl_error_set(NULL, "ignored"), -1);
}

Test(log, a_layers_default_level_yields_to_the_environment_and_to_set_level)
{
    unsetenv("TILELAB_LOG");
    cr_assert_eq(tl_log_get_level(), TL_LOG_INFO);
    tl_log_set_default_level(TL_LOG_TRACE);
    cr_assert_eq(tl_log_get_level(), TL_LOG_TRACE, "the default applies without TILELAB_LOG");
    setenv("TILELAB_LOG", "warn", 1);
    tl_log_set_default_level(TL_LOG_DEBUG);
    cr_assert_eq(tl_log_get_level(), TL_LOG_WARN, "TILELAB_LOG wins over a default");
    tl_log_set_level(TL_LOG_ERROR);
    tl_log_set_default_level(TL_LOG_TRACE);
    cr_assert_eq(tl_log_get_level(), TL_LOG_ERROR, "an explicit level wins over a default");
}
