/* tilelab grade: grade a whole class (the work is in grader/). */
#include "cli.h"
#include "grader.h"

#include <getopt.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: ./tilelab grade SUBMISSIONS --lab LAB [options]\n"
    "\n"
    "Grades every submission of a lab. Nothing the student's code writes is believed: each file\n"
    "is built in a sandbox, its host code runs only to describe the work (captured in a sandbox\n"
    "with no GPU), and tilelab's own replayer runs the kernels on the grader's buffers, times them\n"
    "and sends back every result, which the grader checks itself: every dataset, and every timed\n"
    "run on a performance dataset made for this grading. Static checks read every file the build\n"
    "read. Scores come from the lab's rubric, performance against the reference solution timed\n"
    "the same way in the same grading.\n"
    "\n"
    "  SUBMISSIONS     a folder with one folder per student (student id = folder name) holding\n"
    "                  template.cu (a single other .cu is accepted with a warning), or one\n"
    "                  submission folder holding the .cu (Gradescope style)\n"
    "  --lab LAB       {labs} (or 02, tiled, ...), or a lab described by\n"
    "                  a lab.json (the file, or its folder: examples/kit-labs/*): every\n"
    "                  submission is then a whole libwb program with its own main, captured and\n"
    "                  replayed whole, and the answer it hands to wbSolution is checked by the\n"
    "                  description's rule on its datasets (docs/libwb-compat.md)\n"
    "  --libwb         LAB's submissions are whole libwb programs (wb.h or gputk.h, their own\n"
    "                  main), graded on LAB's datasets with the error bound and timed against\n"
    "                  the reference (predicted on the CPU backend); a file that defines main\n"
    "                  is graded so anyway\n"
    "  --datasets DIR  the datasets (default: the lab's shipped ones)\n"
    "  --hidden DIR    hidden datasets too (e.g. private-datasets/LAB/seed-S from\n"
    "                  ./tilelab datasets LAB --seed S); their tests' visibility is the rubric's\n"
    "  --out DIR       where the results go (default: grades/LAB)\n"
    "  --rubric FILE   the rubric (default: grader/rubrics/LAB.rubric)\n"
    "  --roster FILE   a class roster, CSV with a header row: an \"id\" column (the submission\n"
    "                  folders' names) and any others (name, email, SIS id) that the gradebook\n"
    "                  joins in beside each student; ids without a submission get a row. A\n"
    "                  \"submitted\" column (2026-11-20T23:59:00Z, an offset such as -05:00,\n"
    "                  or \"2026-11-20 23:59\" in UTC) is when each handed in: it breaks the\n"
    "                  leaderboard's ties (rubric key leaderboard = yes)\n"
    "  --submission-metadata FILE\n"
    "                  Gradescope's submission_metadata.json: its created_at is the time\n"
    "                  submitted of the submissions the roster gives none (the Gradescope\n"
    "                  bundle passes it). Times never come from a submission's own files\n"
    "  --backend B     gpu or cpu (default: gpu when there is a CUDA device); on the CPU backend\n"
    "                  performance points come from the performance model's predicted H100\n"
    "                  times (docs/perfmodel.md) and are marked as such\n"
    "  --jobs N        submissions graded at once (default: one per CPU), each in a worker slot\n"
    "                  with a user of its own when the grader runs as root; replays on a GPU\n"
    "                  take turns, held by the grader, so timings stay fair\n"
    "  --timeout S     seconds per replay (default 60)\n"
    "  --reps N        timed repetitions (default 10 on a GPU, 3 on the CPU backend)\n"
    "  --perf-size S   the performance dataset, JxKxL or N (default 2048; 4096 for lab 06;\n"
    "                  square for labs 01-03), generated from a fresh seed kept in\n"
    "                  OUT/.performance-seed so a resumed grading uses the same one\n"
    "  --no-sandbox    grade without bubblewrap (refused otherwise when it does not work here):\n"
    "                  only for submissions you trust\n"
    "  --quiet         no progress on stderr\n"
    "\n"
    "On a Slurm cluster (docs/grader.md#a-slurm-cluster; --out must be on a file system every\n"
    "node shares, and so must the kit, the submissions and the datasets):\n"
    "  --slurm         grade through one Slurm array job, a task per submission (sbatch\n"
    "                  --array), each task writing its journal entry; this command shows the\n"
    "                  progress and writes the outputs when every task has its entry. Running\n"
    "                  it again watches the job it submitted (OUT/slurm/jobs.txt) instead of\n"
    "                  submitting again, and resubmits only the tasks that ended without an\n"
    "                  entry. --jobs does not apply\n"
    "  --partition P   sbatch --partition=P (default: the cluster's default partition)\n"
    "  --gres G        sbatch --gres=G, e.g. gpu:1 with --backend gpu\n"
    "  --array-limit N at most N tasks run at once (sbatch --array=...%N; default: no limit)\n"
    "  --slurm-time T  sbatch --time=T per task, in Slurm's forms (MM, HH:MM:SS, D-HH)\n"
    "\n"
    "Results in --out: gradebook.csv, results/<student>/results.json (Gradescope),\n"
    "feedback/<student>.txt, report.html, and journal/ (one file per graded submission: running\n"
    "again skips unchanged submissions, so an interrupted grading resumes where it stopped).\n"
    "With leaderboard = yes in the rubric, the report, the gradebook and the summary printed at\n"
    "the end rank the class by kernel time on the performance dataset (docs/grader.md).\n"
    "\n"
    "exit status: 0 graded (whatever the scores), 2 bad usage, bad input, or the grader could not\n"
    "run (the message says which; --slurm without sbatch and squeue on PATH), 3 with --slurm:\n"
    "some tasks ended without a journal entry (each is named; no outputs were written)\n";

