/* The instructor's class report (report.html): summary, distribution, the students' table,
 * the student x dataset grid of verdicts and the speed chart, in one self-contained page. */
#include "outputs_entry.h"

#include <stdlib.h>
#include <string.h>

/* ---- report.html ------------------------------------------------------------------------- */
static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report_summary(FILE *f, cJSON *const *entries, int n, double *totals)
{
    double sum = 0, mx = 0, v;
    char a[40], b[40], c[40], d[40];
    int absent = 0, unlisted = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *score = entry_field(entries[i], "score");
        const char *roster = entry_str(entries[i], "roster");
        absent += entry_absent(entries[i]);
        unlisted += roster && strcmp(roster, GRADER_NOT_IN_ROSTER) == 0;
        totals[i] = entry_num(score, "total", &v) ? v : 0;
        sum += totals[i];
        if (entry_num(score, "max", &v) && v > mx)
            mx = v;
    }
    qsort(totals, (size_t)n, sizeof *totals, by_double);
    double median = n == 0 ? 0 : n % 2 ? totals[n / 2] : (totals[n / 2 - 1] + totals[n / 2]) / 2;
    fprintf(f, "<section id=\"summary\"><h2>Class summary</h2>\n<table class=\"summary\">\n"
               "<tr><th>Students</th><td>%d</td></tr>\n<tr><th>Points possible</th><td>%s</td>"
               "</tr>\n", n, out_fmt_num(a, mx));
    if (absent)
        fprintf(f, "<tr><th>On the roster, no submission (0 points)</th><td class=\"absent\">%d"
                   "</td></tr>\n", absent);
    if (unlisted)
        fprintf(f, "<tr><th>Submissions not in the roster</th><td>%d</td></tr>\n", unlisted);
    if (n > 0)
        fprintf(f, "<tr><th>Mean total</th><td class=\"mean\">%s</td></tr>\n<tr><th>Median total"
                   "</th><td>%s</td></tr>\n<tr><th>Min total</th><td>%s</td></tr>\n<tr><th>Max "
                   "total</th><td>%s</td></tr>\n", out_fmt_num(a, sum / n), out_fmt_num(b, median),
                out_fmt_num(c, totals[0]), out_fmt_num(d, totals[n - 1]));
    fputs("</table></section>\n", f);
}

static void report_distribution(FILE *f, cJSON *const *entries, int n)
{
    int bins[10] = {0}, top = 1;
    for (int i = 0; i < n; i++) {
        const cJSON *score = entry_field(entries[i], "score");
        double t = 0, mx = 0;
        entry_num(score, "total", &t);
        entry_num(score, "max", &mx);
        double pct = mx > 0 ? 100 * t / mx : 0;
        int b = pct >= 100 ? 9 : pct <= 0 ? 0 : (int)(pct / 10); /* a full score joins 90-100 */
        if (++bins[b] > top)
            top = bins[b];
    }
    fputs("<section id=\"distribution\"><h2>Score distribution</h2>\n<svg xmlns=\"http://www.w3.org/"
          "2000/svg\" width=\"560\" height=\"230\" role=\"img\" aria-label=\"students per 10% of "
          "the points possible\">\n", f);
    for (int b = 0; b < 10; b++) {
        double h = 160.0 * bins[b] / top;
        int x = 20 + 54 * b;
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"46\" height=\"%.1f\" class=\"bar\"><title>"
                   "%d%%-%d%%: %d</title></rect>\n<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">"
                   "%d</text>\n<text x=\"%d\" y=\"205\" text-anchor=\"middle\">%d-%d%%</text>\n",
                x, 185 - h, h, 10 * b, 10 * b + 10, bins[b], x + 23, 180 - h, bins[b], x + 23,
                10 * b, 10 * b + 10);
    }
    fputs("<line x1=\"15\" y1=\"185\" x2=\"560\" y2=\"185\" class=\"axis\"/>\n</svg></section>\n", f);
}

