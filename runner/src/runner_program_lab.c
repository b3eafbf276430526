/* A lab graded as whole libwb programs: its description file (lab.json) read and checked, and
 * the description the kit's own matrix labs get when a libwb program is handed in for them. */
#include "runner.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LAB_FILE "lab.json"
#define LAB_MAX_BYTES (64u * 1024)

static const char *const types[] = {"matrix", "vector", "integral_vector", "histogram", "image"};
static const char *const answers[RUNNER_ANSWER_RULES] = {"as-is", "sum"};
static const char *const keys[] = {"name",   "title",  "type",     "tolerance", "answer",
                                   "inputs", "output", "datasets", "rubric"};

const char *runner_answer_rule_name(runner_answer_rule r)
{
    return r >= 0 && r < RUNNER_ANSWER_RULES ? answers[r] : "?";
}

/* Line of byte `at` in text, for the parser's messages. */
static int line_of(const char *text, const char *at)
{
    int line = 1;
    for (const char *p = text; p < at && *p; p++)
        line += *p == '\n';
    return line;
}

static int copy_string(const cJSON *doc, const char *key, bool required, char *out, size_t size,
                       const char *path, tl_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    if (!v && !required)
        return 0;
    if (!cJSON_IsString(v) || !v->valuestring[0])
        return tl_error_set(err, "%s: \"%s\" must be a non-empty string", path, key);
    if (strlen(v->valuestring) >= size)
        return tl_error_set(err, "%s: \"%s\" is longer than %zu characters", path, key, size - 1);
    snprintf(out, size, "%s", v->valuestring);
    return 0;
}

/* A file name inside a dataset folder: no folders, nothing hidden. */
static int plain_name(const char *name, const char *key, const char *path, tl_error *err)
{
    if (strchr(name, '/') || name[0] == '.')
        return tl_error_set(err, "%s: \"%s\" holds \"%s\"; expected a file name inside each "
                            "dataset folder (no '/', not starting with '.')", path, key, name);
    return 0;
}

static int one_of(const char *value, const char *const *names, int n, const char *key,
                  const char *path, tl_error *err)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0)
            return i;
    char list[200] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    tl_error_set(err, "%s: \"%s\" is \"%s\"; expected one of %s", path, key, value, list);
    return -1;
}

/* `name` as seen from `dir` (unchanged when absolute). */
static void beside(const char *dir, const char *name, char *out, size_t size)
{
    if (name[0] == '/')
        snprintf(out, size, "%s", name);
    else
        snprintf(out, size, "%.2000s/%.2000s", dir, name);
}

