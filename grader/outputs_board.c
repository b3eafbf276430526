/* The class leaderboard: the submissions ranked by their kernel time on the performance
 * dataset, ties broken by the time submitted; recorded in the entries, then shown in the
 * report, the gradebook and grade's summary. */
#include "outputs_entry.h"
#include "submitted.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One entry as the ranking sees it. */
typedef struct contender {
    int index;
    double ms;        /* the kernel time ranked */
    double submitted; /* seconds since the epoch, NAN when unknown */
    const char *student;
} contender;

/* Why an entry is not ranked, or NULL when it is: the board ranks correct kernels only, so
 * every graded dataset must have passed (unsafe named first, as it is the gravest), and its
 * performance run too, with a time. A fast kernel that is wrong at the edges is not on it. */
static const char *unranked_reason(const cJSON *e, double *ms)
{
    const cJSON *perf = entry_field(e, "performance"), *d;
    const char *verdict = entry_str(perf, "verdict"), *failed = NULL;
    cJSON_ArrayForEach(d, entry_field(e, "datasets")) {
        const char *v = entry_str(d, "verdict");
        if (entry_verdict_is(d, TL_VERDICT_UNSAFE))
            return tl_verdict_name(TL_VERDICT_UNSAFE);
        if (!failed && !entry_dataset_passed(d))
            failed = v ? v : "no verdict";
    }
    if (failed)
        return failed;
    if (verdict && !entry_verdict_is(perf, TL_VERDICT_PASS))
        return verdict;
    if (!verdict || !entry_positive(perf, "student_ms", ms))
        return "not timed";
    if (entry_slower(e))
        return "predicted slower than the time that earns speed points";
    return NULL;
}

static double submitted_of(const cJSON *e)
{
    const char *text = entry_str(e, "submitted");
    double t;
    return text && grader_time_parse(text, &t) == 0 ? t : NAN;
}

/* Earlier first, a known time before an unknown one. */
static int by_time(const contender *x, const contender *y)
{
    bool kx = !isnan(x->submitted), ky = !isnan(y->submitted);
    if (kx != ky)
        return kx ? -1 : 1;
    return kx ? (x->submitted > y->submitted) - (x->submitted < y->submitted) : 0;
}

/* Fastest first; then, so the order is the same on every run, time submitted and id. */
static int by_speed(const void *a, const void *b)
{
    const contender *x = a, *y = b;
    int c = (x->ms > y->ms) - (x->ms < y->ms);
    c = c ? c : by_time(x, y);
    return c ? c : strcmp(x->student, y->student);
}

/* Within a tie: earlier submitted first, then faster, then by id. */
static int by_tie(const void *a, const void *b)
{
    const contender *x = a, *y = b;
    int c = by_time(x, y);
    c = c ? c : (x->ms > y->ms) - (x->ms < y->ms);
    return c ? c : strcmp(x->student, y->student);
}

static bool tied(double faster, double slower)
{
    return fabs(slower - faster) <= GRADER_BOARD_TIE * fmin(faster, slower);
}

/* Ranks of one tie, c[0..k) already in by_tie order from position `first`: a tie that every
 * member's time breaks gets successive ranks (the same time, the same rank); one with a member
 * of unknown time cannot be broken and shares the first rank. */
static void rank_tie(cJSON *const *entries, const contender *c, int k, int first)
{
    bool all_known = true;
    for (int i = 0; i < k; i++)
        all_known = all_known && !isnan(c[i].submitted);
    int rank = first;
    for (int i = 0; i < k; i++) {
        if (all_known && i > 0 && c[i].submitted != c[i - 1].submitted)
            rank = first + i;
        cJSON *board = cJSON_CreateObject();
        cJSON_AddNumberToObject(board, "rank", rank);
        cJSON_AddNumberToObject(board, "position", first + i);
        cJSON_ReplaceItemInObject(entries[c[i].index], "leaderboard", board);
    }
}

