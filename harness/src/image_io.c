/* PPM and PGM images, the GPU Teaching Kit's image labs' files, read and written as libwb does
 * where libwb is right and as the Netpbm format says where libwb would misread a valid file.
 *
 * libwb (wbPPM.cpp) reads P6 and P5 only, each header item on a line of its own with whole-line
 * comments, one byte per sample whatever the maxval, and makes each sample
 * value * (1.0f / maxval) in float. tilelab reads P6, P5 and their plain (ASCII) forms P3 and P2,
 * comments and line breaks wherever the format allows them, two big-endian bytes per sample when
 * maxval is above 255 (as the format says), and makes the same floats. libwb writes a binary
 * image with maxval 255 and each value ceil(clamp(v, 0, 1) * 255) in float; so does tilelab. */
#include "harness_atomic.h"
#include "harness_import.h"
#include "harness_shown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The format's limits: maxval is 1 to 65535; above 255 a sample takes two bytes. */
#define PNM_MAXVAL_MAX 65535
#define PNM_ONE_BYTE_MAXVAL 255
/* What tl_image_write writes, as libwb's export. */
#define PNM_WRITE_MAXVAL 255

/* A position in the header, which is text: lines and columns for messages. */
typedef struct pnm_scan {
    const unsigned char *b;
    size_t len, pos;
    long long line;
    size_t line_start;
} pnm_scan;

static bool pnm_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void advance(pnm_scan *sc)
{
    unsigned char c = sc->b[sc->pos++];
    if (c == '\n' || (c == '\r' && (sc->pos >= sc->len || sc->b[sc->pos] != '\n'))) {
        sc->line++;
        sc->line_start = sc->pos;
    }
}

/* Skips white space and comments ('#' to the end of the line); true if it skipped anything. */
static bool skip_blank(pnm_scan *sc)
{
    size_t start = sc->pos;
    while (sc->pos < sc->len) {
        unsigned char c = sc->b[sc->pos];
        if (c == '#') {
            while (sc->pos < sc->len && sc->b[sc->pos] != '\n' && sc->b[sc->pos] != '\r')
                advance(sc);
        } else if (pnm_space(c)) {
            advance(sc);
        } else {
            break;
        }
    }
    return sc->pos > start;
}

static long long column(const pnm_scan *sc)
{
    return (long long)(sc->pos - sc->line_start) + 1;
}

/* A run of bytes up to white space or a comment, after blanks; len 0 at the end of the file. */
typedef struct pnm_word {
    const char *s;
    size_t len;
    long long line, col;
} pnm_word;

static pnm_word next_word(pnm_scan *sc)
{
    skip_blank(sc);
    pnm_word w = {(const char *)sc->b + sc->pos, 0, sc->line, column(sc)};
    while (sc->pos < sc->len && !pnm_space(sc->b[sc->pos]) && sc->b[sc->pos] != '#')
        sc->pos++;
    w.len = (size_t)((const char *)sc->b + sc->pos - w.s);
    return w;
}

/* The word as a decimal number (digits only); false if it is none or is above max. */
static bool word_value(const pnm_word *w, long long max, long long *out)
{
    long long v = 0;
    for (size_t i = 0; i < w->len; i++) {
        if (w->s[i] < '0' || w->s[i] > '9')
            return false;
        if (v <= max)
            v = v * 10 + (w->s[i] - '0');
    }
    *out = v;
    return w->len > 0 && v <= max;
}

/* One number of the header, from min to max; `what` names it in messages. */
static int read_number(const char *nm, pnm_scan *sc, const char *what, long long min,
                       long long max, long long *out, tl_error *err)
{
    pnm_word w = next_word(sc);
    if (w.len == 0)
        return tl_error_set(err, "%s:%lld:%lld: the file ends before the %s", nm, w.line, w.col,
                            what);
    if (!word_value(&w, max, out) || *out < min)
        return harness_token_error(err, nm, w.line, w.col, w.s, w.len,
                                   "expected the %s, a decimal number from %lld to %lld", what,
                                   min, max);
    return 0;
}

typedef struct pnm_header {
    bool plain;
    int channels, width, height, maxval;
    size_t samples; /* width * height * channels */
} pnm_header;

