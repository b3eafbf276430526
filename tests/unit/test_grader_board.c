/* The class leaderboard: who is ranked and why not, the order, ties within 1 % broken by the
 * time submitted (and kept when a time is unknown), and where it shows (report, gradebook,
 * results.json, grade's summary); the submitted times it reads (roster column, Gradescope's
 * metadata) and how they are parsed. */
#include <criterion/criterion.h>

#include "outputs.h"
#include "scratch.h"
#include "submitted.h"

#include <math.h>

/* ---- synthetic entries ------------------------------------------------------------------ */
/* An entry whose performance run has `verdict` and kernel time `ms` on a 2048^3 dataset
 * (reference 1 ms), submitted at `when` (NULL: unknown). */
static cJSON *entry(const char *student, const char *verdict, double ms, const char *when)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "student", student);
    cJSON_AddStringToObject(e, "lab", "02-tiled");
    if (when)
        cJSON_AddStringToObject(e, "submitted", when);
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "name", "0");
    cJSON_AddStringToObject(d, "verdict", strcmp(verdict, "pass") == 0 ? "pass" : verdict);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(e, "datasets"), d);
    cJSON *p = cJSON_AddObjectToObject(e, "performance");
    cJSON_AddNumberToObject(p, "student_ms", ms);
    cJSON_AddNumberToObject(p, "reference_ms", 1.0);
    cJSON_AddNumberToObject(p, "ratio", ms > 0 ? 1.0 / ms : 0);
    cJSON_AddBoolToObject(p, "predicted", false);
    cJSON_AddStringToObject(p, "dataset", "2048x2048x2048");
    cJSON_AddStringToObject(p, "verdict", verdict);
    cJSON *score = cJSON_AddObjectToObject(e, "score");
    cJSON_AddNumberToObject(score, "total", 80);
    cJSON_AddNumberToObject(score, "max", 100);
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", "compile");
    cJSON_AddNumberToObject(item, "score", 10);
    cJSON_AddNumberToObject(item, "max_score", 10);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(score, "items"), item);
    return e;
}

static void rank_all(cJSON **entries, int n)
{
    tl_error err = {{0}};
    cr_assert_eq(grader_leaderboard_rank(entries, n, &err), 0, "%s", err.msg);
}

static int rank_of(const cJSON *e)
{
    const cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "leaderboard"), "rank");
    return cJSON_IsNumber(r) ? r->valueint : 0;
}

/* Ranks the entries and checks each one's rank against want[i]. */
static void expect_ranks(cJSON **entries, int n, const int *want)
{
    rank_all(entries, n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(rank_of(entries[i]), want[i], "%s: rank %d, expected %d",
                     cJSON_GetStringValue(cJSON_GetObjectItem(entries[i], "student")),
                     rank_of(entries[i]), want[i]);
}

static int position_of(const cJSON *e)
{
    const cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "leaderboard"), "position");
    return cJSON_IsNumber(r) ? r->valueint : 0;
}

static const char *unranked_of(const cJSON *e)
{
    return cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "leaderboard"),
                                                    "unranked"));
}

static void free_all(cJSON **entries, int n)
{
    for (int i = 0; i < n; i++)
        cJSON_Delete(entries[i]);
}

/* ---- ranking ----------------------------------------------------------------------------- */
TestSuite(board_rank);

Test(board_rank, fastest_first_with_competition_ranks)
{
    cJSON *e[] = {entry("slow", "pass", 2.0, NULL), entry("fast", "pass", 0.5, NULL),
                  entry("mid", "pass", 1.0, NULL)};
    expect_ranks(e, 3, (const int[]){3, 1, 2});
    cr_assert_eq(position_of(e[0]), 3);
    free_all(e, 3);
}

