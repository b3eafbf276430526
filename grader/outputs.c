/* The grader's output files, made from the journal entries: gradebook CSV, Gradescope
 * results.json, student feedback and the instructor's HTML report (outputs_entry.c reads the
 * entries and writes the files atomically). */
#include "outputs_entry.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* ---- gradebook.csv ------------------------------------------------------------------------- */
/* A cell: one inert line, a formula start neutralised (tl_text_csv_cell), then RFC 4180
 * quoting. */
static void csv_field(FILE *f, const char *raw)
{
    char *safe = tl_text_csv_cell(raw, strlen(raw));
    const char *s = safe ? safe : "";
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        free(safe);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
    free(safe);
}

static const cJSON *item_named(const cJSON *e, const char *name)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, entry_field(entry_field(e, "score"), "items")) {
        const char *in = entry_str(it, "name");
        if (in && strcmp(in, name) == 0)
            return it;
    }
    return NULL;
}

/* A dataset's item ("dataset 0 (32x32x32)", "hidden dataset ..."): its verdict gets a column
 * of its own beside the points. */
static bool is_dataset_item(const char *name)
{
    return strncmp(name, "dataset ", 8) == 0 || strncmp(name, "hidden dataset ", 15) == 0;
}

/* The verdict an item's output starts with ("pass: all ...", "unsafe: shared-memory race ...":
 * one of the runner's verdict words, lower case and '-'), or "" when there is none. */
static void verdict_of(const cJSON *item, char *out, size_t size)
{
    const char *text = item ? entry_str(item, "output") : NULL;
    out[0] = '\0';
    if (!text)
        return;
    size_t n = strspn(text, "abcdefghijklmnopqrstuvwxyz-");
    if (n > 0 && n < size && text[n] == ':')
        snprintf(out, size, "%.*s", (int)n, text);
}

int grader_write_gradebook(const char *path, cJSON *const *entries, int n, tl_error *err)
{
    return grader_write_gradebook_roster(path, entries, n, NULL, err);
}

/* A roster's row for an id without a submission: its columns, total 0 of `max`. */
static void absent_row(FILE *f, const grader_roster *roster, int row, double max, size_t ncells)
{
    char num[40];
    csv_field(f, roster->ids[row]);
    for (int k = 0; k < roster->ncols; k++) {
        fputc(',', f);
        csv_field(f, roster->values[(size_t)row * (size_t)roster->ncols + (size_t)k]);
    }
    fprintf(f, ",0,%s", max > 0 ? out_fmt_num(num, max) : "");
    for (size_t c = 0; c < ncells; c++)
        fputc(',', f);
    fputs("," GRADER_NO_SUBMISSION "\r\n", f);
}

/* The gradebook's columns: the items' names in the order they first appear (pointing into the
 * entries), the roster's own columns, and whether a leaderboard rank is shown. */
typedef struct gradebook {
    const char **cols;
    size_t ncols;
    const grader_roster *roster;
    bool board;
} gradebook;

static void collect_columns(gradebook *g, cJSON *const *entries, int n)
{
    for (int i = 0; i < n; i++) {
        const cJSON *it;
        cJSON_ArrayForEach(it, entry_field(entry_field(entries[i], "score"), "items")) {
            const char *name = entry_str(it, "name");
            size_t c = 0;
            while (name && c < g->ncols && strcmp(g->cols[c], name) != 0)
                c++;
            if (name && c == g->ncols)
                g->cols[g->ncols++] = name;
        }
    }
}

/* The header line; returns how many cells come after max (which an absent id leaves empty). */
static size_t write_header(FILE *f, const gradebook *g)
{
    fputs("student", f);
    for (int k = 0; g->roster && k < g->roster->ncols; k++) {
        fputc(',', f);
        csv_field(f, g->roster->cols[k]);
    }
    fputs(",total,max", f);
    /* The rank beside the total: what an instructor reads with it. */
    if (g->board)
        fputs(",leaderboard rank", f);
    char head[300];
    size_t ncells = g->board;
    for (size_t c = 0; c < g->ncols; c++) {
        fputc(',', f);
        csv_field(f, g->cols[c]);
        ncells++;
        if (is_dataset_item(g->cols[c])) {
            snprintf(head, sizeof head, "%.250s verdict", g->cols[c]);
            fputc(',', f);
            csv_field(f, head);
            ncells++;
        }
    }
    if (g->roster)
        fputs(",roster", f);
    fputs("\r\n", f);
    return ncells;
}

