/* A dataset's explanation: made from a runner_result, kept as JSON in the grader's journal and
 * read back, shown as text. */
#include "explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- from a result ------------------------------------------------------------------------- */

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int int_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9 ? (int)v->valuedouble
                                                                             : 0;
}

/* The checks' findings (most severe first): the first few. */
static void read_causes(explanation *x, const cJSON *diag)
{
    x->findings = runner_findings_count(diag);
    runner_finding f;
    for (int i = 0; x->ncauses < EXPLAIN_MAX_CAUSES && runner_finding_get(diag, i, &f); i++) {
        explain_cause *c = &x->causes[x->ncauses++];
        snprintf(c->kind, sizeof c->kind, "%s", f.kind);
        snprintf(c->file, sizeof c->file, "%s", f.file);
        snprintf(c->detail, sizeof c->detail, "%s", f.detail);
        c->line = f.line;
        c->line2 = f.line2;
        c->baseline = f.baseline;
    }
}

void explain_result(explanation *x, const runner_result *r, const char *diagnosis)
{
    memset(x, 0, sizeof *x);
    x->verdict = r->verdict;
    snprintf(x->detail, sizeof x->detail, "%s", r->detail);
    snprintf(x->hint, sizeof x->hint, "%s", r->hint);
    const runner_call_result *launch = &r->calls[CAPLOG_CALL_LAUNCH];
    const runner_call_result *main = r->calls[CAPLOG_CALL_HOST].run ? &r->calls[CAPLOG_CALL_HOST]
                                                                    : launch;
    const tl_check_report *c = main->verdict == TL_VERDICT_WRONG ? &main->check : &launch->check;
    if (r->verdict == TL_VERDICT_WRONG && !c->shape_mismatch && c->has_worst) {
        x->has_worst = true;
        x->worst = c->worst;
    }
    const char *text = diagnosis ? diagnosis : r->diagnosis;
    cJSON *diag = text ? cJSON_Parse(text) : NULL;
    if (diag)
        read_causes(x, diag);
    cJSON_Delete(diag);
}

void explain_add_map(explanation *x, const tl_product_ref *ref, const char *saved, const caplog *log,
                     const runner_result *r)
{
    if (x->verdict != TL_VERDICT_WRONG && x->verdict != TL_VERDICT_UNSAFE)
        return;
    struct stat st;
    tl_error err;
    if (!saved || stat(saved, &st) != 0) {
        snprintf(x->note, sizeof x->note, "no map: the replay saved no result");
    } else if (explain_map_build(&x->map, ref, saved, log, r, &err) != 0) {
        snprintf(x->note, sizeof x->note, "no map: %.280s", err.msg);
    } else if (x->map.wrong_elements == 0) {
        snprintf(x->note, sizeof x->note, x->verdict == TL_VERDICT_UNSAFE
                 ? "P as the checked run left it is right everywhere: with the finding above, "
                   "a right result is luck"
                 : "the first run's P is right everywhere: a later run's was not");
        explain_map_free(&x->map);
    } else {
        x->has_map = true;
        x->map.checked_run = x->verdict == TL_VERDICT_UNSAFE;
    }
}

void explain_free(explanation *x)
{
    explain_map_free(&x->map);
    x->has_map = false;
}

bool explain_same_finding(const char *a, const char *b)
{
    size_t na = strcspn(a, "("), nb = strcspn(b, "(");
    return na == nb && strncmp(a, b, na) == 0;
}

/* ---- JSON ---------------------------------------------------------------------------------- */

/* NaN and Inf have no JSON number: they are kept by name. */
static cJSON *number_json(double v)
{
    if (isnan(v))
        return cJSON_CreateString("NaN");
    if (isinf(v))
        return cJSON_CreateString(v < 0 ? "-Inf" : "Inf");
    return cJSON_CreateNumber(v);
}

