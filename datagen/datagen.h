/* tilelab datagen: the labs' size tables, deterministic dataset generation and dataset checking.
 * The one public header of the datagen library (built on the harness library).
 *
 * A dataset is a folder in libwb's layout: input0.raw (A, m x k), input1.raw (B, k x n) and
 * output.raw (the expected A*B, m x n, computed in double precision and rounded once to float).
 */
#ifndef TILELAB_DATAGEN_H
#define TILELAB_DATAGEN_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_size {
    int m; /* rows of A and of the product */
    int k; /* cols of A = rows of B */
    int n; /* cols of B and of the product */
} tl_size;

/* Datasets with any dimension at or above this are "large": not shipped, written in binary on
 * demand. */
#define TL_LARGE_DIM 1024

typedef struct tl_lab {
    const char *id;      /* folder name, e.g. "02-tiled" */
    const char *summary; /* what its size table covers, one line */
    const tl_size *sizes;
    int nsizes;
    /* A small shape the lab's kernel must handle that is a multiple of no tile it may use
     * (lab 02: of 32 only, as its contract asks): the grader's safety checks run on it. */
    tl_size safety;
    bool square;      /* the kind: M, N and P are Width x Width (labs 01-03): j == k == l;
                         else j x k times k x l */
    tl_size perf;     /* the grader's performance dataset unless --perf-size says otherwise */
    /* What the lab asks and what the kit does with it: the commands read these, never the id. */
    bool host_call;      /* the host side is checked too: matmul_on_device's copies and launch
                            (lab 01), besides the timed kernel launch */
    bool baseline;       /* the lab gives a baseline kernel, replayed, timed and predicted beside
                            the student's (lab 05) */
    bool bank_conflicts; /* a goal check: the shared-memory bank conflicts of both kernels are
                            counted (ncu's on a GPU, the CPU backend's otherwise; lab 05) */
    const char *diagnose_dataset; /* diagnose's dataset, datasets/ID/<this>: mid-size, not a
                                     tile multiple where the lab allows it; NULL: none */
    bool cublas_targets; /* its goal is a share of cuBLAS's speed: bench labs measures it at
                            every shape against the targets (lab 06) */
    bool bench_wide;     /* bench labs measures it at N x N/2 x N, not N^3 (lab 04) */
    int bench_cpu_width; /* bench cpu times its reference on the interpreter at this width^3
                            (0: not measured); the first such lab is also timed at 1024^3 and as
                            a whole program on its shipped dataset of that width */
    bool steps;          /* bench steps measures solutions/ID/steps (lab 06) */
    bool steps_contract; /* the contract the steps follow, standing for the steps lab when no
                            lab has steps (lab 04) */
} tl_lab;

/* All labs in order (01 .. 06, then any tl_lab_register added); the size tables live in
 * lab_sizes.c and nowhere else. */
const tl_lab *tl_labs(int *count);
/* Finds a lab by its id ("02-tiled"), number ("02" or "2") or name ("tiled"); NULL if none. */
const tl_lab *tl_lab_find(const char *name);

#define TL_MAX_LABS 16
/* Adds a lab after the kit's (a toy lab of a test, a course's own lab built into its kit): its
 * number is its place in the list. The entry is copied; its strings and size table must last as
 * long as the program. Returns -1
 * with err filled when the id is taken, has no "NN-name" form matching its place, or the list is
 * full. */
int tl_lab_register(const tl_lab *lab, tl_error *err);

/* The labs' ids for texts that name them all, generated from the list: TL_LAB_NAMES_SPACED
 * "01-basic 02-tiled ...", TL_LAB_NAMES_COMMAS "01-basic, 02-tiled, ...", TL_LAB_NAMES_RANGE
 * "01-basic ... 06-challenge". Returns `out` (truncated to `size`). */
typedef enum tl_lab_names_style {
    TL_LAB_NAMES_SPACED,
    TL_LAB_NAMES_COMMAS,
    TL_LAB_NAMES_RANGE
} tl_lab_names_style;
const char *tl_lab_names(tl_lab_names_style style, char *out, size_t size);
#define TL_LAB_NAMES_SIZE (TL_MAX_LABS * 64)
/* Writes `text` to `out` with each "{labs}" replaced by TL_LAB_NAMES_RANGE's list and each
 * "{lab-commas}" by TL_LAB_NAMES_COMMAS's, wrapped: an id that would pass column TL_USAGE_WIDTH starts a new line, indented to the
 * column the placeholder began at (usage texts, error messages). */
#define TL_USAGE_WIDTH 96
void tl_lab_names_expand(FILE *out, const char *text);
bool tl_size_is_large(tl_size s);
/* Parses "MxKxN" (rows A x cols A x cols B) or "N" (N x N x N). Returns -1 with err filled on
 * malformed text, dimensions outside 1 .. 65536, or sizes whose matrices exceed
 * TL_MAX_ELEMENTS. */