/* One submission's row; *max keeps the largest max score seen. */
static void write_row(FILE *f, const gradebook *g, const cJSON *e, double *max)
{
    const cJSON *score = entry_field(e, "score");
    const grader_roster *roster = g->roster;
    char num[40];
    double v;
    csv_field(f, entry_student(e));
    int in_roster = roster ? grader_roster_find(roster, entry_student(e)) : -1;
    for (int k = 0; roster && k < roster->ncols; k++) {
        fputc(',', f);
        if (in_roster >= 0)
            csv_field(f, roster->values[(size_t)in_roster * (size_t)roster->ncols + (size_t)k]);
    }
    if (entry_num(score, "max", &v) && v > *max)
        *max = v;
    fprintf(f, ",%s", entry_num(score, "total", &v) ? out_fmt_num(num, v) : "");
    fprintf(f, ",%s", entry_num(score, "max", &v) ? out_fmt_num(num, v) : "");
    int rank, position;
    if (g->board && entry_board(e, &rank, &position) && rank > 0)
        fprintf(f, ",%d", rank);
    else if (g->board)
        fputc(',', f);
    for (size_t c = 0; c < g->ncols; c++) {
        const cJSON *it = item_named(e, g->cols[c]);
        fprintf(f, ",%s", it && entry_num(it, "score", &v) ? out_fmt_num(num, v) : "");
        if (is_dataset_item(g->cols[c])) {
            char verdict[32];
            verdict_of(it, verdict, sizeof verdict);
            fprintf(f, ",%s", verdict);
        }
    }
    if (roster) {
        const char *status = entry_str(e, "roster");
        fputc(',', f);
        csv_field(f, status ? status : in_roster >= 0 ? "" : GRADER_NOT_IN_ROSTER);
    }
    fputs("\r\n", f);
}

int grader_write_gradebook_roster(const char *path, cJSON *const *entries, int n,
                                  const grader_roster *roster, tl_error *err)
{
    if (out_check_entries(path, entries, n, err) != 0)
        return -1;
    /* The columns point into the entries; there are at most as many as items in all. */
    size_t cap = 1;
    for (int i = 0; i < n; i++)
        cap += (size_t)cJSON_GetArraySize(entry_field(entry_field(entries[i], "score"), "items"));
    gradebook g = {malloc(cap * sizeof *g.cols), 0, roster, board_any(entries, n)};
    keyed *order = out_sorted_by_student(entries, n);
    membuf m;
    int rc = -1;
    if (!g.cols || !order) {
        tl_error_set(err, "%s: out of memory", path);
    } else if (out_open(&m, path, err) == 0) {
        m.rule = INERT_NONE; /* CRLF line ends stay: every cell was made safe on its own */
        collect_columns(&g, entries, n);
        size_t ncells = write_header(m.f, &g);
        double max = 0;
        for (int r = 0; r < n; r++)
            write_row(m.f, &g, entries[order[r].index], &max);
        /* Students of the roster without a submission: nothing is lost. */
        for (int i = 0; roster && i < roster->nrows; i++) {
            bool found = false;
            for (int k = 0; k < n && !found; k++)
                found = strcmp(entry_student(entries[k]), roster->ids[i]) == 0;
            if (!found)
                absent_row(m.f, roster, i, max, ncells);
        }
        rc = out_commit(&m, path, err);
    }
    free(g.cols);
    free(order);
    return rc;
}

