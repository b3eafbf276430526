/* tilelab export: a lab's grading bundle for Gradescope or PrairieLearn, which grade on the CPU
 * backend (their containers have no GPU). The scripts the platforms run are in grader/platforms/;
 * the bundles themselves, and the table of platforms the format is looked up in, in export/. */
#include "cli.h"
#include "export.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds one replay may take in a bundle: a correct kernel of any lab takes well under one on
 * the shipped datasets on the CPU backend, and an endless loop costs this per dataset. */
#define DEFAULT_TIMEOUT 10
#define MAX_TIMEOUT 600
#define DEFAULT_IMAGE "tilelab-grader"

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
    "  LAB             {labs} (or 02, tiled, ...), or a lab.json (or\n"
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
    const char *format, *lab_name;
    export_request request;
} options;

static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"hidden", required_argument, NULL, 'H'},  {"out", required_argument, NULL, 'o'},
        {"image", required_argument, NULL, 'i'},   {"timeout", required_argument, NULL, 't'},
        {"no-sandbox", no_argument, NULL, 'X'},    {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->request.settings.timeout = DEFAULT_TIMEOUT;
    o->request.settings.sandbox = true;
    o->request.image = DEFAULT_IMAGE;
    o->request.root = cli_root();
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'H': o->request.hidden = optarg; break;
        case 'o': o->request.out = optarg; break;
        case 'i': o->request.image = optarg; o->request.image_given = true; break;
        case 't':
            if (cli_parse_int("--timeout", optarg, 1, MAX_TIMEOUT,
                              &o->request.settings.timeout) != 0)
                return TL_EXIT_BAD_INPUT;
            break;
        case 'X': o->request.settings.sandbox = false; break;
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
    static runner_lab resolved;
    int found = cli_lab_resolve("export", o->lab_name, false, &resolved);
    if (found != 0)
        return found;
    o->request.settings.lab = &resolved;
    /* The image name goes into info.json as it is: keep it to what docker accepts. */
    for (const char *p = o->request.image; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("._-/:@", *p)))
            return cli_fail("--image: \"%s\" is not a Docker image name (lower-case letters, "
                            "digits, . _ - / : @)", o->request.image);
    return TL_EXIT_OK;
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
    const export_platform *p = export_platform_find(o.format);
    if (!p) {
        char names[256];
        export_platform_names(names, sizeof names);
        return cli_fail("export: no format \"%s\" (%s)", o.format, names);
    }
    tl_error err;
    char done[2048];
    if (export_bundle(p, &o.request, &err, done, sizeof done) != 0)
        return cli_fail("export %s: %s", o.format, err.msg);
    fputs(done, stdout);
    return TL_EXIT_OK;
}

const cli_command cmd_export = {"export", "a lab's autograder for Gradescope or PrairieLearn "
                                "(CPU backend)", usage, run};