static int read_doc(const cJSON *doc, const char *path, runner_program_lab *lab, tl_error *err)
{
    if (!cJSON_IsObject(doc))
        return tl_error_set(err, "%s: expected a JSON object", path);
    for (const cJSON *item = doc->child; item; item = item->next) {
        bool known = false;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            known |= strcmp(item->string, keys[i]) == 0;
        if (!known)
            return tl_error_set(err, "%s: unknown key \"%.60s\" (the keys are name, title, type, "
                                "tolerance, answer, inputs, output, datasets, rubric)", path,
                                item->string);
    }
    char tolerance[16] = "", answer[16] = "as-is", datasets[PATH_MAX] = "", rubric[PATH_MAX] = "";
    if (copy_string(doc, "name", true, lab->name, sizeof lab->name, path, err) ||
        copy_string(doc, "title", false, lab->title, sizeof lab->title, path, err) ||
        copy_string(doc, "type", true, lab->type, sizeof lab->type, path, err) ||
        copy_string(doc, "tolerance", true, tolerance, sizeof tolerance, path, err) ||
        copy_string(doc, "answer", false, answer, sizeof answer, path, err) ||
        copy_string(doc, "output", true, lab->output, sizeof lab->output, path, err) ||
        copy_string(doc, "datasets", true, datasets, sizeof datasets, path, err) ||
        copy_string(doc, "rubric", false, rubric, sizeof rubric, path, err))
        return -1;
    for (const char *p = lab->name; *p; p++)
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') && *p != '-' && *p != '_')
            return tl_error_set(err, "%s: \"name\" is \"%s\"; expected lower-case letters, digits, "
                                "'-' and '_' (it names the grading's files)", path, lab->name);
    if (!lab->title[0])
        snprintf(lab->title, sizeof lab->title, "%s", lab->name);
    if (one_of(lab->type, types, (int)(sizeof types / sizeof types[0]), "type", path, err) < 0)
        return -1;
    if (tl_tolerance_parse(tolerance, &lab->tolerance) != 0)
        return tl_error_set(err, "%s: \"tolerance\" is \"%s\"; expected one of bound, libwb, "
                            "exact, libgputk", path, tolerance);
    int a = one_of(answer, answers, RUNNER_ANSWER_RULES, "answer", path, err);
    if (a < 0)
        return -1;
    lab->answer = (runner_answer_rule)a;
    if (lab->tolerance == TL_TOLERANCE_BOUND && strcmp(lab->type, "matrix") != 0)
        return tl_error_set(err, "%s: \"tolerance\": \"bound\" is the error bound of a matrix "
                            "product, for \"type\": \"matrix\" only; use libwb or exact", path);
    if (lab->answer == RUNNER_ANSWER_SUM && strcmp(lab->type, "vector") != 0)
        return tl_error_set(err, "%s: \"answer\": \"sum\" adds up float partial results: it "
                            "needs \"type\": \"vector\"", path);
    const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(doc, "inputs");
    int n = cJSON_GetArraySize(inputs);
    if (!cJSON_IsArray(inputs) || n < 1 || n > CAPLOG_MAX_INPUTS)
        return tl_error_set(err, "%s: \"inputs\" must be an array of 1 to %d file names", path,
                            CAPLOG_MAX_INPUTS);
    for (const cJSON *in = inputs->child; in; in = in->next) {
        if (!cJSON_IsString(in) || !in->valuestring[0] ||
            strlen(in->valuestring) >= sizeof lab->inputs[0])
            return tl_error_set(err, "%s: \"inputs\" must hold file names", path);
        if (plain_name(in->valuestring, "inputs", path, err) != 0)
            return -1;
        snprintf(lab->inputs[lab->ninputs++], sizeof lab->inputs[0], "%s", in->valuestring);
    }
    if (plain_name(lab->output, "output", path, err) != 0)
        return -1;
    /* Folders named relative to the description are found beside it. */
    beside(lab->dir, datasets, lab->datasets, sizeof lab->datasets);
    if (rubric[0])
        beside(lab->dir, rubric, lab->rubric, sizeof lab->rubric);
    struct stat st;
    if (stat(lab->datasets, &st) != 0 || !S_ISDIR(st.st_mode))
        return tl_error_set(err, "%s: \"datasets\": %s is not a folder", path, lab->datasets);
    return 0;
}

