/* Deterministic dataset generation: inputs from a seed, the expected product in double precision
 * rounded once to float, and writing that never loses a file it did not mean to replace.
 */
#include "datagen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* splitmix64 (Steele, Lea and Flood): a few lines, passes BigCrush, and defined entirely by
 * 64-bit integer arithmetic, so it gives the same stream with every compiler, C library and
 * machine. rand() is none of that: its algorithm and range differ between C libraries. */
uint64_t tl_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t tl_splitmix64_next(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return tl_mix64(*state);
}

/* Every field goes through the mixer, so nearby seeds, indices or sizes start unrelated
 * streams instead of shifted copies of one another. */
static uint64_t stream_seed(uint64_t seed, int index, tl_size size)
{
    uint64_t h = tl_mix64(seed ^ UINT64_C(0x746c2d6461746173)); /* "tl-datas" */
    h = tl_mix64(h ^ (uint64_t)(uint32_t)index);
    h = tl_mix64(h ^ (uint64_t)(uint32_t)size.m);
    h = tl_mix64(h ^ (uint64_t)(uint32_t)size.k);
    return tl_mix64(h ^ (uint64_t)(uint32_t)size.n);
}

/* The top 24 bits of a draw as a multiple of 2^-23 in [-1, 1): exactly representable in float,
 * so the values survive any correct text round trip, and products of two of them are exact in
 * double. */
static float draw_value(uint64_t *state)
{
    const int32_t q = (int32_t)(tl_splitmix64_next(state) >> 40) - (INT32_C(1) << 23);
    return (float)q * 0x1p-23f;
}

/* A must already be m x k and B k x n (tl_matrix_alloc); A is filled first, then B, both in
 * row-major order, from one stream. */
void tl_fill_inputs(uint64_t seed, int index, tl_size size, tl_matrix *A, tl_matrix *B)
{
    uint64_t state = stream_seed(seed, index, size);
    const size_t na = (size_t)size.m * (size_t)size.k, nb = (size_t)size.k * (size_t)size.n;
    for (size_t i = 0; i < na; i++)
        A->data[i] = draw_value(&state);
    for (size_t i = 0; i < nb; i++)
        B->data[i] = draw_value(&state);
}

/* ---- files -------------------------------------------------------------------------------- */

static int make_dirs(const char *dir, bool private_files, tl_error *err)
{
    char path[4096];
    const size_t len = strlen(dir);
    if (len == 0 || len >= sizeof path)
        return tl_error_set(err, "dataset folder '%s': empty or too long a path", dir);
    memcpy(path, dir, len + 1);
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        const char saved = *p;
        *p = '\0';
        struct stat st;
        if (mkdir(path, private_files ? 0700 : 0777) != 0 && errno != EEXIST)
            return tl_error_set(err, "cannot create folder %s: %s", path, strerror(errno));
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            return tl_error_set(err, "cannot create folder %s: something else is in the way",
                                path);
        *p = saved;
        if (saved == '\0')
            break;
    }
    if (private_files && chmod(dir, 0700) != 0)
        return tl_error_set(err, "cannot make folder %s private: %s", dir, strerror(errno));
    return 0;
}

static void join_path(char *out, size_t size, const char *dir, const char *name)
{
    const size_t len = strlen(dir);
    const bool slash = len > 0 && dir[len - 1] == '/';
    snprintf(out, size, "%s%s%s", dir, slash ? "" : "/", name);
}

/* 1: same bytes, 0: different, -1: a read failed. */
static int same_content(const char *a, const char *b, tl_error *err)
{
    FILE *fa = fopen(a, "rb");
    if (!fa)
        return tl_error_set(err, "cannot read %s: %s", a, strerror(errno));
    FILE *fb = fopen(b, "rb");
    if (!fb) {
        tl_error_set(err, "cannot read %s: %s", b, strerror(errno));
        fclose(fa);
        return -1;
    }
    static const size_t chunk = 1 << 16;
    char *ba = malloc(chunk), *bb = malloc(chunk);
    int result = -1;
    if (!ba || !bb) {
        tl_error_set(err, "out of memory comparing %s", a);
        goto done;
    }
    for (;;) {
        const size_t ra = fread(ba, 1, chunk, fa), rb = fread(bb, 1, chunk, fb);
        if (ferror(fa) || ferror(fb)) {
            tl_error_set(err, "read error comparing %s with %s", a, b);
            goto done;
        }
        if (ra != rb || memcmp(ba, bb, ra) != 0) {
            result = 0;
            goto done;
        }
        if (ra < chunk) {
            result = 1;
            goto done;
        }
    }
done:
    free(ba);
    free(bb);
    fclose(fa);
    fclose(fb);
    return result;
}

