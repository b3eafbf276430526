/* Checks a results.json against the format its platform documents, for the export tests.
 *   results_check [--sums] gradescope FILE      Gradescope's autograder results (its "Autograder
 *                                      Specifications": score, execution_time, output,
 *                                      visibility, stdout_visibility, tests[], leaderboard[])
 *   results_check [--sums] prairielearn FILE    PrairieLearn's external grading results (its "External
 *                                      Grading" page: gradable, score 0..1, message, tests[])
 * --sums also asks what the kit's results promise and the formats leave open: the total is the
 * sum of the tests' scores (Gradescope lets a top-level score override them; PrairieLearn's
 * score need not follow the tests' points).
 * Prints "score S max M" (Gradescope: the points; PrairieLearn: the fraction and 1) and exits 0
 * when it conforms; otherwise one line per problem, naming the field, and exits 1. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Scores are written to the hundredth: sums of them may differ from the total by rounding. */
#define SCORE_TOLERANCE 0.005
/* PrairieLearn's limit on results.json. */
#define PL_MAX_BYTES (1 << 20)

static int problems;
static bool sums;

static void problem(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("results_check: ", stdout);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    problems++;
}

static const cJSON *field(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* An array's items to walk, or none when it is not an array. */
static const cJSON *list(const cJSON *v)
{
    return cJSON_IsArray(v) ? v : NULL;
}

/* An optional field of the given kind; a present one of another kind is a problem. */
static bool optional(const cJSON *o, const char *key, cJSON_bool (*is)(const cJSON *),
                     const char *kind, const char *where)
{
    const cJSON *v = field(o, key);
    if (!v)
        return false;
    if (!is(v)) {
        problem("%s.%s: not %s", where, key, kind);
        return false;
    }
    return true;
}

static void required(const cJSON *o, const char *key, cJSON_bool (*is)(const cJSON *),
                     const char *kind, const char *where)
{
    if (!field(o, key))
        problem("%s.%s: missing (%s required)", where, key, kind);
    else
        optional(o, key, is, kind, where);
}

static void visibility(const cJSON *o, const char *key, const char *where)
{
    static const char *const allowed[] = {"hidden", "after_due_date", "after_published",
                                          "visible"};
    if (!optional(o, key, cJSON_IsString, "a string", where))
        return;
    const char *v = field(o, key)->valuestring;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(v, allowed[i]) == 0)
            return;
    problem("%s.%s: \"%s\" is not hidden, after_due_date, after_published or visible", where,
            key, v);
}

/* The output formats Gradescope renders: what a submission quotes must come out as text. */
static void output_format(const cJSON *o, const char *key, const char *where)
{
    static const char *const allowed[] = {"text", "html", "simple_format", "md", "ansi"};
    if (!optional(o, key, cJSON_IsString, "a string", where))
        return;
    const char *v = field(o, key)->valuestring;
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (strcmp(v, allowed[i]) == 0)
            return;
    problem("%s.%s: \"%s\" is not text, html, simple_format, md or ansi", where, key, v);
}

static void gradescope(const cJSON *root)
{
    const cJSON *tests = field(root, "tests");
    bool has_score = optional(root, "score", cJSON_IsNumber, "a number", "results");
    optional(root, "execution_time", cJSON_IsNumber, "a number", "results");
    optional(root, "output", cJSON_IsString, "a string", "results");
    optional(root, "extra_data", cJSON_IsObject, "an object", "results");
    visibility(root, "visibility", "results");
    visibility(root, "stdout_visibility", "results");
    output_format(root, "output_format", "results");
    output_format(root, "test_output_format", "results");
    if (tests && !cJSON_IsArray(tests))
        problem("results.tests: not an array");
    double sum = 0, max = 0;
    bool every_score = true;
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, list(tests)) {
        char where[64];
        snprintf(where, sizeof where, "tests[%d]", i++);
        if (!cJSON_IsObject(t)) {
            problem("%s: not an object", where);
            continue;
        }
        bool score = optional(t, "score", cJSON_IsNumber, "a number", where);
        bool max_score = optional(t, "max_score", cJSON_IsNumber, "a number", where);
        optional(t, "name", cJSON_IsString, "a string", where);
        optional(t, "output", cJSON_IsString, "a string", where);
        optional(t, "number", cJSON_IsString, "a string", where);
        optional(t, "tags", cJSON_IsArray, "an array", where);
        visibility(t, "visibility", where);
        output_format(t, "output_format", where);
        if (optional(t, "status", cJSON_IsString, "a string", where) &&
            strcmp(field(t, "status")->valuestring, "passed") != 0 &&
            strcmp(field(t, "status")->valuestring, "failed") != 0)
            problem("%s.status: neither passed nor failed", where);
        every_score = every_score && score;
        sum += score ? field(t, "score")->valuedouble : 0;
        max += max_score ? field(t, "max_score")->valuedouble : 0;
        if (score && max_score && field(t, "score")->valuedouble >
                                      field(t, "max_score")->valuedouble + SCORE_TOLERANCE)
            problem("%s: score %g above max_score %g", where, field(t, "score")->valuedouble,
                    field(t, "max_score")->valuedouble);
    }
    /* The specification: a score at the top level, or one on every test. */
    if (!has_score && (!cJSON_IsArray(tests) || !every_score))
        problem("results: no score, and not every test has one");
    double total = has_score ? field(root, "score")->valuedouble : sum;
    if (sums && has_score && cJSON_GetArraySize(tests) > 0 && every_score &&
        fabs(total - sum) > SCORE_TOLERANCE)
        problem("results.score: %g, but the tests' scores add up to %g", total, sum);
    const cJSON *board = field(root, "leaderboard");
    if (board && !cJSON_IsArray(board))
        problem("results.leaderboard: not an array");
    i = 0;
    cJSON_ArrayForEach(t, list(board)) {
        char where[64];
        snprintf(where, sizeof where, "leaderboard[%d]", i++);
        required(t, "name", cJSON_IsString, "a string", where);
        const cJSON *v = field(t, "value");
        if (!cJSON_IsNumber(v) && !cJSON_IsString(v))
            problem("%s.value: missing, or neither a number nor a string", where);
        const cJSON *order = field(t, "order");
        if (order && (!cJSON_IsString(order) || (strcmp(order->valuestring, "asc") != 0 &&
                                                  strcmp(order->valuestring, "desc") != 0)))
            problem("%s.order: neither asc nor desc", where);
    }
    printf("score %g max %g\n", total, max);
}

