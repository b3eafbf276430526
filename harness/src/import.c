/* tl_import_file: what a libwb program's wbImport returns, one reader per format. The format
 * comes from the kind asked for and the file's content (the binary magic, "P6", a comma in the
 * first line); the name only marks a CSV (.csv) or TSV (.tsv) table, as libwb's extensions do. */
#include "harness_import.h"
#include "harness_shown.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* The largest float below 2^31: every whole float up to it converts to an int exactly. */
#define INT_FLOAT_MAX 2147483520.0f

void tl_import_free(tl_import *imp)
{
    if (!imp)
        return;
    free(imp->data);
    memset(imp, 0, sizeof *imp);
}

/* ',' for a name ending in .csv, '\t' for .tsv (any case), '\0' otherwise. */
static char separator_of_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strcasecmp(dot, ".csv") == 0)
        return ',';
    if (dot && strcasecmp(dot, ".tsv") == 0)
        return '\t';
    return '\0';
}

static bool starts_binary(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    char head[TL_BINARY_MAGIC_BYTES];
    ssize_t n = harness_read_full(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && memcmp(head, TL_BINARY_MAGIC, sizeof head) == 0;
}

/* A matrix file of floats: binary through tl_matrix_read (straight into the matrix), text as
 * CSV or libwb raw text. */
static int read_matrix(const char *path, const char *nm, tl_matrix *m, tl_error *err)
{
    char sep = separator_of_name(path);
    if (!sep && starts_binary(path))
        return tl_matrix_read(path, m, err);
    char *text;
    size_t len;
    if (harness_read_all(path, nm, &text, &len, err))
        return -1;
    if (!sep && harness_looks_like_csv(text, len))
        sep = ',';
    int rc = sep ? harness_csv_parse(nm, text, len, sep, m, err)
                 : tl_matrix_parse(path, text, len, m, err);
    free(text);
    return rc;
}

/* Integer: every value a whole number an int holds, as libwb's "Integer" reads them. */
static int to_integers(const char *nm, tl_matrix *m, tl_import *out, tl_error *err)
{
    size_t count = (size_t)m->rows * (size_t)m->cols;
    int *ints = malloc(count * sizeof *ints);
    if (!ints)
        return tl_error_set(err, "%s: out of memory for %zu integers", nm, count);
    for (size_t i = 0; i < count; i++) {
        float v = m->data[i];
        if (v != floorf(v) || fabsf(v) > INT_FLOAT_MAX) {
            free(ints);
            return tl_error_set(err, "%s: value %zu (row %zu, col %zu) is %.9g, not an integer "
                                     "(type Integer)", nm, i + 1, i / (size_t)m->cols,
                                i % (size_t)m->cols, (double)v);
        }
        ints[i] = (int)v;
    }
    *out = (tl_import){ints, count * sizeof *ints, m->rows, m->cols, 1};
    return 0;
}

static int read_text(const char *path, const char *nm, tl_import *out, tl_error *err)
{
    char *text;
    size_t len;
    if (harness_read_all(path, nm, &text, &len, err))
        return -1;
    if (len > (size_t)INT32_MAX) {
        free(text);
        return tl_error_set(err, "%s: %zu bytes, more than a libwb length (an int) holds", nm,
                            len);
    }
    *out = (tl_import){text, len, (int)len, 1, 1};
    return 0;
}

static int read_image(const char *path, const char *nm, tl_import *out, tl_error *err)
{
    char *bytes;
    size_t len;
    if (harness_read_all(path, nm, &bytes, &len, err))
        return -1;
    int rc = harness_image_parse(nm, (const unsigned char *)bytes, len, out, err);
    free(bytes);
    return rc;
}

int tl_import_file(const char *path, tl_import_kind kind, tl_import *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!path)
        return tl_error_set(err, "no file to import");
    char nb[HARNESS_NAME_BUF];
    const char *nm = harness_show_name(nb, path);
    if (kind == TL_IMPORT_TEXT)
        return read_text(path, nm, out, err);
    if (kind == TL_IMPORT_IMAGE)
        return read_image(path, nm, out, err);
    if (kind != TL_IMPORT_REAL && kind != TL_IMPORT_INTEGER)
        return tl_error_set(err, "%s: unknown import kind %d", nm, (int)kind);
    tl_matrix m;
    if (read_matrix(path, nm, &m, err))
        return -1;
    if (kind == TL_IMPORT_INTEGER) {
        int rc = to_integers(nm, &m, out, err);
        tl_matrix_free(&m);
        return rc;
    }
    size_t count = (size_t)m.rows * (size_t)m.cols;
    *out = (tl_import){m.data, count * sizeof *m.data, m.rows, m.cols, 1};
    return 0;
}
