/* cp.async..., mbarrier... and nanosleep: opcode words to pre-decoded fields, and their
 * operands' shapes, for the parser (async.c runs them). Kept apart from the interpreter: code
 * that only reads modules links without it. */
#include "decode.h"

#include <string.h>

static const int cp_sizes[] = {4, 8, 16}; /* cp.async copies 4, 8 or 16 bytes */

/* ---- decoding ---- */

/* The words after "cp.async." or "mbarrier.": each piece's meaning, then the combination. */
typedef struct async_words {
    int spaces[2], nspaces;
    bool copy, bulk, mbarrier, arrive, noinc, complete_tx, bulk_group, commit, wait_group, wait_all;
    bool prefetch;
} async_words;

static int space_of(const char *m)
{
    if (strcmp(m, "shared") == 0 || strcmp(m, "shared::cta") == 0 ||
        strcmp(m, "shared::cluster") == 0)
        return SP_SHARED; /* a cluster of one block: the block's own shared memory */
    return strcmp(m, "global") == 0 ? SP_GLOBAL : -1;
}

/* Cache and ordering qualifiers, which change nothing here. */
static bool ignorable(const char *m)
{
    static const char *const words[] = {"ca", "cg", "L2::64B", "L2::128B", "L2::256B", "release",
                                        "acquire", "relaxed", "cta", "cluster", "b64", "u32",
                                        "noComplete", "read", "L2", NULL};
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], m) == 0)
            return true;
    return false;
}

static int refuse(const char *word, const char *m, char *why, size_t why_size)
{
    if (m)
        snprintf(why, why_size, "the modifier \".%s\" of \"%s\"", m, word);
    else
        snprintf(why, why_size, "the instruction \"%s\"", word);
    return -1;
}

static int decode_cp_async(const char *word, char *save, ptx_insn *in, char *why, size_t why_size)
{
    async_words a;
    memset(&a, 0, sizeof a);
    for (char *m = strtok_r(NULL, ".", &save); m; m = strtok_r(NULL, ".", &save)) {
        int sp = space_of(m);
        if (sp >= 0 && a.nspaces < 2) {
            a.spaces[a.nspaces++] = sp;
        } else if (strcmp(m, "ca") == 0 || strcmp(m, "cg") == 0) {
            a.copy = true;
        } else if (strcmp(m, "L2::cache_hint") == 0) {
            in->atomic |= ASYNC_CACHE_HINT;
        } else if (strcmp(m, "bulk") == 0) {
            a.bulk = true;
        } else if (strcmp(m, "mbarrier") == 0) {
            a.mbarrier = true;
        } else if (strcmp(m, "arrive") == 0) {
            a.arrive = true;
        } else if (strcmp(m, "noinc") == 0) {
            a.noinc = true;
        } else if (strcmp(m, "mbarrier::complete_tx::bytes") == 0) {
            a.complete_tx = true;
        } else if (strcmp(m, "bulk_group") == 0) {
            a.bulk_group = true;
        } else if (strcmp(m, "commit_group") == 0) {
            a.commit = true;
        } else if (strcmp(m, "wait_group") == 0) {
            a.wait_group = true;
        } else if (strcmp(m, "wait_all") == 0) {
            a.wait_all = true;
        } else if (strcmp(m, "prefetch") == 0) {
            a.prefetch = true;
        } else if (!ignorable(m)) {
            return refuse(word, m, why, why_size);
        }
    }
    in->op = OP_CPASYNC;
    if (a.noinc)
        in->atomic |= ASYNC_NOINC;
    bool g2s = a.nspaces == 2 && a.spaces[0] == SP_SHARED && a.spaces[1] == SP_GLOBAL;
    bool s2g = a.nspaces == 2 && a.spaces[0] == SP_GLOBAL && a.spaces[1] == SP_SHARED;
    if (a.bulk) {
        if (a.commit && a.nspaces == 0)
            in->sub = CPA_BULK_COMMIT;
        else if (a.wait_group && a.nspaces == 0)
            in->sub = CPA_BULK_WAIT;
        else if (a.prefetch)
            in->sub = CPA_BULK_PREFETCH;
        else if (g2s && a.complete_tx)
            in->sub = CPA_BULK_SHARED;
        else if (s2g && a.bulk_group)
            in->sub = CPA_BULK_GLOBAL;
        else
            return refuse(word, NULL, why, why_size);
        return 0;
    }
    if (a.mbarrier && a.arrive) {
        in->sub = CPA_MBAR_ARRIVE;
        in->space = a.nspaces ? (uint8_t)a.spaces[0] : SP_GENERIC;
    } else if (a.copy && g2s) {
        in->sub = CPA_COPY;
    } else if (a.commit && a.nspaces == 0) {
        in->sub = CPA_COMMIT;
    } else if (a.wait_group && a.nspaces == 0) {
        in->sub = CPA_WAIT_GROUP;
    } else if (a.wait_all && a.nspaces == 0) {
        in->sub = CPA_WAIT_ALL;
    } else {
        return refuse(word, NULL, why, why_size);
    }
    return 0;
}