static bool number_from(const cJSON *v, double *out)
{
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return true;
    }
    const char *s = cJSON_GetStringValue(v);
    if (!s)
        return false;
    if (strcmp(s, "NaN") == 0)
        *out = NAN;
    else if (strcmp(s, "Inf") == 0)
        *out = INFINITY;
    else if (strcmp(s, "-Inf") == 0)
        *out = -INFINITY;
    else
        return false;
    return true;
}

static cJSON *mismatch_json(const tl_mismatch *m)
{
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToArray(a, cJSON_CreateNumber(m->row));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(m->col));
    cJSON_AddItemToArray(a, number_json(m->got));
    cJSON_AddItemToArray(a, number_json(m->expected));
    cJSON_AddItemToArray(a, number_json(m->bound));
    return a;
}

static bool mismatch_from(const cJSON *a, tl_mismatch *m)
{
    if (cJSON_GetArraySize(a) != 5)
        return false;
    const cJSON *row = cJSON_GetArrayItem(a, 0), *col = cJSON_GetArrayItem(a, 1);
    if (!cJSON_IsNumber(row) || !cJSON_IsNumber(col) || row->valuedouble < 0 ||
        col->valuedouble < 0 || row->valuedouble > 1e9 || col->valuedouble > 1e9)
        return false;
    m->row = (int)row->valuedouble;
    m->col = (int)col->valuedouble;
    return number_from(cJSON_GetArrayItem(a, 2), &m->got) &&
           number_from(cJSON_GetArrayItem(a, 3), &m->expected) &&
           number_from(cJSON_GetArrayItem(a, 4), &m->bound);
}

/* The map at the text map's cells: what the feedback draws, a page's map at that resolution. */
static cJSON *map_json(const explain_map *m)
{
    explain_map_grid g = explain_map_fit(m, EXPLAIN_MAP_TERMINAL_ACROSS, EXPLAIN_MAP_TERMINAL_DOWN);
    cJSON *o = cJSON_CreateObject();
    const struct { const char *key; int64_t v; } nums[] = {
        {"rows", m->rows}, {"cols", m->cols}, {"tile_rows", m->tile_rows},
        {"tile_cols", m->tile_cols}, {"blocks_per_side", m->blocks_per_side},
        {"tiles_down", m->tiles_down}, {"tiles_across", m->tiles_across},
        {"cell_down", g.group_down}, {"cell_across", g.group_across},
        {"cells_down", g.cells_down}, {"cells_across", g.cells_across},
        {"wrong_tiles", m->wrong_tiles}, {"wrong_elements", m->wrong_elements},
        {"nonfinite", m->nonfinite}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        cJSON_AddNumberToObject(o, nums[i].key, (double)nums[i].v);
    cJSON_AddBoolToObject(o, "from_launch", m->from_launch);
    cJSON_AddBoolToObject(o, "checked_run", m->checked_run);
    cJSON *bad = cJSON_AddArrayToObject(o, "bad");
    for (int cy = 0; cy < g.cells_down; cy++)
        for (int cx = 0; cx < g.cells_across; cx++)
            cJSON_AddItemToArray(bad, cJSON_CreateNumber(
                                          (double)explain_map_cell_at(m, &g, cy, cx).bad));
    cJSON *first = cJSON_AddArrayToObject(o, "first");
    for (int i = 0; i < m->nfirst; i++)
        cJSON_AddItemToArray(first, mismatch_json(&m->first[i]));
    return o;
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

/* A map read back only when it adds up: a journal is the grader's own file, but a map drawn
 * from a damaged one must not read past its counts. */
static bool map_from(const cJSON *o, explain_map *m)
{
    memset(m, 0, sizeof *m);
    const cJSON *v;
#define FIELD(name)                                                                             \
    v = cJSON_GetObjectItem(o, #name);                                                          \
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15)                     \
        return false;                                                                           \
    m->name = v->valuedouble;
    FIELD(rows) FIELD(cols) FIELD(tile_rows) FIELD(tile_cols) FIELD(blocks_per_side)
    FIELD(tiles_down) FIELD(tiles_across) FIELD(cell_down) FIELD(cell_across) FIELD(cells_down)
    FIELD(cells_across) FIELD(wrong_tiles) FIELD(wrong_elements) FIELD(nonfinite)
#undef FIELD
    m->from_launch = cJSON_IsTrue(cJSON_GetObjectItem(o, "from_launch"));
    m->checked_run = cJSON_IsTrue(cJSON_GetObjectItem(o, "checked_run"));
    if (m->rows < 1 || m->cols < 1 || m->tile_rows < 1 || m->tile_cols < 1 ||
        m->cell_down < 1 || m->cell_across < 1 ||
        m->tiles_down != ceil_div(m->rows, m->tile_rows) ||
        m->tiles_across != ceil_div(m->cols, m->tile_cols) ||
        m->cells_down != ceil_div(m->tiles_down, m->cell_down) ||
        m->cells_across != ceil_div(m->tiles_across, m->cell_across) ||
        m->cells_down > EXPLAIN_MAP_PAGE_CELLS || m->cells_across > EXPLAIN_MAP_PAGE_CELLS ||
        m->wrong_elements > (int64_t)m->rows * m->cols || m->nonfinite > m->wrong_elements)
        return false;
    const cJSON *bad = cJSON_GetObjectItem(o, "bad");
    int n = m->cells_down * m->cells_across;
    if (cJSON_GetArraySize(bad) != n || !(m->bad = calloc((size_t)n, sizeof *m->bad)))
        return false;
    int i = 0;
    cJSON_ArrayForEach(v, bad) {
        int64_t area = (int64_t)m->cell_down * m->tile_rows * m->cell_across * m->tile_cols;
        if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > (double)area) {
            explain_map_free(m);
            return false;
        }
        m->bad[i++] = (int)v->valuedouble;
    }
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(o, "first")) {
        if (m->nfirst < EXPLAIN_MAP_FIRST_N && mismatch_from(v, &m->first[m->nfirst]))
            m->nfirst++;
    }
    return true;
}

