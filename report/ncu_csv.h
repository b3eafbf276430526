/* Nsight Compute's CSV (ncu --csv): the rows of its metrics, for run's bank conflicts and
 * bench steps' counters. */
#ifndef TILELAB_REPORT_NCU_CSV_H
#define TILELAB_REPORT_NCU_CSV_H

typedef struct ncu_row {
    const char *kernel; /* as ncu names it, arguments and all: "Kernel(const float *, ...)" */
    const char *metric;
    double value;       /* thousands separators dropped; a unit's K, M or G prefix applied */
} ncu_row;

/* Calls fn for each metric row of `csv`, which it modifies in place (rows point into it). The
 * header row, the first whose fields name "Metric Name" and "Metric Value", says where the
 * columns are; lines before it (ncu's ==PROF== notes) are skipped. Returns the rows found, or
 * -1 when there is no header. */
int ncu_csv_rows(char *csv, void (*fn)(const ncu_row *row, void *ctx), void *ctx);

#endif /* TILELAB_REPORT_NCU_CSV_H */
