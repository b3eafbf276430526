/* The grader's output files: gradebook CSV (columns, quoting, numbers), Gradescope
 * results.json (exact fields, hidden items, leaderboard), student feedback (hidden datasets,
 * build messages, flags), the HTML report (escaping, SVG, summary) and the file layout. */
#include <criterion/criterion.h>

#include "outputs.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- scratch folder, one per test ------------------------------------------------------- */
static char g_dir[64];

static void scratch_init(void)
{
    strcpy(g_dir, "/tmp/tilelab-outputs-XXXXXX");
    cr_assert_not_null(mkdtemp(g_dir), "mkdtemp: %s", strerror(errno));
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        char sub[1024];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void scratch_fini(void)
{
    remove_tree(g_dir);
}

static const char *scratch(const char *name)
{
    static char path[4][1024];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%.400s/%.600s", g_dir, name);
    return p;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
    char *text = calloc(1, 1 << 20);
    size_t got = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[got] = '\0';
    return text;
}

/* Files under `path` whose name contains `part`, counted recursively. */
static int count_named(const char *path, const char *part)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    char sub[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n += strstr(e->d_name, part) != NULL;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        n += count_named(sub, part);
    }
    closedir(d);
    return n;
}

/* ---- journal entries ---------------------------------------------------------------------- */
/* One complete entry in the journal schema; tests change what they look at. */
static const char *const ENTRY =
    "{\"student\": \"alice\", \"lab\": \"02-tiled\", \"source\": \"alice/template.cu\","
    " \"source_hash\": \"9f3c\", \"backend\": \"gpu\", \"device\": \"NVIDIA H100 80GB HBM3\","
    " \"predicted_time\": false, \"graded_at\": \"2026-11-22T03:30:00Z\", \"execution_time\": 12.5,"
    " \"build\": {\"ok\": true, \"seconds\": 1.2, \"messages\": \"nvcc: fine\"},"
    " \"static\": [{\"name\": \"no forbidden libraries or calls\", \"ok\": true, \"detail\": \"\"},"
    "             {\"name\": \"uses __shared__\", \"ok\": true, \"detail\": \"\"}],"
    " \"datasets\": ["
    "  {\"name\": \"0\", \"size\": \"32x32x32\", \"hidden\": false, \"verdict\": \"pass\","
    "   \"detail\": \"PASS: all 1024 elements\", \"kernel_ms\": 0.012, \"gflops\": 5.4,"
    "   \"stdout\": \"\", \"stderr\": \"\"},"
    "  {\"name\": \"1\", \"size\": \"64x64x64\", \"hidden\": false, \"verdict\": \"pass\","
    "   \"detail\": \"PASS\", \"kernel_ms\": 0.02, \"gflops\": 26.2, \"stdout\": \"\", \"stderr\": \"\"},"
    "  {\"name\": \"2\", \"size\": \"100x100x100\", \"hidden\": false, \"verdict\": \"fail\","
    "   \"detail\": \"FAIL: 7 elements over the bound\", \"kernel_ms\": 0.01, \"gflops\": 200,"
    "   \"stdout\": \"\", \"stderr\": \"row 3 col 4 wrong\"},"
    "  {\"name\": \"7\", \"size\": \"999x777x555\", \"hidden\": true, \"verdict\": \"fail\","
    "   \"detail\": \"FAIL: SECRET-DETAIL\", \"kernel_ms\": 3.5, \"gflops\": 300,"
    "   \"stdout\": \"\", \"stderr\": \"SECRET-STDERR\"}],"
    " \"performance\": {\"student_ms\": 1.3, \"reference_ms\": 1.1, \"ratio\": 0.85,"
    "   \"predicted\": false, \"dataset\": \"1\"},"
    " \"score\": {\"total\": 87.5, \"max\": 100, \"items\": ["
    "  {\"name\": \"compile\", \"score\": 10, \"max_score\": 10, \"status\": \"passed\","
    "   \"visibility\": \"visible\", \"output\": \"builds\"},"
    "  {\"name\": \"dataset 0 (32x32x32)\", \"score\": 12, \"max_score\": 12, \"status\": \"passed\","
    "   \"visibility\": \"visible\", \"output\": \"pass: PASS\"},"
    "  {\"name\": \"dataset 2 (100x100x100)\", \"score\": 0, \"max_score\": 12, \"status\": \"failed\","
    "   \"visibility\": \"visible\", \"output\": \"fail: FAIL\"},"
    "  {\"name\": \"hidden dataset 7 (999x777x555)\", \"score\": 0, \"max_score\": 12,"
    "   \"status\": \"failed\", \"visibility\": \"after_due_date\", \"output\": \"fail: SECRET-DETAIL\"}]}"
    "}";

static cJSON *entry(const char *student, double total)
{
    cJSON *e = cJSON_Parse(ENTRY);
    cr_assert_not_null(e);
    cJSON_ReplaceItemInObject(e, "student", cJSON_CreateString(student));
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(e, "score"), "total", cJSON_CreateNumber(total));
    return e;
}

static cJSON *score_items(cJSON *e)
{
    return cJSON_GetObjectItem(cJSON_GetObjectItem(e, "score"), "items");
}

static cJSON *simple_item(const char *name, double score)
{
    cJSON *it = cJSON_CreateObject();
    cJSON_AddStringToObject(it, "name", name);
    cJSON_AddNumberToObject(it, "score", score);
    cJSON_AddNumberToObject(it, "max_score", 10);
    cJSON_AddStringToObject(it, "status", "passed");
    cJSON_AddStringToObject(it, "visibility", "visible");
    cJSON_AddStringToObject(it, "output", "");
    return it;
}

/* Names of an object's members, in order, joined with commas. */
static void keys_of(const cJSON *o, char *out, size_t size)
{
    out[0] = '\0';
    const cJSON *c;
    cJSON_ArrayForEach(c, o) {
        strncat(out, c->string, size - strlen(out) - 2);
        strcat(out, ",");
    }
}

/* ---- gradebook.csv ------------------------------------------------------------------------ */
TestSuite(gradebook, .init = scratch_init, .fini = scratch_fini);

