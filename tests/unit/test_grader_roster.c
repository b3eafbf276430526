/* Submission folders against a roster (roster.h): exact matches first, then case and surrounding
 * spaces when that is one to one, ambiguities matched to nobody, a warning for every mismatch;
 * and how the outputs show a roster's student who handed nothing in. */
#include <criterion/criterion.h>

#include "outputs.h"
#include "scratch.h"

#include <stdarg.h>

/* ---- matching ---------------------------------------------------------------------------- */
/* The class of the test: its roster (ids only) and the match of its folders. */
static grader_roster r;
static grader_roster_match m;
static bool have_roster;

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
/* Matches the folders (an array) against a roster of `ids` (an array), showing the warnings. */
#define MATCH(ids, folders) match_class(ids, COUNT(ids), folders, COUNT(folders))

/* The same for nids ids (NULL: no roster) and n folders. */
static void match_class(const char *const *ids, int nids, const char *const *folders, int n)
{
    tl_error err = {{0}};
    have_roster = ids != NULL;
    if (have_roster) {
        char text[1024] = "id\n";
        for (int i = 0; i < nids; i++) {
            strcat(text, ids[i]);
            strcat(text, "\n");
        }
        cr_assert_eq(grader_roster_read(scratch_write("roster.csv", text, strlen(text)), &r, &err),
                     0, "%s", err.msg);
        cr_assert_eq(r.nrows, nids);
    }
    cr_assert_eq(grader_roster_match_folders(have_roster ? &r : NULL, folders, n, &m, &err), 0,
                 "%s", err.msg);
    for (int i = 0; i < m.nwarnings; i++)
        cr_log_info("warning: %s", m.warnings[i]);
}

static void match_fini(void)
{
    grader_roster_match_free(&m);
    if (have_roster)
        grader_roster_free(&r);
    scratch_fini();
}

/* The number of warnings holding every one of the NULL-ended pieces. */
static int warned(const char *first, ...)
{
    int count = 0;
    for (int i = 0; i < m.nwarnings; i++) {
        va_list ap;
        va_start(ap, first);
        bool all = true;
        for (const char *piece = first; piece; piece = va_arg(ap, const char *))
            all &= strstr(m.warnings[i], piece) != NULL;
        va_end(ap);
        count += all;
    }
    return count;
}

TestSuite(roster_match, .init = scratch_init, .fini = match_fini);

Test(roster_match, a_folder_spelled_in_another_case_is_its_roster_id_with_a_warning)
{
    const char *ids[] = {"S01", "S02", "S04"}, *folders[] = {"S01", "S04 ", "s02"};
    MATCH(ids, folders);
    cr_assert_eq(m.row[0], 0);
    cr_assert_not(m.relaxed[0], "an exact match is no relaxed one");
    cr_assert_eq(m.row[2], 1, "s02 is S02: one student, not two");
    cr_assert(m.relaxed[2]);
    cr_assert_eq(m.folder[1], 2);
    cr_assert_eq(m.row[1], 2, "a trailing space does not make another student");
    cr_assert_eq(warned("folder \"s02\" is roster id \"S02\"", "ignoring case", NULL), 1);
    cr_assert_eq(warned("folder \"S04 \" is roster id \"S04\"", NULL), 1);
    cr_assert_eq(m.nwarnings, 2, "nothing else to say");
}

Test(roster_match, an_honest_class_whose_folders_are_its_ids_gets_no_warning)
{
    /* ids that share a prefix, or differ only past ASCII, are different students */
    const char *ids[] = {"S1", "S10", "s1x", "\xc3\xa9l\xc3\xa8ve"};
    const char *folders[] = {"\xc3\xa9l\xc3\xa8ve", "S1", "S10", "s1x"};
    MATCH(ids, folders);
    cr_assert_eq(m.nwarnings, 0);
    for (int i = 0; i < 4; i++) {
        cr_assert_geq(m.row[i], 0);
        cr_assert_str_eq(r.ids[m.row[i]], folders[i]);
        cr_assert_not(m.relaxed[i]);
    }
}

