/* Student ids as file names: the same id always gives the same name, two ids never give the
 * same one, and no name can leave its folder or surprise a shell. */
#include "outputs.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PLAIN_MAX 100  /* longest id used as it is */
#define HEX_MAX 200    /* longest hex spelling used whole */
#define HEX_PREFIX 80  /* hex digits kept before the hash when the id is longer */
#define NAME_SIZE 256  /* room for any name: "id-" and 200 hex digits at most */

static bool plain(const char *id)
{
    size_t n = strlen(id);
    /* "id-..." is left to the hex spelling, which no plain id may then look like. */
    if (n == 0 || n > PLAIN_MAX || id[0] == '.' || strncmp(id, "id-", 3) == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

void grader_file_name(const char *student, char *out, size_t size)
{
    if (plain(student)) {
        snprintf(out, size, "%s", student);
        return;
    }
    static const char digits[] = "0123456789abcdef";
    char hex[2 * HEX_MAX + 1];
    size_t n = strlen(student), k = 0;
    for (size_t i = 0; i < n && k + 2 < sizeof hex; i++) {
        hex[k++] = digits[(unsigned char)student[i] >> 4];
        hex[k++] = digits[(unsigned char)student[i] & 15];
    }
    hex[k] = '\0';
    /* The hashed form holds a '-' after its hex digits, which the whole spelling never does, so
     * the two cannot meet; two hashed ids meet only on a hash collision, which
     * grader_check_ids reports. */
    if (2 * n <= HEX_MAX)
        snprintf(out, size, "id-%s", hex);
    else
        snprintf(out, size, "id-%.*s-%016" PRIx64, HEX_PREFIX, hex,
                 tl_hash(TL_HASH_SEED, student, strlen(student)));
}

typedef struct named {
    const char *id;
    char name[NAME_SIZE];
} named;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

static const char *id_of(const cJSON *entry)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry, "student");
    return cJSON_IsString(s) ? s->valuestring : "";
}

int grader_check_ids(cJSON *const *entries, int n, tl_error *err)
{
    if (n < 2)
        return 0;
    named *all = malloc((size_t)n * sizeof *all);
    if (!all)
        return tl_error_set(err, "checking the student ids: out of memory");
    for (int i = 0; i < n; i++) {
        all[i].id = id_of(entries[i]);
        grader_file_name(all[i].id, all[i].name, sizeof all[i].name);
    }
    /* Sorted by file name, any two entries that would share one sit side by side. */
    qsort(all, (size_t)n, sizeof *all, by_name);
    int rc = 0;
    for (int i = 1; i < n && rc == 0; i++) {
        if (strcmp(all[i - 1].name, all[i].name) != 0)
            continue;
        char *a = tl_text_line(all[i - 1].id, strlen(all[i - 1].id));
        char *b = tl_text_line(all[i].id, strlen(all[i].id));
        if (strcmp(all[i - 1].id, all[i].id) == 0)
            rc = tl_error_set(err, "two submissions have the same student id: \"%.300s\" and "
                              "\"%.300s\"", a ? a : "?", b ? b : "?");
        else
            rc = tl_error_set(err, "the student ids \"%.250s\" and \"%.250s\" would share the "
                              "file name %.110s (rename one folder)", a ? a : "?", b ? b : "?",
                              all[i].name);
        free(a);
        free(b);
    }
    free(all);
    return rc;
}