Test(board_rank, a_tie_within_1_percent_goes_to_the_earlier_submission)
{
    /* "late" is faster by 0.9 %: a tie, and "early" handed in first */
    cJSON *e[] = {entry("late", "pass", 100, "2026-11-20T23:59:00Z"),
                  entry("early", "pass", 100.9, "2026-11-20T10:00:00Z")};
    expect_ranks(e, 2, (const int[]){2, 1});
    /* 1 % exactly is still a tie; just over it, speed decides whatever the times */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(e[1], "performance"), "student_ms",
                              cJSON_CreateNumber(101));
    expect_ranks(e, 2, (const int[]){2, 1}); /* 101 against 100 is within 1 % */
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(e[1], "performance"), "student_ms",
                              cJSON_CreateNumber(101.5));
    expect_ranks(e, 2, (const int[]){1, 2}); /* 1.5 % slower is slower */
    free_all(e, 2);
}

Test(board_rank, a_tie_is_measured_against_its_fastest_so_ties_do_not_chain)
{
    /* b is within 1 % of a, c within 1 % of b but not of a: {a, b} tie, c is behind both even
     * though it was handed in first */
    cJSON *e[] = {entry("a", "pass", 100, "2026-11-20T12:00:00Z"),
                  entry("b", "pass", 100.9, "2026-11-20T11:00:00Z"),
                  entry("c", "pass", 101.5, "2026-11-20T09:00:00Z")};
    expect_ranks(e, 3, (const int[]){2, 1, 3});
    free_all(e, 3);
}

Test(board_rank, a_tie_without_a_time_for_one_keeps_one_rank)
{
    cJSON *e[] = {entry("timed", "pass", 100, "2026-11-20T09:00:00Z"),
                  entry("untimed", "pass", 100.5, NULL), entry("next", "pass", 200, NULL),
                  entry("same1", "pass", 300, "2026-11-20T09:00:00+01:00"),
                  entry("same2", "pass", 301, "2026-11-20 08:00")};
    /* timed and untimed: the tie cannot be broken; ranks skip after a shared one; same1 and
     * same2 were submitted at the same instant, written in two zones */
    expect_ranks(e, 5, (const int[]){1, 1, 3, 4, 4});
    cr_assert_eq(position_of(e[0]), 1, "the known time is listed first");
    cr_assert_eq(position_of(e[1]), 2);
    free_all(e, 5);
}

Test(board_rank, only_a_kernel_that_passed_everything_is_ranked)
{
    cJSON *e[] = {entry("ok", "pass", 1.0, NULL), entry("wrong", "wrong", 0, NULL),
                  entry("unsafe", "unsafe", 0, NULL), entry("racy", "pass", 0.1, NULL),
                  entry("untimed", "pass", 0, NULL), entry("broken", "compile-error", 0, NULL),
                  entry("edges", "pass", 0.5, NULL)};
    cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(e[3], "datasets"), 0);
    cJSON_ReplaceItemInObject(d, "verdict", cJSON_CreateString("unsafe"));
    /* the fastest, and right at the performance size, but wrong on another dataset */
    d = cJSON_GetArrayItem(cJSON_GetObjectItem(e[6], "datasets"), 0);
    cJSON_ReplaceItemInObject(d, "verdict", cJSON_CreateString("wrong"));
    /* an entry's own leaderboard object is replaced, never believed */
    cJSON_AddItemToObject(e[1], "leaderboard", cJSON_Parse("{\"rank\": 1, \"position\": 1}"));
    rank_all(e, 7);
    cr_assert_eq(rank_of(e[0]), 1);
    cr_assert_str_eq(unranked_of(e[6]), "wrong", "ranked though wrong on a dataset");
    cr_assert_str_eq(unranked_of(e[1]), "wrong");
    cr_assert_eq(rank_of(e[1]), 0);
    cr_assert_str_eq(unranked_of(e[2]), "unsafe");
    cr_assert_str_eq(unranked_of(e[3]), "unsafe", "fast, but unsafe on a dataset");
    cr_assert_str_eq(unranked_of(e[4]), "not timed");
    cr_assert_str_eq(unranked_of(e[5]), "compile-error");
    free_all(e, 7);
}

