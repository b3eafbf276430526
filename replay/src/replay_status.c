/* The replayer's statuses (replay_protocol.h): one row each, its name on the wire and the
 * verdict the runner gives it. */
#include "replay_protocol.h"

#include <string.h>

static const struct {
    const char *name;
    tl_verdict verdict;
} statuses[REPLAY_STATUS_COUNT] = {
    [REPLAY_STATUS_OK] = {"ok", TL_VERDICT_PASS},
    [REPLAY_STATUS_CRASH] = {"crash", TL_VERDICT_CRASH},
    [REPLAY_STATUS_BAD_INPUT] = {"bad-input", TL_VERDICT_BAD_INPUT},
    [REPLAY_STATUS_UNSUPPORTED] = {"unsupported", TL_VERDICT_UNSUPPORTED},
    [REPLAY_STATUS_TIMEOUT] = {"timeout", TL_VERDICT_TIMEOUT},
    /* The grader asked for a call the submission does not make: nothing to judge. */
    [REPLAY_STATUS_MISSING] = {"missing", TL_VERDICT_REFUSED},
    /* The program did run: it produced no answer, which is a wrong one. */
    [REPLAY_STATUS_UNANSWERED] = {"unanswered", TL_VERDICT_WRONG},
    [REPLAY_STATUS_REFUSED] = {"refused", TL_VERDICT_REFUSED},
    [REPLAY_STATUS_ERROR] = {"error", TL_VERDICT_ERROR},
};

static bool valid(replay_status s) { return s >= REPLAY_STATUS_OK && s < REPLAY_STATUS_COUNT; }

const char *replay_status_name(replay_status s)
{
    return statuses[valid(s) ? s : REPLAY_STATUS_ERROR].name;
}

replay_status replay_status_parse(const char *name)
{
    for (int s = 0; name && s < REPLAY_STATUS_COUNT; s++)
        if (strcmp(name, statuses[s].name) == 0)
            return (replay_status)s;
    return REPLAY_STATUS_ERROR;
}

tl_verdict replay_status_verdict(replay_status s)
{
    return statuses[valid(s) ? s : REPLAY_STATUS_ERROR].verdict;
}
