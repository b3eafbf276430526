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

/* Builds `source` and captures it for the shapes. Returns 0 when the kit did its part (the
 * outcome says whether the file built and captured), -1 when the kit failed (err). */
int session_open(session *s, const session_options *o, const char *source, const tl_size *shapes,
                 int nshapes, tl_error *err);
void session_close(session *s);

/* Prints a build failure or a refusal: the verdict, its detail and the compiler's messages,
 * made safe for a terminal. */
void session_print_outcome(const session *s, const char *source_shown);
/* The same for a build's outcome alone (no capture). */
void session_print_failure(const runner_outcome *o, const char *source_shown);

/* One prediction's line: "  yours  2.264 ms  7588 GFLOP/s  bound by ... (N blocks per SM, R
 * registers)", or why there is none. */
void session_print_prediction(const char *who, const runner_prediction *p);
/* The size run and diagnose predict an H100's time at: the grader's default performance size. */
tl_size session_predicted_size(const tl_lab *lab);
/* Prints the performance model's prediction for the session's file at that size (lab 05: and
 * for the baseline), as "predicted on an H100 at ...: X ms ... bound by ...". The session must
 * have been captured for that size too. */
void session_print_predictions(const session *s, const tl_lab *lab);

#endif /* TILELAB_CLI_SESSION_H */
