/* Matrix files: libwb raw text and tilelab binary, told apart by content (the binary magic),
 * never by the file name. Bad input always ends in one line naming the file, the place and what
 * was expected; nothing here reads past the bytes it was given (they are not NUL-terminated). */
#include "harness.h"
#include "harness_atomic.h"
#include "harness_import.h"
#include "harness_shown.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char k_magic[TL_BINARY_MAGIC_BYTES] = TL_BINARY_MAGIC;

/* ---- allocation -------------------------------------------------------------------------- */

int tl_matrix_alloc(tl_matrix *m, int rows, int cols, tl_error *err)
{
    *m = (tl_matrix){0, 0, NULL};
    if (rows <= 0 || cols <= 0)
        return tl_error_set(err, "cannot allocate a %d x %d matrix: both dimensions must be "
                                 "positive", rows, cols);
    int64_t n = (int64_t)rows * cols;
    if (n > TL_MAX_ELEMENTS)
        return tl_error_set(err, "cannot allocate a %d x %d matrix: %lld elements, over the "
                                 "limit of %lld (TL_MAX_ELEMENTS, 1 GiB of float32)",
                            rows, cols, (long long)n, (long long)TL_MAX_ELEMENTS);
    float *data = malloc((size_t)n * sizeof *data);
    if (!data)
        return tl_error_set(err, "cannot allocate a %d x %d matrix (%lld bytes): out of memory",
                            rows, cols, (long long)n * (long long)sizeof *data);
    m->rows = rows;
    m->cols = cols;
    m->data = data;
    return 0;
}

void tl_matrix_free(tl_matrix *m)
{
    if (!m)
        return;
    free(m->data);
    *m = (tl_matrix){0, 0, NULL};
}

/* tl_matrix_alloc, with the file name in front of its message. */
static int alloc_named(const char *nm, tl_matrix *m, int rows, int cols, tl_error *err)
{
    tl_error e;
    if (tl_matrix_alloc(m, rows, cols, &e) == 0)
        return 0;
    return tl_error_set(err, "%s: %s", nm, e.msg);
}

/* ---- byte order -------------------------------------------------------------------------- */

static bool host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

static uint64_t load_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void store_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        p[i] = (unsigned char)v;
}

static bool bits_nonfinite(uint32_t u)
{
    return (u & 0x7f800000u) == 0x7f800000u;
}

/* ---- binary ------------------------------------------------------------------------------- */

static int check_binary_dim(const char *nm, const char *what, uint64_t v, tl_error *err)
{
    if (v == 0 || v > INT_MAX)
        return tl_error_set(err, "%s: binary header: number of %s must be a positive integer "
                                 "<= %d, found %llu", nm, what, INT_MAX, (unsigned long long)v);
    return 0;
}

/* Checks the 32-byte header against a file of `len` bytes and allocates the matrix. */
static int open_binary(const char *nm, const unsigned char *b, size_t len, tl_matrix *m,
                       tl_error *err)
{
    if (len < TL_BINARY_HEADER_BYTES)
        return tl_error_set(err, "%s: truncated binary header: %zu bytes, needs %d", nm, len,
                            TL_BINARY_HEADER_BYTES);
    uint32_t version = (uint32_t)load_le(b + 8, 4), type = (uint32_t)load_le(b + 12, 4);
    uint64_t rows = load_le(b + 16, 8), cols = load_le(b + 24, 8);
    if (version != TL_BINARY_VERSION)
        return tl_error_set(err, "%s: unsupported binary version %u (this tilelab reads "
                                 "version %u)", nm, (unsigned)version, TL_BINARY_VERSION);
    if (type != 1)
        return tl_error_set(err, "%s: unsupported binary element type %u (this tilelab reads "
                                 "type 1 = float32)", nm, (unsigned)type);
    if (check_binary_dim(nm, "rows", rows, err) || check_binary_dim(nm, "columns", cols, err))
        return -1;
    /* Both are <= INT_MAX, so the product fits in int64. */
    int64_t n = (int64_t)rows * (int64_t)cols;
    if (n > TL_MAX_ELEMENTS)
        return tl_error_set(err, "%s: binary header: matrix %llu x %llu has %lld elements, over "
                                 "the limit of %lld (TL_MAX_ELEMENTS, 1 GiB of float32)",
                            nm, (unsigned long long)rows, (unsigned long long)cols, (long long)n,
                            (long long)TL_MAX_ELEMENTS);
    size_t have = len - TL_BINARY_HEADER_BYTES, need = (size_t)n * 4;
    if (have < need)
        return tl_error_set(err, "%s: truncated binary payload: %zu bytes of data, header says "
                                 "%llu x %llu float32 needs %zu", nm, have,
                            (unsigned long long)rows, (unsigned long long)cols, need);
    if (have > need)
        return tl_error_set(err, "%s: %zu trailing bytes after the binary payload (header says "
                                 "%llu x %llu float32 = %zu bytes)", nm, have - need,
                            (unsigned long long)rows, (unsigned long long)cols, need);
    return alloc_named(nm, m, (int)rows, (int)cols, err);
}

