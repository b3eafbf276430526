/* run --watch: run, then wait for the student's file (or a header beside it) to be saved, and
 * run again, until interrupted. */
#ifndef TILELAB_CLI_RUN_WATCH_H
#define TILELAB_CLI_RUN_WATCH_H

/* Calls once(ctx) now and after every change to `source` or to a .cu, .cuh or .h file in its
 * folder, printing between runs what it waits for. Returns only when it cannot watch (the
 * folder cannot be read): then the status of the last run. */
int run_watch(const char *source, int (*once)(void *ctx), void *ctx);

#endif /* TILELAB_CLI_RUN_WATCH_H */