Test(roster_match, no_folder_takes_an_id_by_its_case_when_the_ids_own_folder_is_there)
{
    /* s02 and " S02" try to pass for S02, whose own folder is there: the exact one is S02 */
    const char *ids[] = {"S02"}, *folders[] = {" S02", "S02", "s02"};
    MATCH(ids, folders);
    cr_assert_eq(m.row[1], 0);
    cr_assert_eq(m.folder[0], 1);
    cr_assert_eq(m.row[0], -1);
    cr_assert_eq(m.row[2], -1);
    cr_assert_eq(warned("folder \"s02\" is not in the roster", NULL), 1);
    cr_assert_eq(warned("folder \" S02\" is not in the roster", NULL), 1);
    cr_assert_eq(warned("ambiguous: folders \" S02\", \"S02\" and \"s02\"", "graded as 3 students",
                        NULL), 1);
    cr_assert_eq(warned("is roster id", NULL), 0, "no relaxed match was made");
}

Test(roster_match, an_ambiguous_pair_is_matched_to_nobody_and_named_once)
{
    const char *ids[] = {"ab", "cd", "Cd"}, *folders[] = {"AB", "Ab", "CD"};
    MATCH(ids, folders);
    cr_assert_eq(m.row[0], -1);
    cr_assert_eq(m.row[1], -1);
    cr_assert_eq(m.folder[0], -1, "ab has no submission");
    cr_assert_eq(warned("ambiguous: folders \"AB\" and \"Ab\" and roster id \"ab\"",
                        "none of them is matched", NULL), 1);
    cr_assert_eq(warned("graded as 2 students", NULL), 0,
                 "the pair is named by one warning, not two");
    /* two roster ids that one folder could be */
    cr_assert_eq(m.row[2], -1);
    cr_assert_eq(warned("ambiguous: folder \"CD\" and roster ids \"cd\" and \"Cd\"", NULL), 1);
    cr_assert_eq(warned("roster id \"ab\" has no submission folder", NULL), 1);
    cr_assert_eq(warned("roster id \"cd\" has no submission folder", NULL), 1);
    cr_assert_eq(warned("folder \"CD\" is not in the roster", NULL), 1);
}

Test(roster_match, every_roster_id_without_a_folder_and_every_folder_without_an_id_is_named)
{
    const char *ids[] = {"alice", "S09", "zara"}, *folders[] = {"alice", "extra", "S-09"};
    MATCH(ids, folders);
    cr_assert_eq(m.nwarnings, 4);
    cr_assert_str_eq(m.warnings[0], "folder \"extra\" is not in the roster: graded, marked \""
                                    GRADER_NOT_IN_ROSTER "\"");
    cr_assert_eq(warned("folder \"S-09\" is not in the roster", NULL), 1,
                 "only case and spaces are relaxed");
    cr_assert_str_eq(m.warnings[2], "roster id \"S09\" has no submission folder: 0 points, marked "
                                    "\"" GRADER_NO_SUBMISSION "\"");
    cr_assert_eq(warned("roster id \"zara\"", NULL), 1);
}

Test(roster_match, only_ascii_case_is_folded_so_a_look_alike_letter_is_another_student)
{
    /* Cyrillic capital dze looks like S; folding it would need an encoding nothing tells */
    const char *ids[] = {"S02"}, *folders[] = {"\xd0\x85" "02"};
    MATCH(ids, folders);
    cr_assert_eq(m.row[0], -1);
    cr_assert_eq(m.folder[0], -1);
}

Test(roster_match, without_a_roster_only_folders_that_case_tells_apart_are_named)
{
    const char *folders[] = {"bob", "Bob", "carol"};
    match_class(NULL, 0, folders, COUNT(folders));
    cr_assert_eq(m.nwarnings, 1);
    cr_assert_eq(warned("folders \"bob\" and \"Bob\"", "graded as 2 students", NULL), 1);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(m.row[i], -1);
}

