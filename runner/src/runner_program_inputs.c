/* A whole program's dataset as the runner gives it: stubs of its input files for the capture,
 * each input as the program's import read it for the replay, and the expected output the
 * answers are checked against (runner_program_inputs.h). */
#include "runner_program_inputs.h"
#include "runner_sandbox.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcasecmp(s + n - m, tail) == 0;
}

/* One input file's stub: what the program may know of it before it runs (its shape). */
/* Whether a file starts as libwb's numbers files do, with a first line of one or two whole
 * numbers (the length, or rows and columns): one that then does not read is a broken numbers
 * file, not text. */
static bool numeric_header(const char *file)
{
    FILE *f = fopen(file, "r");
    char first[128] = "";
    bool got = f && fgets(first, sizeof first, f);
    if (f)
        fclose(f);
    unsigned long a, b;
    char tail[2];
    return got && (sscanf(first, "%lu %lu %1s", &a, &b, tail) == 2 ||
                   sscanf(first, "%lu %1s", &a, tail) == 1);
}

int program_write_stub(const char *dir, int index, const char *file, const tl_matrix *generated,
                      tl_error *err)
{
    char line[128];
    tl_import imp;
    if (generated) {
        snprintf(line, sizeof line, "%s matrix %d %d 0\n", CAPLOG_STUB_MAGIC, generated->rows,
                 generated->cols);
    } else if (ends_with(file, ".ppm") || ends_with(file, ".pgm")) {
        if (tl_import_file(file, TL_IMPORT_IMAGE, &imp, err) != 0)
            return -1;
        snprintf(line, sizeof line, "%s image %d %d %d\n", CAPLOG_STUB_MAGIC, imp.cols, imp.rows,
                 imp.channels);
        tl_import_free(&imp);
    } else if (tl_import_file(file, TL_IMPORT_REAL, &imp, err) == 0) {
        snprintf(line, sizeof line, "%s matrix %d %d 0\n", CAPLOG_STUB_MAGIC, imp.rows, imp.cols);
        tl_import_free(&imp);
    } else if (!numeric_header(file) && tl_import_file(file, TL_IMPORT_TEXT, &imp, err) == 0) {
        /* Not numbers: the program can only import it as text. */
        snprintf(line, sizeof line, "%s text %d 0 0\n", CAPLOG_STUB_MAGIC, imp.rows);
        tl_import_free(&imp);
    } else {
        return -1; /* a numbers file that does not read: err says where (the dataset's fault) */
    }
    char path[PATH_MAX];
    if (index < 0)
        snprintf(path, sizeof path, "%.4000s/expected", dir);
    else
        snprintf(path, sizeof path, "%.4000s/%d", dir, index);
    return tl_write_file_atomic(path, line, strlen(line), err);
}

static const tl_import_kind import_kinds[CAPLOG_INPUT_KINDS] = {
    [CAPLOG_INPUT_REAL] = TL_IMPORT_REAL, [CAPLOG_INPUT_INTEGER] = TL_IMPORT_INTEGER,
    [CAPLOG_INPUT_TEXT] = TL_IMPORT_TEXT, [CAPLOG_INPUT_IMAGE] = TL_IMPORT_IMAGE};