static int decode_mbarrier(const char *word, char *save, ptx_insn *in, char *why,
                           size_t why_size)
{
    static const struct {
        const char *name;
        int sub;
    } ops[] = {{"init", MBAR_INIT},           {"inval", MBAR_INVAL},
               {"arrive", MBAR_ARRIVE},       {"arrive_drop", MBAR_ARRIVE_DROP},
               {"expect_tx", MBAR_EXPECT_TX}, {"complete_tx", MBAR_COMPLETE_TX},
               {"test_wait", MBAR_TEST_WAIT}, {"try_wait", MBAR_TRY_WAIT},
               {"pending_count", MBAR_PENDING_COUNT}};
    int sub = -1;
    in->op = OP_MBARRIER;
    in->space = SP_GENERIC;
    for (char *m = strtok_r(NULL, ".", &save); m; m = strtok_r(NULL, ".", &save)) {
        int found = -1;
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (strcmp(ops[i].name, m) == 0)
                found = ops[i].sub;
        if (found >= 0 && sub < 0) {
            sub = found;
        } else if (found == MBAR_EXPECT_TX && (sub == MBAR_ARRIVE || sub == MBAR_ARRIVE_DROP)) {
            in->atomic |= ASYNC_EXPECT_TX;
        } else if (strcmp(m, "parity") == 0 && (sub == MBAR_TEST_WAIT || sub == MBAR_TRY_WAIT)) {
            in->atomic |= ASYNC_PARITY;
        } else if (space_of(m) == SP_SHARED) {
            in->space = SP_SHARED;
        } else if (!ignorable(m)) {
            return refuse(word, m, why, why_size);
        }
    }
    if (sub < 0)
        return refuse(word, NULL, why, why_size);
    in->sub = (uint8_t)sub;
    return 0;
}

int ptx_decode_async(const char *word, ptx_insn *in, char *why, size_t why_size)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", word);
    char *save = NULL;
    char *base = strtok_r(buf, ".", &save);
    in->vec = 1;
    if (base && strcmp(base, "nanosleep") == 0) {
        in->op = OP_NANOSLEEP;
        for (char *m = strtok_r(NULL, ".", &save); m; m = strtok_r(NULL, ".", &save))
            if (strcmp(m, "u32") != 0)
                return refuse(word, m, why, why_size);
        return 0;
    }
    if (base && strcmp(base, "mbarrier") == 0)
        return decode_mbarrier(word, save, in, why, why_size);
    char *second = base && strcmp(base, "cp") == 0 ? strtok_r(NULL, ".", &save) : NULL;
    if (second && strcmp(second, "async") == 0)
        return decode_cp_async(word, save, in, why, why_size);
    return refuse(word, NULL, why, why_size);
}

/* ---- operand shapes, checked once when the module is read ---- */

static bool is_value(const ptx_operand *o) { return o->kind == OPK_REG || o->kind == OPK_IMM; }

static int shape(const ptx_insn *in, const char *form, char *why, size_t why_size)
{
    snprintf(why, why_size, "%s takes %s", ptx_opcode_name((ptx_opcode)in->op), form);
    return -1;
}

