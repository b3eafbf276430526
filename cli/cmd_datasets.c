/* tilelab datasets: write (and optionally check) the datasets of one lab or of every lab. */
#include "cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CUSTOM_SIZES 64

static const char usage[] =
    "usage: ./tilelab datasets LAB|all [options]\n"
    "       ./tilelab datasets kit-labs [--out DIR] [--seed N] [--force]\n"
    "\n"
    "Writes datasets in libwb's layout: DIR/<i>/input0.raw (A), input1.raw (B), output.raw (the\n"
    "expected A*B). Inputs come from a seeded generator; expected outputs are computed in double\n"
    "precision and rounded once to float. The same lab, seed and size give byte-identical files on\n"
    "any machine, so regenerating the shipped datasets reports them unchanged.\n"
    "\n"
    "  LAB             {lab-commas} (or 01, 2, tiled, ...), or `all` for every lab\n"
    "  kit-labs        the datasets of examples/kit-labs, tilelab's versions of the GPU Teaching\n"
    "                  Kit's labs (vector-add, basic-matmul, tiled-matmul, list-scan, histogram,\n"
    "                  reduction, convolution), in the kit's formats (text vectors and matrices,\n"
    "                  a CSV mask, PPM images), expected outputs written as the kit writes them.\n"
    "                  Written to DIR/LAB/<i> with --out; otherwise, for seed 0, into the examples\n"
    "                  (examples/kit-labs/LAB/datasets/<i>), and for another seed into\n"
    "                  private-datasets/kit-labs/seed-N/LAB/<i>. Takes --out, --seed, --force\n"
    "  --seed N        generator seed (default 0: the shipped datasets). For hidden grading\n"
    "                  datasets pick a secret seed: their folders are made 0700 and files 0600\n"
    "  --out DIR       where to write. Default: datasets/LAB for seed 0 and the lab's table,\n"
    "                  otherwise private-datasets/LAB/seed-N (ignored by git: keep it from students)\n"
    "  --size MxKxN    a size of your own instead of the lab's table (repeatable); A is MxK, B is\n"
    "                  KxN; a single number N means NxNxN\n"
    "  --large         also write the table's large sizes (a dimension >= 1024) into DIR/large/<i>\n"
    "  --format F      text or binary (default: text below 1024, binary for large sizes)\n"
    "  --check         check each dataset after writing it, as check-dataset --tolerance exact\n"
    "                  does (what tilelab writes must be bit-exact)\n"
    "  --force         replace existing files whose content differs (default: refuse and keep them)\n"
    "  --threads N     threads for the reference product (default: one per CPU)\n"
    "\n"
    "examples:\n"
    "  ./tilelab datasets all --large --check        every lab's table, large sizes too, checked\n"
    "  ./tilelab datasets 03 --seed 8191            hidden datasets for lab 03\n"
    "  ./tilelab datasets 04 --size 300x7x11 --out /tmp/mine\n"
    "  ./tilelab datasets kit-labs --seed 77 --out /tmp/kit   hidden ones for the kit's labs\n"
    "\n"
    "exit status: 0 all written (and checked), 1 a check failed, 2 bad usage or a file refused\n";

typedef struct options {
    uint64_t seed;
    bool seed_given;
    const char *out;
    tl_size sizes[MAX_CUSTOM_SIZES];
    int nsizes;
    bool large, check, force, format_given;
    tl_format format;
    int threads;
} options;

typedef struct tally {
    int written, created, unchanged, replaced, refused, checked_ok, checked_wrong;
    double seconds;
} tally;

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"seed", required_argument, NULL, 's'},   {"out", required_argument, NULL, 'o'},
        {"size", required_argument, NULL, 'z'},   {"large", no_argument, NULL, 'L'},
        {"format", required_argument, NULL, 'f'}, {"check", no_argument, NULL, 'c'},
        {"force", no_argument, NULL, 'F'},        {"threads", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        tl_error err;
        switch (c) {
        case 's': {
            char *end = NULL;
            o->seed = strtoull(optarg, &end, 0);
            if (end == optarg || *end || optarg[0] == '-')
                return cli_fail("--seed expects a non-negative whole number, got \"%s\"", optarg);
            o->seed_given = true;
            break;
        }
        case 'o': o->out = optarg; break;
        case 'z':
            if (o->nsizes == MAX_CUSTOM_SIZES)
                return cli_fail("at most %d --size options", MAX_CUSTOM_SIZES);
            if (tl_size_parse(optarg, &o->sizes[o->nsizes], &err) != 0)
                return cli_fail("--size: %s", err.msg);
            o->nsizes++;
            break;
        case 'L': o->large = true; break;
        case 'c': o->check = true; break;
        case 'F': o->force = true; break;
        case 'f':
            if (strcmp(optarg, "text") == 0)
                o->format = TL_FORMAT_TEXT;
            else if (strcmp(optarg, "binary") == 0)
                o->format = TL_FORMAT_BINARY;
            else
                return cli_fail("--format expects text or binary, got \"%s\"", optarg);
            o->format_given = true;
            break;
        case 't':
            if (cli_parse_int("--threads", optarg, 1, 1024, &o->threads) != 0)
                return TL_EXIT_BAD_INPUT;
            break;
        default:
            return cli_fail("datasets: unknown or incomplete option \"%s\" (see --help)",
                            argv[optind - 1]);
        }
    }
    return TL_EXIT_OK;
}