static int read_header(const char *nm, pnm_scan *sc, pnm_header *h, tl_error *err)
{
    const unsigned char *b = sc->b;
    if (sc->len == 0)
        return tl_error_set(err, "%s: empty file (expected a PPM or PGM image)", nm);
    if (sc->len < 2 || b[0] != 'P' || b[1] == '\0' || !strchr("2356", b[1])) {
        char shown[HARNESS_SHOW_TOKEN_MAX * 4 + 8];
        return tl_error_set(err, "%s: not a PPM or PGM image: expected \"P6\", \"P5\", \"P3\" or "
                                 "\"P2\" at byte 0, found \"%s\"", nm,
                            harness_show(shown, sizeof shown, (const char *)b,
                                         sc->len < 2 ? sc->len : 2, 2));
    }
    h->plain = b[1] == '2' || b[1] == '3';
    h->channels = b[1] == '3' || b[1] == '6' ? 3 : 1;
    sc->pos = 2;
    if (sc->pos < sc->len && !pnm_space(b[sc->pos]) && b[sc->pos] != '#')
        return harness_token_error(err, nm, 1, 3, (const char *)b + 2, 1,
                                   "expected white space after the magic number \"P%c\"", b[1]);
    long long width, height, maxval;
    if (read_number(nm, sc, "width", 1, INT32_MAX, &width, err) ||
        read_number(nm, sc, "height", 1, INT32_MAX, &height, err) ||
        read_number(nm, sc, "maxval", 1, PNM_MAXVAL_MAX, &maxval, err))
        return -1;
    /* Each is at most 2^31, so the product of two fits; the limit is checked before the third. */
    long long pixels = width * height;
    if (pixels > TL_MAX_ELEMENTS / h->channels)
        return tl_error_set(err, "%s: a %lld x %lld image of %d channel%s is over the limit of "
                                 "%lld values (TL_MAX_ELEMENTS, 1 GiB of float32)", nm, width,
                            height, h->channels, h->channels == 1 ? "" : "s",
                            (long long)TL_MAX_ELEMENTS);
    long long samples = pixels * h->channels;
    h->width = (int)width;
    h->height = (int)height;
    h->maxval = (int)maxval;
    h->samples = (size_t)samples;
    /* A binary raster starts after exactly one white-space character. A "\r\n" there (a file
     * written in text mode) is taken as one when the raster then has exactly its size, as
     * libwb, which reads the header line by line, takes it. */
    if (!h->plain) {
        if (sc->pos >= sc->len || !pnm_space(b[sc->pos]))
            return tl_error_set(err, "%s:%lld:%lld: expected one white-space character after the "
                                     "maxval, then the raster", nm, sc->line, column(sc));
        size_t raster = h->samples * (h->maxval > PNM_ONE_BYTE_MAXVAL ? 2 : 1);
        bool crlf = b[sc->pos] == '\r' && sc->len - sc->pos == raster + 2 &&
                    b[sc->pos + 1] == '\n';
        sc->pos += crlf ? 2 : 1;
    }
    return 0;
}

/* The pixel a sample belongs to, for messages. */
static void sample_place(const pnm_header *h, size_t i, char *buf, size_t size)
{
    size_t pixel = i / (size_t)h->channels;
    snprintf(buf, size, "row %zu, column %zu, channel %zu", pixel / (size_t)h->width,
             pixel % (size_t)h->width, i % (size_t)h->channels);
}

static int read_binary_raster(const char *nm, const pnm_scan *sc, const pnm_header *h,
                              float *dst, tl_error *err)
{
    size_t bytes_per_sample = h->maxval > PNM_ONE_BYTE_MAXVAL ? 2 : 1;
    size_t need = h->samples * bytes_per_sample, have = sc->len - sc->pos;
    if (have != need)
        return tl_error_set(err, "%s: %s: %zu bytes after the header (which ends at byte %zu), "
                                 "but a %d x %d image of %d channel%s with maxval %d has %zu",
                            nm, have < need ? "truncated raster" : "bytes after the raster",
                            have, sc->pos, h->width, h->height, h->channels,
                            h->channels == 1 ? "" : "s", h->maxval, need);
    const unsigned char *p = sc->b + sc->pos;
    float scale = 1.0f / (float)h->maxval;
    for (size_t i = 0; i < h->samples; i++) {
        unsigned v = bytes_per_sample == 2 ? (unsigned)p[2 * i] << 8 | p[2 * i + 1] : p[i];
        if (v > (unsigned)h->maxval) {
            char place[96];
            sample_place(h, i, place, sizeof place);
            return tl_error_set(err, "%s: byte %zu: sample %u (%s) is over the maxval %d", nm,
                                sc->pos + i * bytes_per_sample, v, place, h->maxval);
        }
        dst[i] = (float)v * scale;
    }
    return 0;
}