Test(gradebook, columns_are_the_union_in_first_seen_order_and_rows_sorted)
{
    cJSON *zed = cJSON_CreateObject(), *bob = cJSON_CreateObject();
    cJSON_AddStringToObject(zed, "student", "zed");
    cJSON *s = cJSON_AddObjectToObject(zed, "score");
    cJSON_AddNumberToObject(s, "total", 15);
    cJSON_AddNumberToObject(s, "max", 20);
    cJSON *items = cJSON_AddArrayToObject(s, "items");
    cJSON_AddItemToArray(items, simple_item("compile", 10));
    cJSON_AddItemToArray(items, simple_item("perf", 5));
    cJSON_AddStringToObject(bob, "student", "bob");
    s = cJSON_AddObjectToObject(bob, "score");
    cJSON_AddNumberToObject(s, "total", 18);
    cJSON_AddNumberToObject(s, "max", 20);
    items = cJSON_AddArrayToObject(s, "items");
    cJSON_AddItemToArray(items, simple_item("extra", 8));
    cJSON_AddItemToArray(items, simple_item("compile", 10));
    cJSON *entries[] = {zed, bob};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_gradebook(scratch("g.csv"), entries, 2, &err), 0, "%s", err.msg);
    char *text = slurp(scratch("g.csv"));
    cr_assert_str_eq(text, "student,total,max,compile,perf,extra\r\n"
                           "bob,18,20,10,,8\r\n"
                           "zed,15,20,10,5,\r\n");
    free(text);
    cJSON_Delete(zed);
    cJSON_Delete(bob);
}

/* A line break in a cell is shown as \\n: every cell is one line. */
Test(gradebook, quotes_commas_quotes_and_line_breaks)
{
    cJSON *e = entry("o\"brien, jr", 50);
    cJSON_AddItemToArray(score_items(e), simple_item("speed, \"fast\"\nbonus", 3));
    cJSON *entries[] = {e};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_gradebook(scratch("g.csv"), entries, 1, &err), 0, "%s", err.msg);
    char *text = slurp(scratch("g.csv"));
    cr_assert_not_null(strstr(text, ",\"speed, \"\"fast\"\"\\nbonus\"\r\n"), "header: %s", text);
    cr_assert_not_null(strstr(text, "\r\n\"o\"\"brien, jr\",50,100,"), "row: %s", text);
    /* A plain name stays unquoted. */
    cr_assert_not_null(strstr(text, "student,total,max,compile,dataset 0 (32x32x32),"));
    free(text);
    cJSON_Delete(e);
}

Test(gradebook, numbers_have_at_most_two_decimals_and_no_trailing_zeros)
{
    cJSON *e = entry("amy", 87.5);
    cJSON *items = score_items(e);
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(items, 0), "score", cJSON_CreateNumber(10.0 / 3));
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(items, 1), "score", cJSON_CreateNumber(12.10));
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(items, 2), "score", cJSON_CreateNumber(-0.0001));
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(items, 3), "score", cJSON_CreateNumber(7.999));
    cJSON *entries[] = {e};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_gradebook(scratch("g.csv"), entries, 1, &err), 0, "%s", err.msg);
    char *text = slurp(scratch("g.csv"));
    char *row = strstr(text, "\r\n");
    cr_assert_not_null(row);
    cr_assert_str_eq(row + 2, "amy,87.5,100,3.33,12.1,pass,0,fail,8,fail\r\n");
    free(text);
    cJSON_Delete(e);
}

/* Each dataset's verdict in a column beside its points, read from the start of its output. */
Test(gradebook, dataset_verdicts_beside_their_points)
{
    cJSON *e = entry("amy", 87.5);
    cJSON *ds2 = cJSON_GetArrayItem(score_items(e), 2);
    cJSON_ReplaceItemInObject(ds2, "output",
                              cJSON_CreateString("unsafe: shared-memory race at t.cu:25 and line 29"));
    cJSON *entries[] = {e};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_gradebook(scratch("g.csv"), entries, 1, &err), 0, "%s", err.msg);
    char *text = slurp(scratch("g.csv"));
    cr_assert_str_eq(text, "student,total,max,compile,dataset 0 (32x32x32),"
                           "dataset 0 (32x32x32) verdict,dataset 2 (100x100x100),"
                           "dataset 2 (100x100x100) verdict,hidden dataset 7 (999x777x555),"
                           "hidden dataset 7 (999x777x555) verdict\r\n"
                           "amy,87.5,100,10,12,pass,0,unsafe,0,fail\r\n");
    free(text);
    cJSON_Delete(e);
}

/* ---- the roster ------------------------------------------------------------------------------- */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(gradebook, a_roster_joins_its_columns_and_loses_nobody)
{
    write_text(scratch("roster.csv"), "\xef\xbb\xbfname,id,email\r\n"
                                      "\"Doe, Amy\",amy,amy@example.edu\r\n"
                                      "Zoe Q,zoe,\"z\"\"q@example.edu\"\n\n");
    grader_roster r;
    tl_error err = {{0}};
    cr_assert_eq(grader_roster_read(scratch("roster.csv"), &r, &err), 0, "%s", err.msg);
    cr_assert_eq(r.ncols, 2);
    cr_assert_eq(r.nrows, 2);
    cr_assert_str_eq(r.cols[0], "name");
    cr_assert_str_eq(r.values[1 * 2 + 1], "z\"q@example.edu");
    cJSON *amy = entry("amy", 87.5), *bob = entry("bob", 50);
    cJSON *entries[] = {amy, bob};
    cr_assert_eq(grader_write_gradebook_roster(scratch("g.csv"), entries, 2, &r, &err), 0, "%s",
                 err.msg);
    char *text = slurp(scratch("g.csv"));
    cr_assert_eq(strncmp(text, "student,name,email,total,max,compile,", 37), 0, "%s", text);
    cr_assert_not_null(strstr(text, "\r\namy,\"Doe, Amy\",amy@example.edu,87.5,100,"), "%s", text);
    cr_assert_not_null(strstr(text, ",not in the roster\r\n"), "bob: %s", text);
    cr_assert_not_null(strstr(text, "\r\nzoe,Zoe Q,\"z\"\"q@example.edu\",0,100,"), "%s", text);
    cr_assert_not_null(strstr(text, ",no submission\r\n"), "%s", text);
    free(text);
    grader_roster_free(&r);
    cJSON_Delete(amy);
    cJSON_Delete(bob);
}

