/* The kit copied into a grading bundle, its settings, and the zip (./tilelab export). */
#include "export.h"
#include "runner.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes of zip's messages kept for an error. */
#define ZIP_OUTPUT_LIMIT 4096
/* Random bytes of an export id. */
#define EXPORT_ID_BYTES 16
#define UUID_BYTES 16

/* The root files the build and the front door read. */
static const char *const root_files[] = {"CMakeLists.txt", "CMakePresets.json", "tilelab"};

int export_copy_file(const char *from, const char *to, unsigned mode, tl_error *err)
{
    if (files_copy(from, to) != 0)
        return tl_error_set(err, "cannot copy %s to %s: %s", from, to, strerror(errno));
    if (chmod(to, (mode_t)mode) != 0)
        return tl_error_set(err, "%s: cannot set its mode: %s", to, strerror(errno));
    return 0;
}

static int make_dir(const char *path, tl_error *err)
{
    if (mkdir(path, EXPORT_MODE_DIR) != 0 && errno != EEXIST)
        return tl_error_set(err, "cannot create %s: %s", path, strerror(errno));
    return 0;
}

/* Copies a folder: files keep whether they are executable, names starting with '.' (editor and
 * tool files) are left out, and so is `skip` directly inside `from` (NULL: nothing). A link is
 * refused: the kit holds none, and a bundle must not depend on where one points. */
static int copy_tree(const char *from, const char *to, const char *skip, tl_error *err)
{
    if (make_dir(to, err) != 0)
        return -1;
    DIR *d = opendir(from);
    if (!d)
        return tl_error_set(err, "cannot list %s: %s", from, strerror(errno));
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.' || (skip && strcmp(e->d_name, skip) == 0))
            continue;
        char src[PATH_MAX], dst[PATH_MAX];
        struct stat st;
        if (snprintf(src, sizeof src, "%s/%s", from, e->d_name) >= (int)sizeof src ||
            snprintf(dst, sizeof dst, "%s/%s", to, e->d_name) >= (int)sizeof dst)
            rc = tl_error_set(err, "%s/%s: path too long", from, e->d_name);
        else if (lstat(src, &st) != 0)
            rc = tl_error_set(err, "%s: %s", src, strerror(errno));
        else if (S_ISDIR(st.st_mode))
            rc = copy_tree(src, dst, NULL, err);
        else if (S_ISREG(st.st_mode))
            rc = export_copy_file(src, dst, st.st_mode & S_IXUSR ? EXPORT_MODE_EXEC : EXPORT_MODE_FILE, err);
        else
            rc = tl_error_set(err, "%s: not a regular file or folder (a link?): a bundle holds "
                              "only files", src);
    }
    closedir(d);
    return rc;
}

int export_copy_datasets(const char *from, const char *marker, const char *to, tl_error *err)
{
    DIR *d = opendir(from);
    if (!d)
        return tl_error_set(err, "%s: cannot list the folder: %s", from, strerror(errno));
    int datasets = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[PATH_MAX];
        if (e->d_name[0] != '.' && snprintf(path, sizeof path, "%s/%s/%s", from, e->d_name,
                                            marker) < (int)sizeof path &&
            access(path, R_OK) == 0)
            datasets++;
    }
    closedir(d);
    if (datasets == 0)
        return tl_error_set(err, "%s: no dataset folders in it (folders holding %s, as "
                            "./tilelab datasets writes them)", from, marker);
    /* large/ is not graded (the grader reads the dataset folders directly in the folder). */
    return copy_tree(from, to, "large", err);
}

/* A top-level folder the build reads: it has a CMakeLists.txt. tests/ is left out (grading runs
 * none of it; the root CMakeLists.txt builds it only where it is there). */
static bool is_build_folder(const char *root, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    return name[0] != '.' && strcmp(name, "tests") != 0 && strcmp(name, "build") != 0 &&
           snprintf(path, sizeof path, "%s/%s/CMakeLists.txt", root, name) < (int)sizeof path &&
           stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int read_random(unsigned char *bytes, size_t n, tl_error *err)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, bytes, n) : -1;
    if (fd >= 0)
        close(fd);
    if (got != (ssize_t)n)
        return tl_error_set(err, "cannot read /dev/urandom");
    return 0;
}

