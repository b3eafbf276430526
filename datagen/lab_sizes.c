/* The labs and their dataset sizes. This table is the only place they are written down: the
 * dataset tools, the CLI and the tests all read it from here.
 *
 * Every table lists its small sizes first (shipped as text) and then its large ones (any
 * dimension >= TL_LARGE_DIM, generated in binary on demand).
 */
#include "datagen.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SQ(w) {(w), (w), (w)}
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* One thread per output element with a bounds check: odd widths leave idle threads in the last
 * block, 1 exercises the degenerate grid. */
static const tl_size basic_sizes[] = {
    SQ(1), SQ(7), SQ(16), SQ(33), SQ(64), SQ(100), SQ(128),
    SQ(1024), SQ(2048),
};

/* The kernel assumes Width is a multiple of TILE_WIDTH; multiples of 32 suit both 16 and 32. */
static const tl_size tiled_sizes[] = {
    SQ(32), SQ(64), SQ(96), SQ(128), SQ(256),
    SQ(1024), SQ(2048),
};

/* Widths that are not multiples of any tile width (primes, one off a power of two) catch a
 * missing or wrong boundary check in either the loads or the store. */
static const tl_size arbitrary_sizes[] = {
    SQ(1), SQ(2), SQ(15), SQ(17), SQ(31), SQ(33), SQ(97), SQ(100), SQ(127), SQ(257),
    SQ(1031), SQ(2053),
};

/* j x k times k x l: every way of confusing the three dimensions shows up as a wrong result.
 * 16x16x16 .. 191x19x241 are the teaching kit's nine sizes for its tiled lab. */
static const tl_size rectangular_sizes[] = {
    {1, 1, 1},
    {1, 64, 1},
    {64, 1, 64},   /* k = 1: one term per dot product */
    {1, 100, 37},  /* a single row of A */
    {37, 100, 1},  /* a single column of B */
    {16, 16, 16},
    {64, 64, 64},
    {64, 128, 64},
    {112, 48, 16},
    {84, 84, 84},
    {80, 99, 128},
    {67, 53, 64},
    {29, 117, 85},
    {191, 19, 241},
    {17, 33, 15},
    {200, 3, 500},
    {500, 300, 2},
    {1024, 2048, 512},
    {2048, 1, 2048},
    {1, 2048, 1024},
};

/* The same tiled kernel for any shape; the point is shared-memory padding, so the sizes
 * include shapes that stress the column reads of the B tile. */
static const tl_size bank_sizes[] = {
    {32, 32, 32},
    {64, 64, 64},
    {67, 53, 64},
    {191, 19, 241},
    {256, 256, 256},
    {1024, 1024, 1024},
    {2048, 2048, 2048},
};

/* Any shape again, now for speed. The small sizes sit on either side of the reference's tiles
 * (128 x 256 of P, 8 of k) and of the usual student tiles (16, 32, 64): exactly one tile, one
 * past it, one short of two, k below any phase, float4-unfriendly widths. The large ones are the
 * sizes the speed is measured at, and one of odd primes-near sizes of that scale. */
static const tl_size challenge_sizes[] = {
    {1, 1, 1},
    {1, 300, 7},   /* one row of P */
    {5, 3, 1},     /* one column, k below any phase */
    {128, 8, 256}, /* one whole reference tile */
    {129, 9, 257}, /* one past it in every dimension */
    {255, 31, 253},
    {191, 19, 241},
    {130, 2, 300},
    {256, 40, 260},  /* whole rows of tiles; columns and k that take float4 but not whole tiles */
    {128, 16, 512},  /* whole tiles everywhere: the fast path alone */
    {97, 515, 131},
    {2048, 2048, 2048},
    {4096, 2048, 4096},
    {2053, 2039, 2063},
    {4096, 4096, 4096},
};