/* ---- Gradescope results.json ------------------------------------------------------------- */
static void add_num(cJSON *o, const char *key, const cJSON *from, const char *from_key)
{
    double v;
    cJSON_AddNumberToObject(o, key, entry_num(from, from_key, &v) ? v : 0);
}

static void add_leader(cJSON *board, const char *name, double value, const char *order)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "name", name);
    cJSON_AddNumberToObject(l, "value", value);
    cJSON_AddStringToObject(l, "order", order);
    cJSON_AddItemToArray(board, l);
}

/* The compile test's output when the build failed: the compiler's messages after it, cut as
 * the feedback cuts them; Gradescope shows a student nothing else of a build. NULL when memory
 * runs out. */
static char *with_messages(const char *output, const char *msgs)
{
    size_t len = strlen(msgs), shown = len < OUT_MESSAGES_SHOWN_MAX ? len : OUT_MESSAGES_SHOWN_MAX;
    size_t size = strlen(output) + shown + 64;
    char *out = malloc(size);
    if (!out)
        return NULL;
    int n = snprintf(out, size, "%s\n\n%.*s", output, (int)shown, msgs);
    if (n > 0 && len > shown)
        snprintf(out + n, size - (size_t)n, "\n[... %zu more bytes not shown]", len - shown);
    return out;
}

/* Before the due date nothing here may tell a hidden test's result. With hidden tests there is
 * no total here (Gradescope adds up the tests' scores and shows a student what their visibility
 * allows), no time the grading took (a hidden dataset that timed out took longer), and the
 * summary counts the visible tests only. */
typedef struct visible_score {
    int hidden;                        /* hidden tests */
    double hidden_max, total, max;     /* their points; the visible tests' score and points */
} visible_score;

static visible_score visible_score_of(const cJSON *score)
{
    visible_score vs = {0, 0, 0, 0};
    const cJSON *it;
    double v;
    cJSON_ArrayForEach(it, entry_field(score, "items")) {
        const char *vis = entry_str(it, "visibility");
        double *to_score = vis && !entry_visible(vis) ? NULL : &vs.total;
        double *to_max = to_score ? &vs.max : &vs.hidden_max;
        vs.hidden += !to_score;
        if (to_score)
            *to_score += entry_num(it, "score", &v) ? v : 0;
        *to_max += entry_num(it, "max_score", &v) ? v : 0;
    }
    return vs;
}

/* The summary ("output"), which Gradescope shows before the due date: it counts visible
 * datasets only. */
static void results_summary(const cJSON *entry, const visible_score *vs, char *out, size_t size)
{
    const cJSON *score = entry_field(entry, "score");
    const cJSON *ok = entry_field(entry_field(entry, "build"), "ok");
    dataset_stats st = entry_stats(entry, true);
    char a[40], b[40];
    double t = 0, mx = 0, ratio = entry_performance_shown(entry) ? entry_ratio(entry) : 0;
    entry_num(score, "total", &t);
    entry_num(score, "max", &mx);
    int len = snprintf(out, size, "%s / %s points%s. Build %s. %d of %d visible datasets "
                       "passed.", out_fmt_num(a, vs->hidden ? vs->total : t),
                       out_fmt_num(b, vs->hidden ? vs->max : mx),
                       vs->hidden ? " on the visible tests" : "",
                       cJSON_IsBool(ok) ? (cJSON_IsTrue(ok) ? "ok" : "failed") : "unknown",
                       st.passed, st.total);
    if (ratio > 0 && len > 0 && (size_t)len < size)
        len += snprintf(out + len, size - (size_t)len, " Speed %s%.2fx the reference's%s.",
                        entry_slower(entry) ? "below " : "", ratio, entry_predicted(entry)
                                   ? " (predicted for an H100 on the CPU backend)" : "");
    if (len > 0 && (size_t)len < size)
        snprintf(out + len, size - (size_t)len, vs->hidden
                 ? " %d more test(s), worth %s points, are hidden until their results are "
                   "released; the total counts them."
                 : " The total includes no hidden tests.", vs->hidden,
                 out_fmt_num(a, vs->hidden_max));
    if (entry_absent(entry))
        snprintf(out, size, "No submission of yours was graded: 0 / %s points.",
                 out_fmt_num(b, mx));
}

