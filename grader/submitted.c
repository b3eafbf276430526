/* Submission times from the instructor's side: parsing, formatting, Gradescope's metadata. */
#include "submitted.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SECONDS_PER_DAY 86400
#define MICROSECONDS 1000000

/* Exactly `n` decimal digits at *p, moved past; -1 when there are not. */
static int digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    return v;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil): exact for every year, with no time zone or library state involved. */
static long days_from_civil(long y, int m, int d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static void civil_from_days(long z, long *y, int *m, int *d)
{
    z += 719468;
    long era = (z >= 0 ? z : z - 146096) / 146097;
    long doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(long y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : days[m - 1];
}

/* The zone after the time: Z, +HH:MM, +HHMM or +HH (and '-'), as seconds east of UTC; *p moved
 * past. -1 when what is there is no zone. */
static int zone(const char **p, long *offset)
{
    if (**p == 'Z' || **p == 'z') {
        (*p)++;
        *offset = 0;
        return 0;
    }
    int sign = **p == '+' ? 1 : **p == '-' ? -1 : 0;
    if (!sign)
        return -1;
    (*p)++;
    int h = digits(p, 2), mi = 0;
    if (**p == ':')
        (*p)++;
    if (isdigit((unsigned char)**p))
        mi = digits(p, 2);
    if (h < 0 || h > 23 || mi < 0 || mi > 59)
        return -1;
    *offset = sign * (h * 3600L + mi * 60L);
    return 0;
}

int grader_time_parse(const char *text, double *seconds)
{
    const char *p = text;
    while (*p == ' ')
        p++;
    int y = digits(&p, 4), mo = *p == '-' ? (p++, digits(&p, 2)) : -1;
    int d = *p == '-' ? (p++, digits(&p, 2)) : -1;
    char sep = *p;
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) ||
        (sep != 'T' && sep != 't' && sep != ' '))
        return -1;
    p++;
    int h = digits(&p, 2), mi = *p == ':' ? (p++, digits(&p, 2)) : -1, s = 0;
    double fraction = 0;
    if (*p == ':') {
        p++;
        s = digits(&p, 2);
        if (*p == '.' && isdigit((unsigned char)p[1])) {
            double scale = 0.1;
            for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
                fraction += (*p - '0') * scale;
        }
    }
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59)
        return -1;
    long offset = 0;
    bool has_zone = *p && *p != ' ';
    if (has_zone && zone(&p, &offset) != 0)
        return -1;
    while (*p == ' ')
        p++;
    /* A T time without a zone is a local time of somewhere unknown: not guessed. */
    if (*p || ((sep == 'T' || sep == 't') && !has_zone))
        return -1;
    *seconds = (double)days_from_civil(y, mo, d) * SECONDS_PER_DAY + h * 3600.0 + mi * 60.0 +
               s + fraction - (double)offset;
    return 0;
}

void grader_time_format(double seconds, char out[GRADER_TIME_TEXT_MAX])
{
    double whole = floor(seconds);
    long micro = lround((seconds - whole) * MICROSECONDS);
    if (micro >= MICROSECONDS) {
        whole += 1;
        micro = 0;
    }
    long long t = (long long)whole;
    long days = (long)(t / SECONDS_PER_DAY), rest = (long)(t % SECONDS_PER_DAY);
    if (rest < 0) {
        rest += SECONDS_PER_DAY;
        days--;
    }
    long y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    int n = snprintf(out, GRADER_TIME_TEXT_MAX, "%04ld-%02d-%02dT%02ld:%02ld:%02ld", y, m, d,
                     rest / 3600, rest / 60 % 60, rest % 60);
    if (micro > 0 && n > 0 && n < GRADER_TIME_TEXT_MAX) {
        n += snprintf(out + n, GRADER_TIME_TEXT_MAX - (size_t)n, ".%06ld", micro);
        while (n > 0 && out[n - 1] == '0')
            out[--n] = '\0';
    }
    if (n > 0 && n + 1 < GRADER_TIME_TEXT_MAX) {
        out[n] = 'Z';
        out[n + 1] = '\0';
    }
}

int grader_submitted_from_metadata(const char *path, double *seconds, tl_error *err)
{
    tl_error why;
    char *text = files_read_untrusted(path, GRADER_METADATA_MAX_BYTES, NULL, &why);
    if (!text)
        return tl_error_set(err, "%s: cannot read Gradescope's submission metadata (%s)", path,
                            why.msg);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(doc, "created_at");
    int rc = 0;
    if (!doc)
        rc = tl_error_set(err, "%s: not JSON", path);
    else if (!cJSON_IsString(at))
        rc = tl_error_set(err, "%s: no \"created_at\" string (the time Gradescope took the "
                          "submission)", path);
    else if (grader_time_parse(at->valuestring, seconds) != 0)
        rc = tl_error_set(err, "%s: created_at \"%.60s\" is not %s", path, at->valuestring,
                          GRADER_TIME_FORMS);
    cJSON_Delete(doc);
    return rc;
}