int tl_size_parse(const char *text, tl_size *out, tl_error *err);

/* splitmix64 (Steele, Lea and Flood): its output mix of a 64-bit word, and the next draw of a
 * stream. Defined by 64-bit integer arithmetic alone, so every generator of the kit gives the
 * same values with every compiler, C library and machine. */
uint64_t tl_mix64(uint64_t z);
uint64_t tl_splitmix64_next(uint64_t *state);

/* Deterministic inputs: a seed, the size and the dataset's index pick the values; the same
 * triple gives bit-identical matrices on any machine. Values are multiples of 2^-23 in [-1, 1).
 * A and B must already be allocated as m x k and k x n. */
void tl_fill_inputs(uint64_t seed, int index, tl_size size, tl_matrix *A, tl_matrix *B);

typedef enum tl_write_outcome {
    TL_WRITE_CREATED = 0,   /* the file did not exist */
    TL_WRITE_UNCHANGED = 1, /* an identical file was already there */
    TL_WRITE_REPLACED = 2   /* a different file was replaced (force) */
} tl_write_outcome;

typedef struct tl_gen_options {
    uint64_t seed;
    tl_format format;
    bool force;   /* replace existing files whose content differs */
    int threads;  /* <= 0: one per online CPU */
    /* Hidden datasets: folders made 0700 and files 0600, readable by their owner alone (a
     * student's program, which runs as another user, cannot open them). */
    bool private_files;
} tl_gen_options;

typedef struct tl_gen_result {
    tl_write_outcome outcome; /* the strongest of the three files' outcomes */
    double seconds;           /* generation and writing, wall clock */
} tl_gen_result;

/* Writes one dataset into `dir` (created if missing, parents too). Without `force`, an existing
 * file with different content is left alone and the call fails naming it. */
int tl_dataset_generate(const char *dir, int index, tl_size size, const tl_gen_options *opts,
                        tl_gen_result *res, tl_error *err);

/* One file of a dataset made in memory: its name inside the dataset's folder and its bytes. */
typedef struct tl_file_bytes {
    const char *name;
    const void *data;
    size_t len;
} tl_file_bytes;

#define TL_DATASET_MAX_FILES 8

/* Writes a dataset's files into `dir` (created if missing, parents too) as tl_dataset_generate
 * does: all of them or none, an identical file left untouched, a different one replaced only
 * with opts->force (otherwise the call fails naming it), private modes with
 * opts->private_files. opts->seed, format and threads are not used. */
int tl_dataset_write(const char *dir, const tl_file_bytes *files, int nfiles,
                     const tl_gen_options *opts, tl_write_outcome *outcome, tl_error *err);

/* The GPU Teaching Kit's labs as tilelab's examples (examples/kit-labs/LAB): vector-add,
 * basic-matmul, tiled-matmul, list-scan, histogram, reduction, convolution, each with its
 * datasets in the kit's file formats (libwb text vectors and matrices, a CSV mask, a PPM
 * image), inputs drawn from splitmix64 streams of (seed, lab, dataset), expected outputs
 * computed in double precision from the values the inputs' text reads back as, and written as
 * the kit writes them (two decimals, whole counts, image bytes rounded up). */
int tl_kit_lab_count(void);
const char *tl_kit_lab_name(int lab);
int tl_kit_lab_datasets(int lab);
/* Writes dataset `index` of kit lab `lab` into `dir`, through tl_dataset_write (opts->seed picks
 * the values); `shape` receives a few words on its size ("9921 elements"). */
int tl_kit_dataset_generate(int lab, int index, const char *dir, const tl_gen_options *opts,
                            tl_gen_result *res, char *shape, size_t shape_size, tl_error *err);

typedef struct tl_dataset_check {
    tl_size size;
    tl_format format;          /* format of input0.raw */
    tl_tolerance rule;         /* the rule output.raw was checked with */
    bool ok;                   /* every expected value is within the rule */
    int64_t bad;               /* elements of output.raw outside the rule */
    /* bound: max |expected - recomputed| / allowed; libwb: the same with 0.2 allowed; exact: 0
     * when every value is bit-exact, infinity otherwise. */
    double max_error_ratio;
    /* The largest distance in ulps between an expected value and the recomputed product
     * rounded to float, and where it is (the first such element in row-major order). */
    uint64_t max_ulps;
    int max_ulps_row, max_ulps_col;
    char detail[256];          /* first bad element, when any */
    double seconds;
} tl_dataset_check;

/* Parses the three files of a dataset folder, checks that the shapes form a product, recomputes
 * A*B in double precision and checks output.raw against it with `rule`. Returns -1 (err filled)
 * for unreadable or malformed files or shapes that do not form a product; a wrong expected
 * output is a successful call with ok = false. */
int tl_dataset_check_dir(const char *dir, tl_tolerance rule, tl_dataset_check *res, int threads,
                         tl_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILELAB_DATAGEN_H */