/* m->data holds the raw little-endian payload: turn it into host floats and, for an input
 * (`result` false), refuse NaN/Inf. Hands the matrix to *out, or frees it on error. */
static int finish_binary(const char *nm, tl_matrix *m, bool result, tl_matrix *out,
                         tl_error *err)
{
    int64_t n = (int64_t)m->rows * m->cols;
    if (!host_is_little_endian()) {
        for (int64_t i = 0; i < n; i++) {
            unsigned char b[4];
            memcpy(b, &m->data[i], 4);
            uint32_t u = (uint32_t)load_le(b, 4);
            memcpy(&m->data[i], &u, 4);
        }
    }
    /* The scan looks at bits, not isfinite(), so it holds under -ffinite-math-only too. It ORs
     * a block at a time so the common all-finite case is a branch-free, vectorizable loop. */
    for (int64_t start = 0; !result && start < n; start += 4096) {
        int64_t end = n - start < 4096 ? n : start + 4096;
        uint32_t bad = 0;
        for (int64_t i = start; i < end; i++) {
            uint32_t u;
            memcpy(&u, &m->data[i], 4);
            bad |= (uint32_t)bits_nonfinite(u);
        }
        for (int64_t i = start; bad && i < end; i++) {
            uint32_t u;
            memcpy(&u, &m->data[i], 4);
            if (bits_nonfinite(u)) {
                const char *what = (u & 0x007fffffu) ? "nan" : (u >> 31) ? "-inf" : "inf";
                long long row = (long long)(i / m->cols), col = (long long)(i % m->cols);
                tl_matrix_free(m);
                return tl_error_set(err, "%s: NaN/Inf is not allowed in an input matrix, found "
                                         "%s at (row %lld, col %lld), counting from 0", nm, what,
                                    row, col);
            }
        }
    }
    *out = *m;
    return 0;
}

static int parse_binary(const char *nm, const unsigned char *b, size_t len, tl_matrix *out,
                        tl_error *err)
{
    tl_matrix m;
    if (open_binary(nm, b, len, &m, err))
        return -1;
    memcpy(m.data, b + TL_BINARY_HEADER_BYTES, (size_t)m.rows * (size_t)m.cols * 4);
    return finish_binary(nm, &m, false, out, err);
}

/* ---- text --------------------------------------------------------------------------------- */

typedef struct scanner {
    const char *s;
    size_t len, pos;
    long long line;        /* 1-based line of s[pos] */
    size_t line_start;     /* offset of that line's first byte */
} scanner;

typedef struct token {
    const char *s;
    size_t len;
    long long line, col;
} token;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace; returns true if it crossed a line end ("\n", "\r\n" or a lone "\r"). */
static bool skip_space(scanner *sc)
{
    bool newline = false;
    while (sc->pos < sc->len && is_space(sc->s[sc->pos])) {
        char c = sc->s[sc->pos++];
        if (c == '\r' && sc->pos < sc->len && sc->s[sc->pos] == '\n')
            sc->pos++;
        if (c == '\r' || c == '\n') {
            sc->line++;
            sc->line_start = sc->pos;
            newline = true;
        }
    }
    return newline;
}

