/* Inside the libwb layer: what wb_compat.c (arguments, imports, timers, logs) shares with
 * wb_solution.c (wbSolution and the exports) and wb_image.c (wbImage_t). */
#ifndef TILELAB_WB_SESSION_H
#define TILELAB_WB_SESSION_H

#include "wb.h"

/* The program's name and its timers, as wbArg_read started them. */
const char *wb_session_program(void);
const tl_phase_log *wb_session_phases(void);

/* Prints "tilelab: error: MSG" on stderr and ends the program with status 2. */
void wb_die_bad_input(const char *msg)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;
/* tl_import_file, or the end of the program as bad input when no file was given (`what` names
 * the file's role then) or it cannot be imported. */
void wb_import_or_die(const char *file, const char *what, tl_import_kind kind, tl_import *out);
/* Reads a matrix file (tl_import_file's Real) or ends the program as bad input; `what` names
 * the file's role when no file was given. */
void wb_read_or_die(const char *file, const char *what, tl_matrix *m);

/* What a -t type says about the data handed to wbSolution. */
typedef enum wb_data {
    WB_DATA_FLOAT, /* float values */
    WB_DATA_INT,   /* int values, compared exactly */
    WB_DATA_BYTE,  /* unsigned char values, compared exactly */
    WB_DATA_IMAGE  /* a wbImage_t */
} wb_data;

typedef struct wb_type {
    tl_answer_type answer;
    wb_data data;
    tl_tolerance tolerance; /* bound: the error bound applies when the inputs form a product */
} wb_type;

/* The -t type named (any case, as libwb lower-cases it), or NULL for a type tilelab's wbSolution
 * does not compare. NULL `name` (no -t) is a float matrix. */
const wb_type *wb_type_find(const char *name);

/* A run report for wbSolution: the program, its timers, the device, and the dataset (the folder
 * of the expected output). Ends the program as bad input when no -e was given. */
void wb_report_init(wbArg_t args, tl_run_report *report);
/* Prints the report of a checked answer (text, or JSON with --json); `hint` (may be NULL)
 * follows the text. Returns whether the answer passed. */
bool wb_print_verdict(wbArg_t args, const tl_run_report *report, const char *hint);

#endif /* TILELAB_WB_SESSION_H */