int grader_leaderboard_rank(cJSON *const *entries, int n, tl_error *err)
{
    if (out_check_entries("leaderboard", entries, n, err) != 0)
        return -1;
    contender *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    if (!c)
        return tl_error_set(err, "leaderboard: out of memory");
    int k = 0;
    for (int i = 0; i < n; i++) {
        double ms = 0;
        const char *why = unranked_reason(entries[i], &ms);
        cJSON_DeleteItemFromObjectCaseSensitive(entries[i], "leaderboard");
        if (entry_absent(entries[i]))
            continue; /* a student, not a submission: the board ranks submissions */
        cJSON *board = cJSON_AddObjectToObject(entries[i], "leaderboard");
        if (why)
            cJSON_AddStringToObject(board, "unranked", why);
        else
            c[k++] = (contender){i, ms, submitted_of(entries[i]), entry_student(entries[i])};
    }
    qsort(c, (size_t)k, sizeof *c, by_speed);
    /* A tie is measured against its fastest member, so ties never chain down the board. */
    for (int start = 0, end; start < k; start = end) {
        for (end = start + 1; end < k && tied(c[start].ms, c[end].ms); end++)
            ;
        qsort(c + start, (size_t)(end - start), sizeof *c, by_tie);
        rank_tie(entries, c + start, end - start, start + 1);
    }
    free(c);
    return 0;
}

/* ---- reading it back --------------------------------------------------------------------- */
bool entry_board(const cJSON *e, int *rank, int *position)
{
    const cJSON *board = entry_field(e, "leaderboard");
    double r, p;
    *rank = *position = 0;
    if (!cJSON_IsObject(board))
        return false;
    if (entry_positive(board, "rank", &r) && entry_positive(board, "position", &p)) {
        *rank = (int)r;
        *position = (int)p;
    }
    return true;
}

bool board_any(cJSON *const *entries, int n)
{
    int rank, position;
    for (int i = 0; i < n; i++)
        if (entry_board(entries[i], &rank, &position))
            return true;
    return false;
}

typedef struct placed {
    int index, position; /* position 0: unranked, after every ranked one */
    const char *student;
} placed;

static int by_place(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if ((x->position == 0) != (y->position == 0))
        return x->position == 0 ? 1 : -1;
    int c = (x->position > y->position) - (x->position < y->position);
    return c ? c : strcmp(x->student, y->student);
}

/* The entries that have a leaderboard object, ranked ones by position, then unranked ones by
 * id: their indices into order (malloc'd), the count in *count; NULL when memory runs out. */
static int *board_order(cJSON *const *entries, int n, int *count, int *ranked)
{
    placed *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order), rank, position;
    *count = *ranked = 0;
    if (!p || !order) {
        free(p);
        free(order);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (entry_board(entries[i], &rank, &position)) {
            p[(*count)++] = (placed){i, position, entry_student(entries[i])};
            *ranked += position > 0;
        }
    qsort(p, (size_t)*count, sizeof *p, by_place);
    for (int i = 0; i < *count; i++)
        order[i] = p[i].index;
    free(p);
    return order;
}

/* GFLOP/s of a kernel time on the performance dataset ("MxKxN"), 0 when its size is unknown. */
static double board_gflops(const cJSON *e, double ms)
{
    const char *size = entry_str(entry_field(e, "performance"), "dataset");
    int m, k, n;
    char tail;
    if (!size || sscanf(size, "%dx%dx%d%c", &m, &k, &n, &tail) != 3 || m <= 0 || k <= 0 || n <= 0)
        return 0;
    return 2.0 * m * k * n / (ms * 1e6);
}

