/* Every verdict, row by row, as every command uses it: its name, label and exit status
 * (run, diagnose, bench), its place among the others (a summary's worst), its status from the
 * replayer, and the grader's treatment of it in a journal entry (the feedback's explanation,
 * the report's cell, the leaderboard, the gradebook's verdict column). The loops run over
 * TL_VERDICT_COUNT: a verdict added to runner.h and runner_verdict.c is checked here without a
 * line of this file changing, and fails when a table lacks it. */
#include <criterion/criterion.h>

#include "outputs.h"
#include "outputs_entry.h"
#include "replay_protocol.h"
#include "scratch.h"

#include <ctype.h>

static const char *name_of(int v) { return tl_verdict_name((tl_verdict)v); }

Test(verdicts, every_row_has_a_distinct_name_the_gradebook_can_read_back)
{
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        const char *name = name_of(v);
        cr_assert(name && *name, "verdict %d has no name", v);
        /* The gradebook's verdict column takes an item's output up to its ':' when it is made
         * of these (outputs.c's verdict_of), and keeps under 32 bytes of it. */
        cr_expect_eq(strspn(name, "abcdefghijklmnopqrstuvwxyz-"), strlen(name),
                     "verdict %d: \"%s\"", v, name);
        cr_expect_lt(strlen(name), 32u, "%s", name);
        for (int w = 0; w < v; w++)
            cr_expect_str_neq(name, name_of(w), "verdicts %d and %d share a name", v, w);
        if (v != TL_VERDICT_ERROR)
            cr_expect_str_neq(name, "error", "verdict %d falls back to error's name", v);
    }
}

Test(verdicts, every_row_has_a_label_an_exit_status_and_parses_back)
{
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        char upper[64];
        snprintf(upper, sizeof upper, "%s", name_of(v));
        for (char *c = upper; *c; c++)
            *c = *c == '-' ? ' ' : (char)toupper((unsigned char)*c);
        cr_expect_str_eq(tl_verdict_label((tl_verdict)v), upper);
        tl_verdict back = TL_VERDICT_COUNT;
        cr_expect(tl_verdict_parse(name_of(v), &back), "%s", name_of(v));
        cr_expect_eq(back, v, "%s", name_of(v));
        int status = tl_verdict_exit_status((tl_verdict)v);
        if (v == TL_VERDICT_PASS)
            cr_expect_eq(status, TL_EXIT_OK);
        else
            cr_expect(status == TL_EXIT_WRONG || status == TL_EXIT_CRASH ||
                      status == TL_EXIT_BAD_INPUT, "%s exits %d", name_of(v), status);
    }
}

/* A summary shows the worst verdict: every failure outranks a pass, and of two verdicts the
 * same one wins whichever comes first. */
Test(verdicts, worst_is_an_order_over_every_row)
{
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        cr_expect_eq(tl_verdict_worst(TL_VERDICT_PASS, (tl_verdict)v), v, "%s", name_of(v));
        cr_expect_eq(tl_verdict_worst((tl_verdict)v, TL_VERDICT_PASS), v, "%s", name_of(v));
        for (int w = 0; w < TL_VERDICT_COUNT; w++) {
            tl_verdict a = tl_verdict_worst((tl_verdict)v, (tl_verdict)w);
            cr_expect(a == (tl_verdict)v || a == (tl_verdict)w);
            cr_expect_eq(a, tl_verdict_worst((tl_verdict)w, (tl_verdict)v), "%s, %s",
                         name_of(v), name_of(w));
        }
    }
}

/* Every replayer status has a name that reads back and a verdict of the table; ok alone
 * passes; unknown text is the kit's error, never a pass. */
Test(verdicts, every_replay_status_maps_to_a_verdict)
{
    for (int s = 0; s < REPLAY_STATUS_COUNT; s++) {
        const char *name = replay_status_name((replay_status)s);
        cr_assert(name && *name, "status %d has no name", s);
        cr_expect_eq(replay_status_parse(name), s, "%s", name);
        tl_verdict v = replay_status_verdict((replay_status)s);
        cr_expect(v >= TL_VERDICT_PASS && v < TL_VERDICT_COUNT, "%s", name);
        cr_expect_eq(v == TL_VERDICT_PASS, s == REPLAY_STATUS_OK, "%s", name);
    }
    cr_expect_eq(replay_status_parse("wrong"), REPLAY_STATUS_ERROR);
    cr_expect_eq(replay_status_parse(NULL), REPLAY_STATUS_ERROR);
    cr_expect_eq(replay_status_verdict(REPLAY_STATUS_UNANSWERED), TL_VERDICT_WRONG);
    cr_expect_eq(replay_status_verdict(REPLAY_STATUS_MISSING), TL_VERDICT_REFUSED);
}