/* The kit's labs, then those tl_lab_register adds. */
static tl_lab lab_table[TL_MAX_LABS] = {
    {.id = "01-basic",
     .summary = "square Width, one thread per output element with a bounds check",
     .sizes = basic_sizes, .nsizes = COUNT(basic_sizes), .safety = SQ(47), .square = true,
     .perf = SQ(2048), .host_call = true, .diagnose_dataset = "5"},
    {.id = "02-tiled",
     .summary = "square Width, a multiple of 32 so TILE_WIDTH 16 and 32 both divide it",
     .sizes = tiled_sizes, .nsizes = COUNT(tiled_sizes), .safety = SQ(160), .square = true,
     .perf = SQ(2048), .diagnose_dataset = "2", .bench_cpu_width = 256},
    {.id = "03-arbitrary",
     .summary = "square Width of any value, primes included: boundary checks",
     .sizes = arbitrary_sizes, .nsizes = COUNT(arbitrary_sizes), .safety = SQ(47),
     .square = true, .perf = SQ(2048), .diagnose_dataset = "7", .bench_cpu_width = 257},
    {.id = "04-rectangular",
     .summary = "j x k times k x l, degenerate rows, columns and k = 1 included",
     .sizes = rectangular_sizes, .nsizes = COUNT(rectangular_sizes), .safety = {17, 33, 47},
     .perf = SQ(2048), .diagnose_dataset = "11", .bench_wide = true, .steps_contract = true},
    {.id = "05-bank-conflicts",
     .summary = "tiled kernel for any j x k times k x l, measured with and without padding",
     .sizes = bank_sizes, .nsizes = COUNT(bank_sizes), .safety = {17, 33, 47},
     .perf = SQ(2048), .baseline = true, .bank_conflicts = true, .diagnose_dataset = "2"},
    {.id = "06-challenge",
     .summary = "any j x k times k x l as fast as you can: odd sizes and 4096^3",
     .sizes = challenge_sizes, .nsizes = COUNT(challenge_sizes), .safety = {17, 33, 47},
     .perf = SQ(4096), .diagnose_dataset = "5", .cublas_targets = true, .steps = true},
};
static int nlabs = -1; /* counted on first use: the entries above with an id */

static int lab_count(void)
{
    if (nlabs < 0)
        for (nlabs = 0; nlabs < TL_MAX_LABS && lab_table[nlabs].id;)
            nlabs++;
    return nlabs;
}

const tl_lab *tl_labs(int *count)
{
    if (count)
        *count = lab_count();
    return lab_table;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

const tl_lab *tl_lab_find(const char *name)
{
    if (!name || !*name)
        return NULL;
    if (all_digits(name)) {
        /* "2" and "02" (and "002") name the second lab; a long digit string names none. */
        while (name[0] == '0' && name[1])
            name++;
        if (strlen(name) > 2)
            return NULL;
        int number = 0;
        for (; *name; name++)
            number = number * 10 + (*name - '0');
        return number >= 1 && number <= lab_count() ? &lab_table[number - 1] : NULL;
    }
    for (int i = 0; i < lab_count(); i++) {
        const char *dash = strchr(lab_table[i].id, '-');
        if (strcasecmp(name, lab_table[i].id) == 0 || (dash && strcasecmp(name, dash + 1) == 0))
            return &lab_table[i];
    }
    return NULL;
}

int tl_lab_register(const tl_lab *lab, tl_error *err)
{
    const char *id = lab->id ? lab->id : "(no id)";
    if (lab_count() == TL_MAX_LABS)
        return tl_error_set(err, "lab %s: the list of labs is full (%d)", id, TL_MAX_LABS);
    char number[16];
    snprintf(number, sizeof number, "%02d-", nlabs + 1);
    const char *name = id + strlen(number);
    if (!lab->id || strncmp(id, number, strlen(number)) != 0 || !*name || all_digits(name))
        return tl_error_set(err, "lab %s: expected an id \"%sNAME\" (its place in the list)",
                            id, number);
    if (tl_lab_find(name))
        return tl_error_set(err, "lab %s: the name %s is taken", lab->id, name);
    lab_table[nlabs++] = *lab;
    return 0;
}

/* Appends `text` to out[size] at *at, as far as it fits. */
static void append(char *out, size_t size, size_t *at, const char *text)
{
    for (size_t i = 0; text[i] && *at + 1 < size; i++)
        out[(*at)++] = text[i];
    out[*at] = '\0';
}

const char *tl_lab_names(tl_lab_names_style style, char *out, size_t size)
{
    size_t at = 0;
    if (size == 0)
        return out;
    out[0] = '\0';
    for (int i = 0; i < lab_count(); i++) {
        if (style == TL_LAB_NAMES_RANGE && i > 0 && i < nlabs - 1)
            continue;
        const char *sep = i == 0 ? "" : style == TL_LAB_NAMES_COMMAS ? ", "
                                    : style == TL_LAB_NAMES_RANGE ? " ... " : " ";
        append(out, size, &at, sep);
        append(out, size, &at, lab_table[i].id);
    }
    return out;
}

/* The placeholders of tl_lab_names_expand and the lists they stand for. */
static const struct {
    const char *token;
    tl_lab_names_style style;
} placeholders[] = {
    {"{labs}", TL_LAB_NAMES_RANGE},
    {"{lab-commas}", TL_LAB_NAMES_COMMAS},
};

/* Writes a list's words (split at spaces) from `column` on, each word that would pass
 * TL_USAGE_WIDTH on a new line indented to `indent`. Returns the column it ends at. */
static int write_wrapped(FILE *out, const char *list, int column, int indent)
{
    for (const char *w = list; *w;) {
        size_t len = strcspn(w, " ");
        if (w != list) {
            if (column + 1 + (int)len > TL_USAGE_WIDTH) {
                fprintf(out, "\n%*s", indent, "");
                column = indent;
            } else {
                fputc(' ', out);
                column++;
            }
        }
        fwrite(w, 1, len, out);
        column += (int)len;
        w += len;
        w += *w == ' ';
    }
    return column;
}

void tl_lab_names_expand(FILE *out, const char *text)
{
    int column = 0;
    while (*text) {
        size_t p = 0;
        while (p < COUNT(placeholders) &&
               strncmp(text, placeholders[p].token, strlen(placeholders[p].token)) != 0)
            p++;
        if (p < COUNT(placeholders)) {
            char list[TL_LAB_NAMES_SIZE];
            tl_lab_names(placeholders[p].style, list, sizeof list);
            column = write_wrapped(out, list, column, column);
            text += strlen(placeholders[p].token);
            continue;
        }
        fputc(*text, out);
        column = *text == '\n' ? 0 : column + 1;
        text++;
    }
}

bool tl_size_is_large(tl_size s)
{
    return s.m >= TL_LARGE_DIM || s.k >= TL_LARGE_DIM || s.n >= TL_LARGE_DIM;
}

#define TL_MAX_DIM 65536

/* Reads one dimension: decimal digits only (no sign, no spaces), at most TL_MAX_DIM. Returns
 * the position after it, or NULL. */
static const char *parse_dim(const char *s, int *out)
{
    if (!isdigit((unsigned char)*s))
        return NULL;
    long v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        v = v * 10 + (*s - '0');
        if (v > TL_MAX_DIM)
            return NULL;
    }
    *out = (int)v;
    return s;
}