/* The next token, or false at the end; *newline tells whether a line end came before it. */
static bool next_token(scanner *sc, token *t, bool *newline)
{
    bool nl = skip_space(sc);
    if (newline)
        *newline = nl;
    if (sc->pos >= sc->len)
        return false;
    t->s = sc->s + sc->pos;
    t->line = sc->line;
    t->col = (long long)(sc->pos - sc->line_start) + 1;
    size_t start = sc->pos;
    while (sc->pos < sc->len && !is_space(sc->s[sc->pos]))
        sc->pos++;
    t->len = sc->pos - start;
    return true;
}

/* Every complaint about one token has the shape "name:line:col: <what>, found "<token>"". */
#define token_error(err, nm, t, ...)                                                              \
    harness_token_error(err, nm, (t)->line, (t)->col, (t)->s, (t)->len, __VA_ARGS__)

/* A dimension is a plain decimal integer (an optional '+' is allowed, as scanf's %d does). */
static int parse_dim(const char *nm, const char *what, const token *t, int *out, tl_error *err)
{
    size_t i = (t->len > 1 && t->s[0] == '+') ? 1 : 0;
    bool digits = i < t->len;
    long long v = 0;
    for (; i < t->len && digits; i++) {
        if (t->s[i] < '0' || t->s[i] > '9')
            digits = false;
        else if (v <= INT_MAX)
            v = v * 10 + (t->s[i] - '0');
    }
    if (digits && v > 0 && v <= INT_MAX) {
        *out = (int)v;
        return 0;
    }
    if (digits && v > INT_MAX)
        return token_error(err, nm, t, "number of %s must be a positive integer <= %d", what,
                           INT_MAX);
    /* Something numeric but not a positive integer (0, -4, 3.5, 1e3) gets the precise complaint;
     * anything else is not a dimension at all. */
    bool numeric = false;
    if (t->len <= HARNESS_TOKEN_MAX) {
        char buf[HARNESS_TOKEN_MAX + 1], *end;
        memcpy(buf, t->s, t->len);
        buf[t->len] = '\0';
        (void)strtod(buf, &end);
        numeric = end != buf && end == buf + t->len;
    }
    if (numeric || digits)
        return token_error(err, nm, t, "number of %s must be a positive integer", what);
    return token_error(err, nm, t, "expected the number of %s", what);
}

/* Reads the n values after the header into dst, or only validates them when dst is NULL. */
static int parse_values(const char *nm, scanner *sc, int rows, int cols, long long header_line,
                        float *dst, tl_error *err)
{
    int64_t n = (int64_t)rows * cols, k = 0;
    token t;
    while (next_token(sc, &t, NULL)) {
        if (k == n)
            return token_error(err, nm, &t, "more values than the header's %d x %d = %lld", rows,
                               cols, (long long)n);
        harness_where at = {"value %lld of %lld", (long long)k + 1, (long long)n};
        float v;
        if (harness_parse_float(nm, t.line, t.col, t.s, t.len, at, &v, err))
            return -1;
        if (dst)
            dst[k] = v;
        k++;
    }
    if (k < n)
        return tl_error_set(err, "%s: ended after %lld of %lld values (header on line %lld says "
                                 "%d x %d)", nm, (long long)k, (long long)n, header_line, rows,
                            cols);
    return 0;
}