cJSON *explain_json(const explanation *x)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    if (x->has_worst)
        cJSON_AddItemToObject(o, "worst", mismatch_json(&x->worst));
    if (x->hint[0])
        cJSON_AddStringToObject(o, "hint", x->hint);
    if (x->findings > 0) {
        cJSON_AddNumberToObject(o, "findings", x->findings);
        cJSON *causes = cJSON_AddArrayToObject(o, "causes");
        for (int i = 0; i < x->ncauses; i++) {
            const explain_cause *c = &x->causes[i];
            cJSON *cj = cJSON_CreateObject();
            cJSON_AddStringToObject(cj, "kind", c->kind);
            cJSON_AddStringToObject(cj, "file", c->file);
            cJSON_AddNumberToObject(cj, "line", c->line);
            if (c->line2 > 0)
                cJSON_AddNumberToObject(cj, "line2", c->line2);
            cJSON_AddStringToObject(cj, "detail", c->detail);
            if (c->baseline)
                cJSON_AddBoolToObject(cj, "baseline", true);
            cJSON_AddItemToArray(causes, cj);
        }
    }
    if (x->has_map)
        cJSON_AddItemToObject(o, "map", map_json(&x->map));
    else if (x->note[0])
        cJSON_AddStringToObject(o, "map_note", x->note);
    return o;
}

/* The causes as explain_json keeps them. */
static void causes_from_json(explanation *x, const cJSON *causes)
{
    const cJSON *o;
    cJSON_ArrayForEach(o, causes) {
        if (x->ncauses == EXPLAIN_MAX_CAUSES)
            break;
        explain_cause *c = &x->causes[x->ncauses++];
        snprintf(c->kind, sizeof c->kind, "%s", str_of(o, "kind"));
        snprintf(c->file, sizeof c->file, "%s", str_of(o, "file"));
        snprintf(c->detail, sizeof c->detail, "%s", str_of(o, "detail"));
        c->line = int_of(o, "line");
        c->line2 = int_of(o, "line2");
        c->baseline = cJSON_IsTrue(cJSON_GetObjectItem(o, "baseline"));
    }
}

