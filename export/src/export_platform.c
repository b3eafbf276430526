/* The export platforms: a table the command looks formats up in, and the steps every bundle
 * shares (a stage to put it together in, the kit and the hidden datasets in it). */
#include "export.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The kit's own platforms, then what export_platform_add added. */
static const export_platform *platforms[EXPORT_MAX_PLATFORMS] = {&export_gradescope,
                                                                 &export_prairielearn};
static int platform_count = 2;

const export_platform *export_platform_find(const char *name)
{
    for (int i = 0; i < platform_count; i++)
        if (strcmp(platforms[i]->name, name) == 0)
            return platforms[i];
    return NULL;
}

const export_platform *export_platform_at(int i)
{
    return i >= 0 && i < platform_count ? platforms[i] : NULL;
}

int export_platform_add(const export_platform *p)
{
    if (!p->name || !*p->name || !p->fill || !p->done || export_platform_find(p->name) ||
        platform_count == EXPORT_MAX_PLATFORMS)
        return -1;
    platforms[platform_count++] = p;
    return 0;
}

void export_platform_names(char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < platform_count && len < size; i++) {
        const char *sep = i == 0 ? "" : i == platform_count - 1 ? " or " : ", ";
        int n = snprintf(out + len, size - len, "%s%s", sep, platforms[i]->name);
        len += n > 0 ? (size_t)n : 0;
    }
}

int export_stage_kit(const export_request *r, const char *kit_to, const char *hidden_to,
                     tl_error *err)
{
    if (export_copy_kit(r->root, &r->settings, kit_to, err) != 0)
        return -1;
    return r->hidden ? export_copy_datasets(r->hidden, runner_lab_dataset_marker(r->settings.lab),
                                            hidden_to, err)
                     : 0;
}

/* The temporary folder a bundle is put together in: beside the output folder when it is to be
 * renamed to it (so on the same file system), else in TMPDIR; removed by the caller. */
static int make_stage(const char *beside, char *stage, size_t size, tl_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if (beside)
        snprintf(stage, size, "%.3000s.tmp-XXXXXX", beside);
    else
        snprintf(stage, size, "%.3000s/tilelab-export-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(stage))
        return tl_error_set(err, "cannot create a temporary folder (%s): %s", stage,
                            strerror(errno));
    return 0;
}

/* "prairielearn": the platforms that take --image, for the message that refuses it. */
static void image_takers(char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < platform_count && len < size; i++)
        if (platforms[i]->takes_image) {
            int n = snprintf(out + len, size - len, "%s%s", len ? ", " : "", platforms[i]->name);
            len += n > 0 ? (size_t)n : 0;
        }
}

/* The bundle's files, put together in `stage`, to `out`: the folder renamed whole, or zipped. */
static int publish(const export_platform *p, const char *stage, const char *out, tl_error *err)
{
    if (!p->out_is_folder)
        return export_zip(stage, out, err);
    if (rename(stage, out) != 0)
        return tl_error_set(err, "cannot write %s: %s", out, strerror(errno));
    return 0;
}

int export_bundle(const export_platform *p, const export_request *r, tl_error *err, char *done,
                  size_t done_size)
{
    if (r->image_given && !p->takes_image) {
        char takers[256];
        image_takers(takers, sizeof takers);
        return tl_error_set(err, "--image is for %s (this platform builds its own image)", takers);
    }
    char out[PATH_MAX], stage[PATH_MAX];
    if (r->out)
        snprintf(out, sizeof out, "%s", r->out);
    else
        snprintf(out, sizeof out, p->out_is_folder ? "%s-%s" : "%s-%s.zip", p->name,
                 runner_lab_name(r->settings.lab));
    for (size_t n = strlen(out); p->out_is_folder && n > 1 && out[n - 1] == '/'; n--)
        out[n - 1] = '\0';
    struct stat st;
    if (p->out_is_folder && lstat(out, &st) == 0)
        return tl_error_set(err, "%s already exists: remove it, or name another --out", out);
    if (make_stage(p->out_is_folder ? out : NULL, stage, sizeof stage, err) != 0)
        return -1;
    int rc = p->fill(r, stage, err);
    if (rc == 0)
        rc = publish(p, stage, out, err);
    if (rc == 0)
        p->done(r, out, done, done_size);
    /* A folder's stage is renamed to the output on success: nothing is left to remove. */
    if (lstat(stage, &st) == 0)
        files_remove_tree(stage);
    return rc;
}
