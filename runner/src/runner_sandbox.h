/* Sandboxes for the runner's children (builds, captures, replays): a bubblewrap command line
 * built up piece by piece, the user a worker slot runs as, and the environment a child gets. */
#ifndef TILELAB_RUNNER_SANDBOX_H
#define TILELAB_RUNNER_SANDBOX_H

#include "runner.h"

#define SANDBOX_MAX_ARGS 256
#define SANDBOX_STORE 16384

typedef struct sandbox {
    bool on;                        /* false: the command runs bare (an explicit choice) */
    char *argv[SANDBOX_MAX_ARGS];
    int argc;
    char store[SANDBOX_STORE];      /* the strings argv points into */
    size_t used;
    bool overflow;
} sandbox;

/* Starts a command line: bubblewrap with every namespace unshared (no network, no other
 * processes, its own session), all capabilities dropped, /usr read-only and /dev/null, or the
 * bare command when c->sandbox is off. */
void sandbox_begin(sandbox *s, const runner_config *c);
void sandbox_bind(sandbox *s, const char *from, const char *to, bool writable);
/* /tmp as a private tmpfs of at most `bytes`; before any bind under /tmp, which it would hide. */
void sandbox_tmp(sandbox *s, uint64_t bytes);
/* The GPU's device nodes and /sys, for a replay on the GPU (the grader's own program). */
void sandbox_gpu(sandbox *s);
void sandbox_chdir(sandbox *s, const char *dir);
/* Appends the command itself; returns the argv to run, or NULL when it did not fit. */
char *const *sandbox_command(sandbox *s, char *const *command);

/* The uid and gid of a worker slot (only used when the runner is root). */
void sandbox_slot_user(int slot, uid_t *uid, gid_t *gid);

/* The environment children get: PATH (with `extra_path` in front when not NULL), HOME and
 * TMPDIR as /tmp, LANG=C, and the GPU selection (CUDA_VISIBLE_DEVICES) when `gpu`. Nothing
 * else of the grader's environment. Returns a static array. */
char *const *sandbox_env(const char *extra_path, bool gpu);

/* A new private folder of the runner's for one step's files: /tmp/tilelab-KIND-XXXXXX, 0700. */
int sandbox_work_dir(char *out, size_t size, const char *kind);

/* Full path of a program on PATH, or NULL. */
const char *sandbox_which(const char *program, char *out, size_t size);

#endif /* TILELAB_RUNNER_SANDBOX_H */