Test(gradebook, a_bad_roster_is_named_with_its_line)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"name,email\namy,a@x\n", "roster.csv:1: the header row names no \"id\" column"},
        {"id,name\namy,Amy\nbob\n", "roster.csv:3: 1 cell(s), the header has 2"},
        {"id,name\namy,Amy\namy,Again\n", "roster.csv:3: id \"amy\" is in the roster twice"},
        {"id,name\n,Nobody\n", "roster.csv:2: the id is empty"},
        {"id,name\namy,\"Amy\nbob,Bob\n", "roster.csv:2: a quoted cell is never closed"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(scratch("roster.csv"), cases[i].text);
        grader_roster r;
        tl_error err = {{0}};
        cr_assert_eq(grader_roster_read(scratch("roster.csv"), &r, &err), -1, "case %zu", i);
        cr_assert_not_null(strstr(err.msg, cases[i].message), "case %zu: %s", i, err.msg);
    }
}

/* ---- results.json --------------------------------------------------------------------------- */
TestSuite(results_json, .init = scratch_init, .fini = scratch_fini);

static cJSON *write_and_parse(const cJSON *e)
{
    tl_error err = {{0}};
    cr_assert_eq(grader_write_results_json(scratch("results.json"), e, &err), 0, "%s", err.msg);
    char *text = slurp(scratch("results.json"));
    cJSON *doc = cJSON_Parse(text);
    cr_assert_not_null(doc, "not JSON: %s", text);
    free(text);
    return doc;
}

Test(results_json, has_exactly_the_gradescope_fields_and_values)
{
    cJSON *e = entry("alice", 87.5);
    /* All visible: the total and the time are there (with hidden tests they are not: below). */
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(score_items(e), 3), "visibility",
                              cJSON_CreateString("visible"));
    cJSON *doc = write_and_parse(e);
    char keys[512];
    keys_of(doc, keys, sizeof keys);
    cr_assert_str_eq(keys, "score,execution_time,output,output_format,test_output_format,visibility,tests,leaderboard,");
    cr_assert_float_eq(cJSON_GetObjectItem(doc, "score")->valuedouble, 87.5, 1e-9);
    cr_assert_float_eq(cJSON_GetObjectItem(doc, "execution_time")->valuedouble, 12.5, 1e-9);
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "visibility")->valuestring, "visible");
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(doc, "output")));
    const cJSON *tests = cJSON_GetObjectItem(doc, "tests"), *t;
    cr_assert_eq(cJSON_GetArraySize(tests), 4);
    cJSON_ArrayForEach(t, tests) {
        keys_of(t, keys, sizeof keys);
        cr_assert_str_eq(keys, "name,score,max_score,status,output,output_format,visibility,");
    }
    t = cJSON_GetArrayItem(tests, 2);
    cr_assert_str_eq(cJSON_GetObjectItem(t, "name")->valuestring, "dataset 2 (100x100x100)");
    cr_assert_float_eq(cJSON_GetObjectItem(t, "max_score")->valuedouble, 12, 1e-9);
    cr_assert_str_eq(cJSON_GetObjectItem(t, "status")->valuestring, "failed");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(tests, 0), "status")->valuestring,
                     "passed");
    const cJSON *board = cJSON_GetObjectItem(doc, "leaderboard"), *l;
    cr_assert_eq(cJSON_GetArraySize(board), 2);
    cJSON_ArrayForEach(l, board) {
        keys_of(l, keys, sizeof keys);
        cr_assert_str_eq(keys, "name,value,order,");
    }
    cJSON_Delete(doc);
    cJSON_Delete(e);
}

Test(results_json, a_failed_build_shows_the_compilers_messages)
{
    cJSON *e = entry("heidi", 0);
    cJSON *doc = write_and_parse(e);
    const char *shown = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "tests"), 0),
                                            "output")->valuestring;
    cr_assert_str_eq(shown, "builds", "a build that worked: no messages");
    cJSON_Delete(doc);
    cJSON *build = cJSON_GetObjectItem(e, "build");
    cJSON_ReplaceItemInObject(build, "ok", cJSON_CreateFalse());
    cJSON_ReplaceItemInObject(build, "messages",
                              cJSON_CreateString("template.cu(25): error: identifier "
                                                 "\"__synchthreads\" is undefined\n"
                                                 "   25 |     __synchthreads();\n"));
    cJSON *compile = cJSON_GetArrayItem(score_items(e), 0);
    cJSON_ReplaceItemInObject(compile, "output", cJSON_CreateString("does not build"));
    doc = write_and_parse(e);
    shown = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "tests"), 0),
                                "output")->valuestring;
    cr_assert_str_eq(shown, "does not build\n\ntemplate.cu(25): error: identifier "
                            "\"__synchthreads\" is undefined\n   25 |     __synchthreads();\n");
    cJSON_Delete(doc);
    /* cut as the feedback cuts them */
    char *many = malloc(20001);
    cr_assert_not_null(many);
    memset(many, 'x', 20000);
    many[20000] = '\0';
    cJSON_ReplaceItemInObject(build, "messages", cJSON_CreateString(many));
    free(many);
    doc = write_and_parse(e);
    shown = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "tests"), 0),
                                "output")->valuestring;
    cr_assert_not_null(strstr(shown, "\n[... 12000 more bytes not shown]"), "%s", shown);
    cr_assert_lt(strlen(shown), 8100);
    cJSON_Delete(doc);
    cJSON_Delete(e);
}

Test(results_json, hidden_items_keep_their_visibility)
{
    cJSON *e = entry("alice", 87.5);
    cJSON *doc = write_and_parse(e);
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "tests"), 3);
    cr_assert_str_eq(cJSON_GetObjectItem(t, "name")->valuestring, "hidden dataset 7 (999x777x555)");
    cr_assert_str_eq(cJSON_GetObjectItem(t, "visibility")->valuestring, "after_due_date");
    /* The top-level summary is visible before the due date: it must not count hidden datasets. */
    cr_assert_null(strstr(cJSON_GetObjectItem(doc, "output")->valuestring, "SECRET"));
    cr_assert_not_null(strstr(cJSON_GetObjectItem(doc, "output")->valuestring, "2 of 3 visible"));
    cJSON_Delete(doc);
    cJSON_Delete(e);
}

