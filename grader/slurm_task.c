/* One Slurm task of a --slurm grading, and the files that describe it: the grading file (the
 * options, with absolute paths, and the class's file names) and the batch script. The task
 * prepares exactly what the main process prepared (the same rubric, datasets, performance seed
 * from OUT/.performance-seed, so the same grading key), times the reference on its own node
 * and grades its one submission as a local worker does. */
#define _DEFAULT_SOURCE /* realpath */
#include "grader_context.h"
#include "outputs.h"

#include "util.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The absolute form of an existing path, for a task that starts in another folder. */
static int absolute(const char *path, char *out, tl_error *err)
{
    if (!realpath(path, out))
        return tl_error_set(err, "%s: cannot resolve the path for the Slurm tasks", path);
    return 0;
}

static void add_path(cJSON *doc, const char *key, const char *path, tl_error *err, int *rc)
{
    char full[PATH_MAX];
    if (!path || *rc != 0) {
        cJSON_AddNullToObject(doc, key);
        return;
    }
    *rc = absolute(path, full, err);
    cJSON_AddStringToObject(doc, key, full);
}

int grade_slurm_write_grading(const grade_context *c, const submission *subs, int n,
                              const int *tasks, int k, const char *path, tl_error *err)
{
    const grade_options *o = c->o;
    cJSON *doc = cJSON_CreateObject();
    int rc = 0;
    add_path(doc, "submissions", o->submissions, err, &rc);
    add_path(doc, "datasets", o->datasets, err, &rc);
    add_path(doc, "hidden", o->hidden, err, &rc);
    add_path(doc, "rubric", o->rubric, err, &rc);
    add_path(doc, "out", o->out, err, &rc);
    if (runner_lab_described(o->lab))
        add_path(doc, "program_lab", runner_lab_described(o->lab)->dir, err, &rc);
    else
        cJSON_AddStringToObject(doc, "lab", runner_lab_name(o->lab));
    cJSON_AddBoolToObject(doc, "libwb", o->libwb);
    cJSON_AddStringToObject(doc, "backend", runner_backend_name(o->backend));
    cJSON_AddNumberToObject(doc, "timeout", o->timeout);
    cJSON_AddNumberToObject(doc, "reps", o->reps);
    const int size[3] = {o->perf_size.m, o->perf_size.k, o->perf_size.n};
    cJSON_AddItemToObject(doc, "perf_size", cJSON_CreateIntArray(size, 3));
    cJSON_AddBoolToObject(doc, "no_sandbox", o->no_sandbox);
    /* File names, not ids: an id may hold any bytes, its file name is plain and unique. */
    cJSON *students = cJSON_AddArrayToObject(doc, "students");
    for (int i = 0; i < n; i++) {
        char name[256];
        grader_file_name(subs[i].student, name, sizeof name);
        cJSON_AddItemToArray(students, cJSON_CreateString(name));
    }
    cJSON_AddItemToObject(doc, "tasks", cJSON_CreateIntArray(tasks, k));
    char *text = rc == 0 ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (rc != 0)
        return -1;
    if (!text)
        return tl_error_set(err, "out of memory");
    rc = tl_write_file_atomic(path, text, strlen(text), err);
    free(text);
    return rc;
}