/* A graded entry whose one dataset (and performance run) has verdict v. */
static cJSON *entry_with(int v)
{
    char output[96];
    snprintf(output, sizeof output, "%s: the detail", name_of(v));
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "student", name_of(v));
    cJSON_AddStringToObject(e, "lab", "02-tiled");
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "name", "0");
    cJSON_AddStringToObject(d, "verdict", name_of(v));
    cJSON_AddStringToObject(d, "detail", "the detail");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(e, "datasets"), d);
    cJSON *p = cJSON_AddObjectToObject(e, "performance");
    cJSON_AddNumberToObject(p, "student_ms", 1.0);
    cJSON_AddNumberToObject(p, "reference_ms", 1.0);
    cJSON_AddNumberToObject(p, "ratio", 1.0);
    cJSON_AddStringToObject(p, "verdict", name_of(v));
    cJSON *score = cJSON_AddObjectToObject(e, "score");
    cJSON_AddNumberToObject(score, "total", 10);
    cJSON_AddNumberToObject(score, "max", 10);
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "name", "dataset 0 (64x64x64)");
    cJSON_AddNumberToObject(item, "score", 10);
    cJSON_AddNumberToObject(item, "max_score", 10);
    cJSON_AddStringToObject(item, "output", output);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(score, "items"), item);
    return e;
}

/* The feedback (the dataset's explanation read back from the journal) and the report (a
 * dataset passed or not) keep the verdict. */
Test(verdicts, every_row_reads_back_from_a_journal_entry)
{
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        cJSON *e = entry_with(v);
        const cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "datasets"), 0);
        cr_expect(entry_verdict_is(d, (tl_verdict)v), "%s", name_of(v));
        cr_expect_eq(entry_dataset_passed(d), v == TL_VERDICT_PASS, "%s", name_of(v));
        explanation x;
        entry_explanation(d, &x);
        cr_expect_eq(x.verdict, v, "%s", name_of(v));
        char *text = explain_student_text(&x, true);
        cr_assert_not_null(text);
        char head[64];
        snprintf(head, sizeof head, "%s: ", name_of(v));
        cr_expect_eq(strncmp(text, head, strlen(head)), 0, "feedback \"%s\"", text);
        free(text);
        explain_free(&x);
        cJSON_Delete(e);
    }
}

/* Only a pass is ranked; any other verdict is the reason an entry is not, by its name. */
Test(verdicts, every_row_has_the_leaderboards_treatment)
{
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        cJSON *e = entry_with(v);
        tl_error err = {{0}};
        cr_assert_eq(grader_leaderboard_rank(&e, 1, &err), 0, "%s", err.msg);
        int rank = 0, position = 0;
        cr_expect(entry_board(e, &rank, &position), "%s", name_of(v));
        cr_expect_eq(rank > 0, v == TL_VERDICT_PASS, "%s: rank %d", name_of(v), rank);
        const char *why = cJSON_GetStringValue(
            cJSON_GetObjectItem(cJSON_GetObjectItem(e, "leaderboard"), "unranked"));
        if (v != TL_VERDICT_PASS)
            cr_expect_str_eq(why ? why : "(none)", name_of(v));
        cJSON_Delete(e);
    }
}

/* The gradebook's verdict column shows every verdict by its name. */
Test(verdicts, every_row_shows_in_the_gradebook, .init = scratch_init, .fini = scratch_fini)
{
    cJSON *entries[TL_VERDICT_COUNT];
    for (int v = 0; v < TL_VERDICT_COUNT; v++)
        entries[v] = entry_with(v);
    tl_error err = {{0}};
    const char *path = scratch_path("gradebook.csv");
    cr_assert_eq(grader_write_gradebook(path, entries, TL_VERDICT_COUNT, &err), 0, "%s",
                 err.msg);
    char *csv = scratch_read(path);
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        char row[96];
        snprintf(row, sizeof row, "\r\n%s,10,10,10,%s\r\n", name_of(v), name_of(v));
        cr_expect_not_null(strstr(csv, row), "no row %s in:\n%s", name_of(v), csv);
        cJSON_Delete(entries[v]);
    }
    free(csv);
}