Test(results_json, summary_says_how_much_is_hidden_but_not_how_it_went)
{
    cJSON *e = entry("alice", 87.5);
    cJSON *doc = write_and_parse(e);
    const char *out = cJSON_GetObjectItem(doc, "output")->valuestring;
    cr_assert_not_null(strstr(out, "22 / 34 points on the visible tests."), "%s", out);
    cr_assert_not_null(strstr(out, "1 more test(s), worth 12 points, are hidden"), "%s", out);
    cr_assert_null(strstr(out, "87.5"), "the total gives the hidden test away: %s", out);
    /* Neither the total nor the time the grading took (a hidden timeout takes longer). */
    cr_assert_null(cJSON_GetObjectItem(doc, "score"));
    cr_assert_null(cJSON_GetObjectItem(doc, "execution_time"));
    cJSON_Delete(doc);
    /* Made visible, the same item is no longer counted as hidden. */
    cJSON *last = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "score"), "items"), 3);
    cJSON_ReplaceItemInObject(last, "visibility", cJSON_CreateString("visible"));
    doc = write_and_parse(e);
    out = cJSON_GetObjectItem(doc, "output")->valuestring;
    cr_assert_not_null(strstr(out, "includes no hidden tests"), "%s", out);
    cJSON_Delete(doc);
    cJSON_Delete(e);
}

Test(results_json, leaderboard_uses_passing_visible_datasets_and_omits_unknowns)
{
    cJSON *e = entry("alice", 87.5);
    cJSON_AddItemToArray(score_items(e), simple_item("performance", 5));
    cJSON *doc = write_and_parse(e);
    const cJSON *board = cJSON_GetObjectItem(doc, "leaderboard");
    const cJSON *g = cJSON_GetArrayItem(board, 0), *ms = cJSON_GetArrayItem(board, 1);
    cr_assert_str_eq(cJSON_GetObjectItem(g, "name")->valuestring, "GFLOP/s");
    /* 200 (failed) and 300 (hidden) are higher but must not count. */
    cr_assert_float_eq(cJSON_GetObjectItem(g, "value")->valuedouble, 26.2, 1e-9);
    cr_assert_str_eq(cJSON_GetObjectItem(g, "order")->valuestring, "desc");
    cr_assert_str_eq(cJSON_GetObjectItem(ms, "name")->valuestring, "kernel ms");
    cr_assert_float_eq(cJSON_GetObjectItem(ms, "value")->valuedouble, 1.3, 1e-9);
    cr_assert_str_eq(cJSON_GetObjectItem(ms, "order")->valuestring, "asc");
    cJSON_Delete(doc);
    /* No passing run and no timing: the leaderboard is empty, not zeros. */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(e, "performance"), "student_ms",
                              cJSON_CreateNull());
    const cJSON *d;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(e, "datasets"))
        cJSON_ReplaceItemInObject((cJSON *)d, "verdict", cJSON_CreateString("timeout"));
    doc = write_and_parse(e);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "leaderboard")), 0);
    cJSON_Delete(doc);
    cJSON_Delete(e);
}

/* ---- feedback -------------------------------------------------------------------------------- */
TestSuite(feedback, .init = scratch_init, .fini = scratch_fini);

static char *feedback_of(const cJSON *e)
{
    tl_error err = {{0}};
    cr_assert_eq(grader_write_feedback(scratch("f.txt"), e, &err), 0, "%s", err.msg);
    return slurp(scratch("f.txt"));
}

Test(feedback, hides_hidden_datasets_and_shows_visible_failures)
{
    cJSON *e = entry("alice", 87.5);
    char *text = feedback_of(e);
    cr_assert_null(strstr(text, "SECRET"), "hidden details leaked:\n%s", text);
    cr_assert_null(strstr(text, "999x777x555"), "hidden size leaked:\n%s", text);
    cr_assert_not_null(strstr(text, "hidden dataset: hidden"), "%s", text);
    cr_assert_not_null(strstr(text, "FAIL: 7 elements over the bound"), "%s", text);
    cr_assert_not_null(strstr(text, "row 3 col 4 wrong"), "%s", text);
    cr_assert_not_null(strstr(text, "compile: 10 / 10, passed"), "%s", text);
    /* With a hidden item, the total covers the visible items only. */
    cr_assert_not_null(strstr(text, "Score on visible items: 22 / 34 (1 hidden item worth 12"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "0.85x the reference"), "%s", text);
    free(text);
    /* Once the rubric makes hidden datasets visible, they are shown like the others. */
    cJSON *hidden_item = cJSON_GetArrayItem(score_items(e), 3);
    cJSON_ReplaceItemInObject(hidden_item, "visibility", cJSON_CreateString("visible"));
    text = feedback_of(e);
    cr_assert_not_null(strstr(text, "hidden 7 (999x777x555): fail"), "%s", text);
    cr_assert_not_null(strstr(text, "SECRET-DETAIL"), "%s", text);
    cr_assert_not_null(strstr(text, "Total: 87.5 / 100"), "%s", text);
    free(text);
    cJSON_Delete(e);
}

Test(feedback, shows_build_messages_only_when_the_build_failed)
{
    cJSON *e = entry("alice", 10);
    char *text = feedback_of(e);
    cr_assert_null(strstr(text, "nvcc: fine"), "%s", text);
    cr_assert_not_null(strstr(text, "Build: ok"), "%s", text);
    free(text);
    cJSON *build = cJSON_GetObjectItem(e, "build");
    cJSON_ReplaceItemInObject(build, "ok", cJSON_CreateFalse());
    cJSON_ReplaceItemInObject(build, "messages",
                              cJSON_CreateString("template.cu(12): error: expected a \";\"\n"
                                                 "1 error detected"));
    text = feedback_of(e);
    cr_assert_not_null(strstr(text, "Build: FAILED"), "%s", text);
    cr_assert_not_null(strstr(text, "  template.cu(12): error: expected a \";\"\n  1 error"),
                       "%s", text);
    free(text);
    cJSON_Delete(e);
}