/* ---- where it shows ---------------------------------------------------------------------- */
TestSuite(board_outputs, .init = scratch_init, .fini = scratch_fini);

Test(board_outputs, the_report_has_a_leaderboard_section_only_when_ranked)
{
    cJSON *e[] = {entry("bob", "pass", 2.0, "2026-11-20T10:00:00Z"),
                  entry("<al>", "pass", 1.0, NULL), entry("dave", "wrong", 0, NULL)};
    tl_error err = {{0}};
    cr_assert_eq(grader_write_report_html(scratch_path("r.html"), e, 3, NULL, &err), 0, "%s",
                 err.msg);
    char *text = scratch_read(scratch_path("r.html"));
    cr_assert_null(strstr(text, "Leaderboard"), "no leaderboard unless the rubric asks");
    free(text);
    rank_all(e, 3);
    cr_assert_eq(grader_write_report_html(scratch_path("r.html"), e, 3, NULL, &err), 0, "%s",
                 err.msg);
    text = scratch_read(scratch_path("r.html"));
    char *board = strstr(text, "<section id=\"leaderboard\">");
    cr_assert_not_null(board, "%s", text);
    cr_assert_null(strstr(board, "predicted"), "measured times are not called predicted");
    cr_assert_not_null(strstr(board, "2 of 3 submission(s) ranked"));
    /* 2 * 2048^3 flops in 1 ms */
    char *first = strstr(board, "<tr class=\"ranked\"><td>1</td><td>&lt;al&gt;</td><td>1</td>"
                                "<td>17179.9</td><td>1.00x</td><td>-</td></tr>");
    char *second = strstr(board, "<tr class=\"ranked\"><td>2</td><td>bob</td><td>2</td>"
                                 "<td>8589.9</td><td>0.50x</td><td>2026-11-20T10:00:00Z</td>");
    char *last = strstr(board, "<tr class=\"unranked\"><td>-</td><td>dave</td><td colspan=\"4\">"
                               "unranked: wrong</td></tr>");
    cr_assert(first && second && last && first < second && second < last, "%s", board);
    free(text);
    free_all(e, 3);
}

Test(board_outputs, predicted_times_say_predicted_h100)
{
    cJSON *e[] = {entry("a", "pass", 1.0, NULL), entry("b", "pass", 2.0, NULL)};
    for (int i = 0; i < 2; i++)
        cJSON_ReplaceItemInObject(cJSON_GetObjectItem(e[i], "performance"), "predicted",
                                  cJSON_CreateTrue());
    rank_all(e, 2);
    tl_error err = {{0}};
    cr_assert_eq(grader_write_report_html(scratch_path("r.html"), e, 2, NULL, &err), 0, "%s",
                 err.msg);
    char *text = scratch_read(scratch_path("r.html"));
    char *board = strstr(text, "<section id=\"leaderboard\">");
    cr_assert_not_null(board);
    cr_assert_not_null(strstr(board, "Leaderboard \u2014 predicted H100 times (CPU backend)"));
    cr_assert_not_null(strstr(board, "<td>1 <span class=\"flag\">predicted H100</span></td>"),
                       "%s", board);
    free(text);
    free_all(e, 2);
}

Test(board_outputs, the_gradebook_has_the_rank_beside_the_total)
{
    cJSON *e[] = {entry("bob", "pass", 2.0, NULL), entry("alice", "pass", 1.0, NULL),
                  entry("dave", "wrong", 0, NULL)};
    const char *roster = "id,submitted\nalice,2026-11-20 10:00\nbob,\ndave,\nzara,\n";
    grader_roster r;
    tl_error err = {{0}};
    cr_assert_eq(grader_roster_read(scratch_write("roster.csv", roster, strlen(roster)), &r,
                                    &err), 0, "%s", err.msg);
    rank_all(e, 3);
    cr_assert_eq(grader_write_gradebook_roster(scratch_path("g.csv"), e, 3, &r, &err), 0, "%s",
                 err.msg);
    char *text = scratch_read(scratch_path("g.csv"));
    cr_assert_str_eq(text, "student,submitted,total,max,leaderboard rank,compile,roster\r\n"
                           "alice,2026-11-20 10:00,80,100,1,10,\r\n"
                           "bob,,80,100,2,10,\r\n"
                           "dave,,80,100,,10,\r\n"
                           "zara,,0,100,,,no submission\r\n");
    free(text);
    grader_roster_free(&r);
    free_all(e, 3);
}

