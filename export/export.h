/* export: grading bundles (./tilelab export), the one header of export/. The kit copied for a
 * grading platform, its settings file, the zip, the table of platforms (docs/contributing.md:
 * adding one), and PrairieLearn's results made from the grader's. */
#ifndef TILELAB_EXPORT_H
#define TILELAB_EXPORT_H

#include "datagen.h"
#include "runner.h"

#include <stdbool.h>
#include <stddef.h>

/* What a bundle grades, as its tilelab.conf tells the platform's entry script. */
typedef struct export_settings {
    const runner_lab *lab; /* one of the registry's, or one described by a lab.json; its name
                              (runner_lab_name) is the name a bundle's files carry */
    const char *hidden; /* the hidden datasets' folder, relative to tilelab.conf; NULL: none */
    int timeout;        /* seconds one replay may take (grade --timeout) */
    bool sandbox;       /* false: graded with --no-sandbox */
} export_settings;

/* Modes in a bundle: whoever unpacks it may read all of it; scripts run. */
#define EXPORT_MODE_DIR 0755
#define EXPORT_MODE_EXEC 0755
#define EXPORT_MODE_FILE 0644

/* Folder names of a bundle. */
#define EXPORT_KIT_DIR "tilelab"
#define EXPORT_HIDDEN_DIR "hidden"
#define EXPORT_CONF "tilelab.conf"
/* A described lab in the kit: its lab.json, datasets and rubric, under this folder. */
#define EXPORT_DESCRIBED_DIR "described"
/* In the kit's root: which export it is, so PrairieLearn's entry script can tell whether the
 * grading image was built from the kit the course holds. */
#define EXPORT_ID_FILE "export-id"
/* The platforms' scripts, under the kit's root. */
#define EXPORT_PLATFORMS "grader/platforms"

/* Copies what grading a lab needs from the kit at `root` into `to` (created): the files and
 * folders the build reads (not tests/), the front door, and the lab's handout, stub, reference
 * solution and datasets (not large/); then writes EXPORT_ID_FILE, a new random id. */
int export_copy_kit(const char *root, const export_settings *s, const char *to, tl_error *err);
/* Copies a folder of datasets into `to` (created): -1 when it holds no dataset folder (one
 * holding the file `marker`: input0.raw, or a described lab's first input). */
int export_copy_datasets(const char *from, const char *marker, const char *to, tl_error *err);
/* Copies one file, giving it `mode`. */
int export_copy_file(const char *from, const char *to, unsigned mode, tl_error *err);
/* Writes `text` to `path` with `mode`. */
int export_write_text(const char *path, const char *text, unsigned mode, tl_error *err);
/* Writes the bundle's tilelab.conf. */
int export_write_conf(const char *path, const export_settings *s, tl_error *err);
/* A random version-4 UUID, as PrairieLearn's info.json wants one ("xxxxxxxx-xxxx-4xxx-..."). */
int export_uuid(char out[37], tl_error *err);
/* Zips the contents of `dir` (its entries at the zip's root) into `zip`, replaced whole. */
int export_zip(const char *dir, const char *zip, tl_error *err);

/* ---- platforms (export_platform.c; the kit's own two in export_platforms.c) ------------- */
/* What `./tilelab export PLATFORM LAB` was asked for. */
typedef struct export_request {
    export_settings settings;
    const char *root;   /* the kit's root folder, copied into the bundle */
    const char *hidden; /* --hidden: the hidden datasets' folder, or NULL */
    const char *out;    /* --out, or NULL: PLATFORM-LAB.zip, or the folder PLATFORM-LAB, here */
    const char *image;  /* --image: the grading image a platform builds from the bundle */
    bool image_given;
} export_request;

/* A grading platform: what its bundle holds besides the kit, and what the course does with it.
 * Its scripts live under EXPORT_PLATFORMS/NAME in the kit. */
typedef struct export_platform {
    const char *name;   /* the format's name on export's command line */
    bool takes_image;   /* --image applies (a grading image built from the bundle) */
    bool out_is_folder; /* the bundle is a folder, which must not exist yet; else a zip */
    /* Puts the bundle's files in `stage`, an empty folder: the kit (export_stage_kit), the
     * platform's scripts, its settings (export_write_conf). */
    int (*fill)(const export_request *r, const char *stage, tl_error *err);
    /* "wrote OUT: ..." and what to do with it, for the command to print. */
    void (*done)(const export_request *r, const char *out, char *text, size_t size);
} export_platform;

extern const export_platform export_gradescope;
extern const export_platform export_prairielearn;

/* How many platforms the table holds at most (the kit's own and those added). */
#define EXPORT_MAX_PLATFORMS 8

/* The platform of that name, or NULL. */
const export_platform *export_platform_find(const char *name);
/* The i-th platform of the table (the kit's own first), or NULL past the last. */
const export_platform *export_platform_at(int i);
/* Adds a platform to the table, after the kit's own; -1 when its name is taken or empty, it
 * lacks fill or done, or the table is full. The platform must outlive its use. */
int export_platform_add(const export_platform *p);
/* "gradescope or prairielearn": the platforms' names, for messages. */
void export_platform_names(char *out, size_t size);

/* The kit (export_copy_kit from r->root) into `kit_to`, and the hidden datasets (when given)
 * into `hidden_to`. */
int export_stage_kit(const export_request *r, const char *kit_to, const char *hidden_to,
                     tl_error *err);
/* Writes the platform's bundle for the request: put together in a temporary folder (beside a
 * folder output, else in TMPDIR), then zipped, or renamed whole to the output; nothing is left
 * behind on failure. On success `done` holds what to print. */
int export_bundle(const export_platform *p, const export_request *r, tl_error *err, char *done,
                  size_t done_size);

/* PrairieLearn's results.json made from the grader's Gradescope results.json: score (0..1),
 * gradable, message, tests[] with points and max_points. Tests not visible to the student on
 * Gradescope (hidden datasets) keep their points but not their name or output. */
int export_prairielearn_results(const char *gradescope_json, const char *out, tl_error *err);

#endif /* TILELAB_EXPORT_H */
