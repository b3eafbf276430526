/* The libwb compatibility layer behind wb.h.
 *
 * libwb's API is built on process-wide state (the parsed arguments, the running timers), so this
 * layer keeps one session of it here; tilelab's own API (harness.h) passes everything explicitly. */
#include "wb_session.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const timer_kind_names[] = {"Generic", "IO",      "GPU",     "Copy",
                                               "Driver",  "CopyAsync", "Compute", "CPUGPUOverlap"};

static struct {
    char *program;
    char *inputs_text; /* the -i value, split in place at the commas */
    char **inputs;
    int ninputs;
    tl_phase_log phases;
    bool atexit_registered;
} session;

void tl_wb_reset(void)
{
    free(session.program);
    free(session.inputs_text);
    free(session.inputs);
    bool registered = session.atexit_registered;
    memset(&session, 0, sizeof session);
    session.atexit_registered = registered;
}

static void release_at_exit(void)
{
    tl_wb_reset();
}

const char *wb_session_program(void)
{
    return session.program ? session.program : "program";
}

const tl_phase_log *wb_session_phases(void)
{
    return &session.phases;
}

void wb_die_bad_input(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "tilelab: error: %s\n", msg);
    exit(TL_EXIT_BAD_INPUT);
}

static char *duplicate(const char *text)
{
    size_t len = strlen(text) + 1;
    char *copy = malloc(len);
    if (!copy)
        wb_die_bad_input("out of memory reading the command line");
    return memcpy(copy, text, len);
}

static void split_inputs(const char *list)
{
    session.inputs_text = duplicate(list);
    int count = 1;
    for (const char *p = list; *p; p++)
        count += *p == ',';
    session.inputs = calloc((size_t)count, sizeof *session.inputs);
    if (!session.inputs)
        wb_die_bad_input("out of memory reading the command line");
    char *save = NULL;
    for (char *tok = strtok_r(session.inputs_text, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        session.inputs[session.ninputs++] = tok;
}

wbArg_t tl_wb_arg_read(int argc, char **argv)
{
    tl_wb_reset();
    if (!session.atexit_registered) {
        atexit(release_at_exit);
        session.atexit_registered = true;
    }
    tl_phase_log_init(&session.phases);
    /* libwb's logger keeps every level, TRACE included; TILELAB_LOG can still narrow it. */
    tl_log_set_default_level(TL_LOG_TRACE);
    const char *slash = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
    session.program = duplicate(slash ? slash + 1 : (argc > 0 && argv[0] ? argv[0] : "program"));

    wbArg_t args;
    memset(&args, 0, sizeof args);
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (strcmp(opt, "--json") == 0) {
            args.json = true;
            continue;
        }
        bool known = strcmp(opt, "-i") == 0 || strcmp(opt, "-o") == 0 || strcmp(opt, "-e") == 0 ||
                     strcmp(opt, "-t") == 0;
        if (!known || i + 1 >= argc) {
            char msg[256];
            snprintf(msg, sizeof msg,
                     "%s: %s \"%s\" (usage: %s -i in0[,in1...] -e expected [-o out] [-t type] "
                     "[--json])",
                     session.program, known ? "missing value after" : "unknown option", opt,
                     session.program);
            wb_die_bad_input(msg);
        }
        const char *value = argv[++i];
        switch (opt[1]) {
        case 'i':
            free(session.inputs_text);
            free(session.inputs);
            session.ninputs = 0;
            split_inputs(value);
            break;
        case 'o': args.outputFile = argv[i]; break;
        case 'e': args.expectedOutput = argv[i]; break;
        default:
            if (!wb_type_find(value)) {
                char msg[384];
                snprintf(msg, sizeof msg,
                         "%s: -t \"%.64s\" is not a type wbSolution compares (expected one of: %s)",
                         session.program, value, tl_answer_type_list());
                wb_die_bad_input(msg);
            }
            args.type = argv[i];
            break;
        }
    }
    args.inputCount = session.ninputs;
    args.inputFiles = session.inputs;
    return args;
}

char *tl_wb_arg_input(wbArg_t args, int index)
{
    if (index < 0 || index >= args.inputCount)
        return NULL;
    return args.inputFiles[index];
}

void wb_import_or_die(const char *file, const char *what, tl_import_kind kind, tl_import *out)
{
    if (!file) {
        char msg[128];
        snprintf(msg, sizeof msg, "no %s file was given on the command line", what);
        wb_die_bad_input(msg);
    }
    tl_error err;
    if (tl_import_file(file, kind, out, &err) != 0)
        wb_die_bad_input(err.msg);
}

void wb_read_or_die(const char *file, const char *what, tl_matrix *m)
{
    tl_import imp;
    wb_import_or_die(file, what, TL_IMPORT_REAL, &imp);
    *m = (tl_matrix){imp.rows, imp.cols, imp.data};
}

/* libwb's import types: "Real" (and "float"), "Integer" ("int"), "Text". */
static bool import_kind_of(const char *type, tl_import_kind *kind)
{
    static const struct {
        const char *name;
        tl_import_kind kind;
    } names[] = {{"Real", TL_IMPORT_REAL},       {"float", TL_IMPORT_REAL},
                 {"Integer", TL_IMPORT_INTEGER}, {"int", TL_IMPORT_INTEGER},
                 {"Text", TL_IMPORT_TEXT}};
    *kind = TL_IMPORT_REAL;
    for (size_t i = 0; type && i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(type, names[i].name) == 0) {
            *kind = names[i].kind;
            return true;
        }
    return !type;
}

void *tl_wb_import(const char *file, int *rows, int *cols, const char *type)
{
    tl_import_kind kind;
    if (!import_kind_of(type, &kind)) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: unknown import type \"%s\" (expected Real, Integer or "
                                  "Text)", file ? file : "wbImport", type);
        wb_die_bad_input(msg);
    }
    tl_import imp;
    wb_import_or_die(file, "input", kind, &imp);
    *rows = imp.rows;
    *cols = imp.cols;
    return imp.data;
}

static const char *kind_name(wbTimerKind_t kind)
{
    if ((int)kind < 0 || kind > wbTimerKind_CPUGPUOverlap)
        return "Generic";
    return timer_kind_names[kind];
}

void tl_wb_time_start(wbTimerKind_t kind, const char *msg)
{
    if (tl_phase_start(&session.phases, kind_name(kind), msg) < 0)
        tl_log(TL_LOG_WARN, "wbTime_start(%s, \"%s\"): more than %d timers, not recorded",
               kind_name(kind), msg, TL_MAX_PHASES);
}

void tl_wb_time_stop(wbTimerKind_t kind, const char *msg)
{
    if (tl_phase_stop(&session.phases, kind_name(kind), msg) < 0)
        tl_log(TL_LOG_WARN, "wbTime_stop(%s, \"%s\") without a matching wbTime_start",
               kind_name(kind), msg);
}

void tl_wb_log(wbLogLevel_t level, const char *msg)
{
    if (level == wbLogLevel_OFF)
        return;
    tl_log_set_default_level(TL_LOG_TRACE);
    tl_log((tl_log_level)level, "%s", msg);
}