Test(board_outputs, results_json_records_the_time_submitted)
{
    cJSON *e = entry("alice", "pass", 1.0, "2026-11-20T10:00:00Z");
    tl_error err = {{0}};
    cr_assert_eq(grader_write_results_json(scratch_path("r.json"), e, &err), 0, "%s", err.msg);
    char *text = scratch_read(scratch_path("r.json"));
    cJSON *doc = cJSON_Parse(text);
    cr_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(
                         cJSON_GetObjectItem(doc, "extra_data"), "submitted")),
                     "2026-11-20T10:00:00Z");
    cJSON_Delete(doc);
    free(text);
    cJSON_Delete(e);
}

Test(board_outputs, the_summary_prints_the_top_places_and_the_counts)
{
    enum { N = 13 };
    cJSON *e[N];
    for (int i = 0; i < N; i++) {
        char id[16];
        snprintf(id, sizeof id, "s%02d", i);
        e[i] = entry(id, i == N - 1 ? "wrong" : "pass", i == N - 1 ? 0 : 1.0 + 0.1 * i, NULL);
    }
    rank_all(e, N);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    grader_print_leaderboard(f, e, N, GRADER_BOARD_SHOWN);
    fclose(f);
    cr_assert_not_null(strstr(text, "leaderboard: 12 of 13 ranked by kernel time; the top 10\n"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "\n    1 s00 "), "%s", text);
    cr_assert_not_null(strstr(text, "\n   10 s09 "), "%s", text);
    cr_assert_null(strstr(text, "s10"), "the 11th is not shown: %s", text);
    cr_assert_not_null(strstr(text, "1 unranked"), "%s", text);
    free(text);
    text = NULL;
    f = open_memstream(&text, &len);
    grader_print_leaderboard(f, e, 0, GRADER_BOARD_SHOWN);
    fclose(f);
    cr_assert_eq(len, 0, "nothing without entries");
    free(text);
    free_all(e, N);
}

/* ---- submitted times --------------------------------------------------------------------- */
TestSuite(submitted, .init = scratch_init, .fini = scratch_fini);

static void same_instant(const char *text, const char *utc)
{
    double t;
    char out[GRADER_TIME_TEXT_MAX];
    cr_assert_eq(grader_time_parse(text, &t), 0, "\"%s\" not read", text);
    grader_time_format(t, out);
    cr_assert_str_eq(out, utc, "\"%s\"", text);
}

Test(submitted, times_with_zones_and_utc_without)
{
    same_instant("2026-11-20T23:59:00Z", "2026-11-20T23:59:00Z");
    same_instant("2026-11-20T18:59:00-05:00", "2026-11-20T23:59:00Z");
    same_instant("2026-11-21T05:29+0530", "2026-11-20T23:59:00Z");
    same_instant("2026-11-21T00:59:00+01", "2026-11-20T23:59:00Z");
    same_instant("2026-11-20 23:59", "2026-11-20T23:59:00Z");
    same_instant(" 2026-11-20 23:59:30 ", "2026-11-20T23:59:30Z");
    same_instant("2028-02-29 12:00", "2028-02-29T12:00:00Z");
    same_instant("1999-12-31T23:30:00-01:00", "2000-01-01T00:30:00Z");
    /* Gradescope's created_at */
    same_instant("2019-03-14T19:18:33.167021-07:00", "2019-03-15T02:18:33.167021Z");
    double t;
    cr_assert_eq(grader_time_parse("1970-01-01T00:00:00Z", &t), 0);
    cr_assert_eq(t, 0);
}