/* One test per score item; the compile test's output has the compiler's messages when the
 * build failed. */
static void add_tests(cJSON *root, const cJSON *entry)
{
    const cJSON *ok = entry_field(entry_field(entry, "build"), "ok"), *it;
    const char *msgs = entry_str(entry_field(entry, "build"), "messages");
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    cJSON_ArrayForEach(it, entry_field(entry_field(entry, "score"), "items")) {
        cJSON *tj = cJSON_CreateObject();
        const char *name = entry_str(it, "name"), *text = entry_str(it, "output");
        const char *vis = entry_str(it, "visibility");
        cJSON_AddStringToObject(tj, "name", name ? name : "");
        add_num(tj, "score", it, "score");
        add_num(tj, "max_score", it, "max_score");
        cJSON_AddStringToObject(tj, "status", entry_item_passed(it) ? "passed" : "failed");
        char *built = name && strcmp(name, "compile") == 0 && cJSON_IsFalse(ok) && msgs && *msgs
                          ? with_messages(text ? text : "", msgs) : NULL;
        cJSON_AddStringToObject(tj, "output", built ? built : text ? text : "");
        cJSON_AddStringToObject(tj, "output_format", "text");
        free(built);
        cJSON_AddStringToObject(tj, "visibility", vis ? vis : "visible");
        cJSON_AddItemToArray(tests, tj);
    }
}

static void add_leaderboard(cJSON *root, const cJSON *entry)
{
    double ms;
    dataset_stats st = entry_stats(entry, true);
    cJSON *board = cJSON_AddArrayToObject(root, "leaderboard");
    if (st.gflops > 0)
        add_leader(board, "GFLOP/s", st.gflops, "desc");
    if (entry_performance_shown(entry) &&
        entry_positive(entry_field(entry, "performance"), "student_ms", &ms))
        add_leader(board, "kernel ms", ms, "asc");
}

int grader_write_results_json(const char *path, const cJSON *entry, tl_error *err)
{
    if (!cJSON_IsObject(entry))
        return tl_error_set(err, "%s: the entry is not a JSON object", path);
    cJSON *root = cJSON_CreateObject();
    visible_score vs = visible_score_of(entry_field(entry, "score"));
    if (!vs.hidden) {
        add_num(root, "score", entry_field(entry, "score"), "total");
        add_num(root, "execution_time", entry, "execution_time");
    }
    char out[512];
    results_summary(entry, &vs, out, sizeof out);
    cJSON_AddStringToObject(root, "output", out);
    /* Outputs quote the submission (its compiler messages, its source lines): shown as plain
     * text, never rendered as HTML or Markdown. */
    cJSON_AddStringToObject(root, "output_format", "text");
    cJSON_AddStringToObject(root, "test_output_format", "text");
    cJSON_AddStringToObject(root, "visibility", "visible");
    add_tests(root, entry);
    const char *submitted = entry_str(entry, "submitted");
    if (submitted)
        cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "extra_data"), "submitted",
                                submitted);
    add_leaderboard(root, entry);
    char *json = cJSON_Print(root);
    cJSON_Delete(root);
    membuf m;
    int rc = -1;
    if (!json)
        tl_error_set(err, "%s: out of memory", path);
    else if (out_open(&m, path, err) == 0) {
        m.rule = INERT_UTF8;
        fprintf(m.f, "%s\n", json);
        rc = out_commit(&m, path, err);
    }
    free(json);
    return rc;
}

