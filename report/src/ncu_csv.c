/* ncu's CSV rows (ncu_csv.h). */
#include "ncu_csv.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NCU_MAX_FIELDS 64
#define NCU_MAX_DIGITS 64

/* Splits one CSV line of quoted fields ("a","b,c",...) in place; returns the field count. */
static int csv_fields(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    while (*p == '"' && n < max) {
        char *start = ++p;
        while (*p && *p != '"')
            p++;
        if (*p)
            *p++ = '\0';
        fields[n++] = start;
        if (*p == ',')
            p++;
    }
    return n;
}

static int column_of(char **fields, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0)
            return i;
    return -1;
}

/* ncu prints "1,234,567" and, unless asked for base units, "12.5" with a unit of "Mbyte". */
static double value_of(const char *text, const char *unit)
{
    char digits[NCU_MAX_DIGITS];
    size_t d = 0;
    for (const char *q = text; *q && d + 1 < sizeof digits; q++)
        if ((*q >= '0' && *q <= '9') || *q == '.')
            digits[d++] = *q;
    digits[d] = '\0';
    double v = atof(digits);
    if (unit && unit[0] && unit[1] && strcmp(unit + 1, "byte") == 0) {
        if (unit[0] == 'K')
            v *= 1e3;
        else if (unit[0] == 'M')
            v *= 1e6;
        else if (unit[0] == 'G')
            v *= 1e9;
    }
    return v;
}

int ncu_csv_rows(char *csv, void (*fn)(const ncu_row *row, void *ctx), void *ctx)
{
    int kernel_col = -1, metric_col = -1, value_col = -1, unit_col = -1, rows = 0;
    bool header = false;
    char *save = NULL;
    for (char *line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[NCU_MAX_FIELDS];
        int n = csv_fields(line, f, NCU_MAX_FIELDS);
        if (!header) {
            metric_col = column_of(f, n, "Metric Name");
            value_col = column_of(f, n, "Metric Value");
            kernel_col = column_of(f, n, "Kernel Name");
            unit_col = column_of(f, n, "Metric Unit");
            header = metric_col >= 0 && value_col >= 0;
            continue;
        }
        if (n <= value_col || n <= metric_col || n <= kernel_col || n <= unit_col)
            continue;
        ncu_row r = {kernel_col >= 0 ? f[kernel_col] : "", f[metric_col],
                     value_of(f[value_col], unit_col >= 0 ? f[unit_col] : NULL)};
        fn(&r, ctx);
        rows++;
    }
    return header ? rows : -1;
}
