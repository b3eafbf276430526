/* The export platforms' table: a toy platform added as a course would add its own is found by
 * name, named in the messages, and its bundle put together and published by export_bundle,
 * the path `./tilelab export PLATFORM LAB` takes (cli/cmd_export.c only parses and prints). */
#include "export.h"
#include "scratch.h"
#include "util.h"

#include <sys/stat.h>

static int toy_fill(const export_request *r, const char *stage, tl_error *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/toy.txt", stage);
    const char *lab = runner_lab_name(r->settings.lab);
    if (tl_write_file_atomic(path, lab, strlen(lab), err) != 0)
        return -1;
    snprintf(path, sizeof path, "%.3000s/%s", stage, EXPORT_CONF);
    return export_write_conf(path, &r->settings, err);
}

static void toy_done(const export_request *r, const char *out, char *text, size_t size)
{
    snprintf(text, size, "wrote %s: the toy's bundle of %s\n", out, runner_lab_name(r->settings.lab));
}

static int broken_fill(const export_request *r, const char *stage, tl_error *err)
{
    (void)r;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/half.txt", stage);
    tl_write_file_atomic(path, "x", 1, NULL);
    return tl_error_set(err, "the toy broke halfway");
}

static const export_platform toy = {"toy", false, true, toy_fill, toy_done};
static const export_platform broken = {"broken", false, true, broken_fill, toy_done};

static void init(void)
{
    scratch_init();
}

static void fini(void)
{
    files_remove_tree(scratch_dir);
}

static export_request request_for(const char *out)
{
    static runner_lab lab;
    cr_assert_not_null(tl_lab_find("02"));
    runner_lab_of(tl_lab_find("02"), &lab);
    export_request r = {.settings = {.lab = &lab, .timeout = 10, .sandbox = true},
                        .root = ".", .out = out, .image = "tilelab-grader"};
    return r;
}

/* Nothing of the scratch folder but `keep`: no stage left behind. */
static void assert_only(const char *keep)
{
    DIR *d = opendir(scratch_dir);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));)
        cr_assert(e->d_name[0] == '.' || (keep && strcmp(e->d_name, keep) == 0),
                  "left in the scratch folder: %s", e->d_name);
    closedir(d);
}

TestSuite(export_platform, .init = init, .fini = fini);

Test(export_platform, an_added_platform_is_found_and_named_after_the_kits_own)
{
    cr_assert_null(export_platform_find("toy"));
    cr_assert_eq(export_platform_add(&toy), 0);
    cr_assert_eq(export_platform_find("toy"), &toy);
    cr_assert_eq(export_platform_find("gradescope"), &export_gradescope);
    cr_assert_eq(export_platform_at(2), &toy);
    cr_assert_null(export_platform_at(3));
    char names[256];
    export_platform_names(names, sizeof names);
    cr_assert_str_eq(names, "gradescope, prairielearn or toy");
}

Test(export_platform, a_taken_name_or_an_incomplete_platform_is_refused)
{
    export_platform twin = toy, nameless = toy, no_fill = toy;
    twin.name = "prairielearn";
    nameless.name = "";
    no_fill.name = "no-fill";
    no_fill.fill = NULL;
    cr_assert_eq(export_platform_add(&twin), -1);
    cr_assert_eq(export_platform_add(&nameless), -1);
    cr_assert_eq(export_platform_add(&no_fill), -1);
    cr_assert_eq(export_platform_add(&toy), 0);
    cr_assert_eq(export_platform_add(&toy), -1, "the same name twice");
    cr_assert_null(export_platform_find("no-fill"));
}

Test(export_platform, the_bundle_is_what_the_platform_put_in_its_stage)
{
    cr_assert_eq(export_platform_add(&toy), 0);
    export_request r = request_for(scratch_path("bundle"));
    tl_error err;
    char done[512];
    cr_assert_eq(export_bundle(export_platform_find("toy"), &r, &err, done, sizeof done), 0,
                 "%s", err.msg);
    size_t len;
    char *lab = files_read(scratch_path("bundle/toy.txt"), &len);
    cr_assert_not_null(lab);
    cr_assert_str_eq(lab, "02-tiled");
    free(lab);
    char *conf = files_read(scratch_path("bundle/" EXPORT_CONF), &len);
    cr_assert_not_null(conf);
    cr_assert_not_null(strstr(conf, "02-tiled"), "%s", conf);
    free(conf);
    cr_assert_not_null(strstr(done, "the toy's bundle of 02-tiled"), "%s", done);
    assert_only("bundle");
}

Test(export_platform, an_existing_output_or_an_image_it_does_not_take_is_refused)
{
    export_request r = request_for(scratch_path("taken"));
    cr_assert_eq(mkdir(scratch_path("taken"), 0755), 0);
    tl_error err;
    char done[512];
    cr_assert_eq(export_bundle(&toy, &r, &err, done, sizeof done), -1);
    cr_assert_not_null(strstr(err.msg, "already exists"), "%s", err.msg);
    r = request_for(scratch_path("out"));
    r.image_given = true;
    cr_assert_eq(export_bundle(&toy, &r, &err, done, sizeof done), -1);
    cr_assert_not_null(strstr(err.msg, "--image is for prairielearn"), "%s", err.msg);
    assert_only("taken");
}

Test(export_platform, a_platform_that_fails_leaves_nothing_behind)
{
    export_request r = request_for(scratch_path("out"));
    tl_error err;
    char done[512];
    cr_assert_eq(export_bundle(&broken, &r, &err, done, sizeof done), -1);
    cr_assert_str_eq(err.msg, "the toy broke halfway");
    assert_only(NULL);
}
