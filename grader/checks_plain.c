/* A rubric's `plain_cuda = yes` (lab 06): no tensor core, and no inline assembly that the
 * student wrote.
 *
 * The toolkit's own headers use inline assembly for documented functions (__ldg, __ldcs and
 * __stcs, __funnelshift_l, __activemask, __nanosleep, the fp16 and bf16 conversions, and the
 * cp.async of __pipeline_memcpy_async and cuda::memcpy_async), so an asm block in the PTX says
 * nothing about the student; who wrote each one is what counts. Not the PTX's line information:
 * a #line directive, or a macro whose expansion begins a line with `# 190 "cuda_pipeline_helpers.h"`
 * (the compiler's front end reads that as a line marker), makes a student's asm look like the
 * toolkit's there, and nvcc's asm markers can be forged inside an asm's own text. Instead:
 *
 *  1. Tensor cores: no tensor-core opcode in the PTX, whoever wrote it (checks_ptx.c).
 *  2. The student's own code, as the preprocessor produced it (runner_program.own_code: the lines
 *     of the device compilation's preprocessed unit that the submission's files wrote, macros
 *     expanded and token pasting done), has no asm, __asm or __asm__. A toolkit macro that
 *     expands to asm counts as the student's where the student uses it. Which lines are the
 *     submission's comes from the preprocessor's own line markers, which only it can write in
 *     column 0; two things in the source could still move lines, and are checked when the PTX
 *     has any inline assembly (otherwise there is nothing to hide):
 *  3. No line control in the submission's files: no #line, no GNU line marker (# 12 "file"),
 *     and no raw string line that reads as one (the preprocessor copies those lines as they are).
 *  4. No macro of the submission's that could rewrite a toolkit header's asm: a #define or
 *     #undef of a name used by the toolkit's headers that the build read (runner_program.headers),
 *     in force at a later #include of a header that is not the submission's (in the order the
 *     preprocessor reads the files). `#define volatile(...) ("mul.lo.u32 ...")` before
 *     <cuda_pipeline.h> turns the toolkit's `asm volatile (...)` into the student's instruction
 *     on the toolkit's line. A define after the includes, of a name those headers never use, or
 *     whose value is nothing or one number (which cannot write an instruction) is no concern;
 *     one the student undoes before the include neither.
 * Headers of the machine other than the toolkit's (the system's C library and compiler headers)
 * hold no device code a kernel can call. */
#define _DEFAULT_SOURCE /* realpath */
#include "grader.h"
#include "checks_source.h"
#include "util.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The keywords an asm statement is written with. */
static const char *const asm_words[] = {"asm", "__asm", "__asm__"};
/* How deep the submission's includes may nest (the compiler's own limit is 200). */
#define INCLUDE_MAX_DEPTH 32

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '$' || (unsigned char)ch >= 0x80;
}

/* The next identifier at or after *at in s[0..n): its start (NULL at the end), its length in
 * *len; *at moves past it. */
static const char *next_identifier(const char *s, size_t n, size_t *at, size_t *len)
{
    size_t i = *at;
    while (i < n && !ident_char(s[i]))
        i++;
    size_t j = i;
    while (j < n && ident_char(s[j]))
        j++;
    *at = j;
    *len = j - i;
    return i < n ? s + i : NULL;
}

static bool has_asm_word(const char *s, size_t n)
{
    size_t at = 0, len;
    for (const char *id; (id = next_identifier(s, n, &at, &len));)
        for (size_t w = 0; w < sizeof asm_words / sizeof *asm_words; w++)
            if (len == strlen(asm_words[w]) && memcmp(id, asm_words[w], len) == 0)
                return true;
    return false;
}

/* 2: the first line of the submission's preprocessed code with an asm keyword outside
 * literals, as "NAME:LINE". */
