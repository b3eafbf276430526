/* tilelab check-dataset: validate datasets a TA made or received. */
#include "cli.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: ./tilelab check-dataset DIR... [--tolerance bound|libwb|exact|libgputk]\n"
    "                                      [--threads N]\n"
    "\n"
    "Validates datasets in libwb's layout. DIR is one dataset (a folder holding input0.raw,\n"
    "input1.raw and output.raw) or a folder of them (e.g. datasets/03-arbitrary, whose numbered\n"
    "folders and large/ folder are all checked). For each dataset: parses every file (text or\n"
    "binary), checks that A (m x k), B (k x n) and the output (m x n) fit together, recomputes A*B\n"
    "in double precision and checks every expected value against it. One line per dataset: the\n"
    "rule, ok or WRONG, and the largest deviation from the recomputed product rounded to float,\n"
    "in ulps, with its row and column.\n"
    "\n"
    "  --tolerance R  the rule an expected value must meet (docs/datasets.md derives them):\n"
    "                   bound  (default) within the fp32 error bound of the product, as a\n"
    "                          correct fp32 kernel's result is, plus the rounding to the digits\n"
    "                          the text file wrote (half a unit in each value's last digit), so a\n"
    "                          dataset from elsewhere written with two decimals passes when its\n"
    "                          values are the product rounded to two decimals\n"
    "                   libwb  libwb's own comparison: |expected - product| <= 0.2\n"
    "                   exact  bit for bit the product rounded to float, as tilelab writes it\n"
    "                   libgputk  the labs repository's libgputk since May 2026:\n"
    "                          |expected - product| <= 0.2 + 1e-5 |product|\n"
    "  --threads N    threads for the recomputation (default: one per CPU)\n"
    "\n"
    "exit status: 0 all ok, 1 an expected output is wrong, 2 a file is missing or malformed\n";

typedef struct check_options {
    tl_tolerance rule;
    int threads;
} check_options;

typedef struct totals {
    int ok, wrong, broken;
} totals;

static bool is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void check_one(const char *dir, const check_options *o, totals *t)
{
    tl_dataset_check res;
    tl_error err;
    if (tl_dataset_check_dir(dir, o->rule, &res, o->threads, &err) != 0) {
        fflush(stdout);
        fprintf(stderr, "tilelab: error: %s\n", err.msg);
        t->broken++;
        return;
    }
    cli_print_check_line(dir, &res);
    fflush(stdout);
    if (res.ok)
        t->ok++;
    else
        t->wrong++;
}

/* Numbered folders in numeric order, so 10 follows 9; other names after them, alphabetically. */
static int compare_entries(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    char *ex, *ey;
    long nx = strtol(x, &ex, 10), ny = strtol(y, &ey, 10);
    bool numx = ex != x && !*ex, numy = ey != y && !*ey;
    if (numx && numy)
        return (nx > ny) - (nx < ny);
    if (numx != numy)
        return numx ? -1 : 1;
    return strcmp(x, y);
}

static void check_tree(const char *dir, const check_options *o, int depth, totals *t)
{
    if (cli_is_dataset(dir)) {
        check_one(dir, o, t);
        return;
    }
    DIR *d = depth < 3 ? opendir(dir) : NULL;
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(d);
    if (n > 1)
        qsort(names, n, sizeof *names, compare_entries);
    char path[PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (is_folder(path))
            check_tree(path, o, depth + 1, t);
        free(names[i]);
    }
    free(names);
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {{"threads", required_argument, NULL, 't'},
                                             {"tolerance", required_argument, NULL, 'r'},
                                             {NULL, 0, NULL, 0}};
    check_options o = {TL_TOLERANCE_BOUND, 0};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 't') {
            if (cli_parse_int("--threads", optarg, 1, 1024, &o.threads) != 0)
                return TL_EXIT_BAD_INPUT;
        } else if (c == 'r') {
            if (tl_tolerance_parse(optarg, &o.rule) != 0)
                return cli_fail("--tolerance expects bound, libwb or exact, got \"%s\"", optarg);
        } else {
            return cli_fail("check-dataset: unknown or incomplete option \"%s\" (see --help)",
                            argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_fail("check-dataset: name a dataset folder (see ./tilelab check-dataset --help)");
    totals t = {0, 0, 0};
    for (int i = optind; i < argc; i++) {
        if (!is_folder(argv[i])) {
            cli_fail("%s: not a folder (expected a dataset folder holding input0.raw, "
                     "input1.raw, output.raw)",
                     argv[i]);
            t.broken++;
            continue;
        }
        totals before = t;
        check_tree(argv[i], &o, 0, &t);
        if (t.ok + t.wrong + t.broken == before.ok + before.wrong + before.broken) {
            cli_fail("%s: no dataset found (expected input0.raw, input1.raw and output.raw in it "
                     "or in its numbered folders)",
                     argv[i]);
            t.broken++;
        }
    }
    if (t.ok + t.wrong + t.broken > 1)
        printf("summary: %d ok, %d wrong, %d unreadable\n", t.ok, t.wrong, t.broken);
    if (t.broken)
        return TL_EXIT_BAD_INPUT;
    return t.wrong ? TL_EXIT_WRONG : TL_EXIT_OK;
}

const cli_command cmd_check_dataset = {"check-dataset", "validate datasets (parse, recompute, "
                                                        "compare)",
                                       usage, run};
