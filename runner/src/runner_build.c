/* Building a submission: its files copied into a folder of the runner's, nvcc run on them in a
 * sandbox where nothing else of the machine is visible but the toolkit, the system's headers
 * and the kit's lab.h, and the products (capture program, PTX, GPU image) kept in a cache keyed
 * by everything that went in. */
#define _GNU_SOURCE /* mkdtemp, dirfd */
#include "runner_config.h"
#include "runner_messages.h"
#include "runner_own_code.h"
#include "runner_removed.h"
#include "runner_sandbox.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_TMP_BYTES (UINT64_C(1) << 30)
/* How deep the staged submission's folders count in the cache key (staging copies fewer). */
#define BUILD_HASH_DEPTH 8

static bool header_like(const char *name)
{
    static const char *const endings[] = {".h", ".hh", ".hpp", ".cuh", ".inc", ".inl", ".cu"};
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof endings / sizeof endings[0]; i++) {
        size_t m = strlen(endings[i]);
        if (n > m && strcmp(name + n - m, endings[i]) == 0)
            return true;
    }
    return false;
}

/* `run` on a student's own file: the file and the headers beside it (anything else in that
 * folder, a home folder say, is none of the build's business). */
static int stage_beside(const char *folder, const char *source_name, const char *to,
                        runner_outcome *o)
{
    char from[PATH_MAX], dst[PATH_MAX];
    tl_error err;
    snprintf(from, sizeof from, "%.3000s/%.255s", folder, source_name);
    size_t len = 0;
    char *text = files_read_untrusted(from, RUNNER_MAX_SOURCE_BYTES, &len, &err);
    if (!text) {
        /* The reason alone ("a folder"): whoever shows the outcome names the file and the
         * verdict, which the reader's message ("FILE: refused: a folder") would repeat. */
        static const char refused[] = "refused: ";
        const char *why = err.msg;
        size_t n = strlen(from);
        if (strncmp(why, from, n) == 0 && strncmp(why + n, ": ", 2) == 0)
            why += n + 2;
        if (strncmp(why, refused, sizeof refused - 1) == 0)
            why += sizeof refused - 1;
        o->verdict = TL_VERDICT_REFUSED;
        snprintf(o->detail, sizeof o->detail, "%s", why);
        return 0;
    }
    free(text);
    if (mkdir(to, 0755) != 0)
        return -1;
    DIR *d = opendir(folder);
    size_t total = 0;
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        bool is_source = strcmp(e->d_name, source_name) == 0;
        if (e->d_name[0] == '.' || (!is_source && !header_like(e->d_name)))
            continue;
        snprintf(from, sizeof from, "%.3000s/%.255s", folder, e->d_name);
        text = files_read_untrusted(from, RUNNER_MAX_SOURCE_BYTES, &len, &err);
        if (!text)
            continue; /* a link or an odd file beside the source is simply not staged */
        total += len;
        if (++count > RUNNER_MAX_SOURCE_FILES || total > RUNNER_MAX_SOURCE_BYTES) {
            free(text);
            if (is_source)
                continue;
            break;
        }
        snprintf(dst, sizeof dst, "%.3000s/%.255s", to, e->d_name);
        FILE *f = fopen(dst, "wb");
        if (!f || fwrite(text, 1, len, f) != len) {
            if (f)
                fclose(f);
            free(text);
            closedir(d);
            return -1;
        }
        fclose(f);
        free(text);
    }
    if (d)
        closedir(d);
    return 0;
}

/* Grading: the submission folder as a whole, or nothing. */
static int stage_folder(const char *folder, const char *to, runner_outcome *o)
{
    tl_error err;
    if (files_copy_tree_untrusted(folder, to, RUNNER_MAX_SOURCE_BYTES, RUNNER_MAX_SOURCE_FILES,
                                  &err) != 0) {
        o->verdict = TL_VERDICT_REFUSED;
        snprintf(o->detail, sizeof o->detail, "%s", err.msg);
    }
    return 0;
}

