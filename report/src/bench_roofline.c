/* The roofline picture (bench_roofline.h). */
#include "bench_roofline.h"

#include <math.h>
#include <string.h>

/* The picture's geometry in SVG units: the plot area and the margins around it (the right one
 * holds the points' labels). */
#define SVG_WIDTH 760
#define SVG_HEIGHT 500
#define PLOT_LEFT 80
#define PLOT_RIGHT 560
#define PLOT_TOP 50
#define PLOT_BOTTOM 420
#define LABEL_X (PLOT_RIGHT + 16)
#define LABEL_GAP 14          /* the least distance between two labels' baselines */
#define POINT_RADIUS 4
#define AXIS_MARGIN 2.0       /* the axes reach this factor past the farthest figure */
#define HEADROOM 1.2          /* and above the highest, room for the peak's label */
#define SLOPE_DECADES 1.0     /* the slanted roof shows at least this many decades */
#define MAX_POINTS 64

typedef struct axes {
    double x_lo, x_hi, y_lo, y_hi; /* decades, as log10 */
} axes;

static double px(const axes *a, double intensity)
{
    return PLOT_LEFT + (log10(intensity) - a->x_lo) / (a->x_hi - a->x_lo) * (PLOT_RIGHT - PLOT_LEFT);
}

static double py(const axes *a, double gflops)
{
    return PLOT_BOTTOM - (log10(gflops) - a->y_lo) / (a->y_hi - a->y_lo) * (PLOT_BOTTOM - PLOT_TOP);
}

/* Text as SVG character data: the markup characters escaped. */
static void put_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '"')
            fputs("&quot;", f);
        else
            fputc(*s, f);
    }
}

static bool drawn(const roofline_point *p)
{
    return p->intensity > 0 && p->gflops > 0 && isfinite(p->intensity) && isfinite(p->gflops);
}

/* Whole decades that hold every figure, the peak and the ridge with a decade of the slanted
 * roof before it, with room around them. */
static axes axes_for(const roofline *r, const roofline_point *points, int n)
{
    double ridge = r->peak_gflops / r->bandwidth_gbs;
    double x_min = ridge / pow(10, SLOPE_DECADES), x_max = ridge;
    double y_min = r->peak_gflops, y_max = r->peak_gflops;
    for (int i = 0; i < n; i++) {
        if (!drawn(&points[i]))
            continue;
        x_min = fmin(x_min, points[i].intensity);
        x_max = fmax(x_max, points[i].intensity);
        y_min = fmin(y_min, points[i].gflops);
        y_max = fmax(y_max, points[i].gflops);
    }
    axes a = {floor(log10(x_min / AXIS_MARGIN)), ceil(log10(x_max * AXIS_MARGIN)),
              floor(log10(y_min / AXIS_MARGIN)), ceil(log10(y_max * HEADROOM))};
    return a;
}

static void decade_label(char *buf, size_t size, int exponent)
{
    if (exponent >= 0)
        snprintf(buf, size, "%.0f", pow(10, exponent));
    else
        snprintf(buf, size, "%.*f", -exponent, pow(10, exponent));
}

static void draw_axes(FILE *f, const axes *a)
{
    char label[32];
    fprintf(f, "<g stroke=\"#ddd\" stroke-width=\"1\">\n");
    for (int e = (int)a->x_lo; e <= (int)a->x_hi; e++)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", px(a, pow(10, e)),
                PLOT_TOP, px(a, pow(10, e)), PLOT_BOTTOM);
    for (int e = (int)a->y_lo; e <= (int)a->y_hi; e++)
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", PLOT_LEFT,
                py(a, pow(10, e)), PLOT_RIGHT, py(a, pow(10, e)));
    fprintf(f, "</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
            "stroke=\"#000\"/>\n", PLOT_LEFT, PLOT_TOP, PLOT_RIGHT - PLOT_LEFT,
            PLOT_BOTTOM - PLOT_TOP);
    fprintf(f, "<g font-size=\"11\" text-anchor=\"middle\">\n");
    for (int e = (int)a->x_lo; e <= (int)a->x_hi; e++) {
        decade_label(label, sizeof label, e);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", px(a, pow(10, e)), PLOT_BOTTOM + 16,
                label);
    }
    fprintf(f, "</g>\n<g font-size=\"11\" text-anchor=\"end\">\n");
    for (int e = (int)a->y_lo; e <= (int)a->y_hi; e++) {
        decade_label(label, sizeof label, e);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s</text>\n", PLOT_LEFT - 6, py(a, pow(10, e)) + 4,
                label);
    }
    fprintf(f, "</g>\n<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">"
            "arithmetic intensity (FLOP per DRAM byte)</text>\n", (PLOT_LEFT + PLOT_RIGHT) / 2,
            PLOT_BOTTOM + 36);
    fprintf(f, "<text x=\"20\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 20 %d)\">GFLOP/s</text>\n", (PLOT_TOP + PLOT_BOTTOM) / 2,
            (PLOT_TOP + PLOT_BOTTOM) / 2);
}

