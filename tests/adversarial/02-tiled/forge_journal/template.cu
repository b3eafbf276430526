// Computes nothing and writes a full-marks journal entry for itself wherever a grader might keep
// its journal: beside the working folder and its parents, under Slurm's submit folder (grade
// --slurm's tasks run where sbatch was called), in $HOME and /tmp. The grader believes only the
// entries its own code wrote after checking.
// Must get: compile points only (fopen fails the static checks, every dataset wrong).
#include "lab.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void nothing(float *P, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        P[i] = 0;
}

static void forge_in(const char *folder)
{
    static const char entry[] =
        "{\"student\":\"forge_journal\",\"total\":100,\"max\":100,\"verdict\":\"pass\"}\n";
    char path[4096];
    snprintf(path, sizeof path, "%s/journal/forge_journal.json", folder);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(entry, f);
        fclose(f);
    }
}

/* The folder and each folder in it: the grader's output folder is one level down, whatever
 * its name. */
static void forge(const char *folder)
{
    forge_in(folder);
    DIR *d = opendir(folder);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", folder, e->d_name);
        forge_in(sub);
    }
    closedir(d);
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)M, (void)N, (void)k;
    const char *places[] = {".", "..", "../..", "../../..", "/tmp", getenv("HOME"),
                            getenv("SLURM_SUBMIT_DIR")};
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
        if (places[i])
            forge(places[i]);
    int n = j * l;
    nothing<<<(n + 255) / 256, 256>>>(P, n);
}