static int parse_text(const char *nm, const char *s, size_t len, tl_matrix *out, tl_error *err)
{
    scanner sc = {s, len, 0, 1, 0};
    token t;
    if (len == 0)
        return tl_error_set(err, "%s: empty file (expected a header line \"rows cols\")", nm);
    if (!next_token(&sc, &t, NULL))
        return tl_error_set(err, "%s: file has only whitespace (expected a header line \"rows "
                                 "cols\")", nm);
    long long header_line = t.line;
    int rows, cols = 1;
    if (parse_dim(nm, "rows", &t, &rows, err))
        return -1;
    /* libwb puts the header on a line of its own: a second field on it is the column count, a
     * third is an error, and the values start on the next line. */
    scanner peek = sc;
    bool newline;
    if (next_token(&peek, &t, &newline) && !newline) {
        if (parse_dim(nm, "columns", &t, &cols, err))
            return -1;
        sc = peek;
        if (next_token(&peek, &t, &newline) && !newline)
            return token_error(err, nm, &t, "unexpected third field on the header line (the "
                               "header is \"rows cols\"; values start on the next line)");
    }
    int64_t n = (int64_t)rows * cols;
    if (n > TL_MAX_ELEMENTS)
        return tl_error_set(err, "%s:%lld: matrix %d x %d has %lld elements, over the limit of "
                                 "%lld (TL_MAX_ELEMENTS, 1 GiB of float32)", nm, header_line,
                            rows, cols, (long long)n, (long long)TL_MAX_ELEMENTS);
    /* A value takes at least two bytes (but the last): when the rest of the file cannot hold n
     * of them, parse_values only validates (and fails), so a lying header allocates nothing. */
    tl_matrix m = {0, 0, NULL};
    if ((int64_t)((len - sc.pos + 1) / 2) >= n && alloc_named(nm, &m, rows, cols, err))
        return -1;
    if (parse_values(nm, &sc, rows, cols, header_line, m.data, err) || !m.data) {
        tl_matrix_free(&m);
        return -1;
    }
    *out = m;
    return 0;
}

int tl_matrix_parse(const char *name, const void *bytes, size_t len, tl_matrix *out, tl_error *err)
{
    char nb[HARNESS_NAME_BUF];
    const char *nm = harness_show_name(nb, name);
    *out = (tl_matrix){0, 0, NULL};
    if (!bytes && len > 0)
        return tl_error_set(err, "%s: no data", nm);
    if (len >= sizeof k_magic && memcmp(bytes, k_magic, sizeof k_magic) == 0)
        return parse_binary(nm, bytes, len, out, err);
    return parse_text(nm, bytes, len, out, err);
}

/* ---- reading a file ------------------------------------------------------------------------ */

/* The payload goes straight into the matrix: one buffer of fresh pages, not two (faulting in a
 * second one costs as much as the read itself). */
static int read_binary_file(const char *nm, int fd, size_t size, const unsigned char *head,
                            bool result, tl_matrix *out, tl_error *err)
{
    tl_matrix m;
    if (open_binary(nm, head, size, &m, err))
        return -1;
    size_t need = (size_t)m.rows * (size_t)m.cols * 4;
    unsigned char extra;
    ssize_t got = -1, more = 0;
    if (lseek(fd, TL_BINARY_HEADER_BYTES, SEEK_SET) >= 0)
        got = harness_read_full(fd, m.data, need);
    if (got == (ssize_t)need)
        more = harness_read_full(fd, &extra, 1);
    if (got < 0 || more < 0 || got != (ssize_t)need || more != 0) {
        const char *why = got < 0 || more < 0 ? strerror(errno) : "the file changed while read";
        tl_matrix_free(&m);
        return tl_error_set(err, "%s: cannot read: %s", nm, why);
    }
    return finish_binary(nm, &m, result, out, err);
}