Test(submitted, what_is_not_a_time_is_refused)
{
    static const char *const bad[] = {
        "2026-11-20T23:59:00",   /* a T time without a zone: local to where? */
        "2026-11-20",            "2026-02-30 10:00", "2027-02-29 10:00", "2026-13-01 10:00",
        "2026-11-20 24:00",      "2026-11-20 23:60", "2026-11-20 23:59:61", "yesterday", "",
        "2026-11-20 23:59 PST",  "2026-11-20T23:59:00+25:00", "2026-11-20T23:59:00.Z",
        "26-11-20 23:59",        "2026/11/20 23:59"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double t;
        cr_expect_eq(grader_time_parse(bad[i], &t), -1, "\"%s\" was read", bad[i]);
    }
}

Test(submitted, a_roster_column_is_read_and_a_bad_value_names_file_line_and_value)
{
    const char *good = "id,name,Submitted\r\nalice,A,2026-11-20T23:59:00Z\r\nbob,B,\r\n";
    grader_roster r;
    tl_error err = {{0}};
    cr_assert_eq(grader_roster_read(scratch_write("roster.csv", good, strlen(good)), &r, &err),
                 0, "%s", err.msg);
    cr_assert_not_null(r.submitted);
    double t;
    grader_time_parse("2026-11-20T23:59:00Z", &t);
    cr_assert_eq(r.submitted[grader_roster_find(&r, "alice")], t);
    cr_assert(isnan(r.submitted[grader_roster_find(&r, "bob")]), "an empty cell: no time");
    grader_roster_free(&r);
    const char *bad = "id,submitted\nalice,2026-11-20T23:59:00Z\n\nbob,next Friday\n";
    cr_assert_eq(grader_roster_read(scratch_write("roster.csv", bad, strlen(bad)), &r, &err), -1);
    cr_assert_not_null(strstr(err.msg, "roster.csv:4: submitted \"next Friday\" is not an ISO "
                                       "8601 time"), "%s", err.msg);
    const char *none = "id,name\nalice,A\n";
    cr_assert_eq(grader_roster_read(scratch_write("roster.csv", none, strlen(none)), &r, &err),
                 0, "%s", err.msg);
    cr_assert_null(r.submitted);
    grader_roster_free(&r);
}

Test(submitted, gradescope_metadata_gives_created_at)
{
    const char *meta = "{\"id\": 1, \"created_at\": \"2019-03-14T19:18:33.167021-07:00\","
                       " \"assignment\": {\"due_date\": \"2019-03-20T23:59:00-07:00\"}}";
    double t, want;
    tl_error err = {{0}};
    cr_assert_eq(grader_submitted_from_metadata(scratch_write("m.json", meta, strlen(meta)), &t,
                                                &err), 0, "%s", err.msg);
    grader_time_parse("2019-03-15T02:18:33.167021Z", &want);
    cr_assert_float_eq(t, want, 1e-6);
    const char *no_time = "{\"id\": 1}";
    cr_assert_eq(grader_submitted_from_metadata(scratch_write("m.json", no_time,
                                                              strlen(no_time)), &t, &err), -1);
    cr_assert_not_null(strstr(err.msg, "m.json: no \"created_at\" string"), "%s", err.msg);
    const char *bad_time = "{\"created_at\": \"soon\"}";
    cr_assert_eq(grader_submitted_from_metadata(scratch_write("m.json", bad_time,
                                                              strlen(bad_time)), &t, &err), -1);
    cr_assert_not_null(strstr(err.msg, "created_at \"soon\" is not"), "%s", err.msg);
    cr_assert_eq(grader_submitted_from_metadata(scratch_path("missing.json"), &t, &err), -1);
}
