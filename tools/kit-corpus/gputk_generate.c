/* What the kit's dataset generators need beyond tilelab's libwb layer: paths, folders, and
 * libgputk's random raw and PPM files (gputk_generate.h gives them libgputk's names).
 *
 * The draws are libgputk's: each value is rand() / RAND_MAX interpolated between the bounds, in
 * the order the values are stored, from the same unseeded rand() the generators call between
 * files. Every failure ends the generator with one line naming the file and status 2, where
 * libgputk would carry on and write a dataset with files missing. */
#define _POSIX_C_SOURCE 200809L /* PATH_MAX, getcwd */

#include "gputk_generate.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Folders the generators create are readable by all and writable by the owner. */
#define KITGEN_FOLDER_MODE 0755

static void die(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((noreturn, format(printf, 1, 2)))
#endif
    ;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gputk_generate: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(TL_EXIT_BAD_INPUT);
}

static void *allocate(size_t n, size_t size, const char *what)
{
    void *p = n && size ? calloc(n, size) : NULL;
    if (!p)
        die("out of memory for %s (%zu values)", what, n);
    return p;
}

char *kitgen_path_join(const char *first, const char *second)
{
    size_t a = strlen(first), b = strlen(second);
    char *path = allocate(a + b + 2, 1, "a path");
    memcpy(path, first, a);
    path[a] = '/';
    memcpy(path + a + 1, second, b + 1);
    return path;
}

static void make_folder(const char *path)
{
    struct stat st;
    if (mkdir(path, KITGEN_FOLDER_MODE) == 0)
        return;
    int why = errno;
    if (why == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return;
    die("cannot create the folder %s: %s", path, strerror(why == EEXIST ? ENOTDIR : why));
}

const char *kitgen_directory_create(const char *dir)
{
    size_t len = strlen(dir);
    if (len == 0)
        die("cannot create a folder with an empty name");
    char *path = allocate(len + 1, 1, "a path");
    memcpy(path, dir, len + 1);
    /* Every ancestor first, as libgputk does (mkdir -p). */
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        make_folder(path);
        *p = '/';
    }
    make_folder(path);
    free(path);
    return dir;
}

char *kitgen_directory_current(void)
{
    char *cwd = allocate(PATH_MAX, 1, "a path");
    if (!getcwd(cwd, PATH_MAX))
        die("cannot read the current folder: %s", strerror(errno));
    return cwd;
}

/* The folder a file goes into, created. */
static void create_folder_of(const char *file)
{
    const char *slash = strrchr(file, '/');
    if (!slash || slash == file)
        return;
    size_t len = (size_t)(slash - file);
    char *dir = allocate(len + 1, 1, "a path");
    memcpy(dir, file, len);
    dir[len] = '\0';
    kitgen_directory_create(dir);
    free(dir);
}

/* n floats drawn as libgputk draws them: the float bounds interpolated in double. */
static void random_floats(float *data, size_t n, double min_val, double max_val)
{
    const float lo = (float)min_val, hi = (float)max_val;
    for (size_t i = 0; i < n; i++) {
        double x = (double)rand() / (double)RAND_MAX;
        data[i] = (float)((1 - x) * lo + x * hi);
    }
}

/* libgputk's size rule: a dimension below 1 is taken as 1. */
static int at_least_one(int n)
{
    return n < 1 ? 1 : n;
}

void kitgen_generate_raw(const char *path, int rows, int cols, double min_val, double max_val)
{
    create_folder_of(path);
    rows = at_least_one(rows);
    cols = at_least_one(cols);
    size_t n = (size_t)rows * (size_t)cols;
    float *data = allocate(n, sizeof *data, "random values");
    random_floats(data, n, min_val, max_val);
    FILE *f = fopen(path, "w");
    if (!f)
        die("cannot write %s: %s", path, strerror(errno));
    /* libgputk's raw text: the shape (one number for a column), then each row on a line. */
    int ok = cols == 1 ? fprintf(f, "%d\n", rows) > 0 : fprintf(f, "%d %d\n", rows, cols) > 0;
    for (int r = 0; ok && r < rows; r++)
        for (int c = 0; ok && c < cols; c++)
            ok = fprintf(f, "%f%c", data[(size_t)r * (size_t)cols + (size_t)c],
                         c == cols - 1 ? '\n' : ' ') > 0;
    free(data);
    if (fclose(f) != 0 || !ok)
        die("cannot write %s: %s", path, strerror(errno));
}

void kitgen_generate_ppm(const char *path, int width, int height, int channels, double min_val,
                         double max_val)
{
    create_folder_of(path);
    wbImage_t image = tl_wb_image_new(at_least_one(width), at_least_one(height),
                                      at_least_one(channels));
    size_t n = (size_t)image->width * (size_t)image->height * (size_t)image->channels;
    random_floats(image->data, n, min_val, max_val);
    tl_wb_export_image(path, image);
    tl_wb_image_delete(image);
}
