/* tilelab-cli: the program behind ./tilelab. The shell front door handles set-up and `test`;
 * everything else arrives here as `tilelab-cli COMMAND [ARGS...]`. */
#include "cli.h"
#include "runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

static const cli_command *const commands[] = {&cmd_demo,     &cmd_run,      &cmd_diagnose,
                                              &cmd_grade,    &cmd_export,   &cmd_datasets,
                                              &cmd_check_dataset, &cmd_bench, &cmd_predict};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

int cli_fail(const char *fmt, ...)
{
    fflush(stdout);
    fputs("tilelab: error: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return TL_EXIT_BAD_INPUT;
}

int cli_lab_resolve(const char *command, const char *name, bool every_id, runner_lab *out)
{
    tl_error err;
    char names[TL_LAB_NAMES_SIZE];
    int rc = runner_lab_resolve(name, out, &err);
    if (rc == RUNNER_LAB_UNKNOWN && every_id)
        return cli_fail("%s: no lab \"%s\" (labs: %s, or a lab.json)", command, name,
                        tl_lab_names(TL_LAB_NAMES_SPACED, names, sizeof names));
    if (rc == RUNNER_LAB_UNKNOWN)
        return cli_fail("%s: no lab \"%s\" (%s, or a lab.json or the folder holding one)",
                        command, name, tl_lab_names(TL_LAB_NAMES_RANGE, names, sizeof names));
    if (rc != 0 && every_id)
        return cli_fail("%s", err.msg);
    if (rc != 0)
        return cli_fail("%s: %s", command, err.msg);
    return 0;
}

bool cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return true;
        if (strcmp(argv[i], "--") == 0)
            break;
    }
    return false;
}

const char *cli_root(void)
{
    const char *root = getenv("TILELAB_ROOT");
    return root && *root ? root : ".";
}

const char *cli_shown(const char *path)
{
    const char *root = cli_root();
    size_t len = strlen(root);
    if (strcmp(root, ".") != 0 && strncmp(path, root, len) == 0 && path[len] == '/')
        return path + len + 1;
    return path;
}

bool cli_is_dataset(const char *dir)
{
    char path[PATH_MAX + 16];
    struct stat st;
    snprintf(path, sizeof path, "%s/input0.raw", dir);
    return stat(path, &st) == 0;
}

int cli_parse_int(const char *option, const char *text, int min, int max, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max) {
        cli_fail("%s expects a whole number from %d to %d, got \"%s\"", option, min, max, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* "largest deviation N ulps at row R col C", or "bit-exact" when every value is. */
static void format_deviation(char *out, size_t size, const tl_dataset_check *res)
{
    if (res->max_ulps == 0)
        snprintf(out, size, "largest deviation 0 ulps");
    else
        snprintf(out, size, "largest deviation %llu ulps at row %d col %d",
                 (unsigned long long)res->max_ulps, res->max_ulps_row, res->max_ulps_col);
}

void cli_print_check_line(const char *dir, const tl_dataset_check *res)
{
    const char *format = res->format == TL_FORMAT_BINARY ? "binary" : "text";
    const char *rule = tl_tolerance_name(res->rule);
    char deviation[128];
    format_deviation(deviation, sizeof deviation, res);
    if (res->ok && res->rule == TL_TOLERANCE_EXACT)
        printf("%s: ok, exact rule (%dx%dx%d, %s; bit-exact; %.2f s)\n", dir, res->size.m,
               res->size.k, res->size.n, format, res->seconds);
    else if (res->ok)
        printf("%s: ok, %s rule (%dx%dx%d, %s; %s, %.2g of the allowed error; %.2f s)\n", dir,
               rule, res->size.m, res->size.k, res->size.n, format, deviation,
               res->max_error_ratio, res->seconds);
    else
        printf("%s: WRONG expected output: %lld element(s) off under the %s rule; first at %s "
               "(%dx%dx%d, %s; %s)\n",
               dir, (long long)res->bad, rule, res->detail, res->size.m, res->size.k, res->size.n,
               format, deviation);
}

static void print_overview(FILE *out)
{
    fprintf(out,
            "tilelab %s: a lab kit for tiled matrix multiplication in CUDA C\n\n"
            "usage: ./tilelab COMMAND [ARGS...]   (./tilelab COMMAND --help for details)\n\n"
            "commands:\n"
            "  %-14s %s\n",
            TILELAB_VERSION, "test", "build everything and run the whole test suite");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-14s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "  %-14s %s\n\n", "help", "this overview, or `help COMMAND` for one command");
    fprintf(out, "exit status: 0 ok, 1 a result or dataset is wrong, 2 bad input or usage,\n"
                 "3 a build failure, CUDA error or crash\n");
}

static const cli_command *find(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return strcmp(name, cmd_grade_task.name) == 0 ? &cmd_grade_task : NULL;
}

int main(int argc, char **argv)
{
    /* Ctrl-C ends the builds, captures and replays a command started, not only the command. */
    proc_end_children_on_interrupt();
    if (argc < 2) {
        print_overview(stderr);
        return TL_EXIT_BAD_INPUT;
    }
    const char *name = argv[1];
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            const cli_command *cmd = find(argv[2]);
            if (!cmd)
                return cli_fail("no command \"%s\" (see ./tilelab help)", argv[2]);
            tl_lab_names_expand(stdout, cmd->usage);
            return TL_EXIT_OK;
        }
        print_overview(stdout);
        return TL_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("tilelab %s\n", TILELAB_VERSION);
        return TL_EXIT_OK;
    }
    const cli_command *cmd = find(name);
    if (!cmd)
        return cli_fail("no command \"%s\" (see ./tilelab help)", name);
    if (cli_wants_help(argc - 1, argv + 1)) {
        tl_lab_names_expand(stdout, cmd->usage);
        return TL_EXIT_OK;
    }
    return cmd->run(argc - 1, argv + 1);
}
