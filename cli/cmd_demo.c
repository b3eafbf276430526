/* tilelab demo: the kit's main job. Builds every lab's template and reference solution and, when
 * there is a GPU, runs every reference solution on its lab's shipped datasets. */
#include "cli.h"

#include <string.h>

static const char usage[] =
    "usage: ./tilelab demo\n"
    "\n"
    "Builds each lab's template (labs/LAB/template.cu) and reference solution\n"
    "(solutions/LAB/solution.cu), runs each solution on the lab's shipped datasets (as\n"
    "./tilelab run LAB --solution does) and ends with a table. The kernels run on the GPU when\n"
    "there is one, otherwise on the CPU backend (the PTX interpreter).\n"
    "\n"
    "exit status: 0 everything built (and every solution passed), otherwise the worst status of\n"
    "the steps (see ./tilelab run --help)\n";

static const char *status_text(int status)
{
    switch (status) {
    case TL_EXIT_OK: return "pass";
    case TL_EXIT_WRONG: return "WRONG";
    case TL_EXIT_BAD_INPUT: return "BAD INPUT";
    case TL_EXIT_CRASH: return "CRASH";
    default: return "not run";
    }
}

static int run_step(char *a, char *b, char *c, char *d)
{
    char *argv[] = {"run", a, b, c, d, NULL};
    int argc = 1;
    while (argv[argc])
        argc++;
    return cmd_run.run(argc, argv);
}

static int run(int argc, char **argv)
{
    if (argc > 1)
        return cli_fail("demo takes no arguments, got \"%s\" (see ./tilelab demo --help)", argv[1]);
    int nlabs = 0;
    const tl_lab *labs = tl_labs(&nlabs);
    char device[256];
    runner_backend backend;
    bool gpu = runner_backend_default(&backend, false, device, sizeof device);
    /* run's own default backend; its emulated times are not worth the wait */
    char *timing = runner_backend_about(backend)->emulated ? "--no-time" : NULL;
    int template_status[TL_MAX_LABS], solution_status[TL_MAX_LABS], run_status[TL_MAX_LABS];
    int worst = TL_EXIT_OK;
    for (int i = 0; i < nlabs; i++) {
        char *id = (char *)labs[i].id;
        printf("== %s\n", id);
        fflush(stdout);
        template_status[i] = run_step(id, "--build-only", NULL, NULL);
        solution_status[i] = run_step(id, "--solution", "--build-only", NULL);
        run_status[i] = -1;
        if (solution_status[i] == TL_EXIT_OK)
            run_status[i] = run_step(id, "--solution", timing, NULL);
        int s[3] = {template_status[i], solution_status[i], run_status[i]};
        for (int k = 0; k < 3; k++)
            if (s[k] > worst)
                worst = s[k];
    }
    printf("\n%-20s %-10s %-10s solution on its datasets (%s)\n", "lab", "template", "solution",
           gpu ? "GPU" : "CPU backend");
    for (int i = 0; i < nlabs; i++)
        printf("%-20s %-10s %-10s %s\n", labs[i].id,
               template_status[i] == TL_EXIT_OK ? "builds" : "FAILS",
               solution_status[i] == TL_EXIT_OK ? "builds" : "FAILS",
               status_text(run_status[i]));
    if (!gpu)
        printf("\nNo CUDA device here [%s]:\nthe kernels ran on the CPU backend, which interprets "
               "their PTX exactly (fp32 results match a GPU's bit for bit).\n", device);
    else
        printf("\ndevice: %s\n", device);
    return worst;
}

const cli_command cmd_demo = {"demo", "build every lab, run every reference solution (the main job)",
                              usage, run};