Test(feedback, marks_predicted_timings)
{
    cJSON *e = entry("alice", 87.5);
    char *text = feedback_of(e);
    cr_assert_null(strstr(text, "predicted"), "%s", text);
    free(text);
    cJSON *perf = cJSON_GetObjectItem(e, "performance");
    cJSON_ReplaceItemInObject(perf, "predicted", cJSON_CreateTrue());
    text = feedback_of(e);
    cr_assert_not_null(strstr(text, "predicted for an H100 by the performance model"), "%s", text);
    free(text);
    cJSON_Delete(e);
}

/* ---- what run shows, in the feedback, results.json and the student's page ------------------- */
TestSuite(explained, .init = scratch_init, .fini = scratch_fini);

/* The explanation grade_one keeps for a dataset the checks found racing: a cause with its
 * lines. */
static void add_race(cJSON *d, const char *file, const char *why)
{
    char json[1024];
    snprintf(json, sizeof json, "{\"causes\": [{\"kind\": \"shared-memory race\", \"file\": \"%s\","
             " \"line\": 24, \"line2\": 27, \"detail\": \"%s\"}], \"findings\": 1}", file, why);
    cJSON *o = cJSON_Parse(json);
    cr_assert_not_null(o, "%s", json);
    cJSON_AddItemToObject(d, "explain", o);
    cJSON_ReplaceItemInObject(d, "verdict", cJSON_CreateString("unsafe"));
}

static cJSON *dataset_at(cJSON *e, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(e, "datasets"), i);
}

Test(explained, the_feedback_names_the_cause_of_a_visible_dataset_never_a_hidden_ones)
{
    cJSON *e = entry("alice", 87.5);
    add_race(dataset_at(e, 2), "t.cu", "a barrier after line 24 is missing");
    add_race(dataset_at(e, 3), "t.cu", "SECRET-CAUSE");
    char *text = feedback_of(e);
    cr_assert_not_null(strstr(text, "      cause: shared-memory race at t.cu:24 and line 27: a "
                                    "barrier after line 24 is missing\n"), "%s", text);
    cr_assert_null(strstr(text, "SECRET"), "%s", text);
    free(text);
    /* A hidden dataset shown after all (hidden_visibility = visible): its verdict and detail,
     * still never its causes. */
    cJSON_ReplaceItemInObject(cJSON_GetArrayItem(score_items(e), 3), "visibility",
                              cJSON_CreateString("visible"));
    text = feedback_of(e);
    cr_assert_not_null(strstr(text, "SECRET-DETAIL"), "%s", text);
    cr_assert_null(strstr(text, "SECRET-CAUSE"), "%s", text);
    free(text);
    cJSON_Delete(e);
}

static char *page_of(const cJSON *e)
{
    tl_error err = {{0}};
    cr_assert_eq(grader_write_student_page(scratch("p.html"), e, &err), 0, "%s", err.msg);
    return slurp(scratch("p.html"));
}

Test(explained, the_page_shows_what_run_report_shows_escaped_and_hides_hidden_datasets)
{
    cJSON *e = entry("<script>x</script>", 87.5);
    add_race(dataset_at(e, 2), "<i>t.cu", "a barrier after line 24 is missing & more");
    add_race(dataset_at(e, 3), "t.cu", "SECRET-CAUSE");
    cJSON_ReplaceItemInObject(e, "source", cJSON_CreateString("a\"b'<c>.cu"));
    char *page = page_of(e);
    cr_assert_null(strstr(page, "<script"), "%s", page);
    cr_assert_null(strstr(page, "<i>"), "%s", page);
    cr_assert_not_null(strstr(page, "&lt;script&gt;x&lt;/script&gt;"), "%s", page);
    cr_assert_not_null(strstr(page, "a&quot;b&#39;&lt;c&gt;.cu"), "%s", page);
    cr_assert_not_null(strstr(page, "<li>cause: shared-memory race at &lt;i&gt;t.cu:24 "
                                    "and line 27: a barrier after line 24 is missing &amp; more"
                                    "</li>"), "%s", page);
    cr_assert_null(strstr(page, "SECRET"), "%s", page);
    cr_assert_null(strstr(page, "999x777x555"), "%s", page);
    cr_assert_not_null(strstr(page, "hidden until results are released"), "%s", page);
    cr_assert_null(strstr(page, "src="), "nothing fetched: %s", page);
    cr_assert_null(strstr(page, "Build: failed"), "%s", page);
    free(page);
    /* A file that does not build: its messages, which quote its code, escaped. */
    cJSON *build = cJSON_GetObjectItem(e, "build");
    cJSON_ReplaceItemInObject(build, "ok", cJSON_CreateFalse());
    cJSON_ReplaceItemInObject(build, "messages", cJSON_CreateString(
        "t.cu(3): error: expected a \";\"\n    3 | if (a<b && c>d) </pre><script>\n"));
    page = page_of(e);
    cr_assert_not_null(strstr(page, "<h2>Build: failed</h2>\n<pre>t.cu(3): error: expected a "
                                    "&quot;;&quot;\n    3 | if (a&lt;b &amp;&amp; c&gt;d) "
                                    "&lt;/pre&gt;&lt;script&gt;\n</pre>"), "%s", page);
    free(page);
    cJSON_Delete(e);
}

/* How a student would read a hidden dataset's result before the due date: two submissions the
 * same on every visible dataset, one failing the hidden dataset (its kernel unsafe there, so
 * not timed and without performance points), the other passing it. Everything a student can
 * see before the due date (results.json's visible tests, summary and leaderboard, the
 * feedback, the page) must be the same for both. */
