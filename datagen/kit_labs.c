/* The datasets of tilelab's versions of the GPU Teaching Kit's labs (examples/kit-labs).
 *
 * Each lab keeps the kit's file formats and the kind of sizes its generator makes (lengths and
 * shapes that are no multiple of a block, one element, a few hundred thousand), kept small
 * enough for the CPU backend. The values come from tilelab's own splitmix64 stream, never from
 * rand(), whose algorithm differs between C libraries: the same seed gives byte-identical files
 * on every machine. Expected outputs are computed in double precision from the values the
 * input files read back as, then written as the kit writes them.
 */
#include "datagen.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The kit's float inputs: (q - 5) / 5 for q in 0..19, multiples of 0.2 in [-1, 2.8], written
 * with two decimals; sums and products of them are exact in two decimals too. */
#define KIT_VALUE_CHOICES 20
#define KIT_VALUE_OFFSET 5
#define KIT_VALUE_STEP_HUNDREDTHS 20
/* List scan: whole numbers 0..3. */
#define KIT_SCAN_CHOICES 4
/* Histogram: 4096 bins of unsigned int, each saturating at 127. */
#define KIT_BINS 4096
#define KIT_BIN_CAP 127
/* Convolution: a 5x5 mask of weights in [0, 1/25] (so they sum to at most 1), written with the
 * six decimals of the kit's CSV writer; RGB images with 255 levels. */
#define KIT_MASK_WIDTH 5
#define KIT_MASK_RADIUS (KIT_MASK_WIDTH / 2)
#define KIT_MASK_MICROS 1000000
#define KIT_MASK_MAX_MICROS (KIT_MASK_MICROS / (KIT_MASK_WIDTH * KIT_MASK_WIDTH))
#define KIT_CHANNELS 3
#define KIT_MAXVAL 255
#define KIT_TOKEN 32
/* Inputs and the expected output: three files at most. */
#define KIT_MAX_FILES 3

/* ---- a growing text (or byte) buffer; a failed allocation is remembered, not ignored ---- */

typedef struct text {
    char *p;
    size_t len, cap;
    bool failed;
} text;

static bool reserve(text *t, size_t more)
{
    if (t->failed)
        return false;
    if (t->len + more + 1 <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + more + 1)
        cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) {
        t->failed = true;
        return false;
    }
    t->p = p;
    t->cap = cap;
    return true;
}

static void put_bytes(text *t, const void *bytes, size_t len)
{
    if (!reserve(t, len))
        return;
    memcpy(t->p + t->len, bytes, len);
    t->len += len;
}

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(text *t, const char *fmt, ...)
{
    char token[KIT_TOKEN];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(token, sizeof token, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof token) {
        t->failed = true; /* every caller writes one short token */
        return;
    }
    put_bytes(t, token, (size_t)n);
}

/* ---- the kit's layouts ---------------------------------------------------------------------- */

/* libwb text: a vector is its length, then one value per line; a matrix is "rows cols", then
 * its rows, values separated by spaces. Neither ends with a newline, as the kit writes them. */
static void put_header(text *t, int rows, int cols, bool vector)
{
    if (vector)
        put(t, "%d", rows);
    else
        put(t, "%d %d\n", rows, cols);
}

static void put_separator(text *t, int64_t i, int cols, bool vector)
{
    if (vector)
        put_bytes(t, "\n", 1);
    else if (i > 0)
        put_bytes(t, i % cols == 0 ? "\n" : " ", 1);
}

/* A value rounded to two decimals as printf("%.2f") rounds it; an exact zero that double
 * arithmetic left a hair below 0 is written 0.00, not -0.00. */
static void put_two_decimals(text *t, double v)
{
    char token[KIT_TOKEN];
    snprintf(token, sizeof token, "%.2f", v);
    put(t, "%s", strcmp(token, "-0.00") == 0 ? "0.00" : token);
}

/* The PPM writer of these datasets: binary P6, 255 levels. */
static void put_ppm(text *t, int width, int height, const unsigned char *rgb)
{
    put(t, "P6\n%d %d\n%d\n", width, height, KIT_MAXVAL);
    put_bytes(t, rgb, (size_t)width * (size_t)height * KIT_CHANNELS);
}

/* ---- values --------------------------------------------------------------------------------- */

/* A whole number in [0, n), n < 2^32, from the top bits of a draw. */
static uint32_t draw(uint64_t *rng, uint32_t n)
{
    return (uint32_t)(((tl_splitmix64_next(rng) >> 32) * n) >> 32);
}

