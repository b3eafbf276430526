/* tilelab check-dataset: validate datasets a TA made or received. */
#include "cli.h"

#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: ./tilelab check-dataset DIR... [--threads N]\n"
    "\n"
    "Validates datasets in libwb's layout. DIR is one dataset (a folder holding input0.raw,\n"
    "input1.raw and output.raw) or a folder of them (e.g. datasets/03-arbitrary, whose numbered\n"
    "folders and large/ folder are all checked). For each dataset: parses every file (text or\n"
    "binary), checks that A (m x k), B (k x n) and the output (m x n) fit together, recomputes A*B\n"
    "in double precision and checks every expected value against it. One line per dataset.\n"
    "\n"
    "  --threads N   threads for the recomputation (default: one per CPU)\n"
    "\n"
    "exit status: 0 all ok, 1 an expected output is wrong, 2 a file is missing or malformed\n";

typedef struct totals {
    int ok, wrong, broken;
} totals;

static bool is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void check_one(const char *dir, int threads, totals *t)
{
    tl_dataset_check res;
    tl_error err;
    if (tl_dataset_check_dir(dir, &res, threads, &err) != 0) {
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

static void check_tree(const char *dir, int threads, int depth, totals *t)
{
    if (cli_is_dataset(dir)) {
        check_one(dir, threads, t);
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
            check_tree(path, threads, depth + 1, t);
        free(names[i]);
    }
    free(names);
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {{"threads", required_argument, NULL, 't'},
                                             {NULL, 0, NULL, 0}};
    int threads = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 't') {
            if (cli_parse_int("--threads", optarg, 1, 1024, &threads) != 0)
                return TL_EXIT_BAD_INPUT;
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
        check_tree(argv[i], threads, 0, &t);
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