typedef struct staged_file {
    char path[4096];
    char temp[4096];
    bool staged;       /* temp holds the new content */
    tl_write_outcome outcome;
} staged_file;

/* What a staged file will hold: a matrix in a format, or bytes made elsewhere. */
typedef struct staged_content {
    const tl_matrix *m; /* NULL: the bytes */
    tl_format format;
    const void *bytes;
    size_t len;
} staged_content;

/* Writes the new content next to the destination and classifies it against what is there. */
static int stage(staged_file *f, const char *dir, const char *name, const staged_content *c,
                 bool private_files, tl_error *err)
{
    join_path(f->path, sizeof f->path, dir, name);
    join_path(f->temp, sizeof f->temp, dir, "");
    snprintf(f->temp + strlen(f->temp), sizeof f->temp - strlen(f->temp), ".%s.new-XXXXXX",
             name);
    /* mkstemp only reserves a unique name; the atomic writer then renames its own complete file
     * onto it. */
    const int fd = mkstemp(f->temp);
    if (fd < 0)
        return tl_error_set(err, "cannot create a temporary file in %s: %s", dir,
                            strerror(errno));
    f->staged = true;
    /* mkstemp makes the file 0600 and tl_matrix_write keeps the mode of what it replaces, so
     * give the new file the mode the final one should have: the old file's, or the usual one. */
    struct stat st;
    mode_t mode;
    if (private_files)
        mode = 0600;
    else if (stat(f->path, &st) == 0)
        mode = st.st_mode & 07777;
    else {
        const mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
        const int e = errno;
        close(fd);
        return tl_error_set(err, "cannot set the permissions of %s: %s", f->temp, strerror(e));
    }
    close(fd);
    if (c->m ? tl_matrix_write(f->temp, c->m, c->format, err)
             : tl_write_file_atomic(f->temp, c->bytes, c->len, err))
        return -1;
    if (access(f->path, F_OK) != 0) {
        f->outcome = TL_WRITE_CREATED;
        return 0;
    }
    const int same = same_content(f->path, f->temp, err);
    if (same < 0)
        return -1;
    f->outcome = same ? TL_WRITE_UNCHANGED : TL_WRITE_REPLACED;
    return 0;
}

static void unstage(staged_file *f)
{
    if (f->staged)
        unlink(f->temp);
    f->staged = false;
}

/* How much a run changed on disk: unchanged < created < replaced. A dataset reports its
 * strongest file, so "replaced" is never hidden behind the other two, and "unchanged" means
 * truly nothing was touched. */
static int outcome_rank(tl_write_outcome o)
{
    switch (o) {
    case TL_WRITE_UNCHANGED: return 0;
    case TL_WRITE_CREATED: return 1;
    case TL_WRITE_REPLACED: return 2;
    }
    return 0;
}

/* The expected output, computed in bands of rows so that the double buffer stays small even
 * for the largest matrices; tl_gemm_f64's per-element order makes the bands invisible. */
static int expected_output(const tl_matrix *A, const tl_matrix *B, tl_matrix *out, int threads,
                           tl_error *err)
{
    const int m = A->rows, k = A->cols, n = B->cols;
    if (tl_matrix_alloc(out, m, n, err) != 0)
        return -1;
    int band = (int)((((int64_t)1) << 22) / n);
    if (band < 64)
        band = 64;
    if (band > m)
        band = m;
    double *c = malloc((size_t)band * (size_t)n * sizeof *c);
    if (!c) {
        tl_matrix_free(out);
        return tl_error_set(err, "out of memory computing a %dx%d product", m, n);
    }
    for (int r0 = 0; r0 < m; r0 += band) {
        const int rows = m - r0 < band ? m - r0 : band;
        tl_gemm_f64(rows, k, n, A->data + (size_t)r0 * k, B->data, c, NULL, threads);
        float *dst = out->data + (size_t)r0 * n;
        for (size_t i = 0; i < (size_t)rows * (size_t)n; i++)
            dst[i] = (float)c[i];
    }
    free(c);
    return 0;
}