static void arch_of(const runner_config *c, char *out, size_t size)
{
    const char *forced = getenv("TILELAB_CUDA_ARCH");
    int cc = 0;
    if (forced && *forced) {
        int major = 0, minor = 0;
        if (sscanf(forced, "sm_%1d%1d", &major, &minor) == 2)
            cc = major * 10 + minor;
    } else if (c->compute_capability > 0) {
        cc = c->compute_capability;
    } else if (runner_backend_about(c->backend)->device) {
        cc = tl_device_compute_capability();
    }
    snprintf(out, size, "%d", cc >= 50 ? cc : RUNNER_DEFAULT_CC);
}

/* "a/./b/../c" as "a/c", without asking the file system (the paths are the sandbox's). */
static void normalize(const char *path, char *out, size_t size)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    const char *parts[PATH_MAX / 2];
    int n = 0;
    for (char *save = NULL, *p = strtok_r(copy, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
        if (strcmp(p, ".") == 0)
            continue;
        if (strcmp(p, "..") == 0) {
            if (n > 0)
                n--;
            continue;
        }
        parts[n++] = p;
    }
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len + 1 < size; i++)
        len += (size_t)snprintf(out + len, size - len, "/%s", parts[i]);
}

/* Where an included file may come from: the submission, the kit's lab headers, the toolkit and
 * the system's and compiler's headers. */
static bool allowed_include(const char *raw)
{
    char path[PATH_MAX];
    normalize(raw, path, sizeof path);
    static const char *const roots[] = {"/usr/include/", "/usr/lib/gcc/", "/usr/local/include/",
                                        RUNNER_HARNESS_INCLUDE "/", RUNNER_TOOLKIT_ROOT "/",
                                        RUNNER_TOOLKIT_REAL_ROOT "/"};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (strncmp(path, roots[i], strlen(roots[i])) == 0)
            return true;
    return false;
}

/* nvcc's dependency file: the files the source included. Those of the submission become the
 * program's file list, the others go to `headers` one a line; one from anywhere not allowed
 * refuses the build. */
static void read_deps(const char *deps_path, const char *inside, runner_program *p,
                      FILE *headers, runner_outcome *o)
{
    size_t inside_len = strlen(inside);
    size_t len = 0;
    char *text = files_read(deps_path, &len);
    if (!text)
        return;
    char *colon = strstr(text, ": ");
    char *at = colon ? colon + 2 : text + len;
    while (*at && o->verdict == TL_VERDICT_PASS) {
        while (*at == ' ' || *at == '\t' || *at == '\n' || (*at == '\\' && at[1] == '\n'))
            at += *at == '\\' ? 2 : 1;
        if (!*at)
            break;
        char path[PATH_MAX];
        size_t n = 0;
        for (; *at && !(*at == ' ' || *at == '\n' || *at == '\t'); at++) {
            if (*at == '\\' && at[1] == ' ')
                at++;
            if (n + 1 < sizeof path)
                path[n++] = *at;
        }
        path[n] = '\0';
        const char *rel = path[0] != '/' ? path
                          : strncmp(path, inside, inside_len) == 0 ? path + inside_len : NULL;
        if (rel && (strncmp(rel, "../", 3) == 0 || strstr(rel, "/../"))) {
            o->verdict = TL_VERDICT_REFUSED;
            snprintf(o->detail, sizeof o->detail, "#include of %.300s: a submission may include "
                     "only files inside its own folder", rel);
        } else if (rel) {
            bool known = false;
            for (int i = 0; i < p->nfiles; i++)
                known |= strcmp(p->files[i], rel) == 0;
            if (!known && p->nfiles < RUNNER_MAX_INCLUDES)
                snprintf(p->files[p->nfiles++], sizeof p->files[0], "%.255s", rel);
        } else if (!allowed_include(path)) {
            o->verdict = TL_VERDICT_REFUSED;
            snprintf(o->detail, sizeof o->detail, "#include of %.300s: a submission may include "
                     "only its own files, lab.h and the toolkit's and system's headers", path);
        } else if (fprintf(headers, "%s\n", path) < 0) {
            o->verdict = TL_VERDICT_ERROR;
            snprintf(o->detail, sizeof o->detail, "the list of headers could not be written");
        }
    }
    free(text);
}

