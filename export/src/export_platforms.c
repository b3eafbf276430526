/* The kit's two export platforms: Gradescope (an autograder zip, its scripts at the root) and
 * PrairieLearn (an external grader: the kit under serverFilesCourse, a question with its
 * info.json). The scripts they run are under grader/platforms/; docs/export.md. */
#include "export.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* PrairieLearn's job time limit in the sample info.json, in seconds (its maximum is 600): the
 * kit's own grading of a lab is under a minute, an endless loop's a few. */
#define PL_JOB_TIMEOUT 300
#define PL_QUESTION_PREFIX "tilelab-"

static int gradescope_fill(const export_request *r, const char *stage, tl_error *err)
{
    char kit[PATH_MAX], path[PATH_MAX], script[PATH_MAX];
    snprintf(kit, sizeof kit, "%.3000s/%s", stage, EXPORT_KIT_DIR);
    snprintf(path, sizeof path, "%.3000s/%s", stage, EXPORT_HIDDEN_DIR);
    if (export_stage_kit(r, kit, path, err) != 0)
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
    export_settings s = r->settings;
    s.hidden = r->hidden ? EXPORT_HIDDEN_DIR : NULL;
    snprintf(path, sizeof path, "%.3000s/%s", stage, EXPORT_CONF);
    return export_write_conf(path, &s, err);
}

static void gradescope_done(const export_request *r, const char *out, char *text, size_t size)
{
    snprintf(text, size,
             "wrote %s: upload it as the autograder of a Gradescope programming assignment\n"
             "(lab %s%s, graded on the CPU backend; docs/export.md)\n",
             out, runner_lab_name(r->settings.lab), r->hidden ? ", with hidden datasets" : "");
}

const export_platform export_gradescope = {"gradescope", false, false, gradescope_fill,
                                           gradescope_done};

static int write_info_json(const export_request *r, const char *question, tl_error *err)
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
             uuid, runner_lab_name(r->settings.lab), r->image, PL_JOB_TIMEOUT);
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

static int write_question_html(const export_request *r, const char *question, tl_error *err)
{
    char path[PATH_MAX], text[2048];
    const runner_program_lab *described = runner_lab_described(r->settings.lab);
    if (described)
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
                 described->title);
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
                 runner_lab_name(r->settings.lab));
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

static int prairielearn_fill(const export_request *r, const char *stage, tl_error *err)
{
    const char *id = runner_lab_name(r->settings.lab);
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
        export_stage_kit(r, kit, path, err) != 0)
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
    if (runner_lab_shipped(r->settings.lab) && export_copy_file(from, path, EXPORT_MODE_FILE, err) != 0)
        return -1;
    export_settings s = r->settings;
    s.hidden = r->hidden ? EXPORT_HIDDEN_DIR : NULL;
    snprintf(path, sizeof path, "%.3000s/%s", tests, EXPORT_CONF);
    if (export_write_conf(path, &s, err) != 0 || write_info_json(r, question, err) != 0 ||
        write_question_html(r, question, err) != 0)
        return -1;
    return 0;
}

static void prairielearn_done(const export_request *r, const char *out, char *text, size_t size)
{
    snprintf(text, size,
             "wrote %s/: copy serverFilesCourse/ and questions/ into your course, build and push\n"
             "the grading image (docker build -t %s %s/serverFilesCourse/%s), then add the question\n"
             "to an assessment (lab %s%s, graded on the CPU backend; docs/export.md)\n",
             out, r->image, out, EXPORT_KIT_DIR, runner_lab_name(r->settings.lab),
             r->hidden ? ", with hidden datasets" : "");
}

const export_platform export_prairielearn = {"prairielearn", true, true, prairielearn_fill,
                                             prairielearn_done};
