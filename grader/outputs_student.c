/* A student's page: what run --report shows for each dataset (explain_html_dataset: the causes
 * with their lines, the worst element, the map of wrong tiles), with the score items, the
 * build and the static checks, under the hidden rules of the feedback: a hidden item or
 * dataset shows nothing of its result, and a shown hidden dataset its verdict and detail only. */
#include "outputs_entry.h"

#include <stdlib.h>
#include <string.h>

static void put_items(FILE *f, const cJSON *e)
{
    const cJSON *score = entry_field(e, "score"), *it;
    double v, mx, vis_total = 0, vis_max = 0, hidden_max = 0;
    int hidden = 0;
    char a[40], b[40];
    fputs("<table><caption>Score items</caption>\n<tr><th>item</th><th>points</th>"
          "<th>of</th><th>status</th></tr>\n", f);
    cJSON_ArrayForEach(it, entry_field(score, "items")) {
        const char *name = entry_str(it, "name");
        bool has_m = entry_num(it, "max_score", &mx);
        if (!entry_visible(entry_str(it, "visibility"))) {
            hidden++;
            hidden_max += has_m ? mx : 0;
            fputs("<tr><td>(hidden item)</td><td colspan=\"3\">hidden until results are "
                  "released</td></tr>\n", f);
            continue;
        }
        bool has_v = entry_num(it, "score", &v), passed = entry_item_passed(it);
        vis_total += has_v ? v : 0;
        vis_max += has_m ? mx : 0;
        fputs("<tr><td>", f);
        explain_html_text(f, name ? name : "(unnamed)");
        fprintf(f, "</td><td>%s</td><td>%s</td><td class=\"%s\">%s</td></tr>\n",
                has_v ? out_fmt_num(a, v) : "?", has_m ? out_fmt_num(b, mx) : "?",
                passed ? "pass" : "fail", passed ? "passed" : "failed");
    }
    fputs("</table>\n", f);
    /* With hidden items, the total would give their result away by subtraction. */
    if (hidden)
        fprintf(f, "<p>Score on visible items: %s / %s (%d hidden item%s worth %s points, "
                   "counted in the final total).</p>\n", out_fmt_num(a, vis_total),
                out_fmt_num(b, vis_max), hidden, hidden == 1 ? "" : "s",
                out_fmt_num((char[40]){0}, hidden_max));
    else
        fprintf(f, "<p>Total: %s / %s.</p>\n",
                entry_num(score, "total", &v) ? out_fmt_num(a, v) : "?",
                entry_num(score, "max", &mx) ? out_fmt_num(b, mx) : "?");
}

static void put_build(FILE *f, const cJSON *e)
{
    const cJSON *build = entry_field(e, "build"), *chk;
    const char *msgs = entry_str(build, "messages");
    if (cJSON_IsFalse(entry_field(build, "ok"))) {
        fputs("<h2>Build: failed</h2>\n<pre>", f);
        size_t len = msgs ? strlen(msgs) : 0;
        char *shown = msgs ? strndup(msgs, len < OUT_MESSAGES_SHOWN_MAX ? len : OUT_MESSAGES_SHOWN_MAX)
                           : NULL;
        tl_html_write(f, shown && *shown ? shown : "(no compiler messages)");
        free(shown);
        fputs("</pre>\n", f);
    }
    if (cJSON_GetArraySize(entry_field(e, "static")) == 0)
        return;
    fputs("<h2>Static checks</h2>\n<ul>\n", f);
    cJSON_ArrayForEach(chk, entry_field(e, "static")) {
        const char *name = entry_str(chk, "name"), *detail = entry_str(chk, "detail");
        bool ok = cJSON_IsTrue(entry_field(chk, "ok"));
        fprintf(f, "<li><span class=\"%s\">%s</span> ", ok ? "pass" : "fail", ok ? "ok" : "FAIL");
        explain_html_text(f, name ? name : "?");
        if (detail && *detail) {
            fputs(": ", f);
            explain_html_text(f, detail);
        }
        fputs("</li>\n", f);
    }
    fputs("</ul>\n", f);
}

static void put_datasets(FILE *f, const cJSON *e)
{
    const cJSON *d;
    int index = 0;
    cJSON_ArrayForEach(d, entry_field(e, "datasets")) {
        bool hidden = cJSON_IsTrue(entry_field(d, "hidden"));
        if (!entry_dataset_shown(e, d)) {
            fprintf(f, "<section id=\"dataset-%d\">\n<h2>hidden dataset</h2>\n<p>hidden until "
                       "results are released</p>\n</section>\n", index++);
            continue;
        }
        explanation x;
        entry_explanation(d, &x);
        if (hidden) {
            /* Its verdict and detail only: its values and where they trip the kernel stay
             * secret (explain_student_text's rule). */
            explanation shown;
            explain_from_json(&shown, x.verdict, x.detail, NULL);
            explain_free(&x);
            x = shown;
        }
        char name[300], what[96];
        const char *dn = entry_str(d, "name"), *size = entry_str(d, "size");
        snprintf(name, sizeof name, "%sdataset %.250s", hidden ? "hidden " : "", dn ? dn : "?");
        snprintf(what, sizeof what, "%.80s", size ? size : "?");
        explain_html_dataset(f, &x, name, what, index++);
        explain_free(&x);
    }
}

static void put_performance(FILE *f, const cJSON *e)
{
    fputs("<h2>Performance</h2>\n<p>", f);
    double ratio = entry_ratio(e);
    if (!entry_performance_shown(e))
        fputs("hidden until results are released (its points depend on the hidden datasets)", f);
    else if (ratio <= 0)
        fputs("no passing timed run, so no speed ratio", f);
    else
        fprintf(f, "%s%.2fx the reference's speed%s", entry_slower(e) ? "below " : "", ratio,
                entry_predicted(e) ? ", predicted for an H100 by the performance model (CPU "
                                     "backend), not measured" : "");
    fputs("</p>\n", f);
}

int grader_write_student_page(const char *path, const cJSON *entry, tl_error *err)
{
    if (!cJSON_IsObject(entry))
        return tl_error_set(err, "%s: the entry is not a JSON object", path);
    membuf m;
    if (out_open(&m, path, err) != 0)
        return -1;
    const char *lab = entry_str(entry, "lab"), *src = entry_str(entry, "source");
    char title[400];
    snprintf(title, sizeof title, "tilelab: %.200s, lab %.100s", entry_student(entry),
             lab ? lab : "?");
    explain_html_begin(m.f, title);
    fputs("<h1>", m.f);
    explain_html_text(m.f, entry_student(entry));
    fputs(", lab ", m.f);
    explain_html_text(m.f, lab ? lab : "?");
    fputs("</h1>\n", m.f);
    if (src) {
        fputs("<p>Source: ", m.f);
        explain_html_text(m.f, src);
        fputs("</p>\n", m.f);
    }
    put_items(m.f, entry);
    put_build(m.f, entry);
    put_datasets(m.f, entry);
    put_performance(m.f, entry);
    fputs("</body>\n</html>\n", m.f);
    return out_commit(&m, path, err);
}