/* The slanted roof from the plot's left edge (or where it enters from below) to the ridge,
 * then the flat one to the right edge. */
static void draw_roofs(FILE *f, const roofline *r, const axes *a)
{
    double x_left = pow(10, a->x_lo), x_right = pow(10, a->x_hi);
    double ridge = r->peak_gflops / r->bandwidth_gbs;
    double x_enter = fmax(x_left, pow(10, a->y_lo) / r->bandwidth_gbs);
    fprintf(f, "<polyline fill=\"none\" stroke=\"#c00\" stroke-width=\"2\" "
            "points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n", px(a, x_enter),
            py(a, x_enter * r->bandwidth_gbs), px(a, ridge), py(a, r->peak_gflops),
            px(a, x_right), py(a, r->peak_gflops));
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#c00\" "
            "text-anchor=\"end\">", PLOT_RIGHT - 4.0, py(a, r->peak_gflops) - 6);
    put_text(f, r->peak_label);
    fprintf(f, "</text>\n<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#c00\">",
            px(a, x_enter) + 6, py(a, x_enter * r->bandwidth_gbs) - 8);
    put_text(f, r->bandwidth_label);
    fprintf(f, "</text>\n");
}

/* Each point, and its label in the right margin, labels top to bottom in the points' order of
 * height and kept LABEL_GAP apart, a thin line from point to label. */
static int draw_points(FILE *f, const axes *a, const roofline_point *points, int n)
{
    const roofline_point *list[MAX_POINTS];
    int m = 0;
    for (int i = 0; i < n && m < MAX_POINTS; i++) {
        if (!drawn(&points[i]))
            continue;
        int at = m++; /* insertion in order of height, highest first */
        while (at > 0 && list[at - 1]->gflops < points[i].gflops) {
            list[at] = list[at - 1];
            at--;
        }
        list[at] = &points[i];
    }
    double last = -1e9;
    for (int i = 0; i < m; i++) {
        const roofline_point *p = list[i];
        double x = px(a, p->intensity), y = py(a, p->gflops);
        double label_y = fmax(y + 4, last + LABEL_GAP);
        last = label_y;
        const char *colour = p->reference ? "#07c" : "#000";
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"/>\n", x, y,
                POINT_RADIUS, colour);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#aaa\" "
                "stroke-width=\"0.5\"/>\n", x, y, LABEL_X - 2, label_y - 4);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">", LABEL_X, label_y,
                colour);
        put_text(f, p->label);
        fprintf(f, " (%.0f GFLOP/s)</text>\n", p->gflops);
    }
    return m;
}

int roofline_svg(FILE *f, const roofline *r, const roofline_point *points, int n)
{
    axes a = axes_for(r, points, n);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT);
    fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"15\">", PLOT_LEFT);
    put_text(f, r->title);
    fprintf(f, "</text>\n");
    draw_axes(f, &a);
    draw_roofs(f, r, &a);
    int drawn_points = draw_points(f, &a, points, n);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\">", PLOT_LEFT,
            SVG_HEIGHT - 14);
    put_text(f, r->note);
    fprintf(f, "</text>\n</svg>\n");
    return drawn_points;
}
