/* The verdict vocabulary every command shares. */
#include "runner.h"

#include <string.h>

static const struct {
    const char *name, *label;
    int exit_status;
} verdicts[TL_VERDICT_COUNT] = {
    [TL_VERDICT_PASS] = {"pass", "PASS", TL_EXIT_OK},
    [TL_VERDICT_WRONG] = {"wrong", "WRONG", TL_EXIT_WRONG},
    [TL_VERDICT_UNSAFE] = {"unsafe", "UNSAFE", TL_EXIT_WRONG},
    [TL_VERDICT_TIMEOUT] = {"timeout", "TIMEOUT", TL_EXIT_CRASH},
    [TL_VERDICT_CRASH] = {"crash", "CRASH", TL_EXIT_CRASH},
    [TL_VERDICT_BUILD_FAILED] = {"build-failed", "BUILD FAILED", TL_EXIT_CRASH},
    [TL_VERDICT_BAD_INPUT] = {"bad-input", "BAD INPUT", TL_EXIT_BAD_INPUT},
    [TL_VERDICT_REFUSED] = {"refused", "REFUSED", TL_EXIT_CRASH},
    [TL_VERDICT_UNSUPPORTED] = {"unsupported", "UNSUPPORTED", TL_EXIT_CRASH},
    [TL_VERDICT_ERROR] = {"error", "ERROR", TL_EXIT_CRASH},
};

static bool valid(tl_verdict v) { return v >= TL_VERDICT_PASS && v < TL_VERDICT_COUNT; }

const char *tl_verdict_name(tl_verdict v) { return valid(v) ? verdicts[v].name : "error"; }

const char *tl_verdict_label(tl_verdict v) { return valid(v) ? verdicts[v].label : "ERROR"; }

bool tl_verdict_parse(const char *name, tl_verdict *out)
{
    for (int v = 0; v < TL_VERDICT_COUNT; v++) {
        if (strcmp(name, verdicts[v].name) == 0) {
            *out = (tl_verdict)v;
            return true;
        }
    }
    return false;
}

int tl_verdict_exit_status(tl_verdict v)
{
    return valid(v) ? verdicts[v].exit_status : TL_EXIT_CRASH;
}

/* Pass < wrong < everything else, which keeps its order in the enumeration. */
static int severity(tl_verdict v) { return v == TL_VERDICT_PASS ? 0 : v == TL_VERDICT_WRONG ? 1 : 1 + v; }

tl_verdict tl_verdict_worst(tl_verdict a, tl_verdict b) { return severity(b) > severity(a) ? b : a; }