/* Stages every file, then puts them in place: all are written and compared before any is
 * renamed, so a refusal leaves the folder exactly as it was, and a dataset is never half old,
 * half new. At most TL_DATASET_MAX_FILES files. */
static int write_staged(const char *dir, const char *const *names, const staged_content *contents,
                        int nfiles, const tl_gen_options *opts, tl_write_outcome *outcome,
                        tl_error *err)
{
    if (make_dirs(dir, opts->private_files, err) != 0)
        return -1;
    staged_file files[TL_DATASET_MAX_FILES];
    memset(files, 0, sizeof files);
    int rc = -1;
    for (int i = 0; i < nfiles; i++)
        if (stage(&files[i], dir, names[i], &contents[i], opts->private_files, err) != 0)
            goto done;
    if (!opts->force) {
        for (int i = 0; i < nfiles; i++) {
            if (files[i].outcome == TL_WRITE_REPLACED) {
                tl_error_set(err, "%s exists with different content; pass --force to replace it",
                             files[i].path);
                goto done;
            }
        }
    }
    tl_write_outcome strongest = TL_WRITE_UNCHANGED;
    for (int i = 0; i < nfiles; i++) {
        if (files[i].outcome != TL_WRITE_UNCHANGED) {
            if (rename(files[i].temp, files[i].path) != 0) {
                tl_error_set(err, "cannot write %s: %s", files[i].path, strerror(errno));
                goto done;
            }
            files[i].staged = false;
        }
        if (outcome_rank(files[i].outcome) > outcome_rank(strongest))
            strongest = files[i].outcome;
    }
    *outcome = strongest;
    rc = 0;
done:
    for (int i = 0; i < nfiles; i++)
        unstage(&files[i]);
    return rc;
}

static const tl_gen_options default_options = {0, TL_FORMAT_TEXT, false, 0, false};

int tl_dataset_generate(const char *dir, int index, tl_size size, const tl_gen_options *opts,
                        tl_gen_result *res, tl_error *err)
{
    const double t0 = tl_clock_now();
    if (!opts)
        opts = &default_options;
    if (size.m < 1 || size.k < 1 || size.n < 1)
        return tl_error_set(err, "%s: invalid size %dx%dx%d", dir, size.m, size.k, size.n);

    tl_matrix A = {0}, B = {0}, C = {0};
    int rc = -1;
    if (tl_matrix_alloc(&A, size.m, size.k, err) != 0 ||
        tl_matrix_alloc(&B, size.k, size.n, err) != 0)
        goto done;
    tl_fill_inputs(opts->seed, index, size, &A, &B);
    if (expected_output(&A, &B, &C, opts->threads, err) != 0)
        goto done;

    static const char *const names[3] = {"input0.raw", "input1.raw", "output.raw"};
    const staged_content contents[3] = {
        {&A, opts->format, NULL, 0}, {&B, opts->format, NULL, 0}, {&C, opts->format, NULL, 0}};
    tl_write_outcome outcome;
    if (write_staged(dir, names, contents, 3, opts, &outcome, err) != 0)
        goto done;
    if (res) {
        res->outcome = outcome;
        res->seconds = tl_clock_now() - t0;
    }
    rc = 0;
done:
    tl_matrix_free(&A);
    tl_matrix_free(&B);
    tl_matrix_free(&C);
    return rc;
}

int tl_dataset_write(const char *dir, const tl_file_bytes *files, int nfiles,
                     const tl_gen_options *opts, tl_write_outcome *outcome, tl_error *err)
{
    if (!opts)
        opts = &default_options;
    if (nfiles < 1 || nfiles > TL_DATASET_MAX_FILES)
        return tl_error_set(err, "%s: %d files for one dataset (1 to %d)", dir, nfiles,
                            TL_DATASET_MAX_FILES);
    const char *names[TL_DATASET_MAX_FILES];
    staged_content contents[TL_DATASET_MAX_FILES];
    for (int i = 0; i < nfiles; i++) {
        names[i] = files[i].name;
        contents[i] = (staged_content){NULL, TL_FORMAT_TEXT, files[i].data, files[i].len};
    }
    return write_staged(dir, names, contents, nfiles, opts, outcome, err);
}
