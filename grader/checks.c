/* Rubric files and the static checks of a submission's source. */
#include "grader.h"
#include "checks_source.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    size_t i = 0;
    while (isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, strlen(s + i) + 1);
}

static int number(const char *path, int line, const char *key, const char *value, double *out,
                  tl_error *err)
{
    char *end = NULL;
    double v = strtod(value, &end);
    if (end == value || *end || v < 0)
        return tl_error_set(err, "%s:%d: %s expects a number >= 0, found \"%s\"", path, line, key,
                            value);
    *out = v;
    return 0;
}

/* A key whose value is one of `choices` (NULL-terminated): its index, or -1 with the error. */
static int choice(const char *path, int line, const char *key, const char *value,
                  const char *const *choices, const char *expected, tl_error *err)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(value, choices[i]) == 0)
            return i;
    tl_error_set(err, "%s:%d: %s is %s, found \"%s\"", path, line, key, expected, value);
    return -1;
}

/* require = PATTERN, PATTERN...: each a regular expression the source must match. */
static int read_require(const char *path, int line, char *value, rubric *r, tl_error *err)
{
    char *save = NULL;
    for (char *tok = strtok_r(value, ",", &save); tok && r->nrequire < 8;
         tok = strtok_r(NULL, ",", &save)) {
        trim(tok);
        regex_t re;
        if (!*tok)
            continue;
        if (regcomp(&re, tok, REG_EXTENDED | REG_NOSUB) != 0)
            return tl_error_set(err, "%s:%d: require: \"%s\" is not a valid regular expression",
                                path, line, tok);
        regfree(&re);
        snprintf(r->require[r->nrequire++], sizeof r->require[0], "%s", tok);
    }
    return 0;
}

/* One "key = value" line into r; *curve_line keeps where performance_curve was set. */
static int rubric_key(const char *path, int line, const char *key, char *value, rubric *r,
                      int *curve_line, tl_error *err)
{
    static const char *const visibilities[] = {"hidden", "after_due_date", "after_published",
                                               "visible", NULL};
    static const char *const curves[] = {"linear", "log", NULL}; /* rubric_curve's order */
    static const char *const yes_no[] = {"no", "yes", NULL};
    const struct {
        const char *key;
        double *field;
    } numbers[] = {{"compile", &r->compile},   {"datasets", &r->datasets},
                   {"static", &r->statics},     {"performance", &r->performance},
                   {"performance_full", &r->performance_full},
                   {"performance_zero", &r->performance_zero}};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        if (strcmp(key, numbers[i].key) == 0)
            return number(path, line, key, value, numbers[i].field, err);
    int k;
    if (strcmp(key, "hidden_visibility") == 0) {
        k = choice(path, line, key, value, visibilities,
                   "hidden, after_due_date, after_published or visible", err);
        if (k >= 0)
            snprintf(r->hidden_visibility, sizeof r->hidden_visibility, "%s", value);
    } else if (strcmp(key, "performance_curve") == 0) {
        k = choice(path, line, key, value, curves, "linear or log", err);
        r->performance_curve = k == 1 ? RUBRIC_CURVE_LOG : RUBRIC_CURVE_LINEAR;
        *curve_line = line;
    } else if (strcmp(key, "leaderboard") == 0) {
        k = choice(path, line, key, value, yes_no, "yes or no", err);
        r->leaderboard = k == 1;
    } else if (strcmp(key, "plain_cuda") == 0) {
        k = choice(path, line, key, value, yes_no, "yes or no", err);
        r->plain_cuda = k == 1;
    } else if (strcmp(key, "require") == 0) {
        return read_require(path, line, value, r, err);
    } else {
        return tl_error_set(err, "%s:%d: unknown key \"%s\" (compile, datasets, static, "
                            "performance, performance_full, performance_zero, "
                            "performance_curve, hidden_visibility, require, leaderboard, "
                            "plain_cuda)", path, line, key);
    }
    return k < 0 ? -1 : 0;
}

int rubric_read(const char *path, rubric *r, tl_error *err)
{
    memset(r, 0, sizeof *r);
    r->compile = 10;
    r->datasets = 60;
    r->statics = 10;
    r->performance = 20;
    r->performance_full = 0.8;
    r->performance_zero = 0.2;
    snprintf(r->hidden_visibility, sizeof r->hidden_visibility, "after_due_date");
    FILE *f = fopen(path, "r");
    if (!f)
        return tl_error_set(err, "%s: cannot open the rubric", path);
    char buf[512];
    int line = 0, rc = 0, curve_line = 0;
    while (rc == 0 && fgets(buf, sizeof buf, f)) {
        line++;
        char *hash = strchr(buf, '#');
        /* A # inside a require= pattern is part of it; comments follow a space. */
        if (hash && (hash == buf || isspace((unsigned char)hash[-1])))
            *hash = '\0';
        trim(buf);
        if (!buf[0])
            continue;
        char *eq = strchr(buf, '=');
        if (!eq) {
            rc = tl_error_set(err, "%s:%d: expected \"key = value\", found \"%s\"", path, line, buf);
            break;
        }
        *eq = '\0';
        char *key = buf, *value = eq + 1;
        trim(key);
        trim(value);
        rc = rubric_key(path, line, key, value, r, &curve_line, err);
    }
    fclose(f);
    if (rc == 0 && r->performance_full <= r->performance_zero)
        rc = tl_error_set(err, "%s: performance_full must be above performance_zero", path);
    /* The log curve measures speed from performance_zero by ratios: it needs a ratio of 0 to
     * be infinitely far below, never the start. */
    if (rc == 0 && r->performance_curve == RUBRIC_CURVE_LOG && r->performance_zero <= 0)
        rc = tl_error_set(err, "%s:%d: performance_curve = log needs performance_zero above 0",
                          path, curve_line);
    return rc;
}