/* ---- feedback.txt ------------------------------------------------------------------------ */
/* Multi-line text, each line indented, cut at `cap` bytes with a note. */
static void put_indented(FILE *f, const char *text, const char *indent, size_t cap)
{
    size_t len = strlen(text), shown = len < cap ? len : cap;
    while (shown > 0 && (text[shown - 1] == '\n' || text[shown - 1] == '\r'))
        shown--;
    fputs(indent, f);
    for (size_t i = 0; i < shown; i++) {
        fputc(text[i], f);
        if (text[i] == '\n' && i + 1 < shown)
            fputs(indent, f);
    }
    fputc('\n', f);
    if (len > cap)
        fprintf(f, "%s[... %zu more bytes not shown]\n", indent, len - cap);
}

/* An item's output in the list of items: its first line, the verdict and detail (the dataset's
 * causes and map follow under Datasets), cut at `cap` bytes but never inside a character. */
static void put_first_line(FILE *f, const char *text, const char *sep, size_t cap)
{
    size_t n = strcspn(text, "\r\n"), shown = n < cap ? n : cap;
    while (shown > 0 && shown < n && ((unsigned char)text[shown] & 0xC0) == 0x80)
        shown--;
    fprintf(f, "%s%.*s%s", sep, (int)shown, text, shown < n ? " [...]" : "");
}

/* A one-line field (an id, a file name, a check's name or detail): a line break in it could
 * forge the lines after it, so it is escaped along with what tl_text_line escapes. */
static void put_line(FILE *f, const char *s)
{
    char *line = tl_text_line(s, strlen(s));
    fputs(line ? line : "?", f);
    free(line);
}

static void feedback_items(FILE *f, const cJSON *e)
{
    const cJSON *score = entry_field(e, "score"), *it;
    double vis_total = 0, vis_max = 0, hid_max = 0, v, mx;
    int hidden = 0;
    char a[40], b[40], c[40];
    fputs("Score items:\n", f);
    cJSON_ArrayForEach(it, entry_field(score, "items")) {
        const char *name = entry_str(it, "name"), *out = entry_str(it, "output");
        bool has_v = entry_num(it, "score", &v), has_m = entry_num(it, "max_score", &mx);
        if (!entry_visible(entry_str(it, "visibility"))) {
            hidden++;
            hid_max += has_m ? mx : 0;
            fputs("  (hidden item): hidden until results are released\n", f);
            continue;
        }
        vis_total += has_v ? v : 0;
        vis_max += has_m ? mx : 0;
        fputs("  ", f);
        put_line(f, name ? name : "(unnamed)");
        fprintf(f, ": %s / %s, %s", has_v ? out_fmt_num(a, v) : "?",
                has_m ? out_fmt_num(b, mx) : "?", entry_item_passed(it) ? "passed" : "failed");
        if (out && *out)
            put_first_line(f, out, " - ", 600);
        fputc('\n', f);
    }
    /* With hidden items, the total would give their result away by subtraction. */
    if (hidden)
        fprintf(f, "Score on visible items: %s / %s (%d hidden item%s worth %s points, counted "
                   "in the final total)\n", out_fmt_num(a, vis_total), out_fmt_num(b, vis_max),
                hidden, hidden == 1 ? "" : "s", out_fmt_num(c, hid_max));
    else
        fprintf(f, "Total: %s / %s\n", entry_num(score, "total", &v) ? out_fmt_num(a, v) : "?",
                entry_num(score, "max", &mx) ? out_fmt_num(b, mx) : "?");
}