/* Writes one of the kit's float inputs and returns the float its text reads back as. */
static float put_input_value(text *t, uint64_t *rng)
{
    const int q = (int)draw(rng, KIT_VALUE_CHOICES) - KIT_VALUE_OFFSET;
    const int h = q * KIT_VALUE_STEP_HUNDREDTHS;
    char token[KIT_TOKEN];
    snprintf(token, sizeof token, "%s%d.%02d", h < 0 ? "-" : "", abs(h) / 100, abs(h) % 100);
    put(t, "%s", token);
    return strtof(token, NULL);
}

/* ---- the labs -------------------------------------------------------------------------------- */

typedef struct gen_ctx {
    uint64_t rng;
    int nfiles;
    const char *names[KIT_MAX_FILES];
    text files[KIT_MAX_FILES];
    char *shape;
    size_t shape_size;
} gen_ctx;

static text *file(gen_ctx *c, const char *name)
{
    c->names[c->nfiles] = name;
    return &c->files[c->nfiles++];
}

static void say_length(gen_ctx *c, int n)
{
    snprintf(c->shape, c->shape_size, "%d element%s", n, n == 1 ? "" : "s");
}

/* The kit's lengths for vector addition and list scan: small, odd, just past a power of two. */
static const int vector_lengths[] = {16, 64, 93, 112, 1120, 9921, 1233, 1033, 4098, 4018};

static int gen_vector_add(gen_ctx *c, int index)
{
    const int n = vector_lengths[index];
    text *a = file(c, "input0.raw"), *b = file(c, "input1.raw"), *out = file(c, "output.raw");
    float *x = malloc((size_t)n * sizeof *x);
    if (!x)
        return -1;
    put_header(a, n, 1, true);
    put_header(b, n, 1, true);
    put_header(out, n, 1, true);
    for (int i = 0; i < n; i++) {
        put_separator(a, i, 1, true);
        x[i] = put_input_value(a, &c->rng);
    }
    for (int i = 0; i < n; i++) {
        put_separator(b, i, 1, true);
        const float y = put_input_value(b, &c->rng);
        put_separator(out, i, 1, true);
        put_two_decimals(out, (double)x[i] + (double)y);
    }
    free(x);
    say_length(c, n);
    return 0;
}

/* The kit's nine shapes (rows of A x cols of A x cols of B), for both matrix labs. */
static const tl_size matmul_sizes[] = {
    {16, 16, 16}, {64, 64, 64},  {64, 128, 64}, {112, 48, 16},  {84, 84, 84},
    {80, 99, 128}, {67, 53, 64}, {29, 117, 85}, {191, 19, 241},
};

static float *put_input_matrix(text *t, uint64_t *rng, int rows, int cols)
{
    float *m = malloc((size_t)rows * (size_t)cols * sizeof *m);
    if (!m)
        return NULL;
    put_header(t, rows, cols, false);
    for (int64_t i = 0; i < (int64_t)rows * cols; i++) {
        put_separator(t, i, cols, false);
        m[i] = put_input_value(t, rng);
    }
    return m;
}

static int gen_matmul(gen_ctx *c, int index)
{
    const tl_size s = matmul_sizes[index];
    text *ta = file(c, "input0.raw"), *tb = file(c, "input1.raw"), *out = file(c, "output.raw");
    float *A = put_input_matrix(ta, &c->rng, s.m, s.k);
    float *B = A ? put_input_matrix(tb, &c->rng, s.k, s.n) : NULL;
    if (!B) {
        free(A);
        return -1;
    }
    put_header(out, s.m, s.n, false);
    for (int i = 0; i < s.m; i++) {
        for (int j = 0; j < s.n; j++) {
            double sum = 0;
            for (int k = 0; k < s.k; k++)
                sum += (double)A[(size_t)i * s.k + k] * (double)B[(size_t)k * s.n + j];
            put_separator(out, (int64_t)i * s.n + j, s.n, false);
            put_two_decimals(out, sum);
        }
    }
    free(A);
    free(B);
    snprintf(c->shape, c->shape_size, "%dx%d * %dx%d", s.m, s.k, s.k, s.n);
    return 0;
}

static int gen_list_scan(gen_ctx *c, int index)
{
    const int n = vector_lengths[index];
    text *in = file(c, "input.raw"), *out = file(c, "output.raw");
    put_header(in, n, 1, true);
    put_header(out, n, 1, true);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        const int v = (int)draw(&c->rng, KIT_SCAN_CHOICES);
        sum += v;
        put_separator(in, i, 1, true);
        put(in, "%d", v);
        put_separator(out, i, 1, true);
        put(out, "%" PRId64, sum);
    }
    say_length(c, n);
    return 0;
}

