/* The grader's output files, made from the journal entries: gradebook CSV, Gradescope
 * results.json, student feedback and the instructor's HTML report. Each file is composed in
 * memory first and then written atomically, so a failure half way leaves the previous file (or
 * none) in place, never a truncated one. */
#include "outputs.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading entries: every field may be missing or null ----------------------------------- */
static const cJSON *field(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key); /* NULL-safe */
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = field(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num_of(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = field(o, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    *out = v->valuedouble;
    return true;
}

/* A time or a rate of 0 means "not measured" in the journal: only positive values count. */
static bool positive_of(const cJSON *o, const char *key, double *out)
{
    double v;
    if (!num_of(o, key, &v) || v <= 0)
        return false;
    *out = v;
    return true;
}

static const char *student_of(const cJSON *e)
{
    const char *s = str_of(e, "student");
    return s ? s : "";
}

static bool is_visible(const char *visibility)
{
    return !visibility || strcmp(visibility, "visible") == 0;
}

static bool item_passed(const cJSON *item)
{
    const char *st = str_of(item, "status");
    double s, m;
    if (st)
        return strcmp(st, "passed") == 0;
    return num_of(item, "score", &s) && num_of(item, "max_score", &m) && m > 0 && s >= m;
}

static bool dataset_passed(const cJSON *d)
{
    const char *v = str_of(d, "verdict");
    return v && strcmp(v, "pass") == 0;
}

static bool emulated_of(const cJSON *e)
{
    return cJSON_IsTrue(field(e, "emulated_time")) ||
           cJSON_IsTrue(field(field(e, "performance"), "emulated"));
}

/* A hidden dataset is shown only when its score item (named "hidden dataset NAME (SIZE)" by
 * grader.c) is "visible"; without a matching item it stays hidden, because showing it by
 * mistake cannot be undone. */
static bool dataset_shown(const cJSON *e, const cJSON *d)
{
    if (!cJSON_IsTrue(field(d, "hidden")))
        return true;
    const char *name = str_of(d, "name");
    char prefix[256];
    int len = snprintf(prefix, sizeof prefix, "hidden dataset %s", name ? name : "");
    if (!name || len < 0 || (size_t)len >= sizeof prefix)
        return false;
    const cJSON *it;
    cJSON_ArrayForEach(it, field(field(e, "score"), "items")) {
        const char *in = str_of(it, "name");
        if (in && strncmp(in, prefix, (size_t)len) == 0 && (in[len] == '\0' || in[len] == ' '))
            return str_of(it, "visibility") && is_visible(str_of(it, "visibility"));
    }
    return false;
}

typedef struct dataset_stats {
    int passed, total;
    double gflops; /* best over the passing ones: a wrong kernel must not top a leaderboard */
} dataset_stats;

static dataset_stats stats_of(const cJSON *e, bool shown_only)
{
    dataset_stats s = {0, 0, 0};
    const cJSON *d;
    double g;
    cJSON_ArrayForEach(d, field(e, "datasets")) {
        if (shown_only && !dataset_shown(e, d))
            continue;
        s.total++;
        if (!dataset_passed(d))
            continue;
        s.passed++;
        if (positive_of(d, "gflops", &g) && g > s.gflops)
            s.gflops = g;
    }
    return s;
}

/* Speed relative to the reference (reference_ms / student_ms), higher is faster; 0 if unknown. */
static double ratio_of(const cJSON *e)
{
    const cJSON *p = field(e, "performance");
    double r, s, ref;
    if (positive_of(p, "ratio", &r))
        return r;
    return positive_of(p, "student_ms", &s) && positive_of(p, "reference_ms", &ref) ? ref / s : 0;
}

/* At most 2 decimals, no trailing zeros, never "-0". */
static const char *fmt_num(char out[40], double v)
{
    if (fabs(v) < 1e15)
        snprintf(out, 40, "%.2f", v);
    else
        snprintf(out, 40, "%.0f", v); /* "%.2f" would not fit */
    if (strchr(out, '.')) {
        char *end = out + strlen(out) - 1;
        while (*end == '0')
            *end-- = '\0';
        if (*end == '.')
            *end = '\0';
    }
    if (strcmp(out, "-0") == 0)
        strcpy(out, "0");
    return out;
}

static int check_entries(const char *path, cJSON *const *entries, int n, tl_error *err)
{
    if (n < 0 || (n > 0 && !entries))
        return tl_error_set(err, "%s: no entries given (n = %d)", path, n);
    for (int i = 0; i < n; i++)
        if (!cJSON_IsObject(entries[i]))
            return tl_error_set(err, "%s: entry %d is not a JSON object", path, i);
    return 0;
}

/* ---- writing: composed in memory (open_memstream), then temporary file and rename ---------- */
/* How a composed file is made inert before it is written: whatever a submission put in its
 * strings (escape sequences, invalid UTF-8, bidirectional overrides) cannot act where the file
 * is read. The grader's own text is plain UTF-8 and passes unchanged. */
typedef enum inert_rule {
    INERT_NONE,     /* every cell already made safe (the CSV) */
    INERT_UTF8,     /* valid UTF-8 (JSON: cJSON escapes the control characters itself) */
    INERT_TERMINAL  /* for text shown on terminals and in pages */
} inert_rule;

typedef struct membuf {
    char *buf;
    size_t len;
    FILE *f;
    inert_rule rule;
} membuf;

static int mb_open(membuf *m, const char *path, tl_error *err)
{
    *m = (membuf){NULL, 0, NULL, INERT_TERMINAL};
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? 0 : tl_error_set(err, "%s: cannot compose: %s", path, strerror(errno));
}

/* The temporary sits next to the target so that rename() replaces it atomically. */
static int mb_commit(membuf *m, const char *path, tl_error *err)
{
    static const char suffix[] = ".tmp.XXXXXX";
    bool composed = !ferror(m->f);
    composed = fclose(m->f) == 0 && composed;
    if (composed && m->rule != INERT_NONE) {
        char *inert = m->rule == INERT_UTF8 ? tl_text_utf8(m->buf, m->len)
                                            : tl_text_terminal(m->buf, m->len);
        free(m->buf);
        m->buf = inert;
        m->len = inert ? strlen(inert) : 0;
        composed = inert != NULL;
    }
    size_t plen = strlen(path);
    char *tmp = composed ? malloc(plen + sizeof suffix) : NULL;
    if (!tmp) {
        free(m->buf);
        return tl_error_set(err, "%s: cannot write: out of memory", path);
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, suffix, sizeof suffix);
    const char *step = "cannot create a temporary file in its folder";
    int fd = mkstemp(tmp), e = 0;
    if (fd < 0) {
        e = errno;
    } else {
        mode_t mask = umask(0); /* mkstemp makes 0600; these files are for other people */
        umask(mask);
        step = "cannot write";
        FILE *f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "wb") : NULL;
        if (!f) {
            e = errno ? errno : EIO;
            close(fd);
        } else if (fwrite(m->buf, 1, m->len, f) != m->len) {
            e = errno ? errno : EIO;
            fclose(f);
        } else if (fclose(f) != 0) {
            e = errno ? errno : EIO;
        } else if (rename(tmp, path) != 0) {
            e = errno ? errno : EIO;
            step = "cannot replace the file";
        }
        if (e)
            unlink(tmp);
    }
    free(tmp);
    free(m->buf);
    return e ? tl_error_set(err, "%s: %s: %s", path, step, strerror(e)) : 0;
}

/* Entry indices sorted by student id; ties keep the input order, so the files are the same on
 * every run. */
typedef struct keyed {
    const char *key;
    int index;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static keyed *sorted_by_student(cJSON *const *entries, int n)
{
    keyed *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    for (int i = 0; order && i < n; i++)
        order[i] = (keyed){student_of(entries[i]), i};
    if (order)
        qsort(order, (size_t)n, sizeof *order, by_key);
    return order;
}

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
    cJSON_ArrayForEach(it, field(field(e, "score"), "items")) {
        const char *in = str_of(it, "name");
        if (in && strcmp(in, name) == 0)
            return it;
    }
    return NULL;
}

int grader_write_gradebook(const char *path, cJSON *const *entries, int n, tl_error *err)
{
    if (check_entries(path, entries, n, err) != 0)
        return -1;
    /* The columns point into the entries; there are at most as many as items in all. */
    size_t ncols = 0, cap = 1;
    for (int i = 0; i < n; i++)
        cap += (size_t)cJSON_GetArraySize(field(field(entries[i], "score"), "items"));
    const char **cols = malloc(cap * sizeof *cols);
    keyed *order = sorted_by_student(entries, n);
    membuf m;
    int rc = -1;
    if (!cols || !order) {
        tl_error_set(err, "%s: out of memory", path);
    } else if (mb_open(&m, path, err) == 0) {
        m.rule = INERT_NONE; /* CRLF line ends stay: every cell was made safe on its own */
        for (int i = 0; i < n; i++) {
            const cJSON *it;
            cJSON_ArrayForEach(it, field(field(entries[i], "score"), "items")) {
                const char *name = str_of(it, "name");
                size_t c = 0;
                while (name && c < ncols && strcmp(cols[c], name) != 0)
                    c++;
                if (name && c == ncols)
                    cols[ncols++] = name;
            }
        }
        fputs("student,total,max", m.f);
        for (size_t c = 0; c < ncols; c++) {
            fputc(',', m.f);
            csv_field(m.f, cols[c]);
        }
        fputs("\r\n", m.f);
        char num[40];
        double v;
        for (int r = 0; r < n; r++) {
            const cJSON *e = entries[order[r].index], *score = field(e, "score");
            csv_field(m.f, student_of(e));
            fprintf(m.f, ",%s", num_of(score, "total", &v) ? fmt_num(num, v) : "");
            fprintf(m.f, ",%s", num_of(score, "max", &v) ? fmt_num(num, v) : "");
            for (size_t c = 0; c < ncols; c++) {
                const cJSON *it = item_named(e, cols[c]);
                fprintf(m.f, ",%s", it && num_of(it, "score", &v) ? fmt_num(num, v) : "");
            }
            fputs("\r\n", m.f);
        }
        rc = mb_commit(&m, path, err);
    }
    free(cols);
    free(order);
    return rc;
}

/* ---- Gradescope results.json ------------------------------------------------------------- */
static void add_num(cJSON *o, const char *key, const cJSON *from, const char *from_key)
{
    double v;
    cJSON_AddNumberToObject(o, key, num_of(from, from_key, &v) ? v : 0);
}

static void add_leader(cJSON *board, const char *name, double value, const char *order)
{
    cJSON *l = cJSON_CreateObject();
    cJSON_AddStringToObject(l, "name", name);
    cJSON_AddNumberToObject(l, "value", value);
    cJSON_AddStringToObject(l, "order", order);
    cJSON_AddItemToArray(board, l);
}

int grader_write_results_json(const char *path, const cJSON *entry, tl_error *err)
{
    if (!cJSON_IsObject(entry))
        return tl_error_set(err, "%s: the entry is not a JSON object", path);
    const cJSON *score = field(entry, "score"), *perf = field(entry, "performance");
    const cJSON *ok = field(field(entry, "build"), "ok"), *it;
    cJSON *root = cJSON_CreateObject();
    add_num(root, "score", score, "total");
    add_num(root, "execution_time", entry, "execution_time");
    /* Gradescope shows the summary before the due date: it counts visible datasets only. */
    dataset_stats st = stats_of(entry, true);
    char out[512], a[40], b[40];
    double t = 0, mx = 0, ratio = ratio_of(entry), ms;
    num_of(score, "total", &t);
    num_of(score, "max", &mx);
    int len = snprintf(out, sizeof out, "%s / %s points. Build %s. %d of %d visible datasets "
                       "passed.", fmt_num(a, t), fmt_num(b, mx),
                       cJSON_IsBool(ok) ? (cJSON_IsTrue(ok) ? "ok" : "failed") : "unknown",
                       st.passed, st.total);
    if (ratio > 0 && len > 0 && (size_t)len < sizeof out)
        snprintf(out + len, sizeof out - (size_t)len, " Speed %.2fx the reference's%s%s.", ratio,
                 emulated_of(entry) ? " (emulated time, CPU backend)" : "",
                 cJSON_IsTrue(field(perf, "implausible")) ? "; implausible, under review" : "");
    cJSON_AddStringToObject(root, "output", out);
    cJSON_AddStringToObject(root, "visibility", "visible");
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    cJSON_ArrayForEach(it, field(score, "items")) {
        cJSON *tj = cJSON_CreateObject();
        const char *name = str_of(it, "name"), *text = str_of(it, "output");
        const char *vis = str_of(it, "visibility");
        cJSON_AddStringToObject(tj, "name", name ? name : "");
        add_num(tj, "score", it, "score");
        add_num(tj, "max_score", it, "max_score");
        cJSON_AddStringToObject(tj, "status", item_passed(it) ? "passed" : "failed");
        cJSON_AddStringToObject(tj, "output", text ? text : "");
        cJSON_AddStringToObject(tj, "visibility", vis ? vis : "visible");
        cJSON_AddItemToArray(tests, tj);
    }
    cJSON *board = cJSON_AddArrayToObject(root, "leaderboard");
    if (st.gflops > 0)
        add_leader(board, "GFLOP/s", st.gflops, "desc");
    if (positive_of(perf, "student_ms", &ms))
        add_leader(board, "kernel ms", ms, "asc");
    char *json = cJSON_Print(root);
    cJSON_Delete(root);
    membuf m;
    int rc = -1;
    if (!json)
        tl_error_set(err, "%s: out of memory", path);
    else if (mb_open(&m, path, err) == 0) {
        m.rule = INERT_UTF8;
        fprintf(m.f, "%s\n", json);
        rc = mb_commit(&m, path, err);
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
    const cJSON *score = field(e, "score"), *it;
    double vis_total = 0, vis_max = 0, hid_max = 0, v, mx;
    int hidden = 0;
    char a[40], b[40], c[40];
    fputs("Score items:\n", f);
    cJSON_ArrayForEach(it, field(score, "items")) {
        const char *name = str_of(it, "name"), *out = str_of(it, "output");
        bool has_v = num_of(it, "score", &v), has_m = num_of(it, "max_score", &mx);
        if (!is_visible(str_of(it, "visibility"))) {
            hidden++;
            hid_max += has_m ? mx : 0;
            fputs("  (hidden item): hidden until results are released\n", f);
            continue;
        }
        vis_total += has_v ? v : 0;
        vis_max += has_m ? mx : 0;
        fputs("  ", f);
        put_line(f, name ? name : "(unnamed)");
        fprintf(f, ": %s / %s, %s", has_v ? fmt_num(a, v) : "?", has_m ? fmt_num(b, mx) : "?",
                item_passed(it) ? "passed" : "failed");
        if (out && *out)
            put_indented(f, out, " - ", 600);
        else
            fputc('\n', f);
    }
    /* With hidden items, the total would give their result away by subtraction. */
    if (hidden)
        fprintf(f, "Score on visible items: %s / %s (%d hidden item%s worth %s points, counted "
                   "in the final total)\n", fmt_num(a, vis_total), fmt_num(b, vis_max), hidden,
                hidden == 1 ? "" : "s", fmt_num(c, hid_max));
    else
        fprintf(f, "Total: %s / %s\n", num_of(score, "total", &v) ? fmt_num(a, v) : "?",
                num_of(score, "max", &mx) ? fmt_num(b, mx) : "?");
}

static void feedback_datasets(FILE *f, const cJSON *e)
{
    const cJSON *d;
    double v;
    fputs("\nDatasets:\n", f);
    cJSON_ArrayForEach(d, field(e, "datasets")) {
        if (!dataset_shown(e, d)) {
            fputs("  hidden dataset: hidden\n", f);
            continue;
        }
        const char *name = str_of(d, "name"), *size = str_of(d, "size");
        const char *verdict = str_of(d, "verdict"), *detail = str_of(d, "detail");
        const char *stderr_text = str_of(d, "stderr");
        fprintf(f, "  %s%s (%s): %s", cJSON_IsTrue(field(d, "hidden")) ? "hidden " : "",
                name ? name : "?", size ? size : "?", verdict ? verdict : "unknown");
        if (positive_of(d, "kernel_ms", &v))
            fprintf(f, ", kernel %.4g ms", v);
        if (positive_of(d, "gflops", &v))
            fprintf(f, ", %.4g GFLOP/s", v);
        fputc('\n', f);
        if (dataset_passed(d))
            continue;
        if (detail && *detail)
            put_indented(f, detail, "      ", 1500);
        if (stderr_text && *stderr_text) {
            fputs("      stderr:\n", f);
            put_indented(f, stderr_text, "        ", 1500);
        }
    }
}

static void feedback_performance(FILE *f, const cJSON *e)
{
    const cJSON *p = field(e, "performance");
    double ratio = ratio_of(e), ms, ref;
    const char *ds = str_of(p, "dataset");
    fprintf(f, "\nPerformance%s%s%s: ", ds && *ds ? " (dataset " : "", ds && *ds ? ds : "",
            ds && *ds ? ")" : "");
    if (ratio <= 0) {
        fputs("no passing timed run, so no speed ratio\n", f);
        return;
    }
    fprintf(f, "%.2fx the reference's speed", ratio);
    if (positive_of(p, "student_ms", &ms) && positive_of(p, "reference_ms", &ref))
        fprintf(f, " (your kernel %.4g ms, reference %.4g ms)", ms, ref);
    fputc('\n', f);
    if (emulated_of(e))
        fputs("  emulated time (CPU backend): not a GPU measurement\n", f);
    if (cJSON_IsTrue(field(p, "implausible")))
        fputs("  implausible \u2014 under review\n", f);
}

int grader_write_feedback(const char *path, const cJSON *entry, tl_error *err)
{
    membuf m;
    if (!cJSON_IsObject(entry))
        return tl_error_set(err, "%s: the entry is not a JSON object", path);
    if (mb_open(&m, path, err) != 0)
        return -1;
    const char *lab = str_of(entry, "lab"), *src = str_of(entry, "source");
    const char *note = str_of(entry, "note");
    const char *when = str_of(entry, "graded_at"), *dev = str_of(entry, "device");
    const char *msgs = str_of(field(entry, "build"), "messages");
    const cJSON *ok = field(field(entry, "build"), "ok"), *chk;
    double secs;
    fputs("tilelab feedback for ", m.f);
    put_line(m.f, student_of(entry));
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
    fprintf(m.f, "Graded%s%s%s%s\n\n", when ? " at " : "", when ? when : "", dev ? " on " : "",
            dev ? dev : "");
    feedback_items(m.f, entry);
    if (cJSON_IsFalse(ok)) {
        fputs("\nBuild: FAILED\n", m.f);
        put_indented(m.f, msgs && *msgs ? msgs : "(no compiler messages)", "  ", 8000);
    } else if (cJSON_IsTrue(ok)) {
        fputs("\nBuild: ok", m.f);
        if (num_of(field(entry, "build"), "seconds", &secs))
            fprintf(m.f, " (%.1f s)", secs);
        fputc('\n', m.f);
    }
    if (cJSON_GetArraySize(field(entry, "static")) > 0)
        fputs("\nStatic checks:\n", m.f);
    cJSON_ArrayForEach(chk, field(entry, "static")) {
        const char *name = str_of(chk, "name"), *detail = str_of(chk, "detail");
        fprintf(m.f, "  [%s] ", cJSON_IsTrue(field(chk, "ok")) ? "ok" : "FAIL");
        put_line(m.f, name ? name : "?");
        if (detail && *detail) {
            fputs(": ", m.f);
            put_line(m.f, detail);
        }
        fputc('\n', m.f);
    }
    feedback_datasets(m.f, entry);
    feedback_performance(m.f, entry);
    return mb_commit(&m, path, err);
}

/* ---- report.html ------------------------------------------------------------------------- */
static void html(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report_summary(FILE *f, cJSON *const *entries, int n, double *totals)
{
    double sum = 0, mx = 0, v;
    char a[40], b[40], c[40], d[40];
    for (int i = 0; i < n; i++) {
        const cJSON *score = field(entries[i], "score");
        totals[i] = num_of(score, "total", &v) ? v : 0;
        sum += totals[i];
        if (num_of(score, "max", &v) && v > mx)
            mx = v;
    }
    qsort(totals, (size_t)n, sizeof *totals, by_double);
    double median = n == 0 ? 0 : n % 2 ? totals[n / 2] : (totals[n / 2 - 1] + totals[n / 2]) / 2;
    fprintf(f, "<section id=\"summary\"><h2>Class summary</h2>\n<table class=\"summary\">\n"
               "<tr><th>Students</th><td>%d</td></tr>\n<tr><th>Points possible</th><td>%s</td>"
               "</tr>\n", n, fmt_num(a, mx));
    if (n > 0)
        fprintf(f, "<tr><th>Mean total</th><td class=\"mean\">%s</td></tr>\n<tr><th>Median total"
                   "</th><td>%s</td></tr>\n<tr><th>Min total</th><td>%s</td></tr>\n<tr><th>Max "
                   "total</th><td>%s</td></tr>\n", fmt_num(a, sum / n), fmt_num(b, median),
                fmt_num(c, totals[0]), fmt_num(d, totals[n - 1]));
    fputs("</table></section>\n", f);
}

static void report_distribution(FILE *f, cJSON *const *entries, int n)
{
    int bins[10] = {0}, top = 1;
    for (int i = 0; i < n; i++) {
        const cJSON *score = field(entries[i], "score");
        double t = 0, mx = 0;
        num_of(score, "total", &t);
        num_of(score, "max", &mx);
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
        const cJSON *e = entries[order[r].index], *score = field(e, "score"), *chk;
        const cJSON *ok = field(field(e, "build"), "ok");
        dataset_stats st = stats_of(e, false);
        double t, mx, ratio = ratio_of(e);
        char a[40], b[40];
        bool static_failed = false;
        cJSON_ArrayForEach(chk, field(e, "static")) {
            if (!cJSON_IsTrue(field(chk, "ok")))
                static_failed = true;
        }
        fputs("<tr class=\"student\"><td>", f);
        html(f, student_of(e));
        fprintf(f, "</td><td>%s / %s</td><td>%d / %d</td><td>%s</td>",
                num_of(score, "total", &t) ? fmt_num(a, t) : "?",
                num_of(score, "max", &mx) ? fmt_num(b, mx) : "?", st.passed, st.total,
                cJSON_IsBool(ok) ? (cJSON_IsTrue(ok) ? "ok" : "<b>failed</b>") : "?");
        if (st.gflops > 0)
            fprintf(f, "<td>%.4g</td>", st.gflops);
        else
            fputs("<td>-</td>", f);
        if (ratio > 0)
            fprintf(f, "<td>%.2fx</td><td>", ratio);
        else
            fputs("<td>-</td><td>", f);
        if (cJSON_IsFalse(ok))
            fputs("<span class=\"flag\">build failed</span> ", f);
        if (static_failed)
            fputs("<span class=\"flag\">static check failed</span> ", f);
        if (emulated_of(e))
            fputs("<span class=\"flag\">emulated time</span> ", f);
        if (cJSON_IsTrue(field(field(e, "performance"), "implausible")))
            fputs("<span class=\"flag\">implausible \u2014 under review</span>", f);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></section>\n", f);
}

static void report_speed(FILE *f, cJSON *const *entries, const keyed *order, int n)
{
    double top = 1;
    int emulated = 0;
    for (int i = 0; i < n; i++) {
        double r = ratio_of(entries[i]);
        top = r > top ? r : top;
        emulated += emulated_of(entries[i]);
    }
    top *= 1.1; /* room for the value after the longest bar */
    fputs("<section id=\"speed\"><h2>Speed relative to the reference (reference_ms / student_ms)", f);
    if (emulated)
        fputs(emulated == n ? " \u2014 emulated time (CPU backend)"
                            : " \u2014 * marks emulated time (CPU backend)", f);
    const int label = 180, width = 400, row = 24, height = 40 + row * (n > 0 ? n : 1);
    double ref_x = label + width / top;
    fprintf(f, "</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "role=\"img\" aria-label=\"speed relative to the reference\">\n",
            label + width + 80, height);
    for (int r = 0; r < n; r++) {
        const cJSON *e = entries[order[r].index];
        double ratio = ratio_of(e), y = 20 + row * r;
        fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", label - 6, y + 16);
        html(f, student_of(e));
        fprintf(f, "%s</text>\n", emulated && emulated < n && emulated_of(e) ? " *" : "");
        if (ratio > 0)
            fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" class=\"bar\"/>"
                       "<text x=\"%.1f\" y=\"%.0f\">%.2fx</text>\n",
                    label, y + 3, width * ratio / top, row - 6, label + width * ratio / top + 4,
                    y + 16, ratio);
        else
            fprintf(f, "<text x=\"%d\" y=\"%.0f\" class=\"none\">no timed run</text>\n", label + 4,
                    y + 16);
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"12\" x2=\"%.1f\" y2=\"%d\" class=\"ref\"/>\n<text x=\"%.1f\" "
               "y=\"10\" text-anchor=\"middle\">reference</text>\n</svg></section>\n",
            ref_x, ref_x, height - 8, ref_x);
}

int grader_write_report_html(const char *path, cJSON *const *entries, int n, const char *lab,
                             tl_error *err)
{
    if (check_entries(path, entries, n, err) != 0)
        return -1;
    if (!lab && n > 0)
        lab = str_of(entries[0], "lab");
    keyed *order = sorted_by_student(entries, n);
    double *totals = malloc((size_t)(n > 0 ? n : 1) * sizeof *totals);
    membuf m;
    int rc = -1;
    if (!order || !totals) {
        tl_error_set(err, "%s: out of memory", path);
    } else if (mb_open(&m, path, err) == 0) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
              "tilelab class report: ", m.f);
        html(m.f, lab ? lab : "?");
        fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:2em;color:#222}\n"
              "table{border-collapse:collapse}th,td{border:1px solid #bbb;padding:.25em .6em;"
              "text-align:left}\ntd{font-variant-numeric:tabular-nums}\n"
              ".bar{fill:#4a78b5}.axis{stroke:#444}.ref{stroke:#c0392b;stroke-width:2}\n"
              "svg text{font-size:12px;fill:#222}.none{fill:#888}\n"
              ".flag{background:#fde2c8;border-radius:3px;padding:0 .3em;white-space:nowrap}\n"
              "</style>\n</head>\n<body>\n<h1>Class report: ", m.f);
        html(m.f, lab ? lab : "?");
        fputs("</h1>\n", m.f);
        report_summary(m.f, entries, n, totals);
        report_distribution(m.f, entries, n);
        report_table(m.f, entries, order, n);
        report_speed(m.f, entries, order, n);
        fputs("</body>\n</html>\n", m.f);
        rc = mb_commit(&m, path, err);
    }
    free(order);
    free(totals);
    return rc;
}