/* ---- report.html ----------------------------------------------------------------------- */
void report_leaderboard(FILE *f, cJSON *const *entries, int n)
{
    int count, ranked, predicted = 0, rank, position;
    int *order = board_order(entries, n, &count, &ranked);
    if (!order)
        return;
    for (int i = 0; i < count; i++)
        predicted += entry_predicted(entries[order[i]]);
    fputs("<section id=\"leaderboard\"><h2>Leaderboard", f);
    if (predicted)
        fputs(predicted == count ? " \u2014 predicted H100 times (CPU backend)"
                                 : " \u2014 some times are predicted H100 times (CPU backend)", f);
    fprintf(f, "</h2>\n<p>%d of %d submission(s) ranked by the median kernel time on the "
               "performance dataset, fastest first. Times within %g %% of the faster are a tie, "
               "broken by the time submitted (earlier first); a tie with a submission of unknown "
               "time keeps one rank.</p>\n<table class=\"leaderboard\">\n<thead><tr><th>Rank</th>"
               "<th>Student</th><th>Kernel time (ms)</th><th>GFLOP/s</th><th>Ratio to reference"
               "</th><th>Submitted</th></tr></thead>\n<tbody>\n", ranked, count,
            100 * GRADER_BOARD_TIE);
    for (int i = 0; i < count; i++) {
        const cJSON *e = entries[order[i]], *perf = entry_field(e, "performance");
        const char *when = entry_str(e, "submitted");
        double ms = 0, gflops;
        entry_board(e, &rank, &position);
        if (rank == 0) {
            const char *why = entry_str(entry_field(e, "leaderboard"), "unranked");
            fputs("<tr class=\"unranked\"><td>-</td><td>", f);
            tl_html_write(f, entry_student(e));
            fputs("</td><td colspan=\"4\">unranked: ", f);
            tl_html_write(f, why ? why : "?");
            fputs("</td></tr>\n", f);
            continue;
        }
        entry_positive(perf, "student_ms", &ms);
        fprintf(f, "<tr class=\"ranked\"><td>%d</td><td>", rank);
        tl_html_write(f, entry_student(e));
        fprintf(f, "</td><td>%.4g%s</td>", ms, entry_predicted(e)
                    ? " <span class=\"flag\">predicted H100</span>" : "");
        gflops = board_gflops(e, ms);
        if (gflops > 0)
            fprintf(f, "<td>%.1f</td>", gflops);
        else
            fputs("<td>-</td>", f);
        if (entry_ratio(e) > 0) /* a described lab has no reference */
            fprintf(f, "<td>%.2fx</td><td>", entry_ratio(e));
        else
            fputs("<td>-</td><td>", f);
        tl_html_write(f, when ? when : "-");
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></section>\n", f);
    free(order);
}

/* ---- grade's summary ------------------------------------------------------------------- */
void grader_print_leaderboard(FILE *f, cJSON *const *entries, int n, int top)
{
    int count, ranked, rank, position;
    int *order = board_order(entries, n, &count, &ranked);
    if (!order || count == 0) {
        free(order);
        return;
    }
    int shown = ranked < top ? ranked : top;
    fprintf(f, "\nleaderboard: %d of %d ranked by kernel time%s; the top %d\n", ranked, count,
            shown > 0 && entry_predicted(entries[order[0]]) ? " (predicted H100)" : "", shown);
    if (shown > 0)
        fprintf(f, "%5s %-16s %12s %10s %7s  %s\n", "rank", "student", "kernel ms", "GFLOP/s",
                "ratio", "submitted");
    for (int i = 0; i < shown; i++) {
        const cJSON *e = entries[order[i]];
        double ms = 0, gflops;
        entry_board(e, &rank, &position);
        entry_positive(entry_field(e, "performance"), "student_ms", &ms);
        gflops = board_gflops(e, ms);
        const char *when = entry_str(e, "submitted");
        char *id = tl_text_line(entry_student(e), strlen(entry_student(e)));
        char *at = tl_text_line(when ? when : "-", strlen(when ? when : "-"));
        char rate[32] = "-", ratio[32] = "-";
        if (gflops > 0)
            snprintf(rate, sizeof rate, "%.1f", gflops);
        if (entry_ratio(e) > 0)
            snprintf(ratio, sizeof ratio, "%.2fx", entry_ratio(e));
        fprintf(f, "%5d %-16.16s %12.4g %10s %7s  %s\n", rank, id ? id : "", ms, rate, ratio,
                at ? at : "");
        free(id);
        free(at);
    }
    if (ranked < count)
        fprintf(f, "%d unranked (the report lists them with the reason)\n", count - ranked);
    free(order);
}