static int own_asm(const char *own, char *where, size_t size)
{
    char *code = source_code_only(own);
    if (!code)
        return -1;
    char file[NAME_MAX + 1] = "?", text[PATH_MAX + 64];
    long line = 1;
    int found = 0;
    for (const char *r = own, *c = code; *r && *c && !found;) {
        size_t rlen = strcspn(r, "\n"), clen = strcspn(c, "\n");
        snprintf(text, sizeof text, "%.*s", (int)(rlen < sizeof text ? rlen : sizeof text - 1), r);
        long at;
        char name[NAME_MAX + 1];
        if (runner_line_marker(text, &at, name, sizeof name)) {
            line = at;
            snprintf(file, sizeof file, "%s", name);
        } else if (has_asm_word(c, clen)) {
            snprintf(where, size, "%s:%ld", file, line);
            found = 1;
        } else {
            line++;
        }
        r += rlen + (r[rlen] == '\n');
        c += clen + (c[clen] == '\n');
    }
    free(code);
    return found;
}

/* ---- 4: the submission's macros in force at a header that is not its own -------------------- */
typedef struct macro_at {
    const char *name;
    int file, line;
    bool undef, long_name;
    bool plain; /* a define that cannot write code: in force, but no concern */
    int include_file, include_line; /* the header's #include it was in force at */
    const char *header;
} macro_at;

typedef struct walk {
    const plain_cuda_input *in;
    source_directive **dirs;
    int *ndirs;
    bool *reached, *open;
    macro_at *live, *suspects;
    int nlive, nsuspects, cap_live, cap_suspects;
    bool outside_include, failed;
} walk;

static int push(macro_at **list, int *n, int *cap, macro_at m)
{
    if (*n == *cap) {
        int more = *cap ? 2 * *cap : 16;
        macro_at *grown = realloc(*list, (size_t)more * sizeof *grown);
        if (!grown)
            return -1;
        *list = grown;
        *cap = more;
    }
    (*list)[(*n)++] = m;
    return 0;
}

static int find(const macro_at *list, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return i;
    return -1;
}

/* "a/./b/../c.h" -> "a/c.h"; false when it climbs above the submission's folder. */
static bool normalize(const char *path, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (len == 0)
                return false;
            while (len > 0 && out[len - 1] != '/')
                len--;
            len -= len > 0;
            out[len] = '\0';
        } else if (n && !(n == 1 && p[0] == '.')) {
            if (len + n + 2 > size)
                return false;
            len += (size_t)snprintf(out + len, size - len, "%s%.*s", len ? "/" : "", (int)n, p);
        }
        p += n + (p[n] == '/');
    }
    return true;
}

/* The submission's file an #include names, or -1 (a header of the machine, or a name a macro
 * gives). "x.h" is looked for beside the including file; <x.h> in the submission's folder too,
 * in case the compiler looks there: taking one of its files for the machine's would skip its
 * macros. */
static int resolve(const walk *w, int from, const char *header)
{
    size_t n = strlen(header);
    if (n < 3 || header[1] == '/')
        return -1;
    const char *name = w->in->names[from], *slash = strrchr(name, '/');
    char joined[PATH_MAX], path[PATH_MAX];
    snprintf(joined, sizeof joined, "%.*s%s%.*s", header[0] == '"' && slash ? (int)(slash - name) : 0,
             name, header[0] == '"' && slash ? "/" : "", (int)(n - 2), header + 1);
    if (!normalize(joined, path, sizeof path))
        return -1;
    for (int f = 0; f < w->in->nfiles; f++)
        if (strcmp(w->in->names[f], path) == 0)
            return f;
    return -1;
}