static void feedback_datasets(FILE *f, const cJSON *e)
{
    const cJSON *d;
    double v;
    char first_unsafe[768] = "", first_name[64] = "";
    fputs("\nDatasets:\n", f);
    cJSON_ArrayForEach(d, entry_field(e, "datasets")) {
        if (!entry_dataset_shown(e, d)) {
            fputs("  hidden dataset: hidden\n", f);
            continue;
        }
        const char *name = entry_str(d, "name"), *size = entry_str(d, "size");
        const char *verdict = entry_str(d, "verdict"), *detail = entry_str(d, "detail");
        const char *stderr_text = entry_str(d, "stderr");
        fprintf(f, "  %s%s (%s): %s", cJSON_IsTrue(entry_field(d, "hidden")) ? "hidden " : "",
                name ? name : "?", size ? size : "?", verdict ? verdict : "unknown");
        if (entry_positive(d, "kernel_ms", &v))
            fprintf(f, ", kernel %.4g ms", v);
        if (entry_positive(d, "gflops", &v))
            fprintf(f, ", %.4g GFLOP/s", v);
        fputc('\n', f);
        if (entry_dataset_passed(d))
            continue;
        explanation x;
        entry_explanation(d, &x);
        /* The same finding again (a missing barrier fails every dataset): said once, as run
         * says it. */
        bool again = x.verdict == TL_VERDICT_UNSAFE && first_unsafe[0] &&
                     explain_same_finding(x.detail, first_unsafe);
        if (cJSON_IsTrue(entry_field(d, "hidden"))) {
            put_indented(f, detail ? detail : "", "      ", 1500); /* never a hidden one's causes */
        } else if (again) {
            explain_print_detail(f, &x, "      ");
            fputs("      the same finding as dataset ", f);
            put_line(f, first_name);
            fputs(": its map and causes are above\n", f);
        } else {
            explain_print(f, &x, false, "      ");
            if (x.verdict == TL_VERDICT_UNSAFE && !first_unsafe[0]) {
                snprintf(first_unsafe, sizeof first_unsafe, "%s", x.detail);
                snprintf(first_name, sizeof first_name, "%s", name ? name : "?");
            }
        }
        explain_free(&x);
        if (stderr_text && *stderr_text) {
            fputs("      stderr:\n", f);
            put_indented(f, stderr_text, "        ", 1500);
        }
    }
}

static void feedback_performance(FILE *f, const cJSON *e)
{
    const cJSON *p = entry_field(e, "performance");
    double ratio = entry_ratio(e), ms, ref;
    if (!entry_performance_shown(e)) {
        fputs("\nPerformance: hidden until results are released (its points depend on the "
              "hidden datasets)\n", f);
        return;
    }
    const char *ds = entry_str(p, "dataset");
    fprintf(f, "\nPerformance%s%s%s: ", ds && *ds ? " (dataset " : "", ds && *ds ? ds : "",
            ds && *ds ? ")" : "");
    if (ratio <= 0 && cJSON_IsFalse(entry_field(p, "graded"))) {
        fputs("not graded (no points for speed in this lab's rubric)\n", f);
        return;
    }
    if (ratio <= 0) {
        fputs("no passing timed run, so no speed ratio\n", f);
        return;
    }
    bool slower = entry_slower(e);
    fprintf(f, "%s%.2fx the reference's speed", slower ? "below " : "", ratio);
    if (entry_positive(p, "student_ms", &ms) && entry_positive(p, "reference_ms", &ref))
        fprintf(f, " (your kernel %s%.4g ms, reference %.4g ms)", slower ? "slower than " : "", ms,
                ref);
    fputc('\n', f);
    if (entry_predicted(e))
        fputs("  predicted for an H100 by the performance model (CPU backend), not measured\n", f);
}