static int write_file_list(const runner_program *p)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/files.txt", p->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < p->nfiles; i++)
        fprintf(f, "%s\n", p->files[i]);
    return fclose(f);
}

static void read_file_list(runner_program *p)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/files.txt", p->dir);
    FILE *f = fopen(path, "r");
    char line[NAME_MAX + 2];
    p->nfiles = 0;
    while (f && p->nfiles < RUNNER_MAX_INCLUDES && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        snprintf(p->files[p->nfiles++], sizeof p->files[0], "%.255s", line);
    }
    if (f)
        fclose(f);
}

static void set_paths(runner_program *p)
{
    snprintf(p->capture, sizeof p->capture, "%.4000s/capture", p->dir);
    snprintf(p->ptx, sizeof p->ptx, "%.4000s/module.ptx", p->dir);
    snprintf(p->image, sizeof p->image, "%.4000s/module.cubin", p->dir);
    snprintf(p->own_code, sizeof p->own_code, "%.4000s/module.own.ii", p->dir);
    snprintf(p->headers, sizeof p->headers, "%.4000s/headers.txt", p->dir);
}

/* Moves the file `name` of folder `dir` to `to`. */
static int rename_in(const char *dir, const char *name, const char *to)
{
    char from[PATH_MAX + 64];
    snprintf(from, sizeof from, "%.4000s/%s", dir, name);
    return rename(from, to);
}

/* The single file of `pattern` in the keep folder, moved to `to`. */
static int take(const char *keep_dir, const char *pattern, const char *to)
{
    char glob_pattern[PATH_MAX + 32];
    snprintf(glob_pattern, sizeof glob_pattern, "%.3000s/%s", keep_dir, pattern);
    glob_t g;
    int rc = -1;
    if (glob(glob_pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1)
        rc = rename(g.gl_pathv[0], to);
    globfree(&g);
    return rc;
}

/* The submission's own preprocessed code (runner_own_code.h), from the device compilation's
 * preprocessed unit in the keep folder; none is kept when it is too large. */
static int keep_own_code(const runner_config *c, const char *work, const char *keep_dir,
                         const char *to)
{
    char pattern[PATH_MAX + 32], inside[PATH_MAX + 16];
    snprintf(pattern, sizeof pattern, "%.3000s/*.cpp1.ii", keep_dir);
    snprintf(inside, sizeof inside, c->sandbox ? "/submission/" : "%.4000s/src/", work);
    glob_t g;
    FILE *in = NULL, *out = NULL;
    int rc = -1;
    if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1 && (in = fopen(g.gl_pathv[0], "r")) &&
        (out = fopen(to, "w")))
        rc = own_code_copy(in, inside, out);
    globfree(&g);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    if (rc != 0)
        unlink(to);
    return rc < 0 ? -1 : 0;
}

