/* Suggestions for the classic slips of a first CUDA program. Everything a hint quotes comes from
 * the tables here or is an identifier checked to be one: a hint never carries the student's
 * other bytes to a terminal or a gradebook. */
#include "runner_hints.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Longest identifier considered (longer ones are nobody's misspelling of a built-in). */
#define NAME_MAX_LEN 64
/* __syncthreads is the one students misspell most; further slips are still taken for it. */
#define SYNC_MAX_DISTANCE 3

typedef struct builtin {
    const char *name;
    const char *what; /* shown after the suggestion */
} builtin;

static const builtin builtins[] = {
    {"__syncthreads", "the barrier every thread of the block waits at: __syncthreads();"},
    {"threadIdx", "the thread's index in its block: threadIdx.x, .y, .z"},
    {"blockIdx", "the block's index in the grid: blockIdx.x, .y, .z"},
    {"blockDim", "the block's size in threads: blockDim.x, .y, .z"},
    {"gridDim", "the grid's size in blocks: gridDim.x, .y, .z"},
    {"warpSize", "the number of threads in a warp"},
    {"__shared__", "memory shared by the threads of a block: __shared__ float tile[16][16];"},
    {"__global__", "a kernel: runs on the GPU, launched from the host with <<<grid, block>>>"},
    {"__device__", "a function or variable of the GPU"},
    {"__host__", "a function of the CPU"},
    {"__constant__", "read-only memory of the GPU, set from the host"},
    {"__restrict__", "a pointer no other pointer aliases"},
    {"__syncwarp", "the barrier of the threads of a warp"},
    {"dim3", "a size of up to three dimensions: dim3 block(16, 16);"},
    {"cudaMalloc", "allocates device memory: cudaMalloc((void **)&d_P, bytes)"},
    {"cudaMemcpy", "copies memory: cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice)"},
    {"cudaFree", "releases what cudaMalloc allocated"},
    {"cudaMemset", "sets device memory byte by byte"},
    {"cudaMemcpyHostToDevice", "the direction of a copy from the host to the device"},
    {"cudaMemcpyDeviceToHost", "the direction of a copy from the device to the host"},
    {"cudaMemcpyDeviceToDevice", "the direction of a copy within the device"},
    {"cudaDeviceSynchronize", "waits until the device has finished its work"},
    {"cudaGetLastError", "the error of the last launch"},
    {"cudaGetErrorString", "an error code in words"},
    {"cudaSuccess", "the error code that means no error"},
    {"cudaError_t", "the type of CUDA's error codes"},
    {"atomicAdd", "adds to memory other threads may be adding to as well"},
};
enum { NBUILTINS = sizeof builtins / sizeof builtins[0] };

/* The three-component built-ins: a slip is to use one as a number. */
static const char *const vectors[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

int hints_distance(const char *a, const char *b, int cap)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > NAME_MAX_LEN || m > NAME_MAX_LEN)
        return n == m && strcmp(a, b) == 0 ? 0 : cap + 1;
    if ((n > m ? n - m : m - n) > (size_t)cap)
        return cap + 1;
    /* Two rows of the usual table; a row whose smallest entry passes the cap ends it. */
    int prev[NAME_MAX_LEN + 1], cur[NAME_MAX_LEN + 1];
    for (size_t j = 0; j <= m; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = (int)i;
        int best = cur[0];
        for (size_t j = 1; j <= m; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            best = cur[j] < best ? cur[j] : best;
        }
        if (best > cap)
            return cap + 1;
        memcpy(prev, cur, (m + 1) * sizeof *cur);
    }
    return prev[m] > cap ? cap + 1 : prev[m];
}

static bool same_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

