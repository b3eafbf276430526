/* The journal's one reader: a submission's entry (journal/<file name>.json) as the grader wrote
 * it, read back for resuming, for the progress line and for the outputs. The entry is read with
 * outputs_entry.h's NULL-safe accessors: a file cut short or edited by hand is a missing entry or
 * a missing field, never a crash. */
#include "grader_context.h"
#include "outputs_entry.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

cJSON *grade_journal_read(const grade_context *c, const submission *s)
{
    char path[PATH_MAX];
    grade_journal_path(c, s, path, sizeof path);
    char *text = files_read(path, NULL);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    return cJSON_IsObject(doc) ? doc : (cJSON_Delete(doc), NULL);
}

/* Already graded with the same files, rubric and datasets: skip. */
bool grade_journaled(const grade_context *c, const submission *s)
{
    char key[32];
    grade_key(c, s, key, sizeof key);
    cJSON *doc = grade_journal_read(c, s);
    const char *k = entry_str(doc, "grading_key");
    bool same = k && strcmp(k, key) == 0;
    cJSON_Delete(doc);
    return same;
}

bool grade_has_failure(const grade_context *c, const submission *s)
{
    cJSON *doc = grade_journal_read(c, s);
    bool fail = !cJSON_IsTrue(entry_field(entry_field(doc, "build"), "ok"));
    dataset_stats st = entry_stats(doc, false);
    cJSON_Delete(doc);
    return fail || st.passed < st.total;
}
