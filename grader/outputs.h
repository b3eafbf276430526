/* tilelab grader outputs: the files made from the grader's per-student journal entries.
 *
 * Every entry is one cJSON object in the journal schema written by grader.c (student, lab,
 * build, static, datasets, performance, score{total, max, items[]} ...). Any field may be
 * missing or null; a missing value is shown as unknown, never guessed. Every file is written
 * atomically (a temporary file in the same folder, then rename), so an instructor or an upload
 * script never picks up half a file. Functions return 0 on success and -1 on failure after
 * filling `err` with one line naming the file.
 */
#ifndef TILELAB_GRADER_OUTPUTS_H
#define TILELAB_GRADER_OUTPUTS_H

#include "harness.h"
#include "roster.h"

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The class gradebook as CSV (RFC 4180: CRLF line ends; fields holding a comma, a quote or a
 * line break are quoted with their quotes doubled). Header: student,total,max (then "leaderboard
 * rank" when an entry holds a "leaderboard" object: the rank, empty when unranked), then the score
 * items' names, the union over all entries in the order they are first met (entries in the
 * given order). One row per entry, sorted by student id (byte order); an item a student lacks is
 * an empty field. Numbers have at most 2 decimals and no trailing zeros (87.5, 10, 0.33). */
int grader_write_gradebook(const char *path, cJSON *const *entries, int n, tl_error *err);
/* The same with a roster (roster.h; NULL: none): its columns come after `student`, a last
 * column `roster` says "not in the roster" for a submission it lacks (or what the entry's
 * "roster" string says: grade sets it, see grader_absent_entry), and each of its ids without
 * an entry gets a row of its own, total 0, "no submission". */
int grader_write_gradebook_roster(const char *path, cJSON *const *entries, int n,
                                  const grader_roster *roster, tl_error *err);

/* A student of the roster who handed nothing in, as every output shows one: the entry
 * {"student", "lab", "roster": GRADER_NO_SUBMISSION, "score": {"total": 0, "max": max,
 * "items": []}}: a gradebook row, a results.json and a feedback file that say so, a row in the
 * report's tables, never a place on the leaderboard. NULL when memory runs out. Besides it an
 * entry's "roster" string says how the roster knows a submission (GRADER_NOT_IN_ROSTER, or
 * GRADER_MATCHED_FOLDER and the folder's own spelling of the id), shown in the gradebook's
 * roster column, the report and grade's table. */
cJSON *grader_absent_entry(const char *student, const char *lab, double max);

/* One student's Gradescope autograder results.json: score, execution_time, output, visibility
 * ("visible"), tests[] (one per score item: name, score, max_score, status "passed"/"failed",
 * output, visibility copied from the item) and leaderboard[]: "GFLOP/s" (best over the passing
 * visible datasets, order desc) and "kernel ms" (performance.student_ms, order asc), each left
 * out when its value is unknown (missing or not positive). */
int grader_write_results_json(const char *path, const cJSON *entry, tl_error *err);
/* (With the entry's "submitted" time, results.json's extra_data holds it as "submitted".) */

/* One student's plain-text feedback: the score items (an item whose visibility is not
 * "visible" is shown only as hidden, without its name, score or output, and the total then
 * covers the visible items only, since the full total would give the hidden ones away), the
 * build messages when the build failed, the static checks, one line per dataset (verdict,
 * kernel time, GFLOP/s, and the detail and stderr of a failure), the performance ratio with its
 * flags (predicted time). A hidden dataset is shown only as "hidden" unless its
 * score item ("hidden dataset NAME (SIZE)") is "visible". */
int grader_write_feedback(const char *path, const cJSON *entry, tl_error *err);

/* One student's page (outputs_student.c), self-contained like run --report's: the score items
 * and the static checks under the feedback's hidden rules, the build's messages when it failed,
 * each dataset as run --report shows it (explain_html_dataset: verdict, detail, worst element,
 * hint, the causes with their lines, the map of wrong tiles) except that a hidden one shows
 * nothing of its result, or its verdict and detail only when its item is visible, and the
 * performance when its item is visible. Every string from the entry escaped. */