static void walk_file(walk *w, int f, int depth)
{
    w->reached[f] = w->open[f] = true;
    for (int i = 0; i < w->ndirs[f] && !w->failed; i++) {
        const source_directive *d = &w->dirs[f][i];
        int at = d->kind == SOURCE_DEFINE || d->kind == SOURCE_UNDEF ? find(w->live, w->nlive, d->name) : -1;
        if (d->kind == SOURCE_DEFINE || d->kind == SOURCE_UNDEF) {
            bool own_undone = d->kind == SOURCE_UNDEF && at >= 0 && !w->live[at].undef;
            if (at >= 0) /* redefined or undone: what was in force before no longer is */
                w->live[at] = w->live[--w->nlive];
            if (!own_undone && push(&w->live, &w->nlive, &w->cap_live,
                                    (macro_at){d->name, f, d->line, d->kind == SOURCE_UNDEF,
                                               d->long_name, d->kind == SOURCE_DEFINE && d->plain,
                                               -1, 0, ""}) != 0)
                w->failed = true;
        } else if (d->kind == SOURCE_INCLUDE) {
            int g = resolve(w, f, d->name);
            if (g >= 0) {
                if (!w->reached[g] && depth < INCLUDE_MAX_DEPTH)
                    walk_file(w, g, depth + 1);
                continue;
            }
            w->outside_include = true;
            for (int k = 0; k < w->nlive && !w->failed; k++) {
                macro_at m = w->live[k];
                if (m.plain)
                    continue;
                m.include_file = f;
                m.include_line = d->line;
                m.header = d->name;
                if (find(w->suspects, w->nsuspects, m.name) < 0 &&
                    push(&w->suspects, &w->nsuspects, &w->cap_suspects, m) != 0)
                    w->failed = true;
            }
        }
    }
    w->open[f] = false;
}

/* Marks which of `names` occur as an identifier in `text`; returns how many are still unseen. */
static int mark_used(const char *text, size_t size, const macro_at *s, int n, bool *used, int left)
{
    size_t at = 0, len;
    for (const char *id; left && (id = next_identifier(text, size, &at, &len));)
        for (int k = 0; k < n; k++)
            if (!used[k] && strlen(s[k].name) == len && memcmp(s[k].name, id, len) == 0) {
                used[k] = true;
                left--;
            }
    return left;
}

/* The toolkit's headers among those the build read (below its header folder, links resolved):
 * how many suspects are still unseen, or -1 when the list or the folder cannot be read. */
static int scan_toolkit_headers(const plain_cuda_input *in, const macro_at *s, int n, bool *used,
                                int left)
{
    char root[PATH_MAX], real[PATH_MAX], path[PATH_MAX];
    if (!in->headers || !in->toolkit_headers || !realpath(in->toolkit_headers, root))
        return -1;
    size_t root_len = strlen(root);
    for (const char *line = in->headers; *line && left;) {
        size_t len = strcspn(line, "\n");
        snprintf(path, sizeof path, "%.*s", (int)(len < sizeof path ? len : sizeof path - 1), line);
        line += len + (line[len] == '\n');
        if (!realpath(path, real) || strncmp(real, root, root_len) != 0 || real[root_len] != '/')
            continue;
        size_t size = 0;
        char *text = files_read(real, &size);
        if (text)
            left = mark_used(text, size, s, n, used, left);
        free(text);
    }
    return left;
}

/* 4: the first of the submission's macros in force at a header not its own whose name the
 * toolkit's headers use; 1 with its description, 0 when there is none, -1 out of memory. */
