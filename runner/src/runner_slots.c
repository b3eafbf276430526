/* Worker slots leased host-wide: a lock file per slot, held with flock for as long as the
 * process (and the workers it forks) lives, so that gradings running at once on one host never
 * run as the same slot user and so never share one process limit. */
#define _GNU_SOURCE /* O_CLOEXEC with _POSIX_C_SOURCE's headers */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char *runner_slot_lock_dir(void)
{
    const char *dir = getenv("TILELAB_SLOT_LOCKS");
    return dir && *dir ? dir : RUNNER_SLOT_LOCK_DIR;
}

/* The lock folder, made if missing: open to every user, sticky, as /run/lock is (a grading run
 * by another user leases there too; only a file's owner may remove it). */
static int lock_dir(char *why, size_t why_size)
{
    const char *dir = runner_slot_lock_dir();
    if (mkdir(dir, 01777) == 0)
        chmod(dir, 01777); /* mkdir's mode is masked by the umask */
    else if (errno != EEXIST) {
        snprintf(why, why_size, "cannot make %.300s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* The lock file of `slot`, held (descriptor >= 0) when no other process holds it. */
static int try_slot(int slot, bool wait)
{
    char path[4400];
    snprintf(path, sizeof path, "%.4000s/slot-%d.lock", runner_slot_lock_dir(), slot);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0)
        return -1;
    fchmod(fd, 0666); /* another user's grading may lease it after this one */
    int rc;
    do
        rc = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int runner_slots_lease(runner_slots *s, int wanted, char *why, size_t why_size)
{
    memset(s, 0, sizeof *s);
    why[0] = '\0';
    if (wanted > RUNNER_MAX_SLOTS)
        wanted = RUNNER_MAX_SLOTS;
    if (lock_dir(why, why_size) != 0)
        return 0;
    /* From a place of this process's own, so that gradings starting together seldom try the
     * same files first. */
    int first = (int)(getpid() % RUNNER_MAX_SLOTS);
    for (int i = 0; i < RUNNER_MAX_SLOTS && s->count < wanted; i++) {
        int slot = (first + i) % RUNNER_MAX_SLOTS;
        int fd = try_slot(slot, false);
        if (fd >= 0) {
            s->slot[s->count] = slot;
            s->fd[s->count++] = fd;
        }
    }
    if (s->count == 0 && wanted > 0) {
        /* Every slot is held: wait for this one's holder to end rather than share its limit. */
        int fd = try_slot(first, true);
        if (fd >= 0) {
            s->slot[0] = first;
            s->fd[0] = fd;
            s->count = 1;
        } else
            snprintf(why, why_size, "cannot lock %.300s/slot-%d.lock: %s",
                     runner_slot_lock_dir(), first, strerror(errno));
    }
    return s->count;
}

void runner_slots_release(runner_slots *s)
{
    for (int i = 0; i < s->count; i++)
        close(s->fd[i]);
    s->count = 0;
}

int runner_own_slot(void)
{
    static runner_slots own;
    static int slot = -1;
    if (slot >= 0)
        return slot;
    char why[512];
    if (runner_slots_lease(&own, 1, why, sizeof why) == 1)
        slot = own.slot[0];
    else {
        fprintf(stderr, "warning: no worker slot of its own (%s): this process's sandboxes may "
                        "share a process limit with another's\n", why);
        slot = (int)(getpid() % RUNNER_MAX_SLOTS);
    }
    return slot;
}