static cJSON *graded(bool hidden_passes)
{
    cJSON *e = entry("alice", 0);
    cJSON *items = score_items(e);
    cJSON *hidden_item = cJSON_GetArrayItem(items, 3);
    cJSON_ReplaceItemInObject(hidden_item, "score", cJSON_CreateNumber(hidden_passes ? 12 : 0));
    cJSON_ReplaceItemInObject(hidden_item, "status",
                              cJSON_CreateString(hidden_passes ? "passed" : "failed"));
    cJSON_ReplaceItemInObject(hidden_item, "output", cJSON_CreateString(
        hidden_passes ? "pass: all within the bound" : "unsafe: SECRET-DETAIL"));
    cJSON *perf = simple_item("performance", hidden_passes ? 9.5 : 0);
    cJSON_ReplaceItemInObject(perf, "visibility", cJSON_CreateString("after_due_date"));
    cJSON_ReplaceItemInObject(perf, "output", cJSON_CreateString(
        hidden_passes ? "0.85x the reference's speed" : "not timed: SECRET unsafe"));
    cJSON_AddItemToArray(items, perf);
    cJSON *score = cJSON_GetObjectItem(e, "score");
    cJSON_ReplaceItemInObject(score, "total", cJSON_CreateNumber(hidden_passes ? 43.5 : 22));
    cJSON_ReplaceItemInObject(e, "execution_time", cJSON_CreateNumber(hidden_passes ? 3 : 60));
    cJSON *d = dataset_at(e, 3);
    if (hidden_passes) {
        cJSON_ReplaceItemInObject(d, "verdict", cJSON_CreateString("pass"));
        cJSON_ReplaceItemInObject(d, "detail", cJSON_CreateString("all within the bound"));
    } else {
        add_race(d, "t.cu", "SECRET-CAUSE");
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(e, "performance"), "student_ms",
                                  cJSON_CreateNumber(0));
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(e, "performance"), "ratio",
                                  cJSON_CreateNumber(0));
    }
    return e;
}

/* results.json as a student sees it before the due date: without the tests they cannot see. */
static char *seen_before_due(const cJSON *e)
{
    cJSON *doc = write_and_parse(e);
    cJSON *tests = cJSON_GetObjectItem(doc, "tests");
    for (int i = cJSON_GetArraySize(tests) - 1; i >= 0; i--) {
        const char *vis = cJSON_GetObjectItem(cJSON_GetArrayItem(tests, i), "visibility")->valuestring;
        if (strcmp(vis, "visible") != 0)
            cJSON_DeleteItemFromArray(tests, i);
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    return text;
}

Test(explained, a_hidden_result_cannot_be_read_before_the_due_date)
{
    cJSON *fails = graded(false), *passes = graded(true);
    char *a = seen_before_due(fails), *b = seen_before_due(passes);
    cr_assert_str_eq(a, b, "results.json tells the hidden result:\n%s\n---\n%s", a, b);
    cr_assert_null(strstr(a, "SECRET"), "%s", a);
    free(a);
    free(b);
    a = feedback_of(fails);
    b = feedback_of(passes);
    cr_assert_str_eq(a, b, "the feedback tells the hidden result:\n%s\n---\n%s", a, b);
    free(a);
    free(b);
    a = page_of(fails);
    b = page_of(passes);
    cr_assert_str_eq(a, b, "the page tells the hidden result");
    free(a);
    free(b);
    cJSON_Delete(fails);
    cJSON_Delete(passes);
}

/* ---- report.html ------------------------------------------------------------------------------ */
TestSuite(report_html, .init = scratch_init, .fini = scratch_fini);

Test(report_html, escapes_names_and_holds_summary_and_charts)
{
    cJSON *a = entry("<script>alert('x')</script>", 87.5), *b = entry("bob & \"co\"", 60);
    cJSON *entries[] = {a, b};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_report_html(scratch("r.html"), entries, 2, "02-tiled", &err), 0,
                 "%s", err.msg);
    char *text = slurp(scratch("r.html"));
    cr_assert_null(strstr(text, "<script"), "unescaped name in the report");
    cr_assert_not_null(strstr(text, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    cr_assert_not_null(strstr(text, "bob &amp; &quot;co&quot;"));
    cr_assert_not_null(strstr(text, "<svg"));
    cr_assert_not_null(strstr(text, "<td class=\"mean\">73.75</td>"), "mean missing");
    cr_assert_not_null(strstr(text, ">reference</text>"));
    /* No external resources: nothing is fetched when the page is opened; the only links are to
     * the students' pages and feedback files beside it. */
    cr_assert_null(strstr(text, "src="));
    for (const char *h = strstr(text, "href="); h; h = strstr(h + 1, "href="))
        cr_assert(strncmp(h, "href=\"feedback/", 15) == 0 || strncmp(h, "href=\"pages/", 12) == 0,
                  "link: %.40s", h);
    cr_assert_null(strstr(text, "predicted H100 times (CPU backend)"));
    /* Rows are sorted by id in byte order: '<' (0x3c) comes before 'b'. */
    char *first = strstr(text, "<tr class=\"student\"><td>");
    cr_assert_not_null(first);
    cr_assert_eq(strncmp(first + strlen("<tr class=\"student\"><td>"), "&lt;script", 10), 0);
    free(text);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

Test(report_html, a_grid_of_verdicts_with_each_student_linked_to_their_feedback)
{
    cJSON *a = entry("alice", 50);
    cJSON *d2 = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "datasets"), 2);
    cJSON_ReplaceItemInObject(d2, "verdict", cJSON_CreateString("unsafe"));
    cJSON_ReplaceItemInObject(d2, "detail", cJSON_CreateString(
        "shared-memory race at t.cu:25 and line 29 (block (0,0,0), thread (0,14,0))"));
    cJSON *entries[] = {a};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_report_html(scratch("r.html"), entries, 1, NULL, &err), 0, "%s",
                 err.msg);
    char *text = slurp(scratch("r.html"));
    char *grid = strstr(text, "<section id=\"verdicts\">");
    cr_assert_not_null(grid, "%s", text);
    cr_assert_not_null(strstr(grid, "<th>hidden 7<br>999x777x555</th>"));
    cr_assert_not_null(strstr(grid, "<a href=\"pages/alice.html\">alice</a> "
                                    "(<a href=\"feedback/alice.txt\">text</a>)"), "%s", grid);
    cr_assert_not_null(strstr(grid, "<td class=\"v-pass\" title=\"PASS: all 1024 elements\">pass</td>"));
    cr_assert_not_null(strstr(grid, ">shared-memory race at t.cu:25 and line 29 </td>"), "%s", grid);
    cr_assert_not_null(strstr(text, "<p class=\"grading\">Graded 2026-11-22T03:30:00Z on the gpu "
                                    "backend (NVIDIA H100 80GB HBM3)"));
    free(text);
    cJSON_Delete(a);
}

