/* Inside the libwb layer: what wb_compat.c (arguments, imports, timers, logs) shares with
 * wb_solution.c (wbSolution and the exports). */
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
/* Reads a matrix file or ends the program as bad input; `what` names the file's role when no
 * file was given. */
void wb_read_or_die(const char *file, const char *what, tl_matrix *m);

/* What a -t type says about the data handed to wbSolution. */
typedef enum wb_data {
    WB_DATA_FLOAT, /* float values */
    WB_DATA_INT,   /* int values, compared exactly */
    WB_DATA_BYTE   /* unsigned char values, compared exactly */
} wb_data;

typedef struct wb_type {
    const char *name;  /* as on the command line, lower case */
    wb_data data;
    bool product;      /* the error bound applies when the inputs form a product */
} wb_type;

/* The -t type named (case-insensitive, as libwb lower-cases it), or NULL for a type tilelab's
 * wbSolution does not compare. NULL `name` (no -t) is a float matrix. */
const wb_type *wb_type_find(const char *name);
/* "vector, matrix, ..." for messages. */
const char *wb_type_list(void);

#endif /* TILELAB_WB_SESSION_H */