int grade_slurm_write_script(const char *grading, const char *path, tl_error *err)
{
    char cli[PATH_MAX], root[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", cli, sizeof cli - 1);
    if (len <= 0)
        return tl_error_set(err, "cannot find this program's path for the Slurm tasks");
    cli[len] = '\0';
    const char *r = getenv("TILELAB_ROOT");
    if (absolute(r && *r ? r : ".", root, err) != 0)
        return -1;
    /* The paths go between single quotes in the script. */
    if (strchr(cli, '\'') || strchr(root, '\'') || strchr(grading, '\''))
        return tl_error_set(err, "%s: a path with a ' cannot go into the batch script", grading);
    char text[4 * PATH_MAX];
    int n = snprintf(text, sizeof text,
                     "#!/bin/sh\n"
                     "# One task of a tilelab grading: grades submission $SLURM_ARRAY_TASK_ID of\n"
                     "# the grading file and writes its journal entry (tilelab grade --slurm).\n"
                     "export TILELAB_ROOT='%s'\n"
                     "exec '%s' grade-task '%s' \"$SLURM_ARRAY_TASK_ID\"\n",
                     root, cli, grading);
    if (n < 0 || (size_t)n >= sizeof text)
        return tl_error_set(err, "%s: the paths are too long", path);
    if (tl_write_file_atomic(path, text, (size_t)n, err) != 0)
        return -1;
    return chmod(path, 0755) == 0 ? 0 : tl_error_set(err, "%s: cannot make it executable", path);
}

/* ---- reading the grading file: every key as its writer above wrote it --------------------- */
static const char *json_type(const cJSON *v)
{
    return !v ? "nothing" : cJSON_IsNull(v) ? "null" : cJSON_IsBool(v) ? "a boolean"
         : cJSON_IsNumber(v) ? "a number" : cJSON_IsString(v) ? "a string"
         : cJSON_IsArray(v) ? "an array" : "an object";
}

static int bad_key(const char *grading, const char *key, const char *expected, const cJSON *v,
                   tl_error *err)
{
    return tl_error_set(err, "%s: \"%s\" should be %s, found %s (not a grading file of this "
                        "version of tilelab?)", grading, key, expected, json_type(v));
}

/* A path: a string, or with `optional` null (the writer's "not given"). */
static int read_text(const cJSON *doc, const char *key, bool optional, const char **out,
                     const char *grading, tl_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    *out = cJSON_IsString(v) ? v->valuestring : NULL;
    if (*out || (optional && cJSON_IsNull(v)))
        return 0;
    return bad_key(grading, key, optional ? "a string or null" : "a string", v, err);
}

static int read_bool(const cJSON *doc, const char *key, bool *out, const char *grading,
                     tl_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    *out = cJSON_IsTrue(v);
    return cJSON_IsBool(v) ? 0 : bad_key(grading, key, "true or false", v, err);
}

static bool whole_at_least(const cJSON *v, int least)
{
    return cJSON_IsNumber(v) && v->valuedouble >= least && v->valuedouble <= INT_MAX &&
           v->valuedouble == (double)(int)v->valuedouble;
}

static int read_int(const cJSON *doc, const char *key, int least, int *out, const char *grading,
                    tl_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    if (!whole_at_least(v, least)) {
        char expected[64];
        snprintf(expected, sizeof expected, "a whole number >= %d", least);
        return bad_key(grading, key, expected, v, err);
    }
    *out = (int)v->valuedouble;
    return 0;
}

/* perf_size: [m, k, n], each at least 1. */
static int read_size(const cJSON *doc, tl_size *out, const char *grading, tl_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "perf_size");
    int d[3];
    for (int i = 0; i < 3; i++) {
        const cJSON *x = cJSON_GetArrayItem(v, i);
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3 || !whole_at_least(x, 1))
            return bad_key(grading, "perf_size", "[m, k, n] of whole numbers >= 1", v, err);
        d[i] = (int)x->valuedouble;
    }
    *out = (tl_size){d[0], d[1], d[2]};
    return 0;
}

/* The lab, into `into`: a built-in one by its id ("lab"), or a described one ("program_lab",
 * whose description is read again from its folder); exactly one of them. */
static int read_lab(const cJSON *doc, grade_options *o, runner_lab *into, const char *grading,
                    tl_error *err)
{
    const cJSON *lab = cJSON_GetObjectItemCaseSensitive(doc, "lab");
    const cJSON *described = cJSON_GetObjectItemCaseSensitive(doc, "program_lab");
    if (cJSON_IsString(described) == cJSON_IsString(lab))
        return tl_error_set(err, "%s: should have either \"lab\" (a lab's id) or "
                            "\"program_lab\" (a lab.json's folder), found %s", grading,
                            cJSON_IsString(lab) ? "both" : "neither");
    if (cJSON_IsString(described)) {
        if (runner_lab_read(described->valuestring, into, err) != 0)
            return -1;
    } else {
        const tl_lab *matrix = tl_lab_find(lab->valuestring);
        if (!matrix)
            return tl_error_set(err, "%s: \"lab\" is \"%.100s\", which is no lab of this kit",
                                grading, lab->valuestring);
        runner_lab_of(matrix, into);
    }
    o->lab = into;
    return 0;
}

