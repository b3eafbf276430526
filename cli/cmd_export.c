/* tilelab export: a lab's grading bundle for Gradescope or PrairieLearn, which grade on the CPU
 * backend (their containers have no GPU). The scripts the platforms run are in grader/platforms/;
 * the copying, the settings and the zip in export_kit.c. */
#include "cli.h"
#include "export.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Seconds one replay may take in a bundle: a correct kernel of any lab takes well under one on
 * the shipped datasets on the CPU backend, and an endless loop costs this per dataset. */
#define DEFAULT_TIMEOUT 10
#define MAX_TIMEOUT 600
/* PrairieLearn's job time limit in the sample info.json, in seconds (its maximum is 600): the
 * kit's own grading of a lab is under a minute, an endless loop's a few. */
#define PL_JOB_TIMEOUT 300
#define DEFAULT_IMAGE "tilelab-grader"
#define PL_QUESTION_PREFIX "tilelab-"

static const char usage[] =
    "usage: ./tilelab export gradescope LAB [--hidden DIR] [--out FILE.zip] [options]\n"
    "       ./tilelab export prairielearn LAB [--hidden DIR] [--out DIR] [--image NAME] [options]\n"
    "       ./tilelab export prairielearn-results GRADESCOPE.json OUT.json\n"
    "\n"
    "Writes a lab's grading bundle for a course that grades on Gradescope or PrairieLearn. Their\n"
    "containers have no GPU, so the bundle grades on the CPU backend, as ./tilelab grade\n"
    "--backend cpu does (performance from the performance model's predicted H100 times). The\n"
    "bundle holds the kit (the sources the build reads, the front door, the lab's stub, reference\n"
    "solution, rubric and datasets), built once on the platform, and the platform's scripts.\n"
    "\n"
    "  gradescope      an autograder zip (default: gradescope-LAB.zip here): setup.sh installs\n"
    "                  the kit's packages on Gradescope's Ubuntu image, CUDA's compiler from\n"
    "                  NVIDIA's repository among them, and builds the kit; run_autograder grades\n"
    "                  /autograder/submission as a class of one and writes\n"
    "                  /autograder/results/results.json (score 0 and the reason if anything fails)\n"
    "  prairielearn    the external-grader layout (default: prairielearn-LAB/ here):\n"
    "                  serverFilesCourse/tilelab (the kit, and the Dockerfile of the grading image\n"
    "                  to build and push), questions/tilelab-LAB (info.json with its\n"
    "                  externalGradingOptions, question.html, the stub, tests/ with the question's\n"
    "                  settings); the entry script grades /grade/student and writes\n"
    "                  /grade/results/results.json in PrairieLearn's format\n"
    "  prairielearn-results  what that entry script runs: the grader's results.json (Gradescope's\n"
    "                  format) as PrairieLearn's results.json (score 0..1, tests with points)\n"
    "\n"
    "  LAB             01-basic ... 06-challenge (or 02, tiled, ...), or a lab.json (or\n"
    "                  its folder): a described lab, graded as whole libwb programs; the\n"
    "                  bundle's kit holds the description and its datasets (described/NAME)\n"
    "  --hidden DIR    hidden datasets (./tilelab datasets LAB --seed S), graded too; on\n"
    "                  Gradescope their tests have the rubric's hidden_visibility, on PrairieLearn\n"
    "                  they show only their points. Kept in the zip, or in the question's tests/\n"
    "  --out PATH      the zip (gradescope) or folder (prairielearn, which must not exist) to write\n"
    "  --image NAME    prairielearn: the grading image named in info.json (default " DEFAULT_IMAGE ");\n"
    "                  build it with: docker build -t NAME OUT/serverFilesCourse/tilelab\n"
    "  --timeout S     seconds one replay may take when grading (default 10)\n"
    "  --no-sandbox    grade without bubblewrap, for a platform whose containers cannot create\n"
    "                  namespaces: the student's code then runs unconfined in the container\n"
    "\n"
    "Both bundles' scripts take their root from the environment, to be tried outside the\n"
    "platform: AUTOGRADER_ROOT (for /autograder), GRADE_ROOT (for /grade), TILELAB_KIT (the\n"
    "image's kit, /opt/tilelab); TILELAB_SKIP_INSTALL=1 makes setup.sh and the image's install\n"
    "step install nothing and only build. Set-up on each platform: docs/export.md.\n"
    "\n"
    "exit status: 0 written, 2 bad usage or input, or the bundle could not be written\n";

typedef struct options {
    const char *format, *lab_name, *out, *hidden, *image;
    bool image_given;
    export_settings settings;
} options;