static int check_cp_async(const ptx_insn *in, char *why, size_t why_size)
{
    int n = in->nops - ((in->atomic & ASYNC_CACHE_HINT) ? 1 : 0);
    const ptx_operand *o = in->ops;
    if ((in->atomic & ASYNC_CACHE_HINT) && !is_value(&o[in->nops - 1]))
        return shape(in, "a cache policy last", why, why_size);
    switch (in->sub) {
    case CPA_COPY: {
        bool size_ok = false;
        for (size_t i = 0; i < sizeof cp_sizes / sizeof cp_sizes[0]; i++)
            size_ok |= o[2].kind == OPK_IMM && o[2].imm == cp_sizes[i];
        if (n < 3 || n > 4 || o[0].kind != OPK_ADDR || o[1].kind != OPK_ADDR || !size_ok ||
            (n == 4 && !is_value(&o[3])))
            return shape(in, "[dst], [src], 4|8|16{, src-size|ignore-src}", why, why_size);
        return 0;
    }
    case CPA_COMMIT: case CPA_WAIT_ALL: case CPA_BULK_COMMIT:
        return n == 0 ? 0 : shape(in, "no operand", why, why_size);
    case CPA_WAIT_GROUP: case CPA_BULK_WAIT:
        return n == 1 && o[0].kind == OPK_IMM ? 0 : shape(in, "a group count", why, why_size);
    case CPA_MBAR_ARRIVE:
        return n == 1 && o[0].kind == OPK_ADDR ? 0 : shape(in, "[mbar]", why, why_size);
    case CPA_BULK_SHARED:
        if (n != 4 || o[0].kind != OPK_ADDR || o[1].kind != OPK_ADDR || !is_value(&o[2]) ||
            o[3].kind != OPK_ADDR)
            return shape(in, "[dst], [src], size, [mbar]", why, why_size);
        return 0;
    case CPA_BULK_GLOBAL:
        if (n != 3 || o[0].kind != OPK_ADDR || o[1].kind != OPK_ADDR || !is_value(&o[2]))
            return shape(in, "[dst], [src], size", why, why_size);
        return 0;
    default: /* prefetch */
        return n == 2 && o[0].kind == OPK_ADDR ? 0 : shape(in, "[src], size", why, why_size);
    }
}

static int check_mbarrier(const ptx_insn *in, char *why, size_t why_size)
{
    const ptx_operand *o = in->ops;
    int n = in->nops;
    switch (in->sub) {
    case MBAR_INIT: case MBAR_EXPECT_TX: case MBAR_COMPLETE_TX:
        if (n != 2 || o[0].kind != OPK_ADDR || !is_value(&o[1]))
            return shape(in, "[addr], count", why, why_size);
        return 0;
    case MBAR_INVAL:
        return n == 1 && o[0].kind == OPK_ADDR ? 0 : shape(in, "[addr]", why, why_size);
    case MBAR_ARRIVE: case MBAR_ARRIVE_DROP: {
        bool tx = in->atomic & ASYNC_EXPECT_TX;
        if ((o[0].kind != OPK_REG && o[0].kind != OPK_NONE) || n < 2 || o[1].kind != OPK_ADDR ||
            (tx && n != 3) || n > 3 || (n == 3 && !is_value(&o[2])))
            return shape(in, tx ? "state, [addr], tx-count" : "state, [addr]{, count}", why,
                         why_size);
        return 0;
    }
    case MBAR_TEST_WAIT: case MBAR_TRY_WAIT:
        if (n < 3 || n > (in->sub == MBAR_TRY_WAIT ? 4 : 3) || o[0].kind != OPK_REG ||
            o[1].kind != OPK_ADDR || !is_value(&o[2]))
            return shape(in, "p, [addr], state|parity", why, why_size);
        return 0;
    default: /* pending_count */
        if (n != 2 || o[0].kind != OPK_REG || !is_value(&o[1]))
            return shape(in, "count, state", why, why_size);
        return 0;
    }
}

int ptx_async_check(const ptx_insn *in, char *why, size_t why_size)
{
    if (in->op == OP_NANOSLEEP)
        return in->nops == 1 && is_value(&in->ops[0]) ? 0 : shape(in, "a time", why, why_size);
    for (int i = 0; i < in->nops; i++)
        if (in->ops[i].kind == OPK_NONE && !(in->op == OP_MBARRIER && i == 0))
            return shape(in, "\"_\" only for an arrival's state", why, why_size);
    return in->op == OP_CPASYNC ? check_cp_async(in, why, why_size)
                                : check_mbarrier(in, why, why_size);
}