int grader_write_feedback(const char *path, const cJSON *entry, tl_error *err)
{
    membuf m;
    if (!cJSON_IsObject(entry))
        return tl_error_set(err, "%s: the entry is not a JSON object", path);
    if (out_open(&m, path, err) != 0)
        return -1;
    const char *lab = entry_str(entry, "lab"), *src = entry_str(entry, "source");
    const char *note = entry_str(entry, "note");
    const char *when = entry_str(entry, "graded_at"), *dev = entry_str(entry, "device");
    const char *msgs = entry_str(entry_field(entry, "build"), "messages");
    const cJSON *ok = entry_field(entry_field(entry, "build"), "ok"), *chk;
    double secs;
    fputs("tilelab feedback for ", m.f);
    put_line(m.f, entry_student(entry));
    fputs(", lab ", m.f);
    put_line(m.f, lab ? lab : "?");
    if (src) {
        fputs("\nSource: ", m.f);
        put_line(m.f, src);
    }
    if (note && *note) {
        fputs("\nNote: ", m.f);
        put_line(m.f, note);
    }
    fputc('\n', m.f);
    if (entry_absent(entry)) {
        char mx[40];
        double v;
        fprintf(m.f, "No submission of yours was graded: 0 / %s points.\n",
                entry_num(entry_field(entry, "score"), "max", &v) ? out_fmt_num(mx, v) : "?");
        return out_commit(&m, path, err);
    }
    fprintf(m.f, "Graded%s%s%s%s\n\n", when ? " at " : "", when ? when : "", dev ? " on " : "",
            dev ? dev : "");
    feedback_items(m.f, entry);
    if (cJSON_IsFalse(ok)) {
        fputs("\nBuild: FAILED\n", m.f);
        put_indented(m.f, msgs && *msgs ? msgs : "(no compiler messages)", "  ",
                     OUT_MESSAGES_SHOWN_MAX);
    } else if (cJSON_IsTrue(ok)) {
        fputs("\nBuild: ok", m.f);
        if (entry_num(entry_field(entry, "build"), "seconds", &secs))
            fprintf(m.f, " (%.1f s)", secs);
        fputc('\n', m.f);
    }
    if (cJSON_GetArraySize(entry_field(entry, "static")) > 0)
        fputs("\nStatic checks:\n", m.f);
    cJSON_ArrayForEach(chk, entry_field(entry, "static")) {
        const char *name = entry_str(chk, "name"), *detail = entry_str(chk, "detail");
        fprintf(m.f, "  [%s] ", cJSON_IsTrue(entry_field(chk, "ok")) ? "ok" : "FAIL");
        put_line(m.f, name ? name : "?");
        if (detail && *detail) {
            fputs(": ", m.f);
            put_line(m.f, detail);
        }
        fputc('\n', m.f);
    }
    feedback_datasets(m.f, entry);
    feedback_performance(m.f, entry);
    return out_commit(&m, path, err);
}

/* ---- everything -------------------------------------------------------------------------- */
static int make_dir(const char *path, tl_error *err)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    return tl_error_set(err, "%s: cannot create the folder: %s", path, strerror(errno));
}

int grader_write_all(const char *out_dir, cJSON *const *entries, int n, const char *lab,
                     const grader_roster *roster, tl_error *err)
{
    if (out_check_entries(out_dir, entries, n, err) != 0 ||
        grader_check_ids(entries, n, err) != 0 || make_dir(out_dir, err) != 0)
        return -1;
    size_t cap = strlen(out_dir) + 512;
    char *path = malloc(cap), name[256];
    if (!path)
        return tl_error_set(err, "%s: out of memory", out_dir);
#define PATH_OF(...) (snprintf(path, cap, __VA_ARGS__), path)
    int rc = grader_write_gradebook_roster(PATH_OF("%s/gradebook.csv", out_dir), entries, n,
                                           roster, err);
    if (rc == 0)
        rc = make_dir(PATH_OF("%s/results", out_dir), err);
    if (rc == 0)
        rc = make_dir(PATH_OF("%s/feedback", out_dir), err);
    if (rc == 0)
        rc = make_dir(PATH_OF("%s/pages", out_dir), err);
    for (int i = 0; rc == 0 && i < n; i++) {
        grader_file_name(entry_student(entries[i]), name, sizeof name);
        rc = make_dir(PATH_OF("%s/results/%s", out_dir, name), err);
        if (rc == 0)
            rc = grader_write_results_json(PATH_OF("%s/results/%s/results.json", out_dir, name),
                                           entries[i], err);
        if (rc == 0)
            rc = grader_write_feedback(PATH_OF("%s/feedback/%s.txt", out_dir, name), entries[i],
                                       err);
        if (rc == 0)
            rc = grader_write_student_page(PATH_OF("%s/pages/%s.html", out_dir, name),
                                           entries[i], err);
    }
    if (rc == 0)
        rc = grader_write_report_html(PATH_OF("%s/report.html", out_dir), entries, n, lab, err);
#undef PATH_OF
    free(path);
    return rc;
}
