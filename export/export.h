/* Grading bundles (./tilelab export): the kit copied for a grading platform, its settings file,
 * the zip, and PrairieLearn's results made from the grader's. */
#ifndef TILELAB_CLI_EXPORT_KIT_H
#define TILELAB_CLI_EXPORT_KIT_H

#include "datagen.h"
#include "runner.h"

#include <stdbool.h>
#include <stddef.h>

/* What a bundle grades, as its tilelab.conf tells the platform's entry script. */
typedef struct export_settings {
    const tl_lab *lab;                  /* a matrix lab, or NULL with `program` */
    const runner_program_lab *program;  /* a described lab (its lab.json), or NULL */
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
/* The name a bundle's files carry: the matrix lab's id or the described lab's name. */
const char *export_lab_name(const export_settings *s);
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

/* PrairieLearn's results.json made from the grader's Gradescope results.json: score (0..1),
 * gradable, message, tests[] with points and max_points. Tests not visible to the student on
 * Gradescope (hidden datasets) keep their points but not their name or output. */
int export_prairielearn_results(const char *gradescope_json, const char *out, tl_error *err);

#endif /* TILELAB_CLI_EXPORT_KIT_H */