static const struct option longopts[] = {
    {"lab", required_argument, NULL, 'l'},     {"datasets", required_argument, NULL, 'd'},
    {"hidden", required_argument, NULL, 'H'},  {"out", required_argument, NULL, 'o'},
    {"rubric", required_argument, NULL, 'r'},  {"backend", required_argument, NULL, 'b'},
    {"jobs", required_argument, NULL, 'j'},    {"timeout", required_argument, NULL, 't'},
    {"reps", required_argument, NULL, 'R'},    {"quiet", no_argument, NULL, 'q'},
    {"perf-size", required_argument, NULL, 'P'}, {"no-sandbox", no_argument, NULL, 'X'},
    {"roster", required_argument, NULL, 'S'},  {"slurm", no_argument, NULL, 'U'},
    {"partition", required_argument, NULL, 'p'}, {"gres", required_argument, NULL, 'g'},
    {"array-limit", required_argument, NULL, 'A'},
    {"slurm-time", required_argument, NULL, 'T'}, {"libwb", no_argument, NULL, 'L'},
    {"submission-metadata", required_argument, NULL, 'M'},
    {NULL, 0, NULL, 0}};

/* What the options name before the lab is known. */
typedef struct named {
    const char *lab, *backend, *perf;
} named;

/* One option getopt_long returned: 0, or the exit status of a bad one. */
static int parse_option(int c, char **argv, grade_options *o, named *n)
{
    int bad = 0;
    switch (c) {
    case 'l': n->lab = optarg; break;
    case 'd': o->datasets = optarg; break;
    case 'H': o->hidden = optarg; break;
    case 'o': o->out = optarg; break;
    case 'r': o->rubric = optarg; break;
    case 'S': o->roster = optarg; break;
    case 'M': o->metadata = optarg; break;
    case 'b': n->backend = optarg; break;
    case 'j': bad = cli_parse_int("--jobs", optarg, 1, 256, &o->jobs); break;
    case 't': bad = cli_parse_int("--timeout", optarg, 1, 86400, &o->timeout); break;
    case 'R': bad = cli_parse_int("--reps", optarg, 1, 100, &o->reps); break;
    case 'q': o->quiet = true; break;
    case 'P': n->perf = optarg; break;
    case 'X': o->no_sandbox = true; break;
    case 'U': o->slurm = true; break;
    case 'p': o->partition = optarg; break;
    case 'g': o->gres = optarg; break;
    case 'A':
        bad = cli_parse_int("--array-limit", optarg, 1, GRADE_MAX_ARRAY_LIMIT, &o->array_limit);
        break;
    case 'T': o->slurm_time = optarg; break;
    case 'L': o->libwb = true; break;
    default:
        return cli_fail("grade: unknown or incomplete option \"%s\" (see --help)",
                        argv[optind - 1]);
    }
    return bad ? TL_EXIT_BAD_INPUT : 0;
}

/* The backend (--backend's, else the default) and its repetitions. */
static int choose_backend(grade_options *o, const char *backend)
{
    char device[256], backends[RUNNER_BACKEND_NAMES_SIZE];
    if (backend && !runner_backend_parse(backend, &o->backend))
        return cli_fail("--backend expects %s, got \"%s\"",
                        runner_backend_names(backends, sizeof backends), backend);
    bool gpu = runner_backend_default(&o->backend, backend != NULL, device, sizeof device);
    /* With --slurm the tasks run on the cluster's nodes: this machine needs no GPU. */
    if (runner_backend_about(o->backend)->device && !gpu && !o->slurm)
        return cli_fail("--backend %s: there is no CUDA device here [%s]",
                        runner_backend_name(o->backend), device);
    if (!o->reps)
        o->reps = runner_backend_about(o->backend)->reps;
    return 0;
}

