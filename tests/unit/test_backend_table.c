/* The backends' table (replay/runner_backend.h): a toy backend added as a row is parsed and
 * named like the kit's, listed in the messages that name the backends, and brings its own
 * defaults; the kit's rows keep theirs. This file alone sees the toy row: it includes only the
 * header-only table, never the runner's library, which is built without it. */
#include <criterion/criterion.h>

#define RUNNER_EXTRA_BACKEND_ROWS(X) X(RUNNER_TOY, "toy", false, true, 2)
#include "runner_backend.h"

Test(backend_table, a_toy_row_is_parsed_and_named)
{
    cr_assert_eq(RUNNER_BACKEND_COUNT, 3);
    runner_backend b = RUNNER_GPU;
    cr_assert(runner_backend_parse("toy", &b));
    cr_expect_eq(b, RUNNER_TOY);
    cr_expect_str_eq(runner_backend_name(RUNNER_TOY), "toy");
    cr_assert(runner_backend_parse("cpu", &b));
    cr_expect_eq(b, RUNNER_CPU);
    /* only a row's exact name */
    const char *bad[] = {"Toy", "toy ", "", "to", NULL};
    for (int i = 0; i < 5; i++) {
        cr_expect_not(runner_backend_parse(bad[i], &b), "%s", bad[i] ? bad[i] : "NULL");
        cr_expect_eq(b, RUNNER_CPU);
    }
}

Test(backend_table, the_messages_name_every_row)
{
    char names[RUNNER_BACKEND_NAMES_SIZE];
    cr_expect_str_eq(runner_backend_names(names, sizeof names), "gpu, cpu or toy");
    char small[6];
    cr_expect_str_eq(runner_backend_names(small, sizeof small), "gpu, ");
}

Test(backend_table, each_row_brings_its_defaults)
{
    const runner_backend_info *toy = runner_backend_about(RUNNER_TOY);
    cr_expect_eq(toy->reps, 2);
    cr_expect(!toy->device && toy->emulated);
    cr_expect_eq(runner_backend_about(RUNNER_GPU)->reps, 10);
    cr_expect(runner_backend_about(RUNNER_GPU)->device);
    cr_expect(!runner_backend_about(RUNNER_GPU)->emulated);
    cr_expect_eq(runner_backend_about(RUNNER_CPU)->reps, 3);
    cr_expect(runner_backend_about(RUNNER_CPU)->emulated);
    /* a value past the rows reads the first, never past the table */
    cr_expect_eq(runner_backend_about((runner_backend)7), runner_backend_about(RUNNER_GPU));
}