/* A described lab into the kit: a lab.json of its own (datasets and rubric beside it), the
 * datasets, the rubric. */
static int copy_described(const runner_program_lab *lab, const char *to, tl_error *err)
{
    char dir[PATH_MAX], path[PATH_MAX];
    snprintf(dir, sizeof dir, "%.3000s/%s", to, EXPORT_DESCRIBED_DIR);
    if (make_dir(dir, err) != 0)
        return -1;
    snprintf(dir, sizeof dir, "%.3000s/%s/%s", to, EXPORT_DESCRIBED_DIR, lab->name);
    snprintf(path, sizeof path, "%.3000s/datasets", dir);
    if (make_dir(dir, err) != 0 || copy_tree(lab->datasets, path, NULL, err) != 0)
        return -1;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "name", lab->name);
    cJSON_AddStringToObject(doc, "title", lab->title);
    cJSON_AddStringToObject(doc, "type", lab->type);
    cJSON_AddStringToObject(doc, "tolerance", tl_tolerance_name(lab->tolerance));
    cJSON_AddStringToObject(doc, "answer", runner_answer_rule_name(lab->answer));
    cJSON *inputs = cJSON_AddArrayToObject(doc, "inputs");
    for (int i = 0; i < lab->ninputs; i++)
        cJSON_AddItemToArray(inputs, cJSON_CreateString(lab->inputs[i]));
    cJSON_AddStringToObject(doc, "output", lab->output);
    cJSON_AddStringToObject(doc, "datasets", "datasets");
    int rc = 0;
    if (lab->rubric[0]) {
        cJSON_AddStringToObject(doc, "rubric", "lab.rubric");
        snprintf(path, sizeof path, "%.3000s/lab.rubric", dir);
        rc = export_copy_file(lab->rubric, path, EXPORT_MODE_FILE, err);
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    snprintf(path, sizeof path, "%.3000s/lab.json", dir);
    if (rc == 0)
        rc = text ? export_write_text(path, text, EXPORT_MODE_FILE, err)
                  : tl_error_set(err, "out of memory");
    free(text);
    return rc;
}

int export_copy_kit(const char *root, const export_settings *s, const char *to, tl_error *err)
{
    const tl_lab *lab = runner_lab_matrix(s->lab);
    if (make_dir(to, err) != 0)
        return -1;
    char src[PATH_MAX], dst[PATH_MAX];
    for (size_t i = 0; i < sizeof root_files / sizeof root_files[0]; i++) {
        struct stat st;
        snprintf(src, sizeof src, "%.3000s/%s", root, root_files[i]);
        snprintf(dst, sizeof dst, "%.3000s/%s", to, root_files[i]);
        if (stat(src, &st) != 0)
            return tl_error_set(err, "%s: missing from the kit: %s", src, strerror(errno));
        if (export_copy_file(src, dst, st.st_mode & S_IXUSR ? EXPORT_MODE_EXEC : EXPORT_MODE_FILE, err) != 0)
            return -1;
    }
    DIR *d = opendir(root);
    if (!d)
        return tl_error_set(err, "cannot list %s: %s", root, strerror(errno));
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (!is_build_folder(root, e->d_name) && strcmp(e->d_name, "cmake") != 0)
            continue;
        snprintf(src, sizeof src, "%.3000s/%s", root, e->d_name);
        snprintf(dst, sizeof dst, "%.3000s/%s", to, e->d_name);
        rc = copy_tree(src, dst, NULL, err);
    }
    closedir(d);
    /* The lab's own folders: the stub and handout, the reference solution the grader times
     * every student against, and the datasets; or the described lab's. */
    if (rc == 0 && runner_lab_described(s->lab))
        rc = copy_described(runner_lab_described(s->lab), to, err);
    static const char *const lab_dirs[] = {"labs", "solutions", "datasets"};
    for (size_t i = 0; rc == 0 && lab && i < sizeof lab_dirs / sizeof lab_dirs[0]; i++) {
        snprintf(dst, sizeof dst, "%.3000s/%s", to, lab_dirs[i]);
        if (make_dir(dst, err) != 0)
            return -1;
        snprintf(src, sizeof src, "%.3000s/%s/%s", root, lab_dirs[i], lab->id);
        snprintf(dst, sizeof dst, "%.3000s/%s/%s", to, lab_dirs[i], lab->id);
        rc = copy_tree(src, dst, "large", err);
    }
    if (rc != 0)
        return -1;
    unsigned char id[EXPORT_ID_BYTES];
    char text[64 + 2 * EXPORT_ID_BYTES];
    if (read_random(id, sizeof id, err) != 0)
        return -1;
    int len = snprintf(text, sizeof text, "%s ", runner_lab_name(s->lab));
    for (size_t i = 0; i < sizeof id; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%02x", id[i]);
    snprintf(text + len, sizeof text - (size_t)len, "\n");
    snprintf(dst, sizeof dst, "%.3000s/%s", to, EXPORT_ID_FILE);
    return export_write_text(dst, text, EXPORT_MODE_FILE, err);
}