/* A result is only ever the kit's own binary file; an input may be text too. */
static int read_file(const char *path, bool result, tl_matrix *out, tl_error *err)
{
    char nb[HARNESS_NAME_BUF];
    const char *nm = harness_show_name(nb, path);
    *out = (tl_matrix){0, 0, NULL};
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return tl_error_set(err, "%s: cannot open: %s", nm, strerror(errno));
    int rc = -1;
    char *buf = NULL;
    struct stat st;
    unsigned char head[TL_BINARY_HEADER_BYTES];
    if (fstat(fd, &st) != 0)
        goto io_error;
    if (S_ISREG(st.st_mode)) {
        /* pread leaves the offset at 0 for the text path. */
        ssize_t nh = pread(fd, head, sizeof head, 0);
        if (nh < 0)
            goto io_error;
        if (nh >= (ssize_t)sizeof k_magic && memcmp(head, k_magic, sizeof k_magic) == 0) {
            size_t size = nh < (ssize_t)sizeof head ? (size_t)nh : (size_t)st.st_size;
            rc = read_binary_file(nm, fd, size, head, result, out, err);
            goto done;
        }
    }
    if (result) {
        tl_error_set(err, "%s: not a result file (tilelab binary, \"" TL_BINARY_MAGIC "\" first)",
                     nm);
        goto done;
    }
    size_t len;
    if (harness_read_rest(fd, nm, &st, &buf, &len, err))
        goto done;
    rc = tl_matrix_parse(path, buf, len, out, err);
    goto done;
io_error:
    tl_error_set(err, "%s: cannot read: %s", nm, strerror(errno));
done:
    free(buf);
    close(fd);
    return rc;
}

int tl_matrix_read(const char *path, tl_matrix *out, tl_error *err)
{
    return read_file(path, false, out, err);
}

int tl_matrix_read_result(const char *path, tl_matrix *out, tl_error *err)
{
    return read_file(path, true, out, err);
}

/* ---- writing -------------------------------------------------------------------------------- */

static int write_text(FILE *f, const void *matrix)
{
    const tl_matrix *m = matrix;
    if (fprintf(f, "%d %d\n", m->rows, m->cols) < 0)
        return -1;
    for (int i = 0; i < m->rows; i++) {
        const float *row = m->data + (size_t)i * (size_t)m->cols;
        /* %.9g: nine significant digits identify every float32; "-0" and subnormals read back
         * exactly through the correctly rounded strtof. */
        for (int j = 0; j < m->cols; j++)
            if (fprintf(f, j ? " %.9g" : "%.9g", (double)row[j]) < 0)
                return -1;
        if (fputc('\n', f) == EOF)
            return -1;
    }
    return 0;
}

static int write_binary(FILE *f, const void *matrix)
{
    const tl_matrix *m = matrix;
    unsigned char h[TL_BINARY_HEADER_BYTES];
    memcpy(h, k_magic, sizeof k_magic);
    store_le(h + 8, TL_BINARY_VERSION, 4);
    store_le(h + 12, 1, 4);
    store_le(h + 16, (uint64_t)m->rows, 8);
    store_le(h + 24, (uint64_t)m->cols, 8);
    if (fwrite(h, 1, sizeof h, f) != sizeof h)
        return -1;
    size_t n = (size_t)m->rows * (size_t)m->cols;
    if (host_is_little_endian())
        return fwrite(m->data, sizeof *m->data, n, f) == n ? 0 : -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &m->data[i], 4);
        store_le(h, u, 4);
        if (fwrite(h, 1, 4, f) != 4)
            return -1;
    }
    return 0;
}

int tl_matrix_write(const char *path, const tl_matrix *m, tl_format format, tl_error *err)
{
    char nb[HARNESS_NAME_BUF];
    const char *nm = harness_show_name(nb, path);
    if (!m || !m->data || m->rows <= 0 || m->cols <= 0)
        return tl_error_set(err, "%s: cannot write an empty matrix (%d x %d)", nm,
                            m ? m->rows : 0, m ? m->cols : 0);
    if ((int64_t)m->rows * m->cols > TL_MAX_ELEMENTS)
        return tl_error_set(err, "%s: cannot write a %d x %d matrix: over the limit of %lld "
                                 "elements (TL_MAX_ELEMENTS)", nm, m->rows, m->cols,
                            (long long)TL_MAX_ELEMENTS);
    if (format != TL_FORMAT_TEXT && format != TL_FORMAT_BINARY)
        return tl_error_set(err, "%s: unknown matrix format %d", nm, (int)format);

    return harness_write_atomic(path, nm, format == TL_FORMAT_TEXT ? write_text : write_binary, m,
                                err);
}