/* One sample of a plain raster: a decimal number from 0 to maxval after blanks. */
static int read_sample(const char *nm, pnm_scan *sc, const pnm_header *h, size_t i, float scale,
                       float *dst, tl_error *err)
{
    pnm_word w = next_word(sc);
    long long v;
    if (word_value(&w, h->maxval, &v)) {
        *dst = (float)v * scale;
        return 0;
    }
    if (w.len == 0)
        return tl_error_set(err, "%s:%lld:%lld: the file ends after %zu of %zu samples (the "
                                 "header's %d x %d x %d)", nm, w.line, w.col, i, h->samples,
                            h->width, h->height, h->channels);
    char place[96];
    sample_place(h, i, place, sizeof place);
    return harness_token_error(err, nm, w.line, w.col, w.s, w.len,
                               "expected sample %zu of %zu (%s), a decimal number from 0 to the "
                               "maxval %d", i + 1, h->samples, place, h->maxval);
}

static int read_plain_raster(const char *nm, pnm_scan *sc, const pnm_header *h, float *dst,
                             tl_error *err)
{
    float scale = 1.0f / (float)h->maxval;
    for (size_t i = 0; i < h->samples; i++)
        if (read_sample(nm, sc, h, i, scale, &dst[i], err))
            return -1;
    skip_blank(sc);
    if (sc->pos < sc->len)
        return harness_token_error(err, nm, sc->line, column(sc), (const char *)sc->b + sc->pos,
                                   sc->len - sc->pos < 16 ? sc->len - sc->pos : 16,
                                   "more samples than the header's %d x %d x %d", h->width,
                                   h->height, h->channels);
    return 0;
}

int harness_image_parse(const char *nm, const unsigned char *b, size_t len, tl_import *out,
                        tl_error *err)
{
    memset(out, 0, sizeof *out);
    pnm_scan sc = {b, len, 0, 1, 0};
    pnm_header h;
    memset(&h, 0, sizeof h);
    if (read_header(nm, &sc, &h, err))
        return -1;
    float *data = malloc(h.samples * sizeof *data);
    if (!data)
        return tl_error_set(err, "%s: out of memory for a %d x %d image", nm, h.width, h.height);
    int rc = h.plain ? read_plain_raster(nm, &sc, &h, data, err)
                     : read_binary_raster(nm, &sc, &h, data, err);
    if (rc) {
        free(data);
        return -1;
    }
    *out = (tl_import){data, h.samples * sizeof *data, h.height, h.width, h.channels};
    return 0;
}

/* ---- writing -------------------------------------------------------------------------------- */

typedef struct pnm_image {
    const float *data;
    int width, height, channels;
} pnm_image;

/* libwb's level: its clamp (which turns NaN into 0) and ceil, in float. */
static unsigned char level_of(float v)
{
    float clamped = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;
    return (unsigned char)ceilf(clamped * (float)PNM_WRITE_MAXVAL);
}

static int write_pnm(FILE *f, const void *ctx)
{
    const pnm_image *img = ctx;
    if (fprintf(f, "P%c\n%d %d\n%d\n", img->channels == 1 ? '5' : '6', img->width, img->height,
                PNM_WRITE_MAXVAL) < 0)
        return -1;
    size_t row = (size_t)img->width * (size_t)img->channels;
    unsigned char *levels = malloc(row);
    if (!levels)
        return -1;
    for (int y = 0; y < img->height; y++) {
        const float *src = img->data + (size_t)y * row;
        for (size_t i = 0; i < row; i++)
            levels[i] = level_of(src[i]);
        if (fwrite(levels, 1, row, f) != row) {
            free(levels);
            return -1;
        }
    }
    free(levels);
    return 0;
}

int tl_image_write(const char *path, const float *data, int width, int height, int channels,
                   tl_error *err)
{
    char nb[HARNESS_NAME_BUF];
    const char *nm = harness_show_name(nb, path);
    if (channels != 1 && channels != 3)
        return tl_error_set(err, "%s: cannot write an image of %d channels (a PGM has 1, a PPM "
                                 "3)", nm, channels);
    if (!data || width <= 0 || height <= 0 ||
        (int64_t)width * height * channels > TL_MAX_ELEMENTS)
        return tl_error_set(err, "%s: cannot write a %d x %d image", nm, width, height);
    pnm_image img = {data, width, height, channels};
    return harness_write_atomic(path, nm, write_pnm, &img, err);
}
