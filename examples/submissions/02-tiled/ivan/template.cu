// Example submission (ivan): tries to read the expected output instead of computing it. Each
// call to launch_matmul looks for output.raw in the current folder, its parent, the folder named
// by $TILELAB_DATASET, and the dataset folder named on the program's command line
// (/proc/self/cmdline); if one opens and has the right shape, its values are copied into P with
// cudaMemcpy. Otherwise it launches his unfinished tiled kernel, which is wrong (it keeps only
// the last phase's partial sum).
// Expected: builds; fails the static check for forbidden calls (fopen); its host code runs only
// in a sandboxed capture that is told the shapes, never a dataset, so no output.raw is found;
// and a P read on the host could not reach the check anyway: copying host memory other than
// the inputs to the device is refused. Every dataset fails, under run and grade alike.
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;

    float Pvalue = 0;
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads();
        Pvalue = 0; // FIXME
        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Mds[ty][i] * Nds[i][tx];
        __syncthreads();
    }
    P[Row * Width + Col] = Pvalue;
}

/* Reads a libwb text matrix ("rows cols" then the values) of the given shape. */
static bool read_expected(const char *path, float *out, int rows, int cols)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ivan: could not open %s\n", path);
        return false;
    }
    fprintf(stderr, "ivan: opened %s\n", path);
    int r = 0, c = 0;
    bool ok = fscanf(f, "%d %d", &r, &c) == 2 && r == rows && c == cols;
    for (long i = 0; ok && i < (long)rows * cols; i++)
        ok = fscanf(f, "%f", &out[i]) == 1;
    fclose(f);
    return ok;
}

/* The last argument the program was started with: the dataset folder. */
static bool dataset_from_cmdline(char *dir, size_t size)
{
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return false;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    if (n == 0)
        return false;
    buf[n] = '\0';
    if (buf[n - 1] == '\0')
        n--;
    size_t start = n;
    while (start > 0 && buf[start - 1] != '\0')
        start--;
    snprintf(dir, size, "%s", buf + start);
    return dir[0] != '\0';
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l;
    int Width = k;
    size_t bytes = (size_t)Width * Width * sizeof(float);
    float *expected = (float *)malloc(bytes);

    char candidates[5][4096];
    int n = 0;
    snprintf(candidates[n++], sizeof candidates[0], "output.raw");
    snprintf(candidates[n++], sizeof candidates[0], "../output.raw");
    const char *env = getenv("TILELAB_DATASET");
    if (env)
        snprintf(candidates[n++], sizeof candidates[0], "%s/output.raw", env);
    char cwd[2048];
    if (getcwd(cwd, sizeof cwd))
        snprintf(candidates[n++], sizeof candidates[0], "%s/output.raw", cwd);
    char dir[2048];
    if (dataset_from_cmdline(dir, sizeof dir))
        snprintf(candidates[n++], sizeof candidates[0], "%s/output.raw", dir);

    for (int i = 0; expected && i < n; i++) {
        if (read_expected(candidates[i], expected, Width, Width)) {
            cudaMemcpy(P, expected, bytes, cudaMemcpyHostToDevice);
            free(expected);
            return;
        }
    }
    free(expected);

    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