Test(report_html, marks_predicted_times_in_the_chart_title)
{
    cJSON *a = entry("amy", 50);
    cJSON_ReplaceItemInObject(a, "predicted_time", cJSON_CreateTrue());
    cJSON *entries[] = {a};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_report_html(scratch("r.html"), entries, 1, NULL, &err), 0, "%s",
                 err.msg);
    char *text = slurp(scratch("r.html"));
    char *speed = strstr(text, "<section id=\"speed\"><h2>");
    cr_assert_not_null(speed);
    char *end = strstr(speed, "</h2>");
    cr_assert_not_null(end);
    *end = '\0';
    cr_assert_not_null(strstr(speed, "predicted H100 times (CPU backend)"), "title: %s", speed);
    /* Without a lab argument the entries' own lab names the page. */
    cr_assert_not_null(strstr(text, "<title>tilelab class report: 02-tiled</title>"));
    free(text);
    cJSON_Delete(a);
}

/* ---- the whole output folder -------------------------------------------------------------------- */
TestSuite(write_all, .init = scratch_init, .fini = scratch_fini);

Test(write_all, writes_every_file_inside_out_dir_and_leaves_no_temporaries)
{
    cJSON *a = entry("alice", 87.5), *b = entry("../evil", 10);
    cJSON *entries[] = {a, b};
    tl_error err = {{0}};
    char out[512];
    snprintf(out, sizeof out, "%s", scratch("out"));
    cr_assert_eq(grader_write_all(out, entries, 2, "02-tiled", NULL, &err), 0, "%s", err.msg);
    const char *want[] = {"out/gradebook.csv", "out/report.html", "out/results/alice/results.json",
                          "out/feedback/alice.txt", "out/results/id-2e2e2f6576696c/results.json",
                          "out/feedback/id-2e2e2f6576696c.txt", "out/pages/alice.html",
                          "out/pages/id-2e2e2f6576696c.html"};
    struct stat st;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        cr_assert_eq(stat(scratch(want[i]), &st), 0, "missing %s", want[i]);
        cr_assert_gt(st.st_size, 0, "empty %s", want[i]);
    }
    /* "../evil" must not climb out of out/. */
    cr_assert_neq(stat(scratch("out/evil.txt"), &st), 0);
    cr_assert_neq(stat(scratch("out/evil"), &st), 0);
    /* Rewriting replaces the files in place, still with no temporary left behind. */
    cr_assert_eq(grader_write_all(out, entries, 2, "02-tiled", NULL, &err), 0, "%s", err.msg);
    cr_assert_eq(count_named(g_dir, ".tmp"), 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

Test(write_all, failure_names_the_file_and_leaves_nothing)
{
    cJSON *a = entry("alice", 87.5);
    tl_error err = {{0}};
    cr_assert_eq(grader_write_feedback(scratch("no/such/folder/f.txt"), a, &err), -1);
    cr_assert_not_null(strstr(err.msg, "no/such/folder/f.txt"), "%s", err.msg);
    cr_assert_eq(grader_write_results_json(scratch("no/r.json"), NULL, &err), -1);
    cr_assert_eq(count_named(g_dir, ""), 0);
    /* The rename fails (a folder sits where the file goes): the temporary must not stay. */
    cr_assert_eq(mkdir(scratch("gradebook.csv"), 0755), 0);
    cJSON *entries[] = {a};
    cr_assert_eq(grader_write_gradebook(scratch("gradebook.csv"), entries, 1, &err), -1);
    cr_assert_not_null(strstr(err.msg, "cannot replace the file"), "%s", err.msg);
    cr_assert_eq(count_named(g_dir, ".tmp"), 0);
    cJSON_Delete(a);
}

/* ---- hostile classes -------------------------------------------------------------------- */
static bool has_byte(const char *text, char c) { return strchr(text, c) != NULL; }

static bool valid_utf8(const unsigned char *s)
{
    while (*s) {
        int n = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2 : (*s & 0xf8) == 0xf0 ? 3 : -1;
        if (n < 0)
            return false;
        for (int k = 1; k <= n; k++)
            if ((s[k] & 0xc0) != 0x80)
                return false;
        s += n + 1;
    }
    return true;
}

Test(write_all, hostile_ids_and_output_are_made_inert)
{
    char long_a[301], long_b[301];
    memset(long_a, 'x', 300);
    memset(long_b, 'x', 300);
    long_a[300] = long_b[300] = '\0';
    long_b[299] = 'y';
    const char *ids[] = {"esc\x1b[31mred", "=cmd|' /C calc'!A0", "bad\xff\xfeutf8", long_a,
                         long_b, "a/b", "a_b", "..", "+1", "@SUM(A1)", "",
                         "<script>alert(1)</script>", "-2\nTotal: 100 / 100"};
    enum { N = sizeof ids / sizeof ids[0] };
    cJSON *entries[N];
    for (int i = 0; i < N; i++) {
        entries[i] = entry(ids[i], 10);
        cJSON *ds = cJSON_GetObjectItem(entries[i], "datasets");
        cJSON *d = ds ? ds->child : NULL;
        if (d) {
            cJSON_ReplaceItemInObject(d, "verdict", cJSON_CreateString("wrong"));
            cJSON_ReplaceItemInObject(d, "detail", cJSON_CreateString("\x1b]8;;http://x\x07click\x1b]8;;\x07 \xc0\xaf"));
            cJSON_ReplaceItemInObject(d, "stderr",
                                      cJSON_CreateString("\x1b[2J\rPASS \xed\xa0\x80<script>"));
            cJSON_ReplaceItemInObject(d, "stdout", cJSON_CreateString("\x1b[31m\xff"));
        }
    }
    tl_error err = {{0}};
    const char *out = scratch("out");
    cr_assert_eq(grader_write_all(out, entries, N, "02-tiled", NULL, &err), 0, "%s", err.msg);
    char *csv = slurp(scratch("out/gradebook.csv"));
    cr_assert_not_null(csv);
    cr_expect(!has_byte(csv, 0x1b), "an escape byte in the gradebook");
    for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
        const char *cell = line[0] == '"' ? line + 1 : line;
        cr_expect(!strchr("=+-@", cell[0]), "a formula cell: %s", line);
    }
    free(csv);
    /* Every student has a folder of their own, and every results.json is valid UTF-8 JSON. */
    char name[256];
    for (int i = 0; i < N; i++) {
        char path[512];
        grader_file_name(ids[i], name, sizeof name);
        for (int j = 0; j < i; j++) {
            char other[256];
            grader_file_name(ids[j], other, sizeof other);
            cr_expect_str_neq(name, other, "ids %d and %d share a file name", i, j);
        }
        cr_expect(!strchr(name, '/') && strcmp(name, "..") != 0 && strlen(name) < 200, "%s", name);
        snprintf(path, sizeof path, "out/results/%s/results.json", name);
        char *json = slurp(scratch(path));
        cr_assert_not_null(json, "missing %s", path);
        cr_expect(valid_utf8((const unsigned char *)json), "%s is not UTF-8", path);
        cJSON *doc = cJSON_Parse(json);
        cr_expect_not_null(doc, "%s is not JSON", path);
        cJSON_Delete(doc);
        free(json);
        snprintf(path, sizeof path, "out/feedback/%s.txt", name);
        char *fb = slurp(scratch(path));
        cr_assert_not_null(fb);
        cr_expect(!has_byte(fb, 0x1b) && !has_byte(fb, 0x07) && !has_byte(fb, '\r'),
                  "control bytes in %s", path);
        /* An id cannot forge a line of the feedback. */
        cr_expect_null(strstr(fb, "\nTotal: 100 / 100"), "%s", fb);
        cr_expect(valid_utf8((const unsigned char *)fb));
        free(fb);
    }
    char *html = slurp(scratch("out/report.html"));
    cr_assert_not_null(html);
    cr_expect(!has_byte(html, 0x1b));
    cr_expect_null(strstr(html, "<script"), "a raw <script in the report");
    cr_expect(valid_utf8((const unsigned char *)html));
    free(html);
    /* The same id twice is refused, naming it inertly, before anything is written. */
    cJSON *twice[] = {entries[0], entries[1], entries[0]};
    cr_expect_eq(grader_write_all(scratch("out2"), twice, 3, "02-tiled", NULL, &err), -1);
    cr_expect_not_null(strstr(err.msg, "\"esc\\x1b[31mred\" and \"esc\\x1b[31mred\""), "%s",
                       err.msg);
    cr_expect(!has_byte(err.msg, 0x1b));
    struct stat st;
    cr_expect_neq(stat(scratch("out2"), &st), 0, "files were written for a refused class");
    for (int i = 0; i < N; i++)
        cJSON_Delete(entries[i]);
}

