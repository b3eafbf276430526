/* Lab 05's bank conflicts, for run: ncu's counts on a GPU, the CPU backend's counters without
 * one, one line per dataset that names each kernel (the given baseline's as such). */
#ifndef TILELAB_CLI_RUN_CONFLICTS_H
#define TILELAB_CLI_RUN_CONFLICTS_H

#include "session.h"

/* Whether ncu runs here. */
bool run_have_ncu(void);
/* The dataset replayed under ncu: "bank conflicts (ncu): K ld N; K st N; ...". */
void run_ncu_conflicts(const session *s, const tl_lab *lab, const runner_loaded *d);
/* The dataset replayed on the CPU backend with its counters: the same line, counted. */
void run_counted_conflicts(const session *s, const tl_lab *lab, const runner_loaded *d);

#endif /* TILELAB_CLI_RUN_CONFLICTS_H */