static void report_table(FILE *f, cJSON *const *entries, const keyed *order, int n)
{
    fputs("<section id=\"students\"><h2>Students</h2>\n<table class=\"students\">\n<thead><tr>"
          "<th>Student</th><th>Total</th><th>Datasets passed</th><th>Build</th><th>GFLOP/s</th>"
          "<th>Ratio to reference</th><th>Flags</th></tr></thead>\n<tbody>\n", f);
    for (int r = 0; r < n; r++) {
        const cJSON *e = entries[order[r].index], *score = entry_field(e, "score"), *chk;
        const cJSON *ok = entry_field(entry_field(e, "build"), "ok");
        dataset_stats st = entry_stats(e, false);
        double t, mx, ratio = entry_ratio(e);
        char a[40], b[40];
        bool static_failed = false;
        cJSON_ArrayForEach(chk, entry_field(e, "static")) {
            if (!cJSON_IsTrue(entry_field(chk, "ok")))
                static_failed = true;
        }
        fputs("<tr class=\"student\"><td>", f);
        tl_html_write(f, entry_student(e));
        fprintf(f, "</td><td>%s / %s</td><td>%d / %d</td><td>%s</td>",
                entry_num(score, "total", &t) ? out_fmt_num(a, t) : "?",
                entry_num(score, "max", &mx) ? out_fmt_num(b, mx) : "?", st.passed, st.total,
                cJSON_IsBool(ok) ? (cJSON_IsTrue(ok) ? "ok" : "<b>failed</b>")
                                 : entry_absent(e) ? "-" : "?");
        if (st.gflops > 0)
            fprintf(f, "<td>%.4g</td>", st.gflops);
        else
            fputs("<td>-</td>", f);
        if (ratio > 0)
            fprintf(f, "<td>%s%.2fx</td><td>", entry_slower(e) ? "&lt;" : "", ratio);
        else
            fputs("<td>-</td><td>", f);
        if (cJSON_IsFalse(ok))
            fputs("<span class=\"flag\">build failed</span> ", f);
        if (static_failed)
            fputs("<span class=\"flag\">static check failed</span> ", f);
        if (entry_predicted(e))
            fputs("<span class=\"flag\">predicted time</span> ", f);
        if (entry_str(e, "roster")) { /* no submission, not in the roster, another spelling */
            fputs("<span class=\"flag\">", f);
            tl_html_write(f, entry_str(e, "roster"));
            fputs("</span> ", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></section>\n", f);
}

/* What one dataset cell says: the verdict, or for an unsafe one the finding's kind and lines
 * ("shared-memory race at template.cu:25 and line 29"), its detail in full on hover. */
static void grid_cell(FILE *f, const cJSON *d)
{
    const char *verdict = d ? entry_str(d, "verdict") : NULL;
    const char *detail = d ? entry_str(d, "detail") : NULL;
    if (!verdict) {
        fputs("<td>-</td>", f);
        return;
    }
    fprintf(f, "<td class=\"v-%s\"", entry_dataset_passed(d) ? "pass" : "fail");
    if (detail && *detail) {
        fputs(" title=\"", f);
        tl_html_write(f, detail);
        fputc('"', f);
    }
    fputc('>', f);
    if (entry_verdict_is(d, TL_VERDICT_UNSAFE) && detail && *detail) {
        char cause[128];
        snprintf(cause, sizeof cause, "%.*s", (int)strcspn(detail, "(;"), detail);
        tl_html_write(f, cause);
    } else {
        tl_html_write(f, verdict);
    }
    fputs("</td>", f);
}

static const cJSON *dataset_named(const cJSON *e, const char *name, bool hidden)
{
    const cJSON *d;
    cJSON_ArrayForEach(d, entry_field(e, "datasets")) {
        const char *dn = entry_str(d, "name");
        if (dn && strcmp(dn, name) == 0 && cJSON_IsTrue(entry_field(d, "hidden")) == hidden)
            return d;
    }
    return NULL;
}

/* Students down, datasets across (every dataset any entry has, in first-seen order), each cell
 * the verdict; each student links to their feedback file beside the report. */
static void report_grid(FILE *f, cJSON *const *entries, const keyed *order, int n)
{
    enum { MAX_COLUMNS = 128 };
    const cJSON *cols[MAX_COLUMNS];
    int ncols = 0;
    for (int i = 0; i < n; i++) {
        const cJSON *d;
        cJSON_ArrayForEach(d, entry_field(entries[i], "datasets")) {
            const char *name = entry_str(d, "name");
            bool hidden = cJSON_IsTrue(entry_field(d, "hidden"));
            int c = 0;
            while (name && c < ncols && !(strcmp(entry_str(cols[c], "name"), name) == 0 &&
                                          cJSON_IsTrue(entry_field(cols[c], "hidden")) == hidden))
                c++;
            if (name && c == ncols && ncols < MAX_COLUMNS)
                cols[ncols++] = d;
        }
    }
    fputs("<section id=\"verdicts\"><h2>Verdicts, student by dataset</h2>\n"
          "<table class=\"grid\">\n<thead><tr><th>Student</th>", f);
    for (int c = 0; c < ncols; c++) {
        const char *size = entry_str(cols[c], "size");
        fputs("<th>", f);
        if (cJSON_IsTrue(entry_field(cols[c], "hidden")))
            fputs("hidden ", f);
        tl_html_write(f, entry_str(cols[c], "name"));
        fputs("<br>", f);
        tl_html_write(f, size ? size : "");
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (int r = 0; r < n; r++) {
        const cJSON *e = entries[order[r].index];
        char file[256];
        grader_file_name(entry_student(e), file, sizeof file);
        fputs("<tr><td><a href=\"pages/", f);
        tl_html_write(f, file);
        fputs(".html\">", f);
        tl_html_write(f, entry_student(e));
        fputs("</a> (<a href=\"feedback/", f);
        tl_html_write(f, file);
        fputs(".txt\">text</a>)</td>", f);
        for (int c = 0; c < ncols; c++)
            grid_cell(f, dataset_named(e, entry_str(cols[c], "name"),
                                       cJSON_IsTrue(entry_field(cols[c], "hidden"))));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></section>\n", f);
}

/* Whether any entry's speed was graded: a rubric with no performance points (a lab.json lab's)
 * marks every entry's performance "graded": false, and then the report shows no speed. */
static bool speed_graded(cJSON *const *entries, int n)
{
    for (int i = 0; i < n; i++) {
        const cJSON *perf = entry_field(entries[i], "performance");
        if (perf && !cJSON_IsFalse(entry_field(perf, "graded")))
            return true;
    }
    return false;
}

/* Which grading this was: when, on what, the performance dataset. */
static void report_header(FILE *f, cJSON *const *entries, int n)
{
    if (n == 0)
        return;
    int k = 0;
    while (k < n - 1 && entry_absent(entries[k]))   /* a roster's student with no submission */
        k++;
    const cJSON *e = entries[k];
    const cJSON *perf = entry_field(e, "performance");
    const char *first = entry_str(e, "graded_at"), *last = first;
    for (int i = 1; i < n; i++) {
        const char *t = entry_str(entries[i], "graded_at");
        if (t && (!first || strcmp(t, first) < 0))
            first = t;
        if (t && (!last || strcmp(t, last) > 0))
            last = t;
    }
    fputs("<p class=\"grading\">Graded ", f);
    tl_html_write(f, first ? first : "?");
    if (last && first && strcmp(first, last) != 0) {
        fputs(" to ", f);
        tl_html_write(f, last);
    }
    fputs(" on the ", f);
    tl_html_write(f, entry_str(e, "backend") ? entry_str(e, "backend") : "?");
    fputs(" backend (", f);
    tl_html_write(f, entry_str(e, "device") ? entry_str(e, "device") : "?");
    if (!speed_graded(entries, n)) {
        fputs("); no points for speed in this lab's rubric.</p>\n", f);
        return;
    }
    fputs("); performance on a ", f);
    tl_html_write(f, entry_str(perf, "dataset") ? entry_str(perf, "dataset") : "?");
    fputs(" dataset made for the grading", f);
    fputs(entry_predicted(e) ? ", times predicted for an H100 by the performance model" : "", f);
    fputs(".</p>\n", f);
}

static void report_speed(FILE *f, cJSON *const *entries, const keyed *order, int n)
{
    double top = 1;
    int predicted = 0;
    for (int i = 0; i < n; i++) {
        double r = entry_ratio(entries[i]);
        top = r > top ? r : top;
        predicted += entry_predicted(entries[i]);
    }
    top *= 1.1; /* room for the value after the longest bar */
    fputs("<section id=\"speed\"><h2>Speed relative to the reference (reference_ms / student_ms)", f);
    if (predicted)
        fputs(predicted == n ? " \u2014 predicted H100 times (CPU backend)"
                             : " \u2014 * marks a predicted H100 time (CPU backend)", f);
    const int label = 180, width = 400, row = 24, height = 40 + row * (n > 0 ? n : 1);
    double ref_x = label + width / top;
    fprintf(f, "</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "role=\"img\" aria-label=\"speed relative to the reference\">\n",
            label + width + 80, height);
    for (int r = 0; r < n; r++) {
        const cJSON *e = entries[order[r].index];
        double ratio = entry_ratio(e), y = 20 + row * r;
        fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", label - 6, y + 16);
        tl_html_write(f, entry_student(e));
        fprintf(f, "%s</text>\n", predicted && predicted < n && entry_predicted(e) ? " *" : "");
        if (ratio > 0)
            fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" class=\"bar\"/>"
                       "<text x=\"%.1f\" y=\"%.0f\">%.2fx</text>\n",
                    label, y + 3, width * ratio / top, row - 6, label + width * ratio / top + 4,
                    y + 16, ratio);
        else
            fprintf(f, "<text x=\"%d\" y=\"%.0f\" class=\"none\">%s</text>\n", label + 4,
                    y + 16, entry_absent(e) ? GRADER_NO_SUBMISSION : "no timed run");
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"12\" x2=\"%.1f\" y2=\"%d\" class=\"ref\"/>\n<text x=\"%.1f\" "
               "y=\"10\" text-anchor=\"middle\">reference</text>\n</svg></section>\n",
            ref_x, ref_x, height - 8, ref_x);
}

int grader_write_report_html(const char *path, cJSON *const *entries, int n, const char *lab,
                             tl_error *err)
{
    if (out_check_entries(path, entries, n, err) != 0)
        return -1;
    if (!lab && n > 0)
        lab = entry_str(entries[0], "lab");
    keyed *order = out_sorted_by_student(entries, n);
    double *totals = malloc((size_t)(n > 0 ? n : 1) * sizeof *totals);
    membuf m;
    int rc = -1;
    if (!order || !totals) {
        tl_error_set(err, "%s: out of memory", path);
    } else if (out_open(&m, path, err) == 0) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
              "tilelab class report: ", m.f);
        tl_html_write(m.f, lab ? lab : "?");
        fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:2em;color:#222}\n"
              "table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:.25em .6em;"
              "text-align:left}\ntd{font-variant-numeric:tabular-nums}\n"
              ".bar{fill:#4a78b5}.axis{stroke:#444}.ref{stroke:#c0392b;stroke-width:2}\n"
              "svg text{font-size:12px;fill:#222}.none{fill:#888}\n"
              ".flag{background:#fde2c8;border-radius:3px;padding:0 .3em;white-space:nowrap}\n"
              ".v-pass{background:#e3f4e1}.v-fail{background:#f9dcdc}\n"
              ".unranked td{color:#666}\n"
              "</style>\n</head>\n<body>\n<h1>Class report: ", m.f);
        tl_html_write(m.f, lab ? lab : "?");
        fputs("</h1>\n", m.f);
        report_header(m.f, entries, n);
        report_summary(m.f, entries, n, totals);
        report_distribution(m.f, entries, n);
        if (board_any(entries, n))
            report_leaderboard(m.f, entries, n);
        report_table(m.f, entries, order, n);
        report_grid(m.f, entries, order, n);
        if (speed_graded(entries, n))
            report_speed(m.f, entries, order, n);
        fputs("</body>\n</html>\n", m.f);
        rc = out_commit(&m, path, err);
    }
    free(order);
    free(totals);
    return rc;
}