double rubric_performance_share(const rubric *r, double ratio)
{
    double zero = r->performance_zero, full = r->performance_full;
    if (!(ratio > zero)) /* a ratio of 0 (not timed) or NaN earns nothing */
        return 0;
    if (ratio >= full)
        return 1;
    double share = r->performance_curve == RUBRIC_CURVE_LOG
                       ? log(ratio / zero) / log(full / zero)
                       : (ratio - zero) / (full - zero);
    return share < 0 ? 0 : share > 1 ? 1 : share;
}

double grader_scored_ratio(double ratio, bool predicted)
{
    return predicted ? ratio * (1 - GRADER_PREDICTED_MARGIN) : ratio;
}

double grader_no_points_ms(const rubric *r, double reference_ms)
{
    double zero = r->performance_zero > 0 ? r->performance_zero : 1 / RUNNER_MODEL_SLOWDOWN_MAX;
    return reference_ms / (zero * (1 - GRADER_PREDICTED_MARGIN));
}

static bool matches(const char *text, const char *pattern, int *line)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE) != 0)
        return false;
    regmatch_t m;
    bool found = regexec(&re, text, 1, &m, 0) == 0;
    if (found && line) {
        *line = 1;
        for (regoff_t i = 0; i < m.rm_so; i++)
            *line += text[i] == '\n';
    }
    regfree(&re);
    return found;
}

static void add_check(cJSON *checks, const char *name, bool ok, const char *detail)
{
    cJSON *c = cJSON_CreateObject();
    cJSON_AddStringToObject(c, "name", name);
    cJSON_AddBoolToObject(c, "ok", ok);
    cJSON_AddStringToObject(c, "detail", detail);
    cJSON_AddItemToArray(checks, c);
}

static const struct {
    const char *what, *pattern;
} forbidden[] = {
    {"cuBLAS", "cublas|CUBLAS"},
    {"cuDNN", "cudnn|CUDNN"},
    {"CUTLASS", "cutlass"},
    {"Thrust", "thrust/|thrust::"},
    {"CUB device-wide algorithms", "cub/|cub::Device"},
    {"system()", "(^|[^A-Za-z0-9_])system[[:space:]]*\\("},
    {"popen()", "popen[[:space:]]*\\("},
    {"fork()", "(^|[^A-Za-z0-9_])v?fork[[:space:]]*\\("},
    {"exec*()", "(^|[^A-Za-z0-9_])exec(l|lp|le|v|vp|vpe|ve)[[:space:]]*\\("},
    {"fopen()/open()", "(^|[^A-Za-z0-9_])(fopen|freopen|open|openat|creat)[[:space:]]*\\("},
    {"socket()", "(^|[^A-Za-z0-9_])socket[[:space:]]*\\("},
};

int static_checks_files(const char *const *names, const char *const *texts, int n,
                        const rubric *r, cJSON *checks)
{
    char **code = calloc((size_t)(n ? n : 1), sizeof *code);
    if (!code)
        return 1;
    for (int f = 0; f < n; f++)
        code[f] = source_code_only(texts[f]);
    int failed = 0;
    char found[512] = "";
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++) {
        for (int f = 0; f < n; f++) {
            int line = 0;
            if (code[f] && matches(code[f], forbidden[i].pattern, &line)) {
                size_t len = strlen(found);
                snprintf(found + len, sizeof found - len, "%s%s (%.60s:%d)", len ? ", " : "",
                         forbidden[i].what, names[f], line);
                break;
            }
        }
    }
    add_check(checks, "no forbidden libraries or calls", !found[0],
              found[0] ? found : "none of cuBLAS, cuDNN, CUTLASS, Thrust, CUB, system, popen, "
                                 "fork, exec, fopen/open, socket");
    failed += found[0] != 0;
    for (int i = 0; i < r->nrequire; i++) {
        char name[200], detail[200];
        bool ok = false;
        for (int f = 0; f < n && !ok; f++)
            ok = code[f] && matches(code[f], r->require[i], NULL);
        snprintf(name, sizeof name, "uses %s", r->require[i]);
        snprintf(detail, sizeof detail, ok ? "found" : "the lab requires code matching %s",
                 r->require[i]);
        add_check(checks, name, ok, detail);
        failed += !ok;
    }
    for (int f = 0; f < n; f++)
        free(code[f]);
    free(code);
    return failed;
}

int static_checks(const char *source_text, const rubric *r, cJSON *checks)
{
    const char *name = "the source";
    return static_checks_files(&name, &source_text, 1, r, checks);
}
