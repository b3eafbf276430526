/* A part of report.h: run's --report page, from the datasets run_maps (cli/) kept. */
#ifndef TILELAB_REPORT_RUN_REPORT_H
#define TILELAB_REPORT_RUN_REPORT_H

#include "explain.h"

typedef struct run_report_entry {
    char *dataset;       /* as the lines show it (malloc'd) */
    tl_size size;
    explanation x;
} run_report_entry;

typedef struct run_report_meta {
    const char *lab, *source, *device;
} run_report_meta;

/* The page: self-contained (no external resource), every string from a dataset or a
 * submission made inert and escaped; written atomically. -1 with err when it cannot be. */
int run_report_write(const char *path, const run_report_meta *meta, const run_report_entry *e,
                     int n, tl_error *err);

#endif /* TILELAB_REPORT_RUN_REPORT_H */