/* ---- everything -------------------------------------------------------------------------- */
static int make_dir(const char *path, tl_error *err)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    return tl_error_set(err, "%s: cannot create the folder: %s", path, strerror(errno));
}

int grader_write_all(const char *out_dir, cJSON *const *entries, int n, const char *lab,
                     tl_error *err)
{
    if (check_entries(out_dir, entries, n, err) != 0 || grader_check_ids(entries, n, err) != 0 ||
        make_dir(out_dir, err) != 0)
        return -1;
    size_t cap = strlen(out_dir) + 512;
    char *path = malloc(cap), name[256];
    if (!path)
        return tl_error_set(err, "%s: out of memory", out_dir);
#define PATH_OF(...) (snprintf(path, cap, __VA_ARGS__), path)
    int rc = grader_write_gradebook(PATH_OF("%s/gradebook.csv", out_dir), entries, n, err);
    if (rc == 0)
        rc = make_dir(PATH_OF("%s/results", out_dir), err);
    if (rc == 0)
        rc = make_dir(PATH_OF("%s/feedback", out_dir), err);
    for (int i = 0; rc == 0 && i < n; i++) {
        grader_file_name(student_of(entries[i]), name, sizeof name);
        rc = make_dir(PATH_OF("%s/results/%s", out_dir, name), err);
        if (rc == 0)
            rc = grader_write_results_json(PATH_OF("%s/results/%s/results.json", out_dir, name),
                                           entries[i], err);
        if (rc == 0)
            rc = grader_write_feedback(PATH_OF("%s/feedback/%s.txt", out_dir, name), entries[i],
                                       err);
    }
    if (rc == 0)
        rc = grader_write_report_html(PATH_OF("%s/report.html", out_dir), entries, n, lab, err);
#undef PATH_OF
    free(path);
    return rc;
}