/* The kit's lengths, values over all 4096 bins (at 500000 many bins reach the cap), and two of
 * our own, values crowded into a few bins so that many threads of a warp hit one bin at once:
 * 64 bins that stay under the cap, and 8 that all reach it. */
static const struct {
    int length;
    int range;
} histogram_sizes[] = {{16, KIT_BINS},  {1024, KIT_BINS},   {513, KIT_BINS}, {511, KIT_BINS},
                       {1, KIT_BINS},   {500000, KIT_BINS}, {4000, 64},      {2000, 8}};

static int gen_histogram(gen_ctx *c, int index)
{
    const int n = histogram_sizes[index].length;
    text *in = file(c, "input.raw"), *out = file(c, "output.raw");
    unsigned bins[KIT_BINS] = {0};
    put_header(in, n, 1, true);
    for (int i = 0; i < n; i++) {
        const uint32_t v = draw(&c->rng, (uint32_t)histogram_sizes[index].range);
        if (bins[v] < KIT_BIN_CAP)
            bins[v]++;
        put_separator(in, i, 1, true);
        put(in, "%u", v);
    }
    put_header(out, KIT_BINS, 1, true);
    for (int b = 0; b < KIT_BINS; b++) {
        put_separator(out, b, 1, true);
        put(out, "%u", bins[b]);
    }
    snprintf(c->shape, c->shape_size, "%d value%s in %d bins", n, n == 1 ? "" : "s",
             histogram_sizes[index].range);
    return 0;
}

/* The kit's lengths up to 70000: past that, summing the per-block partial sums in float can
 * drift further than libwb's 0.2 from the exact total. */
static const int reduction_lengths[] = {16, 64, 93, 112, 1120, 1233, 1033, 4098, 4018, 1, 70000};

static int gen_reduction(gen_ctx *c, int index)
{
    const int n = reduction_lengths[index];
    text *in = file(c, "input.raw"), *out = file(c, "output.raw");
    put_header(in, n, 1, true);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        put_separator(in, i, 1, true);
        sum += (double)put_input_value(in, &c->rng);
    }
    put_header(out, 1, 1, true);
    put_separator(out, 0, 1, true);
    put_two_decimals(out, sum);
    say_length(c, n);
    return 0;
}

/* The kit's image shapes (height x width), down to 3 and 5 columns: narrower than the mask. */
static const struct {
    int height, width;
} image_sizes[] = {{64, 64}, {128, 64}, {64, 128}, {64, 5}, {64, 3}, {228, 128}, {28, 12}};

/* The expected image: each channel convolved with the mask, pixels outside the image counting
 * as 0 (the ghost cells), clamped to [0, 1] and turned into a level as the kit's PPM export
 * does, rounding up. */
static void convolve(const unsigned char *in, const float *mask, int height, int width,
                     unsigned char *out)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            for (int ch = 0; ch < KIT_CHANNELS; ch++) {
                double acc = 0;
                for (int dy = -KIT_MASK_RADIUS; dy <= KIT_MASK_RADIUS; dy++)
                    for (int dx = -KIT_MASK_RADIUS; dx <= KIT_MASK_RADIUS; dx++) {
                        const int iy = y + dy, ix = x + dx;
                        if (iy < 0 || iy >= height || ix < 0 || ix >= width)
                            continue;
                        const double v = in[((size_t)iy * width + ix) * KIT_CHANNELS + ch];
                        acc += v / KIT_MAXVAL *
                               (double)mask[(dy + KIT_MASK_RADIUS) * KIT_MASK_WIDTH +
                                            dx + KIT_MASK_RADIUS];
                    }
                acc = acc < 0 ? 0 : acc > 1 ? 1 : acc;
                out[((size_t)y * width + x) * KIT_CHANNELS + ch] =
                    (unsigned char)ceil(acc * KIT_MAXVAL);
            }
}