Test(roster_match, a_warning_shows_a_folder_name_inert_and_cut)
{
    char long_id[400];
    memset(long_id, 'x', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    const char *ids[] = {"nobody"};
    const char *folders[] = {"a\x1b]0;owned\x07", "A\x1b]0;owned\x07", long_id};
    MATCH(ids, folders);
    for (int i = 0; i < m.nwarnings; i++) {
        cr_assert_null(strchr(m.warnings[i], '\x1b'), "%s", m.warnings[i]);
        cr_assert_null(strchr(m.warnings[i], '\x07'), "%s", m.warnings[i]);
        cr_assert_lt(strlen(m.warnings[i]), 300, "%s", m.warnings[i]);
    }
    cr_assert_eq(warned("xxx...\" is not in the roster", NULL), 1);
}

/* ---- a roster's student without a submission, in the outputs ---------------------------- */
/* A graded entry: built, one dataset passed, 60 of 100 points. */
#define GRADED_ENTRY                                                                              \
    "{\"lab\": \"02-tiled\", \"build\": {\"ok\": true}, \"datasets\": [{\"name\": \"0\", "         \
    "\"verdict\": \"pass\"}], \"score\": {\"total\": 60, \"max\": 100, \"items\": [{\"name\": "    \
    "\"compile\", \"score\": 60, \"max_score\": 100}]}}"

/* It for `student`, with the roster string `roster` (grade_outputs.c's annotation). */
static cJSON *graded(const char *student, const char *roster)
{
    cJSON *e = cJSON_Parse(GRADED_ENTRY);
    cr_assert_not_null(e);
    cJSON_AddStringToObject(e, "student", student);
    cJSON_AddStringToObject(e, "roster", roster);
    return e;
}

TestSuite(roster_outputs, .init = scratch_init, .fini = scratch_fini);

Test(roster_outputs, a_student_without_a_submission_is_in_every_output_with_0)
{
    const char *text = "id,name\nS02,Two\nS09,Nine\n";
    grader_roster roster;
    tl_error err = {{0}};
    cr_assert_eq(grader_roster_read(scratch_write("roster.csv", text, strlen(text)), &roster,
                                    &err), 0, "%s", err.msg);
    cJSON *e[] = {graded("S02", GRADER_MATCHED_FOLDER "\"s02\""),
                  graded("extra", GRADER_NOT_IN_ROSTER),
                  grader_absent_entry("S09", "02-tiled", 100)};
    cr_assert_not_null(e[2]);
    cr_assert_eq(grader_write_gradebook_roster(scratch_path("g.csv"), e, 3, &roster, &err), 0, "%s",
                 err.msg);
    char *gb = scratch_read(scratch_path("g.csv"));
    cr_assert_not_null(strstr(gb, "\r\nS02,Two,60,100,60,\"matched folder \"\"s02\"\"\"\r\n"), "%s",
                       gb);
    cr_assert_not_null(strstr(gb, "\r\nS09,Nine,0,100,,no submission\r\n"), "%s", gb);
    cr_assert_not_null(strstr(gb, "\r\nextra,,60,100,60,not in the roster\r\n"), "%s", gb);
    cr_assert_eq(strstr(strstr(gb, "S09") + 1, "S09"), NULL, "S09 has one row: %s", gb);
    free(gb);

    cr_assert_eq(grader_write_results_json(scratch_path("r.json"), e[2], &err), 0, "%s", err.msg);
    char *json = scratch_read(scratch_path("r.json"));
    cJSON *res = cJSON_Parse(json);
    free(json);
    cr_assert_not_null(res);
    cr_assert_eq(cJSON_GetObjectItem(res, "score")->valuedouble, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(res, "output")->valuestring,
                     "No submission of yours was graded: 0 / 100 points.");
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(res, "tests")), 0);
    cJSON_Delete(res);

    cr_assert_eq(grader_write_feedback(scratch_path("f.txt"), e[2], &err), 0, "%s", err.msg);
    char *fb = scratch_read(scratch_path("f.txt"));
    cr_assert_not_null(strstr(fb, "No submission of yours was graded: 0 / 100 points."), "%s", fb);
    free(fb);

    cr_assert_eq(grader_leaderboard_rank(e, 3, &err), 0, "%s", err.msg);
    cr_assert_null(cJSON_GetObjectItem(e[2], "leaderboard"), "nobody ranks a student's absence");
    cr_assert_not_null(cJSON_GetObjectItem(e[0], "leaderboard"));

    cr_assert_eq(grader_write_report_html(scratch_path("r.html"), e, 3, "02-tiled", &err), 0,
                 "%s", err.msg);
    char *html = scratch_read(scratch_path("r.html"));
    cr_assert_not_null(strstr(html, "<tr><th>Students</th><td>3</td></tr>"), "%s", html);
    cr_assert_not_null(strstr(html, "no submission (0 points)</th><td class=\"absent\">1</td>"));
    cr_assert_not_null(strstr(html, "Submissions not in the roster</th><td>1</td>"));
    cr_assert_not_null(strstr(html, "<tr class=\"student\"><td>S09</td><td>0 / 100</td>"), "%s",
                       html);
    cr_assert_not_null(strstr(html, "<span class=\"flag\">no submission</span>"));
    cr_assert_not_null(strstr(html, "<span class=\"flag\">matched folder &quot;s02&quot;</span>"),
                       "%s", html);
    free(html);
    for (int i = 0; i < 3; i++)
        cJSON_Delete(e[i]);
    grader_roster_free(&roster);
}