int export_write_text(const char *path, const char *text, unsigned mode, tl_error *err)
{
    if (tl_write_file_atomic(path, text, strlen(text), err) != 0)
        return -1;
    if (chmod(path, (mode_t)mode) != 0)
        return tl_error_set(err, "%s: cannot set its mode: %s", path, strerror(errno));
    return 0;
}

int export_write_conf(const char *path, const export_settings *s, tl_error *err)
{
    char text[2048];
    snprintf(text, sizeof text,
             "# What this bundle grades: written by ./tilelab export, read by the platform's entry\n"
             "# script (grader/platforms/). Shell syntax.\n"
             "# a matrix lab's id, or a described lab's folder in the kit\n"
             "TILELAB_LAB=%s%s\n"
             "# seconds one replay may take (grade --timeout)\n"
             "TILELAB_TIMEOUT=%d\n"
             "# the hidden datasets' folder, beside this file (empty: none)\n"
             "TILELAB_HIDDEN=%s\n"
             "# 1: built, captured and replayed in bubblewrap; 0: grade --no-sandbox\n"
             "TILELAB_SANDBOX=%d\n",
             runner_lab_described(s->lab) ? EXPORT_DESCRIBED_DIR "/" : "", runner_lab_name(s->lab), s->timeout,
             s->hidden ? s->hidden : "", s->sandbox ? 1 : 0);
    return export_write_text(path, text, EXPORT_MODE_FILE, err);
}

int export_uuid(char out[37], tl_error *err)
{
    unsigned char b[UUID_BYTES];
    if (read_random(b, sizeof b, err) != 0)
        return -1;
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* the RFC 4122 variant */
    int len = 0;
    for (int i = 0; i < UUID_BYTES; i++)
        len += snprintf(out + len, (size_t)(37 - len), "%s%02x",
                        i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", b[i]);
    return 0;
}

int export_zip(const char *dir, const char *zip, tl_error *err)
{
    /* zip runs in `dir`, so the target must not be relative; a temporary beside it, renamed
     * when complete, so an upload never picks up half a zip or zip's update of an older one. */
    char tmp[PATH_MAX];
    if (zip[0] == '/')
        snprintf(tmp, sizeof tmp, "%.4000s.tmp.zip", zip);
    else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return tl_error_set(err, "cannot tell the current folder: %s", strerror(errno));
        snprintf(tmp, sizeof tmp, "%.2000s/%.2000s.tmp.zip", cwd, zip);
    }
    unlink(tmp);
    char *argv[] = {"zip", "-q", "-r", "-X", tmp, ".", NULL};
    proc_spec spec = {.argv = argv, .capture_limit = ZIP_OUTPUT_LIMIT, .cwd = dir};
    proc_result res;
    if (proc_run_spec(&spec, &res) != 0)
        return tl_error_set(err, "cannot run zip");
    int code = res.exit_code;
    char detail[512];
    snprintf(detail, sizeof detail, "%s", res.err && *res.err ? res.err : res.out ? res.out : "");
    proc_result_free(&res);
    if (code == 127)
        return tl_error_set(err, "zip is not installed (Debian: apt-get install zip; ./tilelab "
                            "installs it when run as root)");
    if (code != 0) {
        unlink(tmp);
        return tl_error_set(err, "zip failed (exit status %d): %s", code, detail);
    }
    if (rename(tmp, zip) != 0) {
        int e = errno;
        unlink(tmp);
        return tl_error_set(err, "cannot write %s: %s", zip, strerror(e));
    }
    return 0;
}
