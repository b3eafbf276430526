/* tilelab harness: the one public header of the harness library.
 *
 * Matrix I/O (libwb text and tilelab binary), result checking against the rigorous fp32
 * dot-product error bound, host and kernel timing, logging, CUDA error checks and the run report
 * (text or JSON). Usable from C11 and from CUDA C++ (.cu) files.
 *
 * Conventions: matrices are dense row-major float32. Functions that can fail return 0 on success
 * and -1 on failure after filling a tl_error with one line that names the file, the place and
 * what was expected. Nothing here exits the process except tl_cuda_check_ (see TL_CUDA_CHECK).
 */
#ifndef TILELAB_HARNESS_H
#define TILELAB_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- exit statuses shared by every tilelab program ---------------------------------------- */
enum {
    TL_EXIT_OK = 0,          /* everything passed */
    TL_EXIT_WRONG = 1,       /* ran, but a result is wrong */
    TL_EXIT_BAD_INPUT = 2,   /* bad input file or bad command line */
    TL_EXIT_CRASH = 3        /* build failure, CUDA error or crash */
};

/* ---- errors ---------------------------------------------------------------------------- */
typedef struct tl_error {
    char msg[768];
} tl_error;

/* printf-style; always returns -1 so callers can `return tl_error_set(err, ...)`. */
int tl_error_set(tl_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- logging ----------------------------------------------------------------------------- */
typedef enum tl_log_level {
    TL_LOG_FATAL = 0,
    TL_LOG_ERROR,
    TL_LOG_WARN,
    TL_LOG_INFO,
    TL_LOG_DEBUG,
    TL_LOG_TRACE
} tl_log_level;

/* Messages above the threshold are dropped. The initial threshold is INFO, or the level named
 * by the TILELAB_LOG environment variable (fatal, error, warn, info, debug, trace). */
void tl_log_set_level(tl_log_level level);
/* The threshold used when TILELAB_LOG names no level (info unless changed; the libwb layer
 * makes it trace, as libwb logs every level). tl_log_set_level still overrides it. */
void tl_log_set_default_level(tl_log_level level);
tl_log_level tl_log_get_level(void);
/* Parses a level name (case-insensitive); returns -1 if it names none. */
int tl_log_parse_level(const char *name, tl_log_level *out);
const char *tl_log_level_name(tl_log_level level);
/* Log lines go to stderr unless redirected (tests redirect them to a memory stream). */
void tl_log_set_stream(FILE *stream);
void tl_log(tl_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- matrices and their files ----------------------------------------------------------- */
typedef struct tl_matrix {
    int rows;
    int cols;
    float *data; /* rows*cols values, row-major; owned, release with tl_matrix_free */
} tl_matrix;

/* Largest matrix the harness reads or allocates: 2^28 elements (1 GiB of float32). Larger
 * headers are rejected as bad input rather than attempted. */
#define TL_MAX_ELEMENTS (((int64_t)1) << 28)

typedef enum tl_format {
    TL_FORMAT_TEXT = 0,  /* libwb raw text: "rows cols" (or "rows"), then the values */
    TL_FORMAT_BINARY = 1 /* tilelab binary: 32-byte header, then little-endian float32 */
} tl_format;

/* Binary layout, all little-endian:
 *   0  8 bytes  magic "TILELAB\0"
 *   8  u32      version (1)
 *  12  u32      element type (1 = float32)
 *  16  u64      rows
 *  24  u64      cols
 *  32  rows*cols float32 values, row-major, nothing after them */
#define TL_BINARY_MAGIC "TILELAB" /* compare all 8 bytes, the final NUL included */
#define TL_BINARY_MAGIC_BYTES 8
#define TL_BINARY_TYPE_FLOAT32 1u
#define TL_BINARY_VERSION 1u
#define TL_BINARY_HEADER_BYTES 32

/* Allocates a rows x cols matrix (uninitialized). Fails on non-positive or too large shapes. */
int tl_matrix_alloc(tl_matrix *m, int rows, int cols, tl_error *err);
void tl_matrix_free(tl_matrix *m);

/* Reads a matrix file; the format is detected from the content (binary magic or text).
 * Rejects: empty file, missing/non-numeric header, dimensions <= 0 or over TL_MAX_ELEMENTS,
 * fewer or more values than the header says, non-numeric tokens (line and column given),
 * NaN/Inf or out-of-range values, truncated binary payloads or trailing bytes after them,
 * unknown binary versions or element types. */
int tl_matrix_read(const char *path, tl_matrix *out, tl_error *err);
/* A result tl_matrix_write saved in the binary format (a kernel's P): as tl_matrix_read, but
 * NaN and Inf are kept (elements a kernel never wrote hold the NaN fill), and text is refused. */
int tl_matrix_read_result(const char *path, tl_matrix *out, tl_error *err);
/* tl_matrix_read from bytes already in memory; `name` is used in error messages. */
int tl_matrix_parse(const char *name, const void *bytes, size_t len, tl_matrix *out, tl_error *err);

/* Writes `len` bytes to `path` atomically: a temporary file beside it, then rename, so a reader
 * sees the old file or the whole new one. A new file gets the permissions fopen would give it, a
 * replaced one keeps its own. -1 with err ("PATH: what failed: why") and no temporary left
 * behind on failure. */
int tl_write_file_atomic(const char *path, const void *data, size_t len, tl_error *err);
/* The same, with the data on disk (fsync) before the rename: for what a power cut must not
 * leave empty under its name and cannot be made again cheaply (a grading's journal entry). */
int tl_write_file_durable(const char *path, const void *data, size_t len, tl_error *err);

/* Writes atomically (a temporary file in the same folder, then rename), so a reader never sees
 * half a file. Text uses 9 significant digits: every float32 reads back bit-identical. NaN and
 * Inf are written too (as nan/inf), so a broken kernel's output can be saved and looked at,
 * but tl_matrix_read rejects such a file as an input. */
int tl_matrix_write(const char *path, const tl_matrix *m, tl_format format, tl_error *err);

/* ---- the files libwb programs import (import.c, csv_io.c, image_io.c) ---------------------- */
/* What a libwb program asks wbImport for. */
typedef enum tl_import_kind {
    /* float32 values of a matrix file: libwb raw text or tilelab binary (as tl_matrix_read), or
     * CSV. CSV is read for a name ending in .csv (comma) or .tsv (tab), and for a text file
     * whose first line holds a comma. CSV as the kit writes it: no header, one matrix row per
     * line, the values of a row separated by commas; every row has as many values. */
    TL_IMPORT_REAL = 0,
    /* int32: the same files, every value a whole number that fits in an int. */
    TL_IMPORT_INTEGER,
    /* The file's bytes as they are (char), followed by a NUL that `bytes` does not count:
     * rows = the length, cols = 1. */
    TL_IMPORT_TEXT,
    /* A PPM (P6 binary, P3 plain: 3 channels) or PGM (P5, P2: 1 channel) image, maxval 1 to
     * 65535 (two big-endian bytes a sample above 255), comments ('#' to the end of the line)
     * anywhere in the header: floats value * (1 / maxval) in float, as libwb computes them,
     * interleaved (RGBRGB...) row after row. rows = height, cols = width. */
    TL_IMPORT_IMAGE
} tl_import_kind;

/* What tl_import_file read, owned (tl_import_free). A matrix or text has channels = 1. */
typedef struct tl_import {
    void *data;
    size_t bytes; /* of data: rows * cols * channels elements (float, int32 or char) */
    int rows, cols, channels;
} tl_import;

/* Reads `path` as `kind`: exactly the values and shape a libwb program's wbImport returns for
 * it. Bad input: -1 with one line naming the file, the place (line and column, or the byte) and
 * what was expected. */
int tl_import_file(const char *path, tl_import_kind kind, tl_import *out, tl_error *err);
void tl_import_free(tl_import *imp);

/* Writes a binary PPM (3 channels) or PGM (1 channel) with maxval 255, atomically. Each value
 * becomes ceil(clamp(v, 0, 1) * 255) computed in float, as libwb's export does (NaN as 0):
 * note that a level k read from an 8-bit file can come back k + 1 (3 * (1/255) * 255 is just
 * above 3 in float). Other channel counts, or sizes that are not positive, are refused. */
int tl_image_write(const char *path, const float *data, int width, int height, int channels,
                   tl_error *err);

/* ---- reference products in double precision ------------------------------------------------- */
/* C = A*B (and/or S = |A|*|B|) for row-major float inputs, accumulated in double with k ascending
 * for every element, so the result does not depend on blocking or thread count: the same inputs
 * give bit-identical outputs on any machine. Either output may be NULL. Uses up to `threads`
 * threads (<= 0: one per online CPU). */
void tl_gemm_f64(int m, int k, int n, const float *A, const float *B, double *C, double *S,
                 int threads);

/* ---- fingerprints ------------------------------------------------------------------------- */
/* 64-bit FNV-1a: start from TL_HASH_SEED and feed bytes; for cache keys and journal keys (not
 * for anything an adversary must not collide on purpose). */
#define TL_HASH_SEED UINT64_C(0xcbf29ce484222325)
uint64_t tl_hash(uint64_t h, const void *data, size_t len);

/* ---- result checking ------------------------------------------------------------------------ */
/* u = 2^-24, the unit roundoff of float32; gamma_k = k*u / (1 - k*u). */
double tl_gamma(int64_t k);

typedef struct tl_mismatch {
    int row, col;
    double got;      /* a float result's value, or an integer result's (exact up to 2^53) */
    double expected;
    double bound;    /* the allowed |got - expected| at this element */
} tl_mismatch;

/* Which rule a report applied. */
typedef enum tl_check_kind {
    TL_CHECK_BOUND = 0, /* the fp32 error bound of a product (tl_check_product) */
    TL_CHECK_LIBWB,     /* libwb's comparison (tl_check_libwb) */
    TL_CHECK_EXACT,     /* integers, equal or not (tl_check_integers) */
    TL_CHECK_IDENTICAL, /* floats, equal or not (tl_check_identical) */
    TL_CHECK_IMAGE,     /* libwb's rule for images (tl_check_image) */
    TL_CHECK_LIBGPUTK   /* the labs repository's libgputk (tl_check_libgputk) */
} tl_check_kind;

#define TL_CHECK_FIRST_N 5

typedef struct tl_check_report {
    tl_check_kind kind;
    bool pass;
    bool shape_mismatch;
    int got_rows, got_cols, expected_rows, expected_cols;
    /* Images (kind TL_CHECK_IMAGE, or an image held to TL_CHECK_IDENTICAL): rows are the height,
     * cols the width, and these the channels; 0 for anything else. */
    int got_channels, expected_channels;
    int64_t checked;           /* elements compared */
    int64_t bad;               /* elements over their bound (NaN/Inf included) */
    int64_t nonfinite;         /* NaN or Inf in the output */
    bool has_worst;
    tl_mismatch worst;         /* largest |got-expected| / bound among the bad ones */
    int nfirst;
    tl_mismatch first[TL_CHECK_FIRST_N]; /* first bad ones in row-major order */
    double max_error_ratio;    /* max |got-expected| / bound over all elements (< 1 means pass) */
    char policy[96];           /* how the bound was computed, for the report */
} tl_check_report;

/* Checks got ~ A*B against `expected` (fl32 of the exact product). Element (i,j) passes iff
 *   |got - expected| <= gamma_{k+1} * (|A|*|B|)_ij + (k+1) * 2^-126,
 * i.e. Higham's bound for any fp32 summation order of the dot product, widened by one rounding
 * for the expected value's own rounding, plus a tiny floor for exact zeros and underflow.
 * NaN/Inf in `got` always fails. Never stops at the first bad element. Returns -1 only when the
 * inputs' shapes do not form a product (err says which); a shape mismatch of `got` against
 * `expected` is a failing report, not an error. */
int tl_check_product(const tl_matrix *A, const tl_matrix *B, const tl_matrix *expected,
                     const tl_matrix *got, tl_check_report *rep, tl_error *err);

/* A product's reference, made once and used to check many results (every timed repetition of
 * a kernel): the expected values and each element's bound, as tl_check_product computes them. */
typedef struct tl_product_ref {
    tl_matrix expected;   /* owned */
    double *abs_product;  /* (|A||B|)ij, owned */
    int64_t k;
} tl_product_ref;

/* Builds the reference of A*B. `expected` (the dataset's output, checked for shape) is copied;
 * when NULL the expected values are computed here, A*B in double rounded once to float, as a
 * generated dataset's output.raw would hold them. Uses up to `threads` threads (<= 0: one per
 * online CPU). Returns -1 with err filled when the shapes do not form a product or memory runs
 * out. */
int tl_product_ref_init(tl_product_ref *ref, const tl_matrix *A, const tl_matrix *B,
                        const tl_matrix *expected, int threads, tl_error *err);
/* tl_check_product's verdict for `got` against the reference. */
void tl_product_ref_check(const tl_product_ref *ref, const tl_matrix *got, tl_check_report *rep);
/* The same rule for one element, `index` in row-major order of `got` (which has the
 * reference's shape): true when it is within its bound; `bound` (may be NULL) receives the
 * bound. For tools that show where a result is wrong. */
bool tl_product_ref_element_ok(const tl_product_ref *ref, const tl_matrix *got, int64_t index,
                               double *bound);
void tl_product_ref_free(tl_product_ref *ref);

/* libwb's rule for results that are not a matrix product (vectors, reductions, scans): every
 * element must be tl_libwb_close to the expected one. Unlike libwb it never stops at the first
 * bad element. */
void tl_check_libwb(const tl_matrix *expected, const tl_matrix *got, tl_check_report *rep);
/* The same with the labs repository's libgputk rule (tl_libgputk_close). */
void tl_check_libgputk(const tl_matrix *expected, const tl_matrix *got, tl_check_report *rep);

/* Integer results (libwb's integral_vector and histogram types): every element must equal the
 * expected one exactly. `expected` holds whole numbers below 2^24 in magnitude (exact in
 * float); `got` has rows x cols values. */
void tl_check_integers(const tl_matrix *expected, const int64_t *got, int rows, int cols,
                       tl_check_report *rep);

/* Every element of `got` equal to the expected one (-0 equals +0; NaN equals nothing). */
void tl_check_identical(const tl_matrix *expected, const tl_matrix *got, tl_check_report *rep);

/* A hint for a wrong result whose elements were never written (still the NaN fill), or NULL. */
const char *tl_check_report_hint(const tl_check_report *rep);

/* One paragraph: verdict, counts, worst element, first few; never longer than ~12 lines. */
void tl_check_report_print(FILE *out, const tl_check_report *rep);
/* What a passing report passed, as its PASS line says it: "all 37 elements within libwb's
 * tolerance", "all 8 integers equal the expected ones". */
void tl_check_pass_text(const tl_check_report *rep, char *out, size_t size);
/* The rule a passing value of that kind met: "within libwb's tolerance", "equal to the expected
 * ones". */
const char *tl_check_rule_text(tl_check_kind kind);
/* The report as a cJSON object (pass, shape_mismatch, checked, bad, nonfinite, worst, first,
 * rule), for documents that hold one; NULL only when memory runs out. */
struct cJSON;
struct cJSON *tl_check_report_json(const tl_check_report *rep);

/* ---- tolerances (tolerance.c) ----------------------------------------------------------- */
/* The distance of two floats in units in the last place: 0 for equal values (and for -0
 * against +0), 1 for neighbouring floats, counting across zero (the smallest subnormals of
 * either sign are 2 apart); UINT64_MAX when either is NaN. */
uint64_t tl_ulps_between(float a, float b);

/* libwb's comparison of one element, as the GPU Teaching Kit's libwb (wbComparator.h) and
 * libgputk (gputkComparator.h) make it in wbSolution/gpuTKSolution for float data: where
 * either value is exactly 0 the other must be below 0.2 in magnitude (strictly); otherwise
 * |expected - got|, rounded to float, must be at most 0.2f. NaN is never close. */
#define TL_LIBWB_TOLERANCE 0.2f
bool tl_libwb_close(float expected, float got);
/* The comparison of the labs repository's libgputk (gputkComparator.h, since May 2026):
 * |expected - got| <= 0.2 + 1e-5 * |got|, computed in float (its solution check passes the
 * program's value second, and the share is of that one). NaN is never close. */
#define TL_LIBGPUTK_RELATIVE 1e-5f
bool tl_libgputk_close(float expected, float got);

/* How closely a value must match the one it should be. The dataset checker (datagen.h) holds a
 * dataset's expected output to the product recomputed in double precision (docs/datasets.md
 * derives each rule); tl_check_answer holds a program's answer to the expected output. */
typedef enum tl_tolerance {
    /* The fp32 error bound of a product. A dataset's value e against the recomputed C:
     * |e - C| <= (gamma_{k+1} S + 2^-24 (1 + 2^-23) |e| + q + (k+1) 2^-126) (1 + 2^-40), with
     * S = (|A||B|)ij and q half a unit in the last digit the text file wrote for that value (0
     * in a binary file). An answer: tl_check_product's bound where the inputs are given and
     * form a product of the expected shape, libwb's rule otherwise (nothing else has a bound). */
    TL_TOLERANCE_BOUND = 0,
    /* libwb's own comparison (tl_libwb_close): a dataset's value against the recomputed product
     * rounded to float, an answer's against the expected one. */
    TL_TOLERANCE_LIBWB,
    /* Equal: a dataset's value bit for bit the recomputed product rounded to float (what
     * tilelab writes), an answer's value equal to the expected one. */
    TL_TOLERANCE_EXACT,
    /* The Teaching Kit labs repository's libgputk since May 2026 (tl_libgputk_close): libwb's
     * 0.2 plus 1e-5 of the value checked, so long float sums whose expected totals the kit's
     * generators added up in float still pass. */
    TL_TOLERANCE_LIBGPUTK
} tl_tolerance;

/* "bound", "libwb", "exact" or "libgputk"; -1 for anything else. */
int tl_tolerance_parse(const char *name, tl_tolerance *out);
const char *tl_tolerance_name(tl_tolerance rule);

/* Half a unit in the last digit a text token writes: how far the written decimal may be from
 * the value it was rounded from. "1.25" and "-0.00" give 0.005, "3" gives 0.5, "1.5e-3"
 * 0.00005, a hex float "0x1.8p1" half its last hex digit (2^-4). NaN for anything that is not
 * a plain decimal or hex number. */
double tl_text_quantum(const char *token, size_t len);

/* The quanta of a matrix file's values in file (row-major) order, for a file tl_matrix_read
 * accepted: tl_text_quantum of each value token of a text file, 0 for every value of a binary
 * file (it holds the floats themselves). */
typedef struct tl_quanta {
    char *text; /* the text file's bytes, NULL for a binary file */
    size_t len, pos;
} tl_quanta;
int tl_quanta_open(tl_quanta *q, const char *path, tl_error *err);
/* The next value's quantum; NaN past the last value (the file changed since it was read). */
double tl_quanta_next(tl_quanta *q);
void tl_quanta_close(tl_quanta *q);

/* ---- a program's answer against the expected output (answer.c) ---------------------------- */
/* libwb's rule for images (wbImage_sameQ, which wbSolution uses for -t image): the same width,
 * height and channels, then every value of an image of up to 3 channels clamped to [0, 1] on
 * both sides and compared by tl_libwb_close (images of more channels unclamped); with
 * TL_TOLERANCE_EXACT the clamped values must be equal instead (TL_TOLERANCE_BOUND, which has no
 * product to bound here, is libwb's rule). Unlike libwb, NaN and Inf in `got` always fail
 * (libwb's clamp makes NaN 0, so a pixel never written could pass) and every value is checked.
 * Both are images as TL_IMPORT_IMAGE lays them out; a mismatch's row is the pixel's row and its
 * col the pixel's column * channels + channel. */
void tl_check_image(const tl_import *expected, const tl_import *got, tl_tolerance rule,
                    tl_check_report *rep);

/* What an answer is: libwb's -t types. */
typedef enum tl_answer_type {
    TL_ANSWER_MATRIX = 0,      /* float32, rows x cols */
    TL_ANSWER_VECTOR,          /* float32 */
    TL_ANSWER_INTEGRAL_VECTOR, /* int32 */
    TL_ANSWER_HISTOGRAM,       /* int32 here (a libwb program hands over unsigned char bins) */
    TL_ANSWER_IMAGE            /* float32 pixels: rows = height, cols = width, channels */
} tl_answer_type;

/* libwb's names, any case: "matrix", "vector", "integral_vector", "histogram", "image"; -1 for
 * anything else. */
int tl_answer_type_parse(const char *name, tl_answer_type *out);
const char *tl_answer_type_name(tl_answer_type type);
/* "matrix, vector, integral_vector, histogram, image", for messages. */
const char *tl_answer_type_list(void);
/* How tl_import_file reads an answer of this type from a file: the layout tl_check_answer takes
 * (Real for matrix and vector, Integer for integral_vector and histogram, Image). */
tl_import_kind tl_answer_import_kind(tl_answer_type type);

typedef struct tl_answer_spec {
    tl_answer_type type;
    tl_tolerance tolerance;
    /* TL_TOLERANCE_BOUND of a matrix: the product's inputs (either NULL: no product). */
    const tl_matrix *A, *B;
} tl_answer_spec;

/* The one check of a program's answer, shared by wbSolution and the grader. Reads the expected
 * output (tl_import_file, as tl_answer_import_kind says, except that integers are read as Real:
 * whole numbers below 2^24, exact in float32) and checks `got` (in that layout, its shape
 * included) against it:
 *   matrix, vector   TL_TOLERANCE_BOUND: tl_check_product where A and B are given and form a
 *                    product of the expected shape, else tl_check_libwb; TL_TOLERANCE_LIBWB:
 *                    tl_check_libwb; TL_TOLERANCE_EXACT: tl_check_identical
 *   integral_vector, histogram   tl_check_integers, whatever the tolerance (libwb compares
 *                    integers with ==)
 *   image            tl_check_image
 * A wrong answer, of any shape, is a failing report. Returns -1 with err only for bad input: an
 * expected file that cannot be read or is malformed, a fraction expected of an integer type, a
 * spec that names no type. */
int tl_check_answer(const tl_answer_spec *spec, const tl_import *got, const char *expected_path,
                    tl_check_report *rep, tl_error *err);

/* ---- timing ----------------------------------------------------------------------------- */
/* Seconds on CLOCK_MONOTONIC. Never synchronizes a device. */
double tl_clock_now(void);

typedef struct tl_stats {
    int n;
    double min, median, max, mean;
} tl_stats;

/* Summary of n samples (n >= 1); the samples are not reordered. The median of an even count is
 * the mean of the two middle values. */
void tl_stats_compute(const double *samples, int n, tl_stats *out);

/* 2*m*k*n floating-point operations in `seconds`, in GFLOP/s (0 when seconds <= 0). */
double tl_gflops(int64_t m, int64_t k, int64_t n, double seconds);

/* Host phases of a run (import, copy, compute, ...), timed with tl_clock_now. */
#define TL_MAX_PHASES 32
typedef struct tl_phase {
    char kind[16];
    char name[96];
    double start;
    double seconds; /* < 0 while running */
} tl_phase;

typedef struct tl_phase_log {
    int n;
    tl_phase phases[TL_MAX_PHASES];
} tl_phase_log;

void tl_phase_log_init(tl_phase_log *log);
/* Starts a phase; returns its index or -1 when the log is full. */
int tl_phase_start(tl_phase_log *log, const char *kind, const char *name);
/* Stops the most recent running phase with this kind and name; returns -1 if none runs. */
int tl_phase_stop(tl_phase_log *log, const char *kind, const char *name);

/* ---- GPU side (library tilelab_harness_cuda; links the CUDA runtime) ------------------------ */
/* Ends the run with TL_EXIT_CRASH after printing "file:line: CUDA error NAME (text) in EXPR". */
void tl_cuda_check_(int status, const char *expr, const char *file, int line);
#define TL_CUDA_CHECK(expr) tl_cuda_check_((int)(expr), #expr, __FILE__, __LINE__)

/* Fills `name` with the current device's name, or "no CUDA device" plus the reason; returns
 * false when there is no usable device. Never exits. */
bool tl_device_name(char *name, size_t size);
/* True when at least one CUDA device is usable. */
bool tl_gpu_available(void);
/* The current device's compute capability as major*10 + minor (90 for an H100), 0 without a
 * device. */
int tl_device_compute_capability(void);

typedef void (*tl_launch_fn)(void *ctx);

typedef struct tl_kernel_timing_opts {
    int warmup;      /* untimed launches first (default 1) */
    int reps;        /* timed launches (default 10) */
    bool flush_l2;   /* write a buffer the size of the device's L2 before each rep (default on) */
    /* Called before every launch, outside the timed region (rep is -1 - i for the i-th warm-up,
     * then 0 .. reps-1), before the output refill and the L2 flush; it may queue device work of
     * its own on the default stream (restoring state, pointing the next launch at another
     * output). NULL: nothing. */
    void (*before_launch)(void *ctx, int rep);
    /* When not NULL, receives each timed launch's milliseconds (reps values), in order. */
    double *samples;
} tl_kernel_timing_opts;

typedef struct tl_kernel_timing {
    tl_stats ms;     /* per-launch kernel time in milliseconds, from CUDA events */
    size_t l2_flush_bytes;
} tl_kernel_timing;

void tl_kernel_timing_opts_default(tl_kernel_timing_opts *opts);

/* Times `launch(ctx)` with CUDA events: warm-up, then `reps` timed launches. Before each launch
 * the output buffer (device pointer `d_out`, `out_bytes` long; NULL when before_launch refills
 * the outputs itself) is refilled with a NaN pattern and L2 is flushed, so every rep does the whole job and the caller's check of the output after
 * timing sees the last rep's result. Only the rep's own events are waited on. Returns -1 with
 * err filled on a CUDA error (including a failed launch). */
int tl_time_kernel(const tl_kernel_timing_opts *opts, tl_launch_fn launch, void *ctx, void *d_out,
                   size_t out_bytes, tl_kernel_timing *out, tl_error *err);

/* ---- the run report --------------------------------------------------------------------- */
typedef struct tl_run_report {
    char program[128];
    char dataset[256];
    char device[128];
    int m, k, n;               /* product shape, 0 when unknown */
    bool checked;
    tl_check_report check;
    tl_phase_log phases;
    bool kernel_timed;
    tl_kernel_timing kernel;
} tl_run_report;

void tl_run_report_init(tl_run_report *r, const char *program);
/* "pass", "wrong" (the words of the verdicts every command shows) or "unchecked". */
const char *tl_run_report_verdict(const tl_run_report *r);
/* GFLOP/s from the kernel's median time, 0 if untimed or shape unknown. */
double tl_run_report_gflops(const tl_run_report *r);
/* One JSON document (a malloc'd string, free() it): verdict, mismatch summary, timings, GFLOPS,
 * device. Returns NULL only if memory runs out. */
char *tl_run_report_json(const tl_run_report *r);
void tl_run_report_print(FILE *out, const tl_run_report *r);

/* ---- untrusted text made inert (text_inert.c) --------------------------------------------- */
/* Each takes any bytes (NUL included) and returns a new NUL-terminated string (malloc'd; NULL
 * only when memory runs out). All give valid UTF-8: invalid sequences and NUL become U+FFFD. */
char *tl_text_utf8(const char *s, size_t len);
/* For a terminal: control characters other than newline and tab (escape sequences, carriage
 * return, backspace, C1 controls) and bidirectional overrides are shown as \xNN / \uNNNN. */
char *tl_text_terminal(const char *s, size_t len);
/* For one-line fields (ids, details): as tl_text_terminal, newline and tab escaped too. */
char *tl_text_line(const char *s, size_t len);
/* A spreadsheet cell's content: one inert line, with a leading quote when it would start a
 * formula (= + - @, or a tab or carriage return). CSV quoting is the writer's job. */
char *tl_text_csv_cell(const char *s, size_t len);
/* Writes `s` for an HTML page, its markup characters (& < > " ') as entities; nothing for NULL.
 * It does not make the text inert: pass it through one of the above first where it needs to. */
void tl_html_write(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_HARNESS_H */
