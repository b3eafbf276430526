/* A whole program's dataset as the runner gives it: stubs of its input files for the capture,
 * and each input as the program's import read it for the replay (runner_program_inputs.h). */
#include "runner_program_inputs.h"

#include <string.h>
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
                        const tl_matrix *gen, const caplog_call *call, tl_error *err)
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
            if (call->input_kind[n] != CAPLOG_INPUT_REAL)
                return tl_error_set(err, "a generated input imported as %s",
                                    caplog_input_kind_name(call->input_kind[n]));
            imp.data = gen[f].data;
            imp.bytes = sizeof(float) * (size_t)gen[f].rows * (size_t)gen[f].cols;
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

int program_generate(const runner_dataset *d, program_generated *g, tl_error *err)
{
    memset(g, 0, sizeof *g);
    if (tl_matrix_alloc(&g->in[0], d->size.m, d->size.k, err) != 0 ||
        tl_matrix_alloc(&g->in[1], d->size.k, d->size.n, err) != 0)
        return -1;
    tl_fill_inputs(d->seed, 0, d->size, &g->in[0], &g->in[1]);
    g->made = true;
    return tl_product_ref_init(&g->ref, &g->in[0], &g->in[1], NULL, 0, err);
}

void program_generated_free(program_generated *g)
{
    if (!g->made)
        return;
    tl_matrix_free(&g->in[0]);
    tl_matrix_free(&g->in[1]);
    tl_product_ref_free(&g->ref);
}