/* hI<n>: input file input_file[n] as the program imported it. */
int program_write_inputs(const char *dir, const runner_program_lab *lab, const runner_dataset *d,
                        const runner_loaded *gen, const caplog_call *call, tl_error *err)
{
    for (int n = 0; n < call->ninputs; n++) {
        int f = call->input_file[n];
        if (f >= lab->ninputs)
            return tl_error_set(err, "the program imported input %d; the lab has %d", f,
                                lab->ninputs);
        tl_import imp = {0};
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.3000s/%.1000s", d->dir ? d->dir : "", lab->inputs[f]);
        if (gen) {
            if (call->input_kind[n] != CAPLOG_INPUT_REAL || f > 1)
                return tl_error_set(err, "a generated input imported as %s",
                                    caplog_input_kind_name(call->input_kind[n]));
            const tl_matrix *m = f == 0 ? &gen->A : &gen->B;
            imp.data = m->data;
            imp.bytes = sizeof(float) * (size_t)m->rows * (size_t)m->cols;
        } else if (tl_import_file(path, import_kinds[call->input_kind[n]], &imp, err) != 0) {
            return -1;
        }
        int rc = 0;
        if (imp.bytes != call->input_bytes[n])
            rc = tl_error_set(err, "%s: %zu bytes as %s, but the program's import of it took "
                              "%llu", lab->inputs[f], imp.bytes,
                              caplog_input_kind_name(call->input_kind[n]),
                              (unsigned long long)call->input_bytes[n]);
        snprintf(path, sizeof path, "%.4000s/hI%d", dir, n);
        if (rc == 0)
            rc = tl_write_file_atomic(path, imp.data, imp.bytes, err);
        if (!gen)
            tl_import_free(&imp);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* ---- one program run's dataset and capture ------------------------------------------------ */

/* The expected output's shape, and for the bound of a product its inputs. */
static int prepare_check(const runner_program_lab *lab, const runner_dataset *d,
                         const runner_loaded *g, tl_matrix inputs[2], program_check *pc,
                         char *expected, size_t size, tl_error *err)
{
    memset(pc, 0, sizeof *pc);
    pc->lab = lab;
    if (tl_answer_type_parse(lab->type, &pc->spec.type) != 0)
        return tl_error_set(err, "unknown answer type \"%s\"", lab->type);
    pc->spec.tolerance = lab->tolerance;
    if (g->from.generated) {
        pc->ref = &g->ref;
        pc->rows = g->A.rows;
        pc->cols = g->B.cols;
        pc->channels = 1;
        return 0;
    }
    snprintf(expected, size, "%.3000s/%.1000s", d->dir, lab->output);
    pc->expected = expected;
    tl_import e;
    tl_import_kind kind = tl_answer_import_kind(pc->spec.type);
    if (tl_import_file(expected, kind == TL_IMPORT_INTEGER ? TL_IMPORT_REAL : kind, &e, err) != 0)
        return -1;
    pc->rows = e.rows;
    pc->cols = e.cols;
    pc->channels = e.channels;
    tl_import_free(&e);
    if (pc->spec.type == TL_ANSWER_MATRIX && lab->tolerance == TL_TOLERANCE_BOUND &&
        lab->ninputs >= 2) {
        for (int i = 0; i < 2; i++) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%.3000s/%.1000s", d->dir, lab->inputs[i]);
            if (tl_matrix_read(path, &inputs[i], err) != 0)
                return -1;
        }
        pc->spec.A = &inputs[0];
        pc->spec.B = &inputs[1];
    }
    return 0;
}

static int make_dirs(char *work, size_t size, char *stubs, char *in, tl_error *err)
{
    if (sandbox_work_dir(work, size, "program") != 0)
        return tl_error_set(err, "cannot make a folder for the program's run");
    snprintf(stubs, PATH_MAX, "%.4000s/stubs", work);
    snprintf(in, PATH_MAX, "%.4000s/in", work);
    if (chmod(work, 0755) != 0 || mkdir(stubs, 0755) != 0 || mkdir(in, 0755) != 0)
        return tl_error_set(err, "cannot make a folder for the program's run");
    return 0;
}


void program_bad_input(runner_result *out, const tl_error *bad)
{
    out->verdict = TL_VERDICT_BAD_INPUT;
    snprintf(out->detail, sizeof out->detail, "%s", bad->msg);
}

int program_prepare(const runner_program_lab *lab, const runner_dataset *d, program_run *pr,
                    runner_result *out, tl_error *err)
{
    tl_error bad;
    if (d->generated && runner_loaded_read(d, &pr->g, err) != 0)
        return -1;
    for (int i = 0; i < lab->ninputs; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%.3000s/%.1000s", d->dir ? d->dir : "", lab->inputs[i]);
        const tl_matrix *made = !pr->g.from.generated ? NULL : i == 0 ? &pr->g.A
                                : i == 1                ? &pr->g.B
                                                        : NULL;
        if (program_write_stub(pr->stubs, i, path, made, &bad) != 0) {
            program_bad_input(out, &bad);
            return 0;
        }
    }
    char line[64];
    snprintf(line, sizeof line, "%s expected 0 0 0\n", CAPLOG_STUB_MAGIC);
    snprintf(pr->expected, sizeof pr->expected, "%.4000s/expected", pr->stubs);
    if (tl_write_file_atomic(pr->expected, line, strlen(line), err) != 0)
        return -1;
    if (prepare_check(lab, d, &pr->g, pr->inputs, &pr->pc, pr->expected, sizeof pr->expected,
                      &bad) != 0)
        program_bad_input(out, &bad);
    return 0;
}

int program_capture(const runner_config *c, const runner_program *p,
                    const runner_program_lab *lab, program_run *pr, runner_result *out,
                    tl_error *err)
{
    runner_outcome o = {0};
    if (runner_capture_program(c, p, pr->stubs, lab->ninputs, lab->type, &pr->cap, &o) != 0)
        return tl_error_set(err, "the program's capture could not be run");
    pr->captured = true;
    if (o.verdict != TL_VERDICT_PASS) {
        out->verdict = o.verdict;
        snprintf(out->detail, sizeof out->detail, "%s", o.detail);
    }
    const runner_capture *cap = &pr->cap;
    if (cap->out || cap->err) {
        size_t n = strlen(cap->out ? cap->out : "") + strlen(cap->err ? cap->err : "") + 1;
        out->kernel_output = malloc(n);
        if (out->kernel_output)
            snprintf(out->kernel_output, n, "%s%s", cap->out ? cap->out : "",
                     cap->err ? cap->err : "");
    }
    return 0;
}

int program_run_open(program_run *pr, tl_error *err)
{
    return make_dirs(pr->work, sizeof pr->work, pr->stubs, pr->in, err);
}

void program_run_free(program_run *pr)
{
    if (pr->captured)
        runner_capture_free(&pr->cap);
    runner_loaded_free(&pr->g);
    tl_matrix_free(&pr->inputs[0]);
    tl_matrix_free(&pr->inputs[1]);
    files_remove_tree(pr->work);
}