int grader_write_student_page(const char *path, const cJSON *entry, tl_error *err);

/* The instructor's class report: one self-contained HTML page (inline CSS and SVG, no script,
 * nothing fetched): class summary (count, mean, median, min, max total), score distribution in
 * bins of 10% of the maximum, a "Leaderboard" section when an entry holds a "leaderboard" object
 * (grader_leaderboard_rank), a table of students, and each student's speed relative to the
 * reference (reference_ms / student_ms) as horizontal bars with a line at 1.0. `lab` may be
 * NULL (then the entries' own lab is used). The chart title says when times are predicted
 * (CPU backend). All text from the entries is HTML-escaped. */
int grader_write_report_html(const char *path, cJSON *const *entries, int n, const char *lab,
                             tl_error *err);

/* ---- the class leaderboard (outputs_board.c) ------------------------------------------------ */
/* Kernel times within this share of the faster one are a tie (1 %): closer than timings repeat
 * from run to run, so the time submitted decides. */
#define GRADER_BOARD_TIE 0.01
/* The places grade's summary prints. */
#define GRADER_BOARD_SHOWN 10

/* Ranks the class by its kernel time on the performance dataset (performance.student_ms),
 * fastest first, and records the outcome in every entry as a "leaderboard" object (replacing
 * any): {"rank": R, "position": P} (P: 1, 2, ... down the board, R the rank shown) for an entry
 * whose performance verdict is "pass" with a positive time and no dataset "unsafe";
 * {"unranked": WHY} for the others, WHY the performance verdict ("wrong", "unsafe", ...) or
 * "not timed". Times within GRADER_BOARD_TIE of the fastest of their group are a tie, ordered
 * by the entry's "submitted" time (submitted.h), earlier first, with successive ranks (the same
 * time: the same rank); a tie in which a member has no time keeps one rank for all. Ranks
 * after a shared one skip (1, 1, 3). Returns 0, or -1 with err when memory runs out.
 * The report then shows a "Leaderboard" section, and the gradebook a "leaderboard rank"
 * column, for entries holding this object. */
int grader_leaderboard_rank(cJSON *const *entries, int n, tl_error *err);
/* The leaderboard as text, for grade's summary: the count ranked and the first `top` places
 * (rank, student, kernel ms, GFLOP/s, ratio, time submitted). Nothing when no entry has a
 * "leaderboard" object. */
void grader_print_leaderboard(FILE *f, cJSON *const *entries, int n, int top);

/* A student id as a file name (grader_file_name's rule): an id of 1..100 letters, digits, '.',
 * '_' and '-' that starts with neither '.' nor "id-" is its own name; any other becomes "id-"
 * and its bytes in hex, or, when that would pass 200 characters, "id-", the first 80 hex
 * digits, '-' and a 64-bit FNV-1a hash of the whole id. Distinct ids get distinct names (a hash
 * collision is caught by grader_check_ids, not assumed away); no name leaves its folder.
 * `out` needs room for 203 characters and the NUL. */
void grader_file_name(const char *student, char *out, size_t size);
/* Fails, naming both ids (made inert), when two entries have the same id or would share a
 * file name. grader_write_all calls it before it writes anything. */
int grader_check_ids(cJSON *const *entries, int n, tl_error *err);

/* Writes everything under out_dir (created if missing; its parent must exist): gradebook.csv,
 * results/<name>/results.json, feedback/<name>.txt, pages/<name>.html and report.html (which
 * links each student's page), <name> from grader_file_name. Refuses ids that would share a name. Stops at the first failure. */
int grader_write_all(const char *out_dir, cJSON *const *entries, int n, const char *lab,
                     const grader_roster *roster, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_GRADER_OUTPUTS_H */