static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"hidden", required_argument, NULL, 'H'},  {"out", required_argument, NULL, 'o'},
        {"image", required_argument, NULL, 'i'},   {"timeout", required_argument, NULL, 't'},
        {"no-sandbox", no_argument, NULL, 'X'},    {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->settings.timeout = DEFAULT_TIMEOUT;
    o->settings.sandbox = true;
    o->image = DEFAULT_IMAGE;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'H': o->hidden = optarg; break;
        case 'o': o->out = optarg; break;
        case 'i': o->image = optarg; o->image_given = true; break;
        case 't':
            if (cli_parse_int("--timeout", optarg, 1, MAX_TIMEOUT, &o->settings.timeout) != 0)
                return TL_EXIT_BAD_INPUT;
            break;
        case 'X': o->settings.sandbox = false; break;
        default:
            return cli_fail("export: unknown or incomplete option \"%s\" (see --help)",
                            argv[optind - 1]);
        }
    }
    if (optind + 2 != argc)
        return cli_fail("export: name a format and a lab, e.g. ./tilelab export gradescope 02 "
                        "(see --help)");
    o->format = argv[optind];
    o->lab_name = argv[optind + 1];
    o->settings.lab = tl_lab_find(o->lab_name);
    static runner_program_lab described;
    tl_error err;
    if (!o->settings.lab && access(o->lab_name, F_OK) == 0) {
        if (runner_program_lab_read(o->lab_name, &described, &err) != 0)
            return cli_fail("export: %s", err.msg);
        o->settings.program = &described;
    } else if (!o->settings.lab) {
        return cli_fail("export: no lab \"%s\" (01-basic ... 06-challenge, or a lab.json "
                        "or the folder holding one)", o->lab_name);
    }
    /* The image name goes into info.json as it is: keep it to what docker accepts. */
    for (const char *p = o->image; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("._-/:@", *p)))
            return cli_fail("--image: \"%s\" is not a Docker image name (lower-case letters, "
                            "digits, . _ - / : @)", o->image);
    return TL_EXIT_OK;
}

/* The temporary folder a bundle is put together in: beside the output folder when it is to be
 * renamed to it (so on the same file system), else in TMPDIR; removed by the caller. */
static int make_stage(const char *beside, char *stage, size_t size, tl_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if (beside)
        snprintf(stage, size, "%.3000s.tmp-XXXXXX", beside);
    else
        snprintf(stage, size, "%.3000s/tilelab-export-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(stage))
        return tl_error_set(err, "cannot create a temporary folder (%s): %s", stage,
                            strerror(errno));
    return 0;
}

/* The kit, and the hidden datasets in `hidden_to` when given. */
static int stage_kit(const options *o, const char *kit_to, const char *hidden_to, tl_error *err)
{
    if (export_copy_kit(cli_root(), &o->settings, kit_to, err) != 0)
        return -1;
    const char *marker = o->settings.program ? o->settings.program->inputs[0] : "input0.raw";
    return o->hidden ? export_copy_datasets(o->hidden, marker, hidden_to, err) : 0;
}

static int gradescope(const options *o, const char *stage, tl_error *err)
{
    char kit[PATH_MAX], path[PATH_MAX], script[PATH_MAX], out[PATH_MAX];
    snprintf(kit, sizeof kit, "%.3000s/%s", stage, EXPORT_KIT_DIR);
    snprintf(path, sizeof path, "%.3000s/%s", stage, EXPORT_HIDDEN_DIR);
    if (stage_kit(o, kit, path, err) != 0)
        return -1;
    /* Gradescope wants both scripts at the zip's root. */
    static const char *const scripts[] = {"setup.sh", "run_autograder"};
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        snprintf(script, sizeof script, "%.3000s/%s/gradescope/%s", kit, EXPORT_PLATFORMS,
                 scripts[i]);
        snprintf(path, sizeof path, "%.3000s/%s", stage, scripts[i]);
        if (export_copy_file(script, path, EXPORT_MODE_EXEC, err) != 0)
            return -1;
    }
    export_settings s = o->settings;
    s.hidden = o->hidden ? EXPORT_HIDDEN_DIR : NULL;
    snprintf(path, sizeof path, "%.3000s/%s", stage, EXPORT_CONF);
    if (export_write_conf(path, &s, err) != 0)
        return -1;
    if (o->out)
        snprintf(out, sizeof out, "%s", o->out);
    else
        snprintf(out, sizeof out, "gradescope-%s.zip", export_lab_name(&o->settings));
    if (export_zip(stage, out, err) != 0)
        return -1;
    printf("wrote %s: upload it as the autograder of a Gradescope programming assignment\n"
           "(lab %s%s, graded on the CPU backend; docs/export.md)\n",
           out, export_lab_name(&o->settings), o->hidden ? ", with hidden datasets" : "");
    return 0;
}