/* The options the main process graded with, from its grading file, the lab into `lab`. */
static int read_grading(const cJSON *doc, const char *grading, grade_options *o,
                        runner_lab *lab, tl_error *err)
{
    memset(o, 0, sizeof *o);
    o->quiet = true;
    const char *backend = NULL;
    if (read_lab(doc, o, lab, grading, err) != 0 ||
        read_text(doc, "submissions", false, &o->submissions, grading, err) != 0 ||
        read_text(doc, "datasets", false, &o->datasets, grading, err) != 0 ||
        read_text(doc, "hidden", true, &o->hidden, grading, err) != 0 ||
        read_text(doc, "rubric", true, &o->rubric, grading, err) != 0 ||
        read_text(doc, "out", false, &o->out, grading, err) != 0 ||
        read_text(doc, "backend", false, &backend, grading, err) != 0 ||
        read_bool(doc, "libwb", &o->libwb, grading, err) != 0 ||
        read_bool(doc, "no_sandbox", &o->no_sandbox, grading, err) != 0 ||
        read_int(doc, "timeout", 1, &o->timeout, grading, err) != 0 ||
        read_int(doc, "reps", 1, &o->reps, grading, err) != 0 ||
        read_size(doc, &o->perf_size, grading, err) != 0)
        return -1;
    char names[RUNNER_BACKEND_NAMES_SIZE];
    if (!runner_backend_parse(backend, &o->backend))
        return tl_error_set(err, "%s: \"backend\" should be %s, found \"%.40s\"", grading,
                            runner_backend_names(names, sizeof names), backend);
    return 0;
}

int grade_task(const char *grading, int index, tl_error *err)
{
    err->msg[0] = '\0';
    char *text = files_read(grading, NULL);
    if (!text)
        return tl_error_set(err, "%s: cannot read the grading file", grading);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return tl_error_set(err, "%s: the grading file is not a JSON object", grading);
    }
    grade_options o;
    static runner_lab lab;
    grade_context *c = calloc(1, sizeof *c);
    int rc = c ? read_grading(doc, grading, &o, &lab, err) : tl_error_set(err, "out of memory");
    const cJSON *name = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "students"), index);
    if (rc == 0 && !cJSON_IsString(name))
        rc = tl_error_set(err, "%s: no submission %d", grading, index);
    char turns_dir[] = "/tmp/tilelab-turns-XXXXXX";
    bool turns = false;
    if (rc == 0) {
        c->o = &o;
        turns = mkdtemp(turns_dir) != NULL;
        rc = turns ? 0 : tl_error_set(err, "cannot make a folder under /tmp");
        snprintf(c->turns, sizeof c->turns, "%s/lock", turns_dir);
    }
    if (rc == 0)
        rc = grade_prepare(c, err);
    submission *subs = NULL, *s = NULL;
    int n = rc == 0 ? grader_discover(o.submissions, &subs, err) : 0;
    for (int i = 0; i < n && !s; i++) {
        char mine[256];
        grader_file_name(subs[i].student, mine, sizeof mine);
        if (strcmp(mine, name->valuestring) == 0)
            s = &subs[i];
    }
    if (rc == 0 && !s)
        rc = tl_error_set(err, "%s: submission %s is no longer in %s", grading,
                          name->valuestring, o.submissions);
    if (rc == 0)
        rc = grade_time_reference(c, err);
    if (rc == 0) {
        /* A slot of its own among the tasks and gradings that may share this node (its user
         * when root), leased host-wide: array indices alone collide with another grading's. */
        grade_one(c, s, RUNNER_SLOT_OWN);
        if (!grade_journaled(c, s))
            rc = tl_error_set(err, "%s: no journal entry was written for %s", grading,
                              name->valuestring);
    }
    free(subs);
    if (turns) {
        unlink(c->turns);
        rmdir(turns_dir);
    }
    if (c)
        grader_roster_free(&c->roster);
    free(c);
    cJSON_Delete(doc);
    return rc;
}