static const char *outcome_name(tl_write_outcome o)
{
    switch (o) {
    case TL_WRITE_CREATED: return "created";
    case TL_WRITE_UNCHANGED: return "unchanged";
    default: return "replaced";
    }
}

static void count_written(tally *t, const tl_gen_result *res)
{
    t->written++;
    t->seconds += res->seconds;
    t->created += res->outcome == TL_WRITE_CREATED;
    t->unchanged += res->outcome == TL_WRITE_UNCHANGED;
    t->replaced += res->outcome == TL_WRITE_REPLACED;
}

static void one_dataset(const options *o, const char *dir, int index, tl_size size,
                        const char *progress, tally *t)
{
    /* A secret seed makes hidden datasets: for the instructor's eyes only. */
    tl_gen_options g = {o->seed, o->format, o->force, o->threads, o->seed_given && o->seed != 0};
    if (!o->format_given)
        g.format = tl_size_is_large(size) ? TL_FORMAT_BINARY : TL_FORMAT_TEXT;
    if (tl_size_is_large(size)) {
        /* Large ones take seconds: say what is happening before it happens. */
        fprintf(stderr, "%s %s: generating %dx%dx%d ...\n", progress, cli_shown(dir), size.m, size.k,
                size.n);
    }
    tl_gen_result res;
    tl_error err;
    if (tl_dataset_generate(dir, index, size, &g, &res, &err) != 0) {
        fflush(stdout);
        fprintf(stderr, "%s tilelab: error: %s\n", progress, err.msg);
        t->refused++;
        return;
    }
    count_written(t, &res);
    printf("%s %s: %dx%dx%d %s %s (%.2f s)\n", progress, cli_shown(dir), size.m, size.k, size.n,
           g.format == TL_FORMAT_BINARY ? "binary" : "text", outcome_name(res.outcome),
           res.seconds);
    if (o->check) {
        tl_dataset_check chk;
        if (tl_dataset_check_dir(dir, TL_TOLERANCE_EXACT, &chk, o->threads, &err) != 0) {
            fprintf(stderr, "%s tilelab: error: %s\n", progress, err.msg);
            t->checked_wrong++;
            return;
        }
        fputs("        check: ", stdout);
        cli_print_check_line(cli_shown(dir), &chk);
        t->seconds += chk.seconds;
        if (chk.ok)
            t->checked_ok++;
        else
            t->checked_wrong++;
    }
    fflush(stdout);
}

/* The folder for one lab: --out (with `all`: --out/LAB), the shipped folder, or the private one. */
static void lab_folder(const options *o, const tl_lab *lab, bool all, char *out, size_t size)
{
    bool shipped = !o->seed_given || o->seed == 0;
    if (o->out && all)
        snprintf(out, size, "%s/%s", o->out, lab->id);
    else if (o->out)
        snprintf(out, size, "%s", o->out);
    else if (shipped && o->nsizes == 0)
        snprintf(out, size, "%s/datasets/%s", cli_root(), lab->id);
    else
        snprintf(out, size, "%s/private-datasets/%s/seed-%" PRIu64, cli_root(), lab->id, o->seed);
}

static void count_jobs(const options *o, const tl_lab *lab, int *total)
{
    if (o->nsizes) {
        *total += o->nsizes;
        return;
    }
    for (int i = 0; i < lab->nsizes; i++)
        *total += o->large || !tl_size_is_large(lab->sizes[i]);
}

static void run_lab(const options *o, const tl_lab *lab, bool all, int *done, int total, tally *t)
{
    char base[PATH_MAX - 64], dir[PATH_MAX], progress[32];
    lab_folder(o, lab, all, base, sizeof base);
    int small_index = 0, large_index = 0;
    int count = o->nsizes ? o->nsizes : lab->nsizes;
    for (int i = 0; i < count; i++) {
        tl_size size = o->nsizes ? o->sizes[i] : lab->sizes[i];
        bool large = !o->nsizes && tl_size_is_large(size);
        if (large && !o->large)
            continue;
        int index = large ? large_index++ : small_index++;
        snprintf(dir, sizeof dir, large ? "%s/large/%d" : "%s/%d", base, index);
        snprintf(progress, sizeof progress, "[%d/%d]", ++*done, total);
        /* The generator's stream index counts table entries, so large sizes never collide. */
        one_dataset(o, dir, large ? 1000 + index : index, size, progress, t);
    }
    if (!o->out && (o->seed_given && o->seed != 0))
        printf("note: %s is ignored by git; keep hidden datasets away from students\n",
               cli_shown(base));
}

