/* The registry of labs (datagen/lab_sizes.c): a toy lab registered here is found by its id,
 * number and name, is named in every list of labs the usage texts and errors are generated from,
 * and resolves through the one resolution run, diagnose, grade and export use, beside a lab.json.
 * (tests/cli/cli_cases.sh (toy_lab) shows the commands themselves picking it up.) */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

static const tl_size toy_sizes[] = {{3, 5, 7}, {8, 8, 8}};
static const tl_lab toy = {.id = "07-toy", .summary = "a toy", .sizes = toy_sizes,
                           .nsizes = 2, .safety = {3, 5, 7}, .perf = {8, 8, 8},
                           .baseline = true};

static void register_toy(void)
{
    tl_error err;
    cr_assert_eq(tl_lab_register(&toy, &err), 0, "%s", err.msg);
}

/* What tl_lab_names_expand writes for `text`; free it. */
static char *expanded(const char *text)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    cr_assert_not_null(f);
    tl_lab_names_expand(f, text);
    fclose(f);
    return out;
}

Test(registry, the_kits_lists_are_the_texts_once_written_by_hand)
{
    char names[TL_LAB_NAMES_SIZE];
    cr_expect_str_eq(tl_lab_names(TL_LAB_NAMES_SPACED, names, sizeof names),
                     "01-basic 02-tiled 03-arbitrary 04-rectangular 05-bank-conflicts "
                     "06-challenge");
    cr_expect_str_eq(tl_lab_names(TL_LAB_NAMES_RANGE, names, sizeof names),
                     "01-basic ... 06-challenge");
    char *text = expanded("  LAB             {lab-commas} (or 01, 2, tiled, ...), or `all`\n"
                          "  LAB              {labs} (or 01, 2, tiled, ...)\n");
    cr_expect_str_eq(text,
                     "  LAB             01-basic, 02-tiled, 03-arbitrary, 04-rectangular, "
                     "05-bank-conflicts,\n"
                     "                  06-challenge (or 01, 2, tiled, ...), or `all`\n"
                     "  LAB              01-basic ... 06-challenge (or 01, 2, tiled, ...)\n");
    free(text);
}

Test(registry, a_registered_lab_is_found_by_id_number_and_name, .init = register_toy)
{
    int n = 0;
    const tl_lab *labs = tl_labs(&n);
    cr_assert_eq(n, 7);
    const char *names[] = {"07-toy", "7", "07", "toy", "TOY"};
    for (int i = 0; i < 5; i++)
        cr_expect_eq(tl_lab_find(names[i]), &labs[6], "%s", names[i]);
    cr_expect_eq(tl_lab_find("06"), &labs[5]);
    cr_expect_null(tl_lab_find("8"));
    /* its capabilities are its own, not a neighbour's */
    cr_expect(labs[6].baseline && !labs[6].host_call && !labs[6].square);
    cr_expect_eq(labs[6].nsizes, 2);
}

Test(registry, a_registered_lab_is_in_every_generated_list, .init = register_toy)
{
    char names[TL_LAB_NAMES_SIZE];
    cr_expect_str_eq(tl_lab_names(TL_LAB_NAMES_RANGE, names, sizeof names),
                     "01-basic ... 07-toy");
    cr_expect(strstr(tl_lab_names(TL_LAB_NAMES_SPACED, names, sizeof names),
                     " 06-challenge 07-toy") != NULL);
    char *text = expanded("  LAB             {lab-commas} (or 01, 2, tiled, ...)\n");
    cr_expect_str_eq(text,
                     "  LAB             01-basic, 02-tiled, 03-arbitrary, 04-rectangular, "
                     "05-bank-conflicts,\n"
                     "                  06-challenge, 07-toy (or 01, 2, tiled, ...)\n");
    free(text);
}

Test(registry, a_lab_is_refused_a_place_or_name_not_its_own, .init = register_toy)
{
    tl_error err;
    tl_lab wrong = toy;
    wrong.id = "09-late"; /* the eighth lab */
    cr_expect_eq(tl_lab_register(&wrong, &err), -1);
    cr_expect(strstr(err.msg, "\"08-NAME\"") != NULL, "%s", err.msg);
    wrong.id = "08-tiled"; /* lab 02's name */
    cr_expect_eq(tl_lab_register(&wrong, &err), -1);
    cr_expect(strstr(err.msg, "taken") != NULL, "%s", err.msg);
    wrong.id = "08-12"; /* a name that reads as a number */
    cr_expect_eq(tl_lab_register(&wrong, &err), -1);
    wrong.id = NULL;
    cr_expect_eq(tl_lab_register(&wrong, &err), -1);
    cr_expect(strstr(err.msg, "(no id)") != NULL, "%s", err.msg);
    int n = 0;
    tl_labs(&n);
    cr_expect_eq(n, 7);
}