Test(write_all, check_ids_refuses_duplicates_and_names_both)
{
    cJSON *a = entry("alice", 1), *b = entry("bob", 2), *c = entry("carol", 3);
    cJSON *again = entry("bob", 4);
    cJSON *fine[] = {a, b, c};
    tl_error err = {{0}};
    cr_assert_eq(grader_check_ids(fine, 3, &err), 0, "%s", err.msg);
    cJSON *dup[] = {a, b, c, again};
    cr_assert_eq(grader_check_ids(dup, 4, &err), -1);
    cr_assert_not_null(strstr(err.msg, "same student id: \"bob\" and \"bob\""), "%s", err.msg);
    /* Ids that differ but that the old scheme mapped to one name now each have their own. */
    cJSON *slash = entry("a/b", 1), *under = entry("a_b", 2), *empty = entry("", 3);
    cJSON *none = entry("x", 4);
    cJSON_DeleteItemFromObject(none, "student");
    cJSON *distinct[] = {slash, under, empty};
    cr_assert_eq(grader_check_ids(distinct, 3, &err), 0, "%s", err.msg);
    /* A missing id and an empty one cannot be told apart: refused. */
    cJSON *blank[] = {empty, none};
    cr_assert_eq(grader_check_ids(blank, 2, &err), -1);
    cJSON *all[] = {a, b, c, again, slash, under, empty, none};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        cJSON_Delete(all[i]);
}

Test(write_all, file_names_are_plain_or_hex_and_never_collide)
{
    char name[256], other[256];
    grader_file_name("alice_01.b-2", name, sizeof name);
    cr_assert_str_eq(name, "alice_01.b-2");
    grader_file_name("a/b", name, sizeof name);
    cr_assert_str_eq(name, "id-612f62");
    grader_file_name("..", name, sizeof name);
    cr_assert_str_eq(name, "id-2e2e");
    grader_file_name("", name, sizeof name);
    cr_assert_str_eq(name, "id-");
    /* A plain-looking id that starts like a hex name is spelled in hex too. */
    grader_file_name("id-612f62", name, sizeof name);
    cr_assert_str_eq(name, "id-69642d363132663632");
    /* 100 bytes are hex-spelled whole, beyond that a prefix and a hash of the whole id. */
    char id[301];
    memset(id, '~', 300);
    id[100] = '\0';
    grader_file_name(id, name, sizeof name);
    cr_assert_eq(strlen(name), 203);
    id[100] = '~';
    id[300] = '\0';
    grader_file_name(id, name, sizeof name);
    cr_assert_eq(strlen(name), 3 + 80 + 1 + 16, "%s", name);
    id[299] = '!';
    grader_file_name(id, other, sizeof other);
    cr_assert_str_neq(name, other);
    cr_assert_eq(strncmp(name, other, 84), 0, "the prefix should be shared: %s %s", name, other);
}

Test(results_json, every_output_is_plain_text_never_rendered)
{
    /* A submission's text (compiler messages quote its lines) must not become HTML or Markdown
     * on Gradescope's page. */
    cJSON *e = entry("alice", 87.5);
    cJSON *doc = write_and_parse(e);
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "output_format")->valuestring, "text");
    cr_assert_str_eq(cJSON_GetObjectItem(doc, "test_output_format")->valuestring, "text");
    const cJSON *t;
    int n = 0;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(doc, "tests")) {
        cr_assert_str_eq(cJSON_GetObjectItem(t, "output_format")->valuestring, "text");
        n++;
    }
    cr_assert_gt(n, 0);
    cJSON_Delete(doc);
    cJSON_Delete(e);
}