/* How far a name may be from a built-in of this length and still be taken for it. */
static int allowed_distance(const char *builtin_name)
{
    size_t len = strlen(builtin_name);
    if (strcmp(builtin_name, "__syncthreads") == 0)
        return SYNC_MAX_DISTANCE;
    return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

static const builtin *closest(const char *name)
{
    const builtin *best = NULL;
    int best_d = 0;
    for (int i = 0; i < NBUILTINS; i++) {
        if (strcmp(name, builtins[i].name) == 0)
            return NULL;
        int cap = allowed_distance(builtins[i].name);
        /* A different case only counts as the closest slip there is. */
        int d = same_ignoring_case(name, builtins[i].name)
                    ? 0 : hints_distance(name, builtins[i].name, cap);
        if (d <= cap && (!best || d < best_d)) {
            best = &builtins[i];
            best_d = d;
        }
    }
    return best;
}

const char *hints_closest_builtin(const char *name)
{
    const builtin *b = closest(name);
    return b ? b->name : NULL;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The text between the first `open` after `key` in message and the next `close`, when it is an
 * identifier: `identifier "X" is undefined` gives X. */
static bool quoted_ident(const char *message, const char *key, char open, char close, char *out,
                         size_t size)
{
    const char *k = strstr(message, key);
    const char *start = k ? strchr(k + strlen(key), open) : NULL;
    if (!start)
        return false;
    start++;
    size_t n = 0;
    while (ident_char(start[n]))
        n++;
    if (n == 0 || n >= size || start[n] != close)
        return false;
    memcpy(out, start, n);
    out[n] = '\0';
    return true;
}

/* The first of `names` in line as a whole word whose next non-blank character is not
 * `unless_next`, the one nearest `at` when there are several; NULL if none. */
static const char *word_in_line(const char *line, const char *const *names, int count,
                                char unless_next, int at)
{
    const char *found = NULL;
    int found_at = -1;
    for (int i = 0; i < count; i++) {
        size_t len = strlen(names[i]);
        for (const char *p = strstr(line, names[i]); p; p = strstr(p + 1, names[i])) {
            if ((p > line && ident_char(p[-1])) || ident_char(p[len]))
                continue;
            const char *next = p + len;
            while (*next == ' ' || *next == '\t')
                next++;
            if (*next == unless_next)
                continue;
            int pos = (int)(p - line);
            int dist = at < 0 ? pos : pos > at ? pos - at : at - pos;
            int found_dist = at < 0 ? found_at : found_at > at ? found_at - at : at - found_at;
            if (!found || dist < found_dist) {
                found = names[i];
                found_at = pos;
            }
        }
    }
    return found;
}

/* The identifier that starts at or runs through byte `at` of line, else the last one before a
 * '(' in the line. */
static bool called_name(const char *line, int at, char *out, size_t size)
{
    int len = (int)strlen(line), start = -1;
    if (at >= 0 && at < len && ident_char(line[at])) {
        start = at;
        while (start > 0 && ident_char(line[start - 1]))
            start--;
    } else {
        for (int i = 0; i < len; i++) {
            if (line[i] != '(')
                continue;
            int j = i;
            while (j > 0 && (line[j - 1] == ' ' || line[j - 1] == '\t'))
                j--;
            int e = j;
            while (j > 0 && ident_char(line[j - 1]))
                j--;
            if (j < e) {
                start = j;
                break;
            }
        }
    }
    if (start < 0 || isdigit((unsigned char)line[start]))
        return false;
    size_t n = 0;
    while (ident_char(line[start + (int)n]))
        n++;
    if (n >= size)
        return false;
    memcpy(out, line + start, n);
    out[n] = '\0';
    return true;
}

bool hints_for(const char *message, const char *line, int at, char *out, size_t size)
{
    char name[NAME_MAX_LEN + 1];
    if (quoted_ident(message, "identifier", '"', '"', name, sizeof name) &&
        strstr(message, "is undefined")) {
        const builtin *b = closest(name);
        if (b) {
            snprintf(out, size, "did you mean %s? (%s)", b->name, b->what);
            return true;
        }
    }
    if (strstr(message, "calling a __device__ function") && strstr(message, "__host__ function") &&
        quoted_ident(message, "function", '"', '"', name, sizeof name)) {
        snprintf(out, size, "%s runs on the GPU only: call it in a __global__ or __device__ "
                 "function (a kernel), not in the host code", name);
        return true;
    }
    if (strstr(message, "__global__ function call must be configured")) {
        if (line && called_name(line, at, name, sizeof name))
            snprintf(out, size, "a kernel is launched with its grid and block sizes: "
                     "%s<<<grid, block>>>(...);", name);
        else
            snprintf(out, size, "a kernel is launched with its grid and block sizes: "
                     "kernel<<<grid, block>>>(...);");
        return true;
    }
    bool as_number = strstr(message, "no operator") || strstr(message, "expression must have") ||
                     strstr(message, "no suitable conversion function");
    const char *vector = line && as_number
                             ? word_in_line(line, vectors, (int)(sizeof vectors / sizeof *vectors),
                                            '.', at)
                             : NULL;
    if (vector) {
        snprintf(out, size, "%s is not a number but three (x, y, z): write %s.x (or .y, .z)",
                 vector, vector);
        return true;
    }
    static const char *const sync[] = {"__syncthreads"};
    if (strstr(message, "expression has no effect") && line &&
        word_in_line(line, sync, 1, '(', at)) {
        snprintf(out, size, "__syncthreads is a function: call it, __syncthreads();");
        return true;
    }
    return false;
}
