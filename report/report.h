/* report: pages and pictures made from results, for the commands: run's --report page
 * (run_report.h), Nsight Compute's CSV rows (ncu_csv.h) and bench's roofline (bench_roofline.h).
 * The one header the commands and the tests include. */
#ifndef TILELAB_REPORT_H
#define TILELAB_REPORT_H

#include "bench_roofline.h"
#include "ncu_csv.h"
#include "run_report.h"

#endif /* TILELAB_REPORT_H */
