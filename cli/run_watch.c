/* run --watch. Polling rather than inotify: it also works where files are saved through a
 * rename (most editors), on network and bind-mounted folders, and costs a handful of stat calls
 * a few times a second. */
#include "run_watch.h"

#include "cli.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* How often the files are looked at, and how long they must stay unchanged before a run starts
 * (an editor may write a file in several steps). */
#define WATCH_POLL_MS 250
#define WATCH_SETTLE_MS 300

static bool watched(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0 || strcmp(dot, ".h") == 0);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h;
}

/* A fingerprint of the watched files: names, sizes and modification times. 0 when the folder
 * cannot be read. */
static uint64_t fingerprint(const char *folder, const char *source)
{
    DIR *d = opendir(folder);
    if (!d)
        return 0;
    uint64_t h = 1;
    struct stat st;
    if (stat(source, &st) == 0)
        h = mix(h, (uint64_t)st.st_size ^ (uint64_t)st.st_mtim.tv_sec * 1000000007u ^
                       (uint64_t)st.st_mtim.tv_nsec);
    for (struct dirent *e; (e = readdir(d));) {
        if (!watched(e->d_name))
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", folder, e->d_name) >= (int)sizeof path ||
            stat(path, &st) != 0)
            continue;
        uint64_t name = 0;
        for (const char *p = e->d_name; *p; p++)
            name = name * 131 + (unsigned char)*p;
        /* Added, not mixed: the order readdir gives does not matter. */
        h += mix(name, (uint64_t)st.st_size ^ (uint64_t)st.st_mtim.tv_sec * 1000000007u ^
                           (uint64_t)st.st_mtim.tv_nsec);
    }
    closedir(d);
    return h;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int run_watch(const char *source, int (*once)(void *ctx), void *ctx)
{
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", source);
    char *slash = strrchr(folder, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(folder, sizeof folder, ".");
    for (;;) {
        uint64_t before = fingerprint(folder, source);
        int status = once(ctx);
        if (before == 0)
            return status;
        printf("\nwatching %s (and the .cu/.cuh/.h files beside it): save to run again, Ctrl-C "
               "to stop\n", cli_shown(source));
        fflush(stdout);
        uint64_t now = before;
        while ((now = fingerprint(folder, source)) == before)
            sleep_ms(WATCH_POLL_MS);
        /* Until it holds still. */
        for (uint64_t settled = 0; settled != now;) {
            settled = now;
            sleep_ms(WATCH_SETTLE_MS);
            now = fingerprint(folder, source);
        }
        printf("\n---- %s changed: running again ----\n", cli_shown(source));
        fflush(stdout);
    }
}