static int macro_before_header(const plain_cuda_input *in, source_directive **dirs, int *ndirs,
                               char *detail, size_t size)
{
    walk w = {.in = in, .dirs = dirs, .ndirs = ndirs, .reached = calloc((size_t)in->nfiles, 1),
              .open = calloc((size_t)in->nfiles, 1)};
    int rc = -1;
    if (w.reached && w.open) {
        walk_file(&w, 0, 0);
        /* A file of the submission that no #include here reaches (a macro names it): its macros
         * may be in force at any header. */
        for (int f = 1; f < in->nfiles && w.outside_include && !w.failed; f++)
            for (int i = 0; !w.reached[f] && i < ndirs[f] && !w.failed; i++) {
                const source_directive *d = &dirs[f][i];
                if ((d->kind == SOURCE_DEFINE && !d->plain) || d->kind == SOURCE_UNDEF)
                    w.failed = find(w.suspects, w.nsuspects, d->name) < 0 &&
                               push(&w.suspects, &w.nsuspects, &w.cap_suspects,
                                    (macro_at){d->name, f, d->line, d->kind == SOURCE_UNDEF,
                                               d->long_name, false, -1, 0, ""}) != 0;
            }
    }
    bool *used = w.failed || !w.reached ? NULL : calloc((size_t)w.nsuspects + 1, 1);
    if (used) {
        int left = 0;
        for (int k = 0; k < w.nsuspects; k++) {
            used[k] = w.suspects[k].long_name; /* a name cut short: assume the worst */
            left += !used[k];
        }
        /* The toolkit's headers unknown: every suspect counts. */
        if (left && scan_toolkit_headers(in, w.suspects, w.nsuspects, used, left) < 0)
            memset(used, 1, (size_t)w.nsuspects);
        rc = 0;
        for (int k = 0; k < w.nsuspects && !rc; k++) {
            const macro_at *m = &w.suspects[k];
            if (!used[k])
                continue;
            char include[NAME_MAX + 300];
            if (m->include_file >= 0)
                snprintf(include, sizeof include, "the #include %.255s of %.255s:%d", m->header[0] ? m->header : "(a macro)",
                         in->names[m->include_file], m->include_line);
            else
                snprintf(include, sizeof include, "an #include of a header not the submission's");
            snprintf(detail, size, "%.255s:%d: #%s %.128s is in force at %s, and the toolkit's "
                     "headers use the name %.128s: a macro could rewrite their inline assembly "
                     "(include the headers before defining macros, or rename it)",
                     in->names[m->file], m->line, m->undef ? "undef" : "define", m->name, include,
                     m->name);
            rc = 1;
        }
    }
    free(used);
    free(w.reached);
    free(w.open);
    free(w.live);
    free(w.suspects);
    return rc;
}

int plain_cuda_findings(const plain_cuda_input *in, char *detail, size_t size)
{
    int asm_blocks = 0;
    int found = ptx_plain_cuda_findings(in->ptx, &asm_blocks, detail, size);
    if (found)
        return found;
    if (!in->own_code) {
        snprintf(detail, size, "the submission's preprocessed code could not be read");
        return 1;
    }
    char where[NAME_MAX + 32];
    int own = own_asm(in->own_code, where, sizeof where);
    if (own != 0) {
        snprintf(detail, size, own < 0 ? "out of memory reading the submission's code"
                                       : "inline assembly (asm) in the submission's code, %s", where);
        return 1;
    }
    if (asm_blocks == 0) {
        snprintf(detail, size, "no tensor-core instruction and no inline assembly");
        return 0;
    }
    source_directive **dirs = calloc((size_t)in->nfiles + 1, sizeof *dirs);
    int *ndirs = calloc((size_t)in->nfiles + 1, sizeof *ndirs);
    int rc = dirs && ndirs ? 0 : -1;
    for (int f = 0; f < in->nfiles && rc == 0; f++)
        rc = (ndirs[f] = source_directives(in->texts[f], &dirs[f])) < 0 ? -1 : 0;
    for (int f = 0; f < in->nfiles && rc == 0; f++)
        for (int i = 0; i < ndirs[f] && rc == 0; i++)
            if (dirs[f][i].kind == SOURCE_LINE_CONTROL) {
                snprintf(detail, size, "%.255s:%d: %s, in a program whose PTX has inline assembly: "
                         "with line control the toolkit's code and the submission's cannot be told "
                         "apart, so the toolkit's inline assembly is not allowed with it",
                         in->names[f], dirs[f][i].line,
                         dirs[f][i].in_raw_string ? "a raw string's line that reads as a line marker"
                                                  : "a #line directive or line marker");
                rc = 1;
            }
    if (rc == 0 && in->nfiles > 0)
        rc = macro_before_header(in, dirs, ndirs, detail, size);
    if (rc < 0)
        snprintf(detail, size, "out of memory reading the submission's directives");
    else if (rc == 0)
        snprintf(detail, size, "no tensor-core instruction; the %d inline-assembly block%s in the "
                 "PTX come%s from the toolkit's headers, none from the submission's code",
                 asm_blocks, asm_blocks == 1 ? "" : "s", asm_blocks == 1 ? "s" : "");
    for (int f = 0; f < in->nfiles && dirs; f++)
        free(dirs[f]);
    free(dirs);
    free(ndirs);
    return rc != 0;
}
