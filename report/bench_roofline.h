/* A roofline picture as SVG, for bench steps: log-log, arithmetic intensity (FLOP per byte of
 * device memory traffic) across, GFLOP/s up, the two roofs (the arithmetic peak and the memory
 * bandwidth times the intensity), and one labelled point per kernel. */
#ifndef TILELAB_REPORT_BENCH_ROOFLINE_H
#define TILELAB_REPORT_BENCH_ROOFLINE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct roofline_point {
    const char *label;
    double intensity; /* FLOP per DRAM byte */
    double gflops;
    bool reference;   /* drawn apart (cuBLAS) */
} roofline_point;

typedef struct roofline {
    const char *title;
    const char *note;         /* a line under the axes: where the figures come from */
    double peak_gflops;       /* the flat roof */
    double bandwidth_gbs;     /* the slanted roof's GB/s */
    const char *peak_label;   /* "FP32 FMA peak 67 TFLOP/s" */
    const char *bandwidth_label;
} roofline;

/* Writes the picture to f. Points whose intensity or GFLOP/s is not positive (a kernel that
 * failed, a figure not measured) are left out. Returns the points drawn. */
int roofline_svg(FILE *f, const roofline *r, const roofline_point *points, int n);

#endif /* TILELAB_REPORT_BENCH_ROOFLINE_H */
