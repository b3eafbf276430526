/* A toy lab, registered before main runs, in a copy of the command-line program built for
 * tests/cli/cli_cases.sh (toy_lab) (docs/contributing.md, "Adding a lab"): nothing else of the kit knows of
 * it, so whatever the commands say of it they took from the registry. */
#include "datagen.h"

#include <stdio.h>
#include <stdlib.h>

static const tl_size toy_sizes[] = {{3, 3, 3}, {8, 8, 8}};

static const tl_lab toy = {.id = "07-toy",
                           .summary = "square Width, a toy lab of the tests",
                           .sizes = toy_sizes,
                           .nsizes = (int)(sizeof toy_sizes / sizeof toy_sizes[0]),
                           .safety = {5, 5, 5},
                           .square = true,
                           .perf = {8, 8, 8}};

__attribute__((constructor)) static void register_toy(void)
{
    tl_error err;
    if (tl_lab_register(&toy, &err) != 0) {
        fprintf(stderr, "toy lab: %s\n", err.msg);
        exit(2);
    }
}