static int write_info_json(const options *o, const char *question, tl_error *err)
{
    char uuid[37], path[PATH_MAX], text[4096];
    if (export_uuid(uuid, err) != 0)
        return -1;
    snprintf(text, sizeof text,
             "{\n"
             "  \"uuid\": \"%s\",\n"
             "  \"title\": \"tilelab lab %s\",\n"
             "  \"topic\": \"tilelab\",\n"
             "  \"tags\": [\"tilelab\", \"cuda\"],\n"
             "  \"type\": \"v3\",\n"
             "  \"singleVariant\": true,\n"
             "  \"gradingMethod\": \"External\",\n"
             "  \"externalGradingOptions\": {\n"
             "    \"enabled\": true,\n"
             "    \"image\": \"%s\",\n"
             "    \"serverFilesCourse\": [\"" EXPORT_KIT_DIR "/\"],\n"
             "    \"entrypoint\": \"/grade/serverFilesCourse/" EXPORT_KIT_DIR "/" EXPORT_PLATFORMS
             "/prairielearn/entrypoint.sh\",\n"
             "    \"timeout\": %d\n"
             "  }\n"
             "}\n",
             uuid, export_lab_name(&o->settings), o->image, PL_JOB_TIMEOUT);
    snprintf(path, sizeof path, "%.3000s/info.json", question);
    return export_write_text(path, text, EXPORT_MODE_FILE, err);
}

/* What the student sees of a grading: the grader's results and the files handed in. */
#define PL_SUBMISSION_PANEL                                                                    \
    "\n"                                                                                       \
    "<pl-submission-panel>\n"                                                                  \
    "  <pl-external-grader-results></pl-external-grader-results>\n"                            \
    "  <pl-file-preview></pl-file-preview>\n"                                                  \
    "</pl-submission-panel>\n"

static int write_question_html(const options *o, const char *question, tl_error *err)
{
    char path[PATH_MAX], text[2048];
    if (o->settings.program)
        snprintf(text, sizeof text,
                 "<pl-question-panel>\n"
                 "  <p>%s: hand in your whole program (<code>main.cu</code>, with its own\n"
                 "  <code>main</code>, libwb or libgputk). It is graded as tilelab grades whole\n"
                 "  programs, on its CPU backend: the answer it hands to <code>wbSolution</code>\n"
                 "  is checked as the device computed it, on every dataset, and races and\n"
                 "  out-of-bounds accesses are found.</p>\n"
                 "  <pl-file-editor file-name=\"main.cu\" ace-mode=\"ace/mode/c_cpp\">\n"
                 "  </pl-file-editor>\n"
                 "</pl-question-panel>\n" PL_SUBMISSION_PANEL,
                 o->settings.program->title);
    else
        snprintf(text, sizeof text,
                 "<pl-question-panel>\n"
                 "  <p>tilelab lab %s: fill in the places marked <code>//@@</code> in\n"
                 "  <code>template.cu</code>, as the lab's handout asks. Your kernel is graded on\n"
                 "  tilelab's CPU backend: every dataset checked against a rigorous fp32 error\n"
                 "  bound, races and out-of-bounds accesses found, and its speed predicted for an\n"
                 "  H100.</p>\n"
                 "  <pl-file-editor file-name=\"template.cu\" ace-mode=\"ace/mode/c_cpp\"\n"
                 "                  source-file-name=\"template.cu\"></pl-file-editor>\n"
                 "</pl-question-panel>\n" PL_SUBMISSION_PANEL,
                 o->settings.lab->id);
    snprintf(path, sizeof path, "%.3000s/question.html", question);
    return export_write_text(path, text, EXPORT_MODE_FILE, err);
}

static int make_dirs(const char *base, const char *const *names, size_t n, tl_error *err)
{
    char path[PATH_MAX];
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%.3000s/%s", base, names[i]);
        if (mkdir(path, EXPORT_MODE_DIR) != 0)
            return tl_error_set(err, "cannot create %s: %s", path, strerror(errno));
    }
    return 0;
}

