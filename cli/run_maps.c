/* The error maps of one `run`: where each dataset's P went, its map, the report's entries. */
#include "run_maps.h"

#include "cli.h"
#include "run_report.h"
#include "runner_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAP_INDENT "        " /* under a dataset's line, as its detail */

struct run_maps {
    const char *report;
    bool print, colour;
    char work[64];              /* the run's own folder for the P it saves */
    char own[96];               /* its file there */
    const char *saved;          /* where the current dataset's P goes */
    bool existed;               /* and what was there before its replay */
    struct stat before;
    run_report_entry *entries;
    int n, cap;
};

run_maps *run_maps_open(const char *report, bool print, tl_error *err)
{
    run_maps *m = calloc(1, sizeof *m);
    if (!m) {
        tl_error_set(err, "out of memory");
        return NULL;
    }
    snprintf(m->work, sizeof m->work, "/tmp/tilelab-map-XXXXXX");
    if (!mkdtemp(m->work)) {
        tl_error_set(err, "cannot make a folder under /tmp for the results: %s", strerror(errno));
        free(m);
        return NULL;
    }
    snprintf(m->own, sizeof m->own, "%s/P.raw", m->work);
    m->report = report;
    m->print = print;
    m->colour = print && run_map_colour_wanted(stdout);
    return m;
}

const char *run_maps_next(run_maps *m, const char *wanted)
{
    m->saved = wanted ? wanted : m->own;
    if (!wanted)
        unlink(m->own);
    m->existed = stat(m->saved, &m->before) == 0;
    return m->saved;
}

/* A file the replay wrote: there now, and not the one that was there before (results are
 * written to a new file that is renamed over the old one). */
static bool freshly_saved(const run_maps *m)
{
    struct stat now;
    if (stat(m->saved, &now) != 0)
        return false;
    return !m->existed || now.st_ino != m->before.st_ino || now.st_dev != m->before.st_dev ||
           now.st_mtim.tv_sec != m->before.st_mtim.tv_sec ||
           now.st_mtim.tv_nsec != m->before.st_mtim.tv_nsec;
}

static void map_dataset(run_maps *m, run_report_entry *e, const char *dir,
                        const runner_result *r, const caplog *log, bool draw)
{
    tl_error err;
    if (!freshly_saved(m)) {
        snprintf(e->note, sizeof e->note, "no map: the replay saved no result");
    } else if (run_map_build(&e->map, dir, m->saved, log, r, &err) != 0) {
        snprintf(e->note, sizeof e->note, "no map: %.280s", err.msg);
    } else if (e->map.wrong_elements == 0) {
        snprintf(e->note, sizeof e->note, r->verdict == TL_VERDICT_UNSAFE
                 ? "P as the checked run left it is right everywhere: with the finding above, "
                   "a right result is luck"
                 : "the first run's P is right everywhere: a later run's was not");
        run_map_free(&e->map);
    } else {
        e->has_map = true;
        e->map.checked_run = r->verdict == TL_VERDICT_UNSAFE;
    }
    if (!m->print || !draw)
        return;
    if (e->has_map)
        run_map_print(stdout, &e->map, m->colour, MAP_INDENT);
    else
        printf(MAP_INDENT "(%s)\n", e->note);
}

void run_maps_dataset(run_maps *m, const char *dir, tl_size shape, const runner_result *r,
                      const caplog *log, bool draw)
{
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        run_report_entry *grown = realloc(m->entries, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        m->entries = grown;
        m->cap = cap;
    }
    run_report_entry *e = &m->entries[m->n];
    memset(e, 0, sizeof *e);
    e->dataset = strdup(cli_shown(dir));
    if (!e->dataset)
        return;
    m->n++;
    e->size = shape;
    e->verdict = r->verdict;
    snprintf(e->hint, sizeof e->hint, "%s", r->hint);
    snprintf(e->detail, sizeof e->detail, "%s", r->detail);
    /* Nothing to draw on (--json without --report): the map is not worth its check. */
    if ((r->verdict == TL_VERDICT_WRONG || r->verdict == TL_VERDICT_UNSAFE) &&
        ((m->print && draw) || m->report))
        map_dataset(m, e, dir, r, log, draw);
    if (!m->report) {
        run_map_free(&e->map);
        e->has_map = false;
    }
}

int run_maps_close(run_maps *m, const char *lab, const char *source, const char *device,
                   tl_error *err)
{
    int rc = 0;
    if (m->report) {
        run_report_meta meta = {lab, source, device};
        rc = run_report_write(m->report, &meta, m->entries, m->n, err);
    }
    for (int i = 0; i < m->n; i++) {
        free(m->entries[i].dataset);
        run_map_free(&m->entries[i].map);
    }
    free(m->entries);
    files_remove_tree(m->work);
    free(m);
    return rc;
}

int run_maps_check_report(const char *path, tl_error *err)
{
    char folder[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(folder, sizeof folder, ".");
    else
        snprintf(folder, sizeof folder, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return tl_error_set(err, "--report %s: a folder; name the page's file", path);
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        return tl_error_set(err, "--report %s: no folder %s", path, folder);
    if (access(folder, W_OK) != 0)
        return tl_error_set(err, "--report %s: the folder %s is not writable", path, folder);
    return 0;
}
