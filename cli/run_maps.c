/* The error maps of one `run`: where each dataset's P went, its map, the report's entries. */
#include "run_maps.h"

#include "cli.h"
#include "report.h"
#include "util.h"

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
    m->colour = print && explain_colour_wanted(stdout);
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

void run_maps_dataset(run_maps *m, const runner_loaded *d, const runner_result *r,
                      explanation *x, const caplog *log, bool draw)
{
    /* Nothing to draw on (--json without --report): the map is not worth its check. */
    if ((m->print && draw) || m->report)
        explain_add_map(x, &d->ref, freshly_saved(m) ? m->saved : NULL, log, r);
    if (m->print && draw)
        explain_print_map(stdout, x, m->colour, MAP_INDENT);
    if (!m->report)
        return;
    if (m->n == m->cap) {
        int cap = m->cap ? 2 * m->cap : 16;
        run_report_entry *grown = realloc(m->entries, (size_t)cap * sizeof *grown);
        if (!grown)
            return;
        m->entries = grown;
        m->cap = cap;
    }
    run_report_entry *e = &m->entries[m->n];
    e->dataset = strdup(cli_shown(d->from.dir));
    if (!e->dataset)
        return;
    m->n++;
    e->size = d->shape;
    e->x = *x; /* the entry takes the map */
    memset(&x->map, 0, sizeof x->map);
    x->has_map = false;
}

void run_maps_causes(run_maps *m, const explanation *causes)
{
    if (!m->report || m->n == 0)
        return;
    explanation *x = &m->entries[m->n - 1].x;
    x->ncauses = causes->ncauses;
    x->findings = causes->findings;
    memcpy(x->causes, causes->causes, sizeof x->causes);
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
        explain_free(&m->entries[i].x);
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