/* Put together in `stage`, then renamed to the output folder `out` whole. */
static int prairielearn(const options *o, const char *stage, const char *out, tl_error *err)
{
    const char *id = export_lab_name(&o->settings);
    char kit[PATH_MAX], question[PATH_MAX], tests[PATH_MAX], path[PATH_MAX], from[PATH_MAX];
    snprintf(question, sizeof question, "questions/" PL_QUESTION_PREFIX "%s", id);
    const char *const dirs[] = {"serverFilesCourse", "questions", question};
    if (make_dirs(stage, dirs, sizeof dirs / sizeof dirs[0], err) != 0)
        return -1;
    snprintf(kit, sizeof kit, "%.3000s/serverFilesCourse/%s", stage, EXPORT_KIT_DIR);
    snprintf(question, sizeof question, "%.3000s/questions/" PL_QUESTION_PREFIX "%s", stage, id);
    snprintf(tests, sizeof tests, "%.3000s/tests", question);
    snprintf(path, sizeof path, "%.3000s/%s", tests, EXPORT_HIDDEN_DIR);
    if (make_dirs(question, (const char *const[]){"tests"}, 1, err) != 0 ||
        stage_kit(o, kit, path, err) != 0)
        return -1;
    snprintf(from, sizeof from, "%.3000s/%s/prairielearn/Dockerfile", kit, EXPORT_PLATFORMS);
    snprintf(path, sizeof path, "%.3000s/Dockerfile", kit);
    if (export_copy_file(from, path, EXPORT_MODE_FILE, err) != 0)
        return -1;
    /* A build/ left in the course's copy (a kit tried there) must not reach the image, whose
     * kit is built at another path. */
    snprintf(path, sizeof path, "%.3000s/.dockerignore", kit);
    if (export_write_text(path, "build\n", EXPORT_MODE_FILE, err) != 0)
        return -1;
    /* A described lab has no stub of tilelab's: the student starts from an empty editor. */
    snprintf(from, sizeof from, "%.3000s/labs/%s/template.cu", kit, id);
    snprintf(path, sizeof path, "%.3000s/template.cu", question);
    if (!o->settings.program && export_copy_file(from, path, EXPORT_MODE_FILE, err) != 0)
        return -1;
    export_settings s = o->settings;
    s.hidden = o->hidden ? EXPORT_HIDDEN_DIR : NULL;
    snprintf(path, sizeof path, "%.3000s/%s", tests, EXPORT_CONF);
    if (export_write_conf(path, &s, err) != 0 || write_info_json(o, question, err) != 0 ||
        write_question_html(o, question, err) != 0)
        return -1;
    if (rename(stage, out) != 0)
        return tl_error_set(err, "cannot write %s: %s", out, strerror(errno));
    printf("wrote %s/: copy serverFilesCourse/ and questions/ into your course, build and push\n"
           "the grading image (docker build -t %s %s/serverFilesCourse/%s), then add the question\n"
           "to an assessment (lab %s%s, graded on the CPU backend; docs/export.md)\n",
           out, o->image, out, EXPORT_KIT_DIR, id, o->hidden ? ", with hidden datasets" : "");
    return 0;
}

static int run(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "prairielearn-results") == 0) {
        if (argc != 4)
            return cli_fail("export prairielearn-results: give the grader's results.json and "
                            "the file to write (see --help)");
        tl_error err;
        if (export_prairielearn_results(argv[2], argv[3], &err) != 0)
            return cli_fail("export prairielearn-results: %s", err.msg);
        return TL_EXIT_OK;
    }
    options o;
    int rc = parse(argc, argv, &o);
    if (rc != TL_EXIT_OK)
        return rc;
    bool gs = strcmp(o.format, "gradescope") == 0;
    if (!gs && strcmp(o.format, "prairielearn") != 0)
        return cli_fail("export: no format \"%s\" (gradescope or prairielearn)", o.format);
    if (gs && o.image_given)
        return cli_fail("export gradescope: --image is for prairielearn (Gradescope builds its "
                        "own image from setup.sh)");
    char stage[PATH_MAX], out[PATH_MAX];
    if (!gs) {
        snprintf(out, sizeof out, "%s", o.out ? o.out : "");
        if (!o.out)
            snprintf(out, sizeof out, "prairielearn-%s", export_lab_name(&o.settings));
        for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--)
            out[n - 1] = '\0';
        struct stat st;
        if (lstat(out, &st) == 0)
            return cli_fail("export prairielearn: %s already exists: remove it, or name another "
                            "--out", out);
    }
    tl_error err;
    if (make_stage(gs ? NULL : out, stage, sizeof stage, &err) != 0)
        return cli_fail("export: %s", err.msg);
    rc = gs ? gradescope(&o, stage, &err) : prairielearn(&o, stage, out, &err);
    /* prairielearn renames the stage to its output on success: nothing is left to remove. */
    struct stat st;
    if (lstat(stage, &st) == 0)
        files_remove_tree(stage);
    if (rc != 0)
        return cli_fail("export %s: %s", o.format, err.msg);
    return TL_EXIT_OK;
}

const cli_command cmd_export = {"export", "a lab's autograder for Gradescope or PrairieLearn "
                                "(CPU backend)", usage, run};