static void prairielearn(const cJSON *root)
{
    bool gradable = true;
    if (optional(root, "gradable", cJSON_IsBool, "a boolean", "results"))
        gradable = cJSON_IsTrue(field(root, "gradable"));
    /* score is the one field a gradable result must have. */
    if (gradable)
        required(root, "score", cJSON_IsNumber, "a number", "results");
    else
        optional(root, "score", cJSON_IsNumber, "a number", "results");
    const cJSON *score = field(root, "score");
    double s = cJSON_IsNumber(score) ? score->valuedouble : 0;
    if (cJSON_IsNumber(score) && (s < 0 || s > 1))
        problem("results.score: %g is outside 0..1", s);
    optional(root, "message", cJSON_IsString, "a string", "results");
    optional(root, "output", cJSON_IsString, "a string", "results");
    const cJSON *fe = field(root, "format_errors");
    if (fe && !cJSON_IsString(fe) && !cJSON_IsArray(fe))
        problem("results.format_errors: neither a string nor an array");
    const cJSON *tests = field(root, "tests");
    if (tests && !cJSON_IsArray(tests))
        problem("results.tests: not an array");
    double points = 0, max = 0;
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, list(tests)) {
        char where[64];
        snprintf(where, sizeof where, "tests[%d]", i++);
        required(t, "name", cJSON_IsString, "a string", where);
        bool p = optional(t, "points", cJSON_IsNumber, "a number", where);
        bool m = optional(t, "max_points", cJSON_IsNumber, "a number", where);
        optional(t, "description", cJSON_IsString, "a string", where);
        optional(t, "message", cJSON_IsString, "a string", where);
        optional(t, "output", cJSON_IsString, "a string", where);
        points += p ? field(t, "points")->valuedouble : 0;
        max += m ? field(t, "max_points")->valuedouble : 0;
        if (p && m && field(t, "points")->valuedouble >
                          field(t, "max_points")->valuedouble + SCORE_TOLERANCE)
            problem("%s: points above max_points", where);
    }
    if (sums && gradable && max > 0 && fabs(points / max - s) > SCORE_TOLERANCE / max)
        problem("results.score: %g, but the tests' points give %g of %g", s, points, max);
    printf("score %g max 1 gradable %s\n", s, gradable ? "true" : "false");
}

int main(int argc, char **argv)
{
    sums = argc == 4 && strcmp(argv[1], "--sums") == 0;
    argv += sums;
    argc -= sums;
    if (argc != 3 || (strcmp(argv[1], "gradescope") != 0 && strcmp(argv[1], "prairielearn") != 0)) {
        fprintf(stderr, "usage: results_check [--sums] gradescope|prairielearn FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        printf("results_check: %s: cannot open\n", argv[2]);
        return 1;
    }
    static char text[PL_MAX_BYTES + 1];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    if (n > PL_MAX_BYTES) {
        printf("results_check: %s: over 1 MB\n", argv[2]);
        return 1;
    }
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    if (!cJSON_IsObject(root)) {
        printf("results_check: %s: not a JSON object\n", argv[2]);
        cJSON_Delete(root);
        return 1;
    }
    if (strcmp(argv[1], "gradescope") == 0)
        gradescope(root);
    else
        prairielearn(root);
    cJSON_Delete(root);
    return problems ? 1 : 0;
}