int tl_size_parse(const char *text, tl_size *out, tl_error *err)
{
    if (!text || !*text)
        return tl_error_set(err, "size: empty; expected MxKxN (e.g. 64x128x32) or N");
    int dims[3];
    int count = 0;
    const char *s = text;
    for (;;) {
        const char *next = parse_dim(s, &dims[count]);
        if (!next) {
            if (isdigit((unsigned char)*s))
                return tl_error_set(err, "size '%s': a dimension is over %d", text, TL_MAX_DIM);
            return tl_error_set(err, "size '%s': expected MxKxN (e.g. 64x128x32) or N, with "
                                     "dimensions 1..%d", text, TL_MAX_DIM);
        }
        count++;
        s = next;
        if (*s == '\0')
            break;
        if ((*s != 'x' && *s != 'X') || count == 3)
            return tl_error_set(err, "size '%s': unexpected '%c' at position %d; expected "
                                     "MxKxN or N", text, *s, (int)(s - text) + 1);
        s++;
    }
    if (count == 2)
        return tl_error_set(err, "size '%s': two dimensions given; expected MxKxN or N", text);
    tl_size z = count == 1 ? (tl_size){dims[0], dims[0], dims[0]}
                           : (tl_size){dims[0], dims[1], dims[2]};
    if (z.m < 1 || z.k < 1 || z.n < 1)
        return tl_error_set(err, "size '%s': dimensions must be 1..%d", text, TL_MAX_DIM);
    const int64_t a = (int64_t)z.m * z.k, b = (int64_t)z.k * z.n, c = (int64_t)z.m * z.n;
    const int64_t big = a > b ? (a > c ? a : c) : (b > c ? b : c);
    if (big > TL_MAX_ELEMENTS)
        return tl_error_set(err, "size '%s': a matrix would have %lld elements, over the limit "
                                 "of %lld", text, (long long)big, (long long)TL_MAX_ELEMENTS);
    *out = z;
    return 0;
}
