/* Lab descriptions (lab.json) of labs graded as whole libwb programs: a good one is read with
 * its folders resolved beside it, anything else is refused naming the key or line and what was
 * expected. */
#include "runner.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/tl-lab-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char sub[128];
    snprintf(sub, sizeof sub, "%s/datasets", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

static void write_lab(const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/lab.json", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

TestSuite(program_lab, .init = make_dir, .fini = remove_dir);

Test(program_lab, a_description_is_read_with_its_folders_beside_it)
{
    write_lab("{\"name\": \"reduction\", \"title\": \"List reduction\", \"type\": \"vector\",\n"
              " \"tolerance\": \"libwb\", \"answer\": \"sum\", \"inputs\": [\"input.raw\"],\n"
              " \"output\": \"output.raw\", \"datasets\": \"datasets\", \"rubric\": \"r.rubric\"}\n");
    runner_program_lab lab;
    tl_error err;
    cr_assert_eq(runner_program_lab_read(dir, &lab, &err), 0, "%s", err.msg);
    cr_expect_str_eq(lab.name, "reduction");
    cr_expect_str_eq(lab.type, "vector");
    cr_expect_eq(lab.tolerance, TL_TOLERANCE_LIBWB);
    cr_expect_eq(lab.answer, RUNNER_ANSWER_SUM);
    cr_expect_eq(lab.ninputs, 1);
    cr_expect_str_eq(lab.inputs[0], "input.raw");
    char want[256];
    snprintf(want, sizeof want, "%s/datasets", dir);
    cr_expect_str_eq(lab.datasets, want);
    snprintf(want, sizeof want, "%s/r.rubric", dir);
    cr_expect_str_eq(lab.rubric, want);
}

Test(program_lab, bad_descriptions_say_what_is_wrong)
{
    static const struct {
        const char *text, *says;
    } cases[] = {
        {"{\"name\": \"x\",\n \"type\": \"vector\",,\n}", "lab.json:2: not valid JSON"},
        {"[1]", "expected a JSON object"},
        {"{\"name\": \"x\", \"colour\": 1}", "unknown key \"colour\""},
        {"{\"type\": \"vector\"}", "\"name\" must be a non-empty string"},
        {"{\"name\": \"Vector Add\", \"type\": \"vector\", \"tolerance\": \"libwb\", "
         "\"inputs\": [\"a\"], \"output\": \"o\", \"datasets\": \"datasets\"}",
         "expected lower-case letters"},
        {"{\"name\": \"x\", \"type\": \"tensor\", \"tolerance\": \"libwb\", \"inputs\": [\"a\"], "
         "\"output\": \"o\", \"datasets\": \"datasets\"}",
         "\"type\" is \"tensor\"; expected one of matrix, vector, integral_vector, histogram, image"},
        {"{\"name\": \"x\", \"type\": \"vector\", \"tolerance\": \"close\", \"inputs\": [\"a\"], "
         "\"output\": \"o\", \"datasets\": \"datasets\"}", "expected one of bound, libwb, exact, libgputk"},
        {"{\"name\": \"x\", \"type\": \"vector\", \"tolerance\": \"bound\", \"inputs\": [\"a\"], "
         "\"output\": \"o\", \"datasets\": \"datasets\"}", "for \"type\": \"matrix\" only"},
        {"{\"name\": \"x\", \"type\": \"image\", \"tolerance\": \"libwb\", \"answer\": \"sum\", "
         "\"inputs\": [\"a\"], \"output\": \"o\", \"datasets\": \"datasets\"}",
         "needs \"type\": \"vector\""},
        {"{\"name\": \"x\", \"type\": \"vector\", \"tolerance\": \"libwb\", \"inputs\": [], "
         "\"output\": \"o\", \"datasets\": \"datasets\"}", "an array of 1 to 8 file names"},
        {"{\"name\": \"x\", \"type\": \"vector\", \"tolerance\": \"libwb\", \"inputs\": [\"../a\"], "
         "\"output\": \"o\", \"datasets\": \"datasets\"}", "expected a file name inside each"},
        {"{\"name\": \"x\", \"type\": \"vector\", \"tolerance\": \"libwb\", \"inputs\": [\"a\"], "
         "\"output\": \"o\", \"datasets\": \"nowhere\"}", "nowhere is not a folder"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_lab(cases[i].text);
        runner_program_lab lab;
        tl_error err;
        cr_expect_eq(runner_program_lab_read(dir, &lab, &err), -1, "case %zu was read", i);
        cr_expect(strstr(err.msg, cases[i].says) != NULL, "case %zu: %s", i, err.msg);
    }
    runner_program_lab lab;
    tl_error err;
    cr_expect_eq(runner_program_lab_read("/nonexistent/lab", &lab, &err), -1);
    cr_expect(strstr(err.msg, "no such lab description") != NULL, "%s", err.msg);
}