void explain_from_json(explanation *x, tl_verdict verdict, const char *detail, const cJSON *o)
{
    memset(x, 0, sizeof *x);
    x->verdict = verdict;
    snprintf(x->detail, sizeof x->detail, "%s", detail ? detail : "");
    if (!cJSON_IsObject(o))
        return;
    x->has_worst = mismatch_from(cJSON_GetObjectItem(o, "worst"), &x->worst);
    snprintf(x->hint, sizeof x->hint, "%s", str_of(o, "hint"));
    snprintf(x->note, sizeof x->note, "%s", str_of(o, "map_note"));
    causes_from_json(x, cJSON_GetObjectItem(o, "causes"));
    x->findings = int_of(o, "findings") > x->ncauses ? int_of(o, "findings") : x->ncauses;
    const cJSON *map = cJSON_GetObjectItem(o, "map");
    x->has_map = map && map_from(map, &x->map);
}

/* ---- text ---------------------------------------------------------------------------------- */

static void put_line(FILE *f, const char *s)
{
    char *line = tl_text_line(s, strlen(s));
    fputs(line ? line : "?", f);
    free(line);
}

void explain_print_detail(FILE *f, const explanation *x, const char *indent)
{
    fputs(indent, f);
    put_line(f, x->detail);
    if (x->has_worst)
        fprintf(f, "; worst at (row %d, col %d): got %.9g, expected %.9g", x->worst.row,
                x->worst.col, x->worst.got, x->worst.expected);
    fputc('\n', f);
    if (x->hint[0]) {
        fprintf(f, "%shint: ", indent);
        put_line(f, x->hint);
        fputc('\n', f);
    }
}

void explain_print_map(FILE *f, const explanation *x, bool colour, const char *indent)
{
    if (x->has_map)
        explain_map_print(f, &x->map, colour, indent);
    else if (x->note[0]) {
        fprintf(f, "%s(", indent);
        put_line(f, x->note);
        fputs(")\n", f);
    }
}

void explain_cause_text(const explain_cause *c, char *out, size_t size)
{
    int n = snprintf(out, size, "%s at %s:%d", c->kind, c->file, c->line);
    if (n > 0 && (size_t)n < size && c->line2 > 0)
        n += snprintf(out + n, size - (size_t)n, " and line %d", c->line2);
    if (n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n, "%s: %s", c->baseline ? EXPLAIN_BASELINE_LABEL : "",
                 c->detail);
}

void explain_print_causes(FILE *f, const explanation *x, const char *indent)
{
    char line[sizeof x->causes[0].detail + 400];
    for (int i = 0; i < x->ncauses; i++) {
        explain_cause_text(&x->causes[i], line, sizeof line);
        fprintf(f, "%scause: ", indent);
        put_line(f, line);
        fputc('\n', f);
    }
    if (x->findings > x->ncauses)
        fprintf(f, "%s(%d more finding%s)\n", indent, x->findings - x->ncauses,
                x->findings - x->ncauses == 1 ? "" : "s");
}

void explain_print(FILE *f, const explanation *x, bool colour, const char *indent)
{
    explain_print_detail(f, x, indent);
    explain_print_map(f, x, colour, indent);
    explain_print_causes(f, x, indent);
}

char *explain_student_text(const explanation *x, bool hidden)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fprintf(f, "%s: ", tl_verdict_name(x->verdict));
    if (hidden || x->verdict == TL_VERDICT_PASS) {
        put_line(f, x->detail);
    } else {
        explain_print(f, x, false, ""); /* its first line follows the verdict */
    }
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        free(text);
        return NULL;
    }
    while (len > 0 && text[len - 1] == '\n')
        text[--len] = '\0';
    return text;
}