int runner_program_lab_read(const char *where, runner_program_lab *lab, tl_error *err)
{
    memset(lab, 0, sizeof *lab);
    char path[PATH_MAX];
    struct stat st;
    if (stat(where, &st) != 0)
        return tl_error_set(err, "%s: no such lab description (a lab.json, or a folder holding "
                            "one)", where);
    if (S_ISDIR(st.st_mode))
        snprintf(path, sizeof path, "%.4000s/%s", where, LAB_FILE);
    else
        snprintf(path, sizeof path, "%.4000s", where);
    snprintf(lab->dir, sizeof lab->dir, "%s", path);
    char *slash = strrchr(lab->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(lab->dir, sizeof lab->dir, ".");
    size_t len = 0;
    char *text = files_read_untrusted(path, LAB_MAX_BYTES, &len, err);
    if (!text)
        return -1;
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
    int rc;
    if (!doc) {
        rc = tl_error_set(err, "%s:%d: not valid JSON here", path, line_of(text, end ? end : text));
    } else {
        rc = read_doc(doc, path, lab, err);
    }
    cJSON_Delete(doc);
    free(text);
    return rc;
}

int runner_lab_resolve(const char *name, runner_lab *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    out->matrix = tl_lab_find(name);
    if (out->matrix)
        return 0;
    if (access(name, F_OK) != 0)
        return RUNNER_LAB_UNKNOWN;
    return runner_lab_read(name, out, err) == 0 ? 0 : -1;
}

const runner_program_lab *runner_lab_described(const runner_lab *lab)
{
    return lab->kind == RUNNER_LAB_DESCRIBED ? &lab->described : NULL;
}

const char *runner_lab_name(const runner_lab *lab)
{
    return lab->kind == RUNNER_LAB_DESCRIBED ? lab->described.name : lab->matrix->id;
}

bool runner_lab_shipped(const runner_lab *lab) { return lab->kind == RUNNER_LAB_MATRIX; }

void runner_lab_datasets(const runner_lab *lab, const char *root, char *out, size_t size)
{
    if (lab->kind == RUNNER_LAB_DESCRIBED)
        snprintf(out, size, "%s", lab->described.datasets);
    else
        snprintf(out, size, "%.3000s/datasets/%s", root, lab->matrix->id);
}

/* A matrix lab's description for a whole program (runner_lab_whole). */
static void runner_program_lab_for(const tl_lab *lab, const char *datasets, runner_program_lab *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", lab->id);
    snprintf(out->title, sizeof out->title, "%s (a whole libwb program)", lab->id);
    snprintf(out->type, sizeof out->type, "matrix");
    out->tolerance = TL_TOLERANCE_BOUND;
    out->answer = RUNNER_ANSWER_AS_IS;
    out->ninputs = 2;
    snprintf(out->inputs[0], sizeof out->inputs[0], "input0.raw");
    snprintf(out->inputs[1], sizeof out->inputs[1], "input1.raw");
    snprintf(out->output, sizeof out->output, "output.raw");
    snprintf(out->datasets, sizeof out->datasets, "%s", datasets);
    snprintf(out->dir, sizeof out->dir, "%s", datasets);
}

const tl_lab *runner_lab_matrix(const runner_lab *lab)
{
    return lab->kind == RUNNER_LAB_MATRIX ? lab->matrix : NULL;
}

void runner_lab_of(const tl_lab *matrix, runner_lab *out)
{
    memset(out, 0, sizeof *out);
    out->matrix = matrix;
}

int runner_lab_read(const char *where, runner_lab *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    out->kind = RUNNER_LAB_DESCRIBED;
    return runner_program_lab_read(where, &out->described, err);
}

tl_size runner_lab_perf_size(const runner_lab *lab)
{
    if (lab->kind == RUNNER_LAB_MATRIX)
        return lab->matrix->perf;
    return (tl_size){RUNNER_PREDICT_SIZE, RUNNER_PREDICT_SIZE, RUNNER_PREDICT_SIZE};
}

const char *runner_lab_dataset_marker(const runner_lab *lab)
{
    return lab->kind == RUNNER_LAB_DESCRIBED ? lab->described.inputs[0] : "input0.raw";
}

void runner_lab_rubric(const runner_lab *lab, const char *rubrics, char *out, size_t size)
{
    if (lab->kind == RUNNER_LAB_DESCRIBED && lab->described.rubric[0])
        snprintf(out, size, "%s", lab->described.rubric);
    else
        snprintf(out, size, "%s/%s.rubric", rubrics,
                 lab->kind == RUNNER_LAB_DESCRIBED ? "program" : lab->matrix->id);
}

void runner_lab_whole(const runner_lab *lab, const char *datasets, runner_program_lab *out)
{
    if (lab->kind == RUNNER_LAB_DESCRIBED)
        *out = lab->described;
    else
        runner_program_lab_for(lab->matrix, datasets, out);
}


/* The text with comments, strings and character constants blanked (newlines kept). */
static void blank_non_code(char *t)
{
    for (char *p = t; *p; p++) {
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                *p++ = ' ';
            if (!*p)
                break;
        } else if (p[0] == '/' && p[1] == '*') {
            *p++ = ' ';
            *p = ' ';
            while (p[1] && !(p[1] == '*' && p[2] == '/'))
                if (*++p != '\n')
                    *p = ' ';
            if (p[1]) {
                p[1] = p[2] = ' ';
                p += 2;
            }
        } else if (*p == '"' || *p == '\'') {
            char quote = *p;
            while (p[1] && p[1] != quote && p[1] != '\n') {
                if (p[1] == '\\' && p[2])
                    *++p = ' ';
                *++p = ' ';
            }
            if (p[1] == quote)
                p++;
        }
    }
}

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool runner_source_defines_main(const char *path)
{
    size_t len = 0;
    tl_error err;
    char *text = files_read_untrusted(path, RUNNER_MAX_SOURCE_BYTES, &len, &err);
    if (!text)
        return false;
    blank_non_code(text);
    bool found = false;
    for (char *p = strstr(text, "main"); p && !found; p = strstr(p + 4, "main")) {
        char before = p > text ? p[-1] : ' ';
        char *q = p + 4;
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
            q++;
        const char *b = p;
        while (b > text && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        bool member = b > text && (b[-1] == '.' || (b - text >= 2 && b[-2] == '-' && b[-1] == '>'));
        found = !ident_char(before) && !ident_char(p[4]) && *q == '(' && !member;
    }
    free(text);
    return found;
}