/* The closing line, and the exit status of the whole run. */
static int summary(const options *o, const tally *t, bool lab_tables)
{
    printf("\nsummary: %d dataset(s) written (%d created, %d unchanged, %d replaced)", t->written,
           t->created, t->unchanged, t->replaced);
    if (o->check)
        printf(", %d checked ok, %d wrong", t->checked_ok, t->checked_wrong);
    if (t->refused)
        printf(", %d refused", t->refused);
    printf(" in %.1f s\n", t->seconds);
    if (lab_tables && !o->large && !o->nsizes)
        printf("(large sizes skipped: add --large to write them)\n");
    if (t->refused)
        return TL_EXIT_BAD_INPUT;
    return t->checked_wrong ? TL_EXIT_WRONG : TL_EXIT_OK;
}

/* The examples of the kit's labs: every dataset of every lab, in the layout of --help. */
static int run_kit_labs(const options *o, tally *t)
{
    if (o->nsizes || o->large || o->check || o->format_given || o->threads)
        return cli_fail("datasets kit-labs: takes --out, --seed and --force only (see --help)");
    const bool hidden = o->seed_given && o->seed != 0;
    const tl_gen_options g = {o->seed, TL_FORMAT_TEXT, o->force, 0, hidden};
    int total = 0, done = 0;
    for (int lab = 0; lab < tl_kit_lab_count(); lab++)
        total += tl_kit_lab_datasets(lab);
    char base[PATH_MAX - 64], dir[PATH_MAX], shape[64];
    if (o->out)
        snprintf(base, sizeof base, "%s", o->out);
    else if (hidden)
        snprintf(base, sizeof base, "%s/private-datasets/kit-labs/seed-%" PRIu64, cli_root(),
                 o->seed);
    else
        snprintf(base, sizeof base, "%s/examples/kit-labs", cli_root());
    for (int lab = 0; lab < tl_kit_lab_count(); lab++) {
        for (int i = 0; i < tl_kit_lab_datasets(lab); i++) {
            snprintf(dir, sizeof dir, o->out || hidden ? "%s/%s/%d" : "%s/%s/datasets/%d", base,
                     tl_kit_lab_name(lab), i);
            tl_gen_result res;
            tl_error err;
            ++done;
            if (tl_kit_dataset_generate(lab, i, dir, &g, &res, shape, sizeof shape, &err) != 0) {
                fflush(stdout);
                fprintf(stderr, "[%d/%d] tilelab: error: %s\n", done, total, err.msg);
                t->refused++;
                continue;
            }
            count_written(t, &res);
            printf("[%d/%d] %s: %s %s (%.2f s)\n", done, total, cli_shown(dir), shape,
                   outcome_name(res.outcome), res.seconds);
        }
    }
    if (hidden && !o->out)
        printf("note: %s is ignored by git; keep hidden datasets away from students\n",
               cli_shown(base));
    return TL_EXIT_OK;
}

static int run(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != TL_EXIT_OK)
        return rc;
    if (optind >= argc)
        return cli_fail("datasets: name a lab or `all` (see ./tilelab datasets --help)");
    if (optind + 1 < argc)
        return cli_fail("datasets: one lab at a time, got \"%s\" and \"%s\"", argv[optind],
                        argv[optind + 1]);
    const char *which = argv[optind];
    tally t;
    memset(&t, 0, sizeof t);
    const bool kit = strcmp(which, "kit-labs") == 0;
    if (kit && (rc = run_kit_labs(&o, &t)) != TL_EXIT_OK)
        return rc;
    if (kit)
        return summary(&o, &t, false);
    bool all = strcmp(which, "all") == 0;
    int nlabs = 0;
    const tl_lab *labs = tl_labs(&nlabs);
    const tl_lab *one = all ? NULL : tl_lab_find(which);
    char names[TL_LAB_NAMES_SIZE];
    if (!all && !one)
        return cli_fail("datasets: no lab \"%s\" (labs: %s, or all, or kit-labs)", which,
                        tl_lab_names(TL_LAB_NAMES_SPACED, names, sizeof names));
    if (all && o.nsizes)
        return cli_fail("datasets: --size applies to one lab, not `all`");

    int total = 0, done = 0;
    for (int i = 0; i < nlabs; i++)
        if (all || &labs[i] == one)
            count_jobs(&o, &labs[i], &total);
    for (int i = 0; i < nlabs; i++)
        if (all || &labs[i] == one)
            run_lab(&o, &labs[i], all, &done, total, &t);
    return summary(&o, &t, true);
}

const cli_command cmd_datasets = {"datasets", "generate a lab's datasets (for TAs)", usage, run};
