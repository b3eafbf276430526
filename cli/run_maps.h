/* The error maps of one `tilelab run`: each wrong or unsafe dataset's map of where P is wrong,
 * drawn under its line, and the --report page with every dataset. The P a map is drawn from is
 * the one the runner saved from the replay that gave the verdict (the checked run's for an
 * unsafe verdict), never anything the student's code wrote; it is checked here again, element
 * by element, against the dataset with the kit's bound. */
#ifndef TILELAB_CLI_RUN_MAPS_H
#define TILELAB_CLI_RUN_MAPS_H

#include "explain.h"

typedef struct run_maps run_maps;

/* `report`: the page to write at the end (NULL: none); `print`: draw maps on stdout. NULL with
 * err when the run's own folder cannot be made. */
run_maps *run_maps_open(const char *report, bool print, tl_error *err);

/* Where the next dataset's replay is to save its P: `wanted` (--save-outputs) when given, else
 * a file of the run's own folder. What is there now is noted, so that only a P this replay
 * wrote is mapped. */
const char *run_maps_next(run_maps *m, const char *wanted);

/* After the replay of the dataset `d` (a folder): for a wrong or unsafe verdict, its map added
 * to `x` (the result's explanation) and printed when asked and `draw` (not for a finding
 * already shown above); the explanation kept for the report (which then owns x's map). */
void run_maps_dataset(run_maps *m, const runner_loaded *d, const runner_result *r,
                      explanation *x, const caplog *log, bool draw);
/* The causes a later diagnosis found (cmd_run's, on the CPU backend) for the last dataset. */
void run_maps_causes(run_maps *m, const explanation *causes);

/* Writes the report (when asked) and frees everything. -1 with err when the page cannot be
 * written. */
int run_maps_close(run_maps *m, const char *lab, const char *source, const char *device,
                   tl_error *err);

/* Whether a report can be written at `path` (its folder exists and is writable, and it is not
 * a folder): checked before anything runs. -1 with err saying why not. */
int run_maps_check_report(const char *path, tl_error *err);

#endif /* TILELAB_CLI_RUN_MAPS_H */
