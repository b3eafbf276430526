/* A lab file made ready to be replayed, for run and diagnose: configured, built and captured
 * for the shapes of the datasets it will meet, with the progress lines a student sees. */
#ifndef TILELAB_CLI_SESSION_H
#define TILELAB_CLI_SESSION_H

#include "runner.h"

typedef struct session {
    runner_config config;
    runner_program program;
    runner_capture capture;
    runner_outcome outcome;  /* of the build, then of the capture: pass when both worked */
    bool captured;
} session;

typedef struct session_options {
    runner_backend backend;
    int timeout;             /* seconds a replay may take */
    int reps;
    bool device_debug;
    bool no_sandbox;         /* asked for by the user */
    bool quiet;              /* no progress on stderr */
} session_options;

/* Reads the product shape of a dataset folder from its inputs; -1 with err on bad input. */
int session_dataset_shape(const char *dir, tl_size *out, tl_error *err);

/* Builds `source` and captures it for the shapes. Returns 0 when the kit did its part (the
 * outcome says whether the file built and captured), -1 when the kit failed (err). */
int session_open(session *s, const session_options *o, const char *source, const tl_size *shapes,
                 int nshapes, tl_error *err);
void session_close(session *s);

/* Prints a build failure or a refusal: the verdict, its detail and the compiler's messages,
 * made safe for a terminal. */
void session_print_outcome(const session *s, const char *source_shown);

#endif /* TILELAB_CLI_SESSION_H */
