/* CSV tables as the GPU Teaching Kit writes them (its convolution labs name their masks
 * input1.csv): no header, one matrix row per line, the values of a row separated by commas (tabs
 * in a .tsv). libwb takes the number of lines for the rows and the fields of a line for the
 * columns; tilelab reads the same tables and refuses what libwb would misread or assert on:
 * rows of different lengths, empty fields, blank lines between rows, tokens that are not
 * numbers. Blank lines after the last row are allowed (a final line break is usual). */
#include "harness_import.h"
#include "harness_shown.h"

#include <stdlib.h>
#include <string.h>

/* One line of the file: bytes [start, end), its line break excluded. */
typedef struct csv_line {
    size_t start, end, next; /* next: the first byte of the following line */
    long long number;        /* 1-based */
} csv_line;

/* The line starting at `pos`; a line ends at "\n", "\r\n" or a lone "\r". */
static void line_at(const char *s, size_t len, size_t pos, long long number, csv_line *ln)
{
    size_t end = pos;
    while (end < len && s[end] != '\n' && s[end] != '\r')
        end++;
    size_t next = end;
    if (next < len && s[next] == '\r')
        next++;
    if (next < len && s[next] == '\n')
        next++;
    *ln = (csv_line){pos, end, next, number};
}

/* Space around a value is allowed; a tab only where it is not the separator. */
static bool is_pad(char c, char sep)
{
    return c == ' ' || (c == '\t' && sep != '\t');
}

static bool line_blank(const char *s, const csv_line *ln, char sep)
{
    for (size_t i = ln->start; i < ln->end; i++)
        if (!is_pad(s[i], sep))
            return false;
    return true;
}

static int64_t count_fields(const char *s, const csv_line *ln, char sep)
{
    int64_t n = 1;
    for (size_t i = ln->start; i < ln->end; i++)
        n += s[i] == sep;
    return n;
}

bool harness_looks_like_csv(const char *s, size_t len)
{
    csv_line ln;
    for (size_t pos = 0; pos < len; pos = ln.next) {
        line_at(s, len, pos, 0, &ln);
        if (line_blank(s, &ln, ','))
            continue;
        return memchr(s + ln.start, ',', ln.end - ln.start) != NULL;
    }
    return false;
}

static const char *sep_name(char sep)
{
    return sep == '\t' ? "tabs" : "commas";
}

/* The shape: rows = the lines that are not blank, cols = the fields of the first. Refuses blank
 * lines before or between rows and rows of other lengths. */
static int csv_shape(const char *nm, const char *s, size_t len, char sep, int *rows_out,
                     int *cols_out, tl_error *err)
{
    int64_t rows = 0, cols = 0;
    long long first_line = 0, blank_line = 0, number = 1;
    csv_line ln;
    for (size_t pos = 0; pos < len; pos = ln.next, number++) {
        line_at(s, len, pos, number, &ln);
        if (line_blank(s, &ln, sep)) {
            if (!blank_line)
                blank_line = number;
            continue;
        }
        if (blank_line)
            return tl_error_set(err, "%s:%lld: blank line %s (a CSV table has one matrix row "
                                     "on each line, none empty)", nm, blank_line,
                                rows ? "between two rows" : "before the first row");
        int64_t fields = count_fields(s, &ln, sep);
        if (rows == 0) {
            cols = fields;
            first_line = number;
        } else if (fields != cols) {
            return tl_error_set(err, "%s:%lld: row %lld has %lld value%s, row 1 (line %lld) has "
                                     "%lld: every row of a CSV table has as many", nm, number,
                                (long long)rows + 1, (long long)fields, fields == 1 ? "" : "s",
                                first_line, (long long)cols);
        }
        rows++;
        if (rows * cols > TL_MAX_ELEMENTS || cols > TL_MAX_ELEMENTS)
            return tl_error_set(err, "%s:%lld: the table has more than %lld values "
                                     "(TL_MAX_ELEMENTS, 1 GiB of float32)", nm, number,
                                (long long)TL_MAX_ELEMENTS);
    }
    if (rows == 0)
        return tl_error_set(err, "%s: %s (expected a CSV table: one matrix row on each line, its "
                                 "values separated by %s)", nm,
                            len ? "no rows, only blank lines" : "empty file", sep_name(sep));
    *rows_out = (int)rows;
    *cols_out = (int)cols;
    return 0;
}

/* The values of one line into dst (cols of them, as csv_shape counted). */
static int csv_row(const char *nm, const char *s, const csv_line *ln, char sep, int row,
                   float *dst, tl_error *err)
{
    size_t pos = ln->start;
    for (int col = 0; pos <= ln->end; col++) {
        size_t stop = pos;
        while (stop < ln->end && s[stop] != sep)
            stop++;
        size_t a = pos, b = stop;
        while (a < b && is_pad(s[a], sep))
            a++;
        while (b > a && is_pad(s[b - 1], sep))
            b--;
        long long column = (long long)(a - ln->start) + 1;
        harness_where at = {"row %lld, column %lld", (long long)row + 1, (long long)col + 1};
        if (harness_parse_float(nm, ln->number, column, s + a, b - a, at, &dst[col], err))
            return -1;
        pos = stop + 1;
    }
    return 0;
}

int harness_csv_parse(const char *nm, const char *s, size_t len, char sep, tl_matrix *out,
                      tl_error *err)
{
    *out = (tl_matrix){0, 0, NULL};
    int rows = 0, cols = 0;
    if (csv_shape(nm, s, len, sep, &rows, &cols, err))
        return -1;
    tl_matrix m;
    tl_error e;
    if (tl_matrix_alloc(&m, rows, cols, &e))
        return tl_error_set(err, "%s: %s", nm, e.msg);
    csv_line ln;
    long long number = 1;
    int row = 0;
    for (size_t pos = 0; row < rows; pos = ln.next, number++) {
        line_at(s, len, pos, number, &ln);
        if (line_blank(s, &ln, sep))
            continue;
        if (csv_row(nm, s, &ln, sep, row, m.data + (size_t)row * (size_t)cols, err)) {
            tl_matrix_free(&m);
            return -1;
        }
        row++;
    }
    *out = m;
    return 0;
}