static int gen_convolution(gen_ctx *c, int index)
{
    const int h = image_sizes[index].height, w = image_sizes[index].width;
    text *image = file(c, "input0.ppm"), *csv = file(c, "input1.csv"), *out = file(c, "output.ppm");
    const size_t bytes = (size_t)h * (size_t)w * KIT_CHANNELS;
    unsigned char *in = malloc(bytes), *res = malloc(bytes);
    if (!in || !res) {
        free(in);
        free(res);
        return -1;
    }
    for (size_t i = 0; i < bytes; i++)
        in[i] = (unsigned char)draw(&c->rng, KIT_MAXVAL + 1);
    put_ppm(image, w, h, in);
    /* The kit's CSV: rows of comma-separated values, each row ending in a newline. */
    float mask[KIT_MASK_WIDTH * KIT_MASK_WIDTH];
    for (int i = 0; i < KIT_MASK_WIDTH * KIT_MASK_WIDTH; i++) {
        char token[KIT_TOKEN];
        snprintf(token, sizeof token, "0.%06u", draw(&c->rng, KIT_MASK_MAX_MICROS + 1));
        mask[i] = strtof(token, NULL);
        put(csv, "%s%s", token, (i + 1) % KIT_MASK_WIDTH ? "," : "\n");
    }
    convolve(in, mask, h, w, res);
    put_ppm(out, w, h, res);
    free(in);
    free(res);
    snprintf(c->shape, c->shape_size, "image %d wide, %d high, %dx%d mask", w, h, KIT_MASK_WIDTH,
             KIT_MASK_WIDTH);
    return 0;
}

typedef struct kit_lab {
    const char *name;
    int ndatasets;
    int (*generate)(gen_ctx *c, int index);
} kit_lab;

static const kit_lab kit_labs[] = {
    {"vector-add", COUNT(vector_lengths), gen_vector_add},
    {"basic-matmul", COUNT(matmul_sizes), gen_matmul},
    {"tiled-matmul", COUNT(matmul_sizes), gen_matmul},
    {"list-scan", COUNT(vector_lengths), gen_list_scan},
    {"histogram", COUNT(histogram_sizes), gen_histogram},
    {"reduction", COUNT(reduction_lengths), gen_reduction},
    {"convolution", COUNT(image_sizes), gen_convolution},
};

int tl_kit_lab_count(void) { return COUNT(kit_labs); }

const char *tl_kit_lab_name(int lab)
{
    return lab >= 0 && lab < COUNT(kit_labs) ? kit_labs[lab].name : NULL;
}

int tl_kit_lab_datasets(int lab)
{
    return lab >= 0 && lab < COUNT(kit_labs) ? kit_labs[lab].ndatasets : 0;
}

/* Every lab and dataset has a stream of its own, the lab's name mixed in so that the two matrix
 * labs, which share their shapes, do not share their values. */
static uint64_t stream_seed(uint64_t seed, const char *lab, int index)
{
    const uint64_t h = tl_hash(TL_HASH_SEED, lab, strlen(lab));
    return tl_mix64(seed ^ tl_mix64(h ^ (uint64_t)(uint32_t)index));
}

int tl_kit_dataset_generate(int lab, int index, const char *dir, const tl_gen_options *opts,
                            tl_gen_result *res, char *shape, size_t shape_size, tl_error *err)
{
    const double t0 = tl_clock_now();
    if (lab < 0 || lab >= COUNT(kit_labs))
        return tl_error_set(err, "no kit lab number %d (0 to %d)", lab, COUNT(kit_labs) - 1);
    const kit_lab *k = &kit_labs[lab];
    if (index < 0 || index >= k->ndatasets)
        return tl_error_set(err, "%s has datasets 0 to %d, not %d", k->name, k->ndatasets - 1,
                            index);
    gen_ctx c;
    memset(&c, 0, sizeof c);
    c.rng = stream_seed(opts ? opts->seed : 0, k->name, index);
    c.shape = shape;
    c.shape_size = shape_size;
    int rc = k->generate(&c, index);
    for (int i = 0; i < c.nfiles; i++)
        if (c.files[i].failed)
            rc = -1;
    if (rc != 0)
        tl_error_set(err, "%s: out of memory making dataset %d of %s", dir, index, k->name);
    tl_file_bytes files[KIT_MAX_FILES];
    for (int i = 0; rc == 0 && i < c.nfiles; i++)
        files[i] = (tl_file_bytes){c.names[i], c.files[i].p, c.files[i].len};
    tl_write_outcome outcome = TL_WRITE_UNCHANGED;
    if (rc == 0)
        rc = tl_dataset_write(dir, files, c.nfiles, opts, &outcome, err);
    for (int i = 0; i < c.nfiles; i++)
        free(c.files[i].p);
    if (rc == 0 && res) {
        res->outcome = outcome;
        res->seconds = tl_clock_now() - t0;
    }
    return rc;
}
