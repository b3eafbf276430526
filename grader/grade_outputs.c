/* A grading's outputs from its journal: who each submission is (the roster's id for its
 * folder), what the outputs show beside the entries (time submitted, leaderboard), the roster's
 * students without a submission, the files and grade's summary table. */
#include "grader_context.h"
#include "outputs_entry.h"
#include "outputs.h"

#include "util.h"
#include "submitted.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int grade_match_ids(grade_context *c, const submission *subs, int n, tl_error *err)
{
    const char **names = malloc((size_t)(n > 0 ? n : 1) * sizeof *names);
    if (!names)
        return tl_error_set(err, "out of memory");
    for (int i = 0; i < n; i++)
        names[i] = subs[i].student;
    int rc = grader_roster_match_folders(c->o->roster ? &c->roster : NULL, names, n, &c->ids,
                                         err);
    free(names);
    for (int i = 0; rc == 0 && !c->o->quiet && i < c->ids.nwarnings; i++)
        fprintf(stderr, "warning: %s\n", c->ids.warnings[i]);
    return rc;
}

/* Who entry e (submission `sub`) is to the outputs: with a roster, the id its folder matched,
 * its "roster" string saying which folder when the spellings differ (GRADER_MATCHED_FOLDER), or
 * "not in the roster". Then the time it was submitted, only ever from the instructor's side
 * (the roster, Gradescope's metadata: never a submission's files). Whatever the entry held
 * under these names is replaced. */
static void annotate(const grade_context *c, cJSON *e, int sub)
{
    static const char *const replaced[] = {"submitted", "leaderboard", "roster"};
    for (size_t k = 0; k < sizeof replaced / sizeof replaced[0]; k++)
        cJSON_DeleteItemFromObjectCaseSensitive(e, replaced[k]);
    int row = c->o->roster ? c->ids.row[sub] : -1;
    if (c->o->roster && row < 0)
        cJSON_AddStringToObject(e, "roster", GRADER_NOT_IN_ROSTER);
    if (row >= 0 && c->ids.relaxed[sub]) {
        const char *folder = cJSON_GetStringValue(cJSON_GetObjectItem(e, "student"));
        char *shown = folder ? tl_text_line(folder, strlen(folder)) : NULL;
        char said[NAME_MAX + 32];
        snprintf(said, sizeof said, GRADER_MATCHED_FOLDER "\"%s\"", shown ? shown : "?");
        free(shown);
        cJSON_AddStringToObject(e, "roster", said);
        cJSON_ReplaceItemInObject(e, "student", cJSON_CreateString(c->roster.ids[row]));
    }
    double when = row >= 0 && c->roster.submitted ? c->roster.submitted[row] : NAN;
    if (isnan(when))
        when = c->metadata_submitted;
    char text[GRADER_TIME_TEXT_MAX];
    if (!isnan(when)) {
        grader_time_format(when, text);
        cJSON_AddStringToObject(e, "submitted", text);
    }
}

static int by_student(const void *a, const void *b)
{
    const char *x = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)a, "student"));
    const char *y = cJSON_GetStringValue(cJSON_GetObjectItem(*(cJSON *const *)b, "student"));
    return strcmp(x ? x : "", y ? y : "");
}

/* grade's table on stdout: a row per student of the roster and per submission. */
static void print_summary(cJSON *const *entries, int count)
{
    printf("%-16s %8s  %-7s %-7s %-9s %s\n", "student", "total", "builds", "static",
           "datasets", "speed vs reference");
    for (int i = 0; i < count; i++) {
        const cJSON *e = entries[i], *score = entry_field(e, "score");
        const char *id = entry_student(e), *roster = entry_str(e, "roster");
        double total = 0, max = 0, ratio = 0;
        entry_num(score, "total", &total);
        entry_num(score, "max", &max);
        char *shown = tl_text_line(id, strlen(id));
        if (roster && strcmp(roster, GRADER_NO_SUBMISSION) == 0) {
            printf("%-16.16s %5.1f/%-3.0f %s\n", shown ? shown : "", 0.0, max,
                   GRADER_NO_SUBMISSION);
            free(shown);
            continue;
        }
        const cJSON *perf = entry_field(e, "performance"), *k;
        dataset_stats ds = entry_stats(e, false);
        int static_ok = 1;
        cJSON_ArrayForEach(k, entry_field(e, "static"))
            static_ok &= cJSON_IsTrue(entry_field(k, "ok"));
        entry_num(perf, "ratio", &ratio);
        char frac[16], speed[48];
        snprintf(frac, sizeof frac, "%d/%d", ds.passed, ds.total);
        snprintf(speed, sizeof speed, ratio > 0 ? "%s%.2fx%s" : "-", entry_slower(e) ? "<" : "", ratio,
                 cJSON_IsTrue(entry_field(perf, "predicted")) ? " (predicted)" : "");
        if (ratio <= 0 && cJSON_IsFalse(entry_field(perf, "graded")))
            snprintf(speed, sizeof speed, "not graded");
        char *note = roster ? tl_text_line(roster, strlen(roster)) : NULL;
        printf("%-16.16s %5.1f/%-3.0f %-7s %-7s %-9s %s%s%s\n", shown ? shown : "", total, max,
               cJSON_IsTrue(entry_field(entry_field(e, "build"), "ok")) ? "yes" : "NO",
               static_ok ? "ok" : "FAILED", frac, speed, note ? "  " : "", note ? note : "");
        free(note);
        free(shown);
    }
}

int grade_write_outputs(const grade_context *c, const submission *subs, int n, tl_error *err)
{
    int rows = c->o->roster ? c->roster.nrows : 0;
    cJSON **entries = calloc((size_t)(n + rows > 0 ? n + rows : 1), sizeof *entries);
    bool *listed = calloc((size_t)(rows > 0 ? rows : 1), sizeof *listed);
    int count = 0, rc = 0;
    double max = 0;
    for (int i = 0; entries && listed && i < n; i++) {
        cJSON *doc = grade_journal_read(c, &subs[i]);
        if (!doc)
            continue;
        annotate(c, doc, i);
        entries[count++] = doc;
        if (c->o->roster && c->ids.row[i] >= 0)
            listed[c->ids.row[i]] = true;
        const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "score"), "max");
        if (cJSON_IsNumber(m) && m->valuedouble > max)
            max = m->valuedouble;
    }
    /* Every student of the roster is in every output: one who handed nothing in with 0. */
    for (int j = 0; entries && listed && j < rows && rc == 0; j++)
        if (!listed[j] && !(entries[count++] = grader_absent_entry(c->roster.ids[j],
                                                                   runner_lab_name(c->o->lab), max)))
            rc = tl_error_set(err, "out of memory");
    if (!entries || !listed)
        rc = tl_error_set(err, "out of memory");
    if (rc == 0)
        qsort(entries, (size_t)count, sizeof *entries, by_student);
    if (rc == 0 && c->r.leaderboard)
        rc = grader_leaderboard_rank(entries, count, err);
    if (rc == 0)
        rc = grader_write_all(c->o->out, entries, count, runner_lab_name(c->o->lab),
                              c->o->roster ? &c->roster : NULL, err);
    if (rc == 0 && !c->o->quiet) {
        print_summary(entries, count);
        grader_print_leaderboard(stdout, entries, count, GRADER_BOARD_SHOWN);
        fflush(stdout);
    }
    for (int i = 0; entries && i < count; i++)
        cJSON_Delete(entries[i]);
    free(entries);
    free(listed);
    return rc;
}