/* The performance dataset's size, and the datasets and outputs' folders unless given (into
 * datasets[PATH_MAX] and out[PATH_MAX]). */
static int sizes_and_folders(grade_options *o, const char *perf, char *datasets, char *out)
{
    const runner_lab *lab = o->lab;
    const tl_lab *matrix = runner_lab_matrix(lab);
    tl_error err;
    if (!runner_lab_shipped(lab) && perf && strcmp(perf, "2048") != 0)
        return cli_fail("--perf-size: a lab.json's class is not timed against a reference");
    if (!perf)
        o->perf_size = runner_lab_perf_size(lab);
    else if (tl_size_parse(perf, &o->perf_size, &err) != 0)
        return cli_fail("--perf-size: %s", err.msg);
    if (matrix && matrix->square &&
        (o->perf_size.m != o->perf_size.k || o->perf_size.k != o->perf_size.n))
        return cli_fail("--perf-size: lab %s multiplies square matrices; give one size N",
                        runner_lab_name(lab));
    if (!o->datasets) {
        runner_lab_datasets(lab, cli_root(), datasets, PATH_MAX);
        o->datasets = datasets;
    }
    if (!o->out) {
        snprintf(out, PATH_MAX, "grades/%s", runner_lab_name(lab));
        if (access("grades", F_OK) != 0 && mkdir("grades", 0755) != 0)
            return cli_fail("cannot create the folder grades/ here");
        o->out = out;
    }
    return 0;
}

static int run(int argc, char **argv)
{
    grade_options o;
    memset(&o, 0, sizeof o);
    named n = {NULL, NULL, NULL};
    o.timeout = RUNNER_REPLAY_TIMEOUT_S;
    o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int c, rc;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
        if ((rc = parse_option(c, argv, &o, &n)) != 0)
            return rc;
    if (optind + 1 != argc)
        return cli_fail("grade: name one folder of submissions (see ./tilelab grade --help)");
    o.submissions = argv[optind];
    if (!n.lab)
        return cli_fail("grade: which lab? add --lab LAB");
    static runner_lab resolved;
    if ((rc = cli_lab_resolve("grade", n.lab, false, &resolved)) != 0)
        return rc;
    o.lab = &resolved;
    if (runner_lab_described(o.lab) && o.libwb)
        return cli_fail("grade: --libwb is for a matrix lab; a lab.json's submissions are "
                        "whole programs already");
    if ((o.partition || o.gres || o.array_limit || o.slurm_time) && !o.slurm)
        return cli_fail("grade: --partition, --gres, --array-limit and --slurm-time go with --slurm");
    if (o.slurm && (!grade_slurm_on_path("sbatch") || !grade_slurm_on_path("squeue")))
        return cli_fail("grade --slurm: sbatch and squeue were not found on PATH: run it where "
                        "Slurm's client commands are (a login node), or install them (Debian: "
                        "slurm-client)");
    char datasets[PATH_MAX], out[PATH_MAX];
    if ((rc = choose_backend(&o, n.backend)) != 0 ||
        (rc = sizes_and_folders(&o, n.perf, datasets, out)) != 0)
        return rc;
    tl_error err;
    rc = grade_class(&o, &err);
    if (rc == GRADE_TASKS_FAILED)
        return TL_EXIT_CRASH; /* each task that failed was named */
    if (rc != 0)
        return cli_fail("grade: %s", err.msg);
    return TL_EXIT_OK;
}

static const char task_usage[] =
    "usage: tilelab-cli grade-task GRADING INDEX\n"
    "\n"
    "One task of ./tilelab grade --slurm, run by the batch script it submits: grades submission\n"
    "INDEX of the grading file GRADING (OUT/slurm/grading-N.json) as a local worker would and\n"
    "writes its journal entry. Not meant to be run by hand.\n"
    "\n"
    "exit status: 0 the entry was written, 2 it could not be (the message says why)\n";

static int run_task(int argc, char **argv)
{
    int index;
    if (argc != 3)
        return cli_fail("grade-task: expected GRADING INDEX (see --help)");
    if (cli_parse_int("grade-task INDEX", argv[2], 0, 1 << 30, &index) != 0)
        return TL_EXIT_BAD_INPUT;
    tl_error err;
    if (grade_task(argv[1], index, &err) != 0)
        return cli_fail("grade-task: %s", err.msg);
    return TL_EXIT_OK;
}

const cli_command cmd_grade_task = {"grade-task", "one task of grade --slurm", task_usage,
                                    run_task};

const cli_command cmd_grade = {"grade", "grade a class of submissions (for instructors)", usage, run};
