/* Worker slots leased host-wide: two processes never hold one slot, a process that ends (even
 * killed) frees its slots, and a lock folder that cannot be used is said. */
#include <criterion/criterion.h>

#include "runner.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/tilelab-slots-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    setenv("TILELAB_SLOT_LOCKS", dir, 1);
}

static void remove_dir(void)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_assert_eq(system(command), 0);
}

TestSuite(slots, .init = make_dir, .fini = remove_dir);

/* A child that leases `wanted` slots, tells them (*got of them in slots[]) and holds them until
 * it is ended. */
static pid_t holder(int wanted, int *got, int slots[RUNNER_MAX_SLOTS])
{
    int up[2], hold[2];
    cr_assert_eq(pipe(up), 0);
    cr_assert_eq(pipe(hold), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        runner_slots s;
        char why[256];
        runner_slots_lease(&s, wanted, why, sizeof why);
        if (write(up[1], &s.count, sizeof s.count) != sizeof s.count ||
            write(up[1], s.slot, sizeof s.slot) != sizeof s.slot)
            _exit(1);
        char c;
        while (read(hold[0], &c, 1) > 0) /* until the parent closes or kills it */
            ;
        _exit(0);
    }
    close(up[1]);
    close(hold[0]);
    cr_assert_eq(read(up[0], got, sizeof *got), (ssize_t)sizeof *got);
    cr_assert_eq(read(up[0], slots, sizeof(int) * RUNNER_MAX_SLOTS),
                 (ssize_t)(sizeof(int) * RUNNER_MAX_SLOTS));
    close(up[0]);
    return pid;
}

static void end(pid_t pid, int signal)
{
    kill(pid, signal);
    cr_assert_eq(waitpid(pid, NULL, 0), pid);
}

static bool shared(const runner_slots *s, const int *other, int count)
{
    for (int i = 0; i < s->count; i++)
        for (int j = 0; j < count; j++)
            if (s->slot[i] == other[j])
                return true;
    return false;
}

Test(slots, two_gradings_at_once_get_different_slots)
{
    runner_slots mine;
    char why[256];
    cr_assert_eq(runner_slots_lease(&mine, 4, why, sizeof why), 4, "%s", why);
    int got, theirs[RUNNER_MAX_SLOTS];
    pid_t other = holder(4, &got, theirs);
    cr_assert_eq(got, 4);
    cr_assert_not(shared(&mine, theirs, got), "two gradings hold one slot");
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            cr_assert_neq(mine.slot[i], mine.slot[j]);
    end(other, SIGTERM);
    runner_slots_release(&mine);
}

Test(slots, fewer_when_others_hold_most_and_freed_when_their_holder_dies)
{
    int got, theirs[RUNNER_MAX_SLOTS];
    pid_t other = holder(RUNNER_MAX_SLOTS - 2, &got, theirs);
    cr_assert_eq(got, RUNNER_MAX_SLOTS - 2);
    runner_slots mine, more;
    char why[256];
    cr_assert_eq(runner_slots_lease(&mine, 4, why, sizeof why), 2, "the 2 free slots, not shared ones");
    cr_assert_not(shared(&mine, theirs, got));
    end(other, SIGKILL); /* killed: its slots are free all the same */
    cr_assert_eq(runner_slots_lease(&more, 4, why, sizeof why), 4);
    cr_assert_not(shared(&more, mine.slot, mine.count), "a slot this process already holds");
    runner_slots_release(&more);
    runner_slots_release(&mine);
    cr_assert_eq(runner_slots_lease(&mine, RUNNER_MAX_SLOTS, why, sizeof why), RUNNER_MAX_SLOTS);
    runner_slots_release(&mine);
}

Test(slots, a_process_keeps_its_own_slot)
{
    int own = runner_own_slot();
    cr_assert(own >= 0 && own < RUNNER_MAX_SLOTS);
    cr_assert_eq(runner_own_slot(), own);
    int got, theirs[RUNNER_MAX_SLOTS];
    pid_t other = holder(RUNNER_MAX_SLOTS - 1, &got, theirs);
    cr_assert_eq(got, RUNNER_MAX_SLOTS - 1, "every slot but this process's own");
    end(other, SIGTERM);
}

Test(slots, a_lock_folder_that_cannot_be_made_is_said)
{
    setenv("TILELAB_SLOT_LOCKS", "/nonexistent-tilelab/slots", 1);
    runner_slots s;
    char why[256];
    cr_assert_eq(runner_slots_lease(&s, 2, why, sizeof why), 0);
    cr_assert(strstr(why, "cannot make /nonexistent-tilelab/slots"), "%s", why);
    setenv("TILELAB_SLOT_LOCKS", dir, 1);
}