Test(registry, one_resolution_gives_a_matrix_lab_or_a_described_one, .init = register_toy)
{
    runner_lab lab;
    tl_error err;
    cr_assert_eq(runner_lab_resolve("toy", &lab, &err), 0);
    cr_expect_eq(lab.kind, RUNNER_LAB_MATRIX);
    cr_expect_eq(runner_lab_matrix(&lab), tl_lab_find("07-toy"));
    cr_expect_null(runner_lab_described(&lab));
    cr_expect_str_eq(runner_lab_name(&lab), "07-toy");
    cr_expect(runner_lab_shipped(&lab));
    char datasets[PATH_MAX];
    runner_lab_datasets(&lab, "/kit", datasets, sizeof datasets);
    cr_expect_str_eq(datasets, "/kit/datasets/07-toy");

    cr_expect_eq(runner_lab_resolve("08-nothing", &lab, &err), RUNNER_LAB_UNKNOWN);

    const char *described = TILELAB_TEST_DATA "/../../examples/kit-labs/vector-add";
    cr_assert_eq(runner_lab_resolve(described, &lab, &err), 0, "%s", err.msg);
    cr_expect_eq(lab.kind, RUNNER_LAB_DESCRIBED);
    cr_expect_null(runner_lab_matrix(&lab));
    cr_assert_not_null(runner_lab_described(&lab));
    cr_expect_str_eq(runner_lab_name(&lab), "vector-add");
    cr_expect_not(runner_lab_shipped(&lab));
    runner_lab_datasets(&lab, "/kit", datasets, sizeof datasets);
    cr_expect_str_eq(datasets, runner_lab_described(&lab)->datasets);
    cr_expect(strstr(datasets, "vector-add/datasets") != NULL, "%s", datasets);

    /* a path that is there but holds no description is an error, not an unknown lab */
    cr_expect_eq(runner_lab_resolve(TILELAB_TEST_DATA, &lab, &err), -1);
}

/* What run, diagnose, grade and export ask of a lab comes from the one value, whichever its
 * kind: a registered matrix lab answers from its registry entry, a lab.json from its
 * description. A wrong answer here would send a grading to the wrong datasets or rubric, or
 * run a whole program by the wrong inputs. */
Test(registry, a_labs_capabilities_come_from_the_one_value, .init = register_toy)
{
    runner_lab toy_lab, reduction;
    tl_error err;
    runner_lab_of(tl_lab_find("toy"), &toy_lab);
    cr_expect_str_eq(runner_lab_name(&toy_lab), "07-toy");
    tl_size perf = runner_lab_perf_size(&toy_lab);
    cr_expect(perf.m == 8 && perf.k == 8 && perf.n == 8);
    cr_expect_str_eq(runner_lab_dataset_marker(&toy_lab), "input0.raw");
    char path[PATH_MAX];
    runner_lab_rubric(&toy_lab, "/rubrics", path, sizeof path);
    cr_expect_str_eq(path, "/rubrics/07-toy.rubric");
    runner_program_lab whole;
    runner_lab_whole(&toy_lab, "/kit/datasets/07-toy", &whole);
    cr_expect_str_eq(whole.name, "07-toy");
    cr_expect_str_eq(whole.type, "matrix");
    cr_expect_eq(whole.ninputs, 2);
    cr_expect_str_eq(whole.inputs[1], "input1.raw");
    cr_expect_str_eq(whole.datasets, "/kit/datasets/07-toy");
    cr_expect_eq(whole.answer, RUNNER_ANSWER_AS_IS);

    const char *folder = TILELAB_TEST_DATA "/../../examples/kit-labs/reduction";
    cr_assert_eq(runner_lab_read(folder, &reduction, &err), 0, "%s", err.msg);
    cr_expect_null(runner_lab_matrix(&reduction));
    cr_expect_str_eq(runner_lab_name(&reduction), "reduction");
    perf = runner_lab_perf_size(&reduction);
    cr_expect(perf.m == RUNNER_PREDICT_SIZE && perf.n == RUNNER_PREDICT_SIZE);
    cr_expect_str_eq(runner_lab_dataset_marker(&reduction), "input.raw");
    runner_lab_rubric(&reduction, "/rubrics", path, sizeof path);
    cr_expect_str_eq(path, "/rubrics/program.rubric");
    runner_lab_whole(&reduction, "/elsewhere", &whole);
    cr_expect_eq(whole.answer, RUNNER_ANSWER_SUM);
    cr_expect_str_eq(whole.datasets, runner_lab_described(&reduction)->datasets);
    cr_expect_eq(runner_lab_read(TILELAB_TEST_DATA, &reduction, &err), -1);
}