/* Runs nvcc in the sandbox on the staged files; on success the products are in work/out. */
static int compile(const runner_config *c, const char *work, const char *source_name,
                   const char *arch, runner_program *p, runner_outcome *o)
{
    char src[PATH_MAX], out[PATH_MAX], keep[PATH_MAX + 8], gencode[96];
    snprintf(src, sizeof src, "%.4000s/src", work);
    snprintf(out, sizeof out, "%.4000s/out", work);
    snprintf(keep, sizeof keep, "%s/keep", out);
    if (mkdir(out, 0700) != 0 || mkdir(keep, 0700) != 0)
        return -1;
    uid_t uid = 0;
    gid_t gid = 0;
    bool as_slot = geteuid() == 0;
    if (as_slot) {
        sandbox_slot_user(c->slot, &uid, &gid);
        if (chown(out, uid, gid) != 0 || chown(keep, uid, gid) != 0 || chmod(work, 0711) != 0)
            return -1;
    }
    snprintf(gencode, sizeof gencode, "arch=compute_%s,code=[sm_%s,compute_%s]", arch, arch, arch);
    /* A lab file gets the capture main and the harness's CUDA layer; a whole libwb program has
     * its own main and gets the capture's libwb layer, never the harness's (which would read
     * the dataset and judge the answer itself). */
    char *cmd[] = {RUNNER_NVCC, "-std=c++17", "-O3", c->device_debug ? "-G" : "-lineinfo",
                   "-gencode", gencode, "-keep", "-keep-dir", "/out/keep", "-MD", "-MF",
                   "/out/deps.d", "-cudart", "none", "-I" RUNNER_HARNESS_INCLUDE, "-o",
                   "/out/capture", (char *)source_name,
                   c->program ? RUNNER_CAPTURE_WB_LIB : RUNNER_CAPTURE_MAIN_LIB,
                   c->program ? RUNNER_CAPTURE_RT_LIB : RUNNER_HARNESS_CUDA_LIB,
                   RUNNER_CAPTURE_RT_LIB, RUNNER_CAPTURE_LOG_LIB,
                   RUNNER_PTX_LIB, RUNNER_HARNESS_LIB, RUNNER_CJSON_LIB, "-Xlinker",
                   "-rpath=" RUNNER_CJSON_DIR, "-lm", "-lpthread", NULL};
    sandbox s;
    sandbox_begin(&s, c);
    sandbox_tmp(&s, BUILD_TMP_BYTES); /* first: a later tmpfs on /tmp would hide binds below it */
    sandbox_bind(&s, src, "/submission", false);
    sandbox_bind(&s, out, "/out", true);
    sandbox_bind(&s, RUNNER_HARNESS_INCLUDE, RUNNER_HARNESS_INCLUDE, false);
    sandbox_bind(&s, RUNNER_TOOLKIT_ROOT, RUNNER_TOOLKIT_ROOT, false);
    static const char *const lib_dirs[] = {RUNNER_CAPTURE_DIR, RUNNER_HARNESS_DIR, RUNNER_PTX_DIR};
    for (size_t i = 0; i < sizeof lib_dirs / sizeof lib_dirs[0]; i++)
        sandbox_bind(&s, lib_dirs[i], lib_dirs[i], false);
    sandbox_chdir(&s, "/submission");
    char *const *argv = sandbox_command(&s, cmd);
    if (!argv)
        return -1;
    proc_limits lim = {(unsigned long)c->build_timeout_s * 2, 256ul << 20, 8ul << 30, 256, 256};
    proc_spec spec = {.argv = argv, .envp = sandbox_env(RUNNER_TOOLKIT_ROOT "/bin", false),
                      .timeout_s = c->build_timeout_s, .capture_limit = RUNNER_OUTPUT_CAP,
                      .limits = &lim, .set_uid = as_slot, .uid = uid, .gid = gid};
    char deps_real[PATH_MAX + 16], prog_real[PATH_MAX + 16];
    if (!c->sandbox) {
        /* Without bubblewrap the paths inside are the real ones. */
        snprintf(deps_real, sizeof deps_real, "%s/deps.d", out);
        snprintf(prog_real, sizeof prog_real, "%s/capture", out);
        cmd[8] = keep;
        cmd[11] = deps_real;
        cmd[16] = prog_real;
        spec.argv = cmd;
        spec.cwd = src;
    }
    proc_result r;
    if (proc_run_spec(&spec, &r) != 0)
        return -1;
    p->seconds = r.seconds;
    if (r.timed_out || r.exit_code != 0) {
        o->verdict = TL_VERDICT_BUILD_FAILED;
        if (r.timed_out)
            snprintf(o->detail, sizeof o->detail, "the build was stopped after %d s",
                     c->build_timeout_s);
        else if (r.signal)
            snprintf(o->detail, sizeof o->detail, "the compiler was killed by signal %d (a "
                     "limit of the build: memory, time or output)", r.signal);
        else
            snprintf(o->detail, sizeof o->detail, "nvcc refused the file (its messages follow)");
        size_t n = strlen(r.out) + strlen(r.err) + 1;
        o->messages = malloc(n);
        if (o->messages) {
            snprintf(o->messages, n, "%s%s", r.out, r.err);
            messages_for_student(&o->messages, source_name, out, src);
        }
    }
    proc_result_free(&r);
    if (o->verdict != TL_VERDICT_PASS)
        return 0;
    char deps[PATH_MAX + 16];
    snprintf(deps, sizeof deps, "%s/deps.d", out);
    snprintf(p->files[0], sizeof p->files[0], "%s", source_name);
    p->nfiles = 1;
    char inside[PATH_MAX + 8];
    snprintf(inside, sizeof inside, "%s/", c->sandbox ? "/submission" : src);
    char headers_path[PATH_MAX + 16];
    snprintf(headers_path, sizeof headers_path, "%s/headers.txt", out);
    FILE *headers = fopen(headers_path, "w");
    if (!headers)
        return -1;
    read_deps(deps, inside, p, headers, o);
    return fclose(headers) == 0 ? 0 : -1;
}

/* What the student is told about the build (runner_program.notes), from its own code. */
static void read_notes(runner_program *p)
{
    size_t len = 0;
    char *own = files_read(p->own_code, &len);
    removed_calls_note(own, RUNNER_CUDART_VERSION, p->notes, sizeof p->notes);
    free(own);
}

int runner_build(const runner_config *c, const char *folder, const char *source,
                 runner_program *p, runner_outcome *o)
{
    memset(p, 0, sizeof *p);
    memset(o, 0, sizeof *o);
    o->verdict = TL_VERDICT_PASS;
    const char *slash = strrchr(source, '/');
    const char *source_name = slash ? slash + 1 : source;
    snprintf(p->source_name, sizeof p->source_name, "%s", source_name);
    char arch[16];
    arch_of(c, arch, sizeof arch);
    mkdir(RUNNER_CACHE_DIR, 0755);
    char work[PATH_MAX], staged[PATH_MAX + 8];
    snprintf(work, sizeof work, "%s/work-XXXXXX", RUNNER_CACHE_DIR);
    if (!mkdtemp(work))
        return -1;
    snprintf(staged, sizeof staged, "%s/src", work);
    char beside[PATH_MAX];
    snprintf(beside, sizeof beside, "%.*s", slash ? (int)(slash - source) : 1,
             slash ? source : ".");
    if (slash == source)
        snprintf(beside, sizeof beside, "/");
    int staged_rc = folder ? stage_folder(folder, staged, o)
                           : stage_beside(beside, source_name, staged, o);
    if (staged_rc != 0) {
        files_remove_tree(work);
        return -1;
    }
    /* The key: every staged file, the kit's libraries and headers, the compiler and flags. */
    uint64_t h = TL_HASH_SEED;
    if (o->verdict == TL_VERDICT_PASS && util_hash_tree(&h, staged, BUILD_HASH_DEPTH, RUNNER_MAX_SOURCE_BYTES) != 0) {
        o->verdict = TL_VERDICT_REFUSED;
        snprintf(o->detail, sizeof o->detail, "%s: cannot read the submission",
                 folder ? folder : source);
    }
    const char *stamps[] = {RUNNER_CAPTURE_MAIN_LIB, RUNNER_CAPTURE_RT_LIB, RUNNER_CAPTURE_LOG_LIB,
                            RUNNER_CAPTURE_WB_LIB, RUNNER_HARNESS_CUDA_LIB, RUNNER_HARNESS_LIB,
                            RUNNER_PTX_LIB, RUNNER_HARNESS_INCLUDE "/lab.h",
                            RUNNER_HARNESS_INCLUDE "/harness.h", RUNNER_HARNESS_INCLUDE "/wb.h",
                            RUNNER_HARNESS_INCLUDE "/gputk.h",
                            RUNNER_HARNESS_INCLUDE "/cuda_removed.h", RUNNER_NVCC};
    for (size_t i = 0; i < sizeof stamps / sizeof stamps[0]; i++)
        h = util_hash_stamp(h, stamps[i]);
    h = util_hash_text(h, source_name);
    h = util_hash_text(h, arch);
    h = util_hash_text(h, c->device_debug ? "-G" : "-lineinfo");
    h = util_hash_text(h, c->program ? "program" : "lab");
    h = util_hash_text(h, "products: capture ptx cubin own.ii headers"); /* a cached build has them all */
    snprintf(p->dir, sizeof p->dir, "%s/%016" PRIx64, RUNNER_CACHE_DIR, h);
    set_paths(p);
    if (o->verdict != TL_VERDICT_PASS) {
        files_remove_tree(work);
        return 0;
    }
    if (access(p->capture, X_OK) == 0) {
        p->cached = true;
        read_file_list(p);
        read_notes(p);
        files_remove_tree(work);
        return 0;
    }
    if (compile(c, work, source_name, arch, p, o) != 0) {
        files_remove_tree(work);
        return -1;
    }
    if (o->verdict != TL_VERDICT_PASS) {
        files_remove_tree(work);
        return 0;
    }
    /* Publish: the products under the runner's own user, then one rename into the cache. */
    char out[PATH_MAX + 8], keep[PATH_MAX + 16], final_dir[PATH_MAX];
    snprintf(out, sizeof out, "%s/out", work);
    snprintf(keep, sizeof keep, "%s/keep", out);
    snprintf(final_dir, sizeof final_dir, "%s", p->dir);
    snprintf(p->dir, sizeof p->dir, "%s", work);
    set_paths(p);
    char from[PATH_MAX + 16];
    snprintf(from, sizeof from, "%s/capture", out);
    if (take(keep, "*.ptx", p->ptx) != 0 || take(keep, "*.cubin", p->image) != 0 ||
        keep_own_code(c, work, keep, p->own_code) != 0 || rename(from, p->capture) != 0 ||
        write_file_list(p) != 0 || rename_in(out, "headers.txt", p->headers) != 0) {
        files_remove_tree(work);
        return -1;
    }
    if (geteuid() == 0 && (chown(p->capture, 0, 0) != 0 || chown(p->ptx, 0, 0) != 0 ||
                           chown(p->image, 0, 0) != 0 || chown(p->headers, 0, 0) != 0 ||
                           (access(p->own_code, F_OK) == 0 && chown(p->own_code, 0, 0) != 0))) {
        files_remove_tree(work);
        return -1;
    }
    chmod(work, 0755);
    files_remove_tree(out);
    snprintf(p->dir, sizeof p->dir, "%s", final_dir);
    set_paths(p);
    if (rename(work, p->dir) != 0) {
        /* Another runner built the same files at the same time and published first: the same
         * products, so use those. */
        files_remove_tree(work);
        if (access(p->capture, X_OK) != 0)
            return -1;
        p->cached = true;
    }
    read_notes(p);
    return 0;
}

const char *runner_toolkit_headers(void)
{
    return RUNNER_TOOLKIT_ROOT "/include";
}

void runner_outcome_free(runner_outcome *o)
{
    free(o->messages);
    o->messages = NULL;
}
