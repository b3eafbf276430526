// One run of a square lab file's launch_matmul (labs 02 and 03) on a small product, for
// compute-sanitizer's racecheck (tools/racecheck-warp.sh). Prints "right" or "wrong": the
// inputs are small multiples of 1/8, so every sum is exact in fp32 whatever its order.
//   racecheck_driver [WIDTH]    (default 64)
#include "lab.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                      \
            return 3;                                                                        \
        }                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 64;
    if (w < 1 || w > 1024) {
        fprintf(stderr, "usage: racecheck_driver [WIDTH 1..1024]\n");
        return 2;
    }
    size_t n = (size_t)w * (size_t)w, bytes = n * sizeof(float);
    std::vector<float> m(n), nn(n), p(n), want(n, 0.0f);
    for (size_t i = 0; i < n; i++) {
        m[i] = (float)((int)(i * 7 % 13) - 6) / 8.0f;
        nn[i] = (float)((int)(i * 5 % 11) - 5) / 8.0f;
    }
    for (int r = 0; r < w; r++)
        for (int c = 0; c < w; c++)
            for (int k = 0; k < w; k++)
                want[(size_t)r * w + c] += m[(size_t)r * w + k] * nn[(size_t)k * w + c];
    float *dm, *dn, *dp;
    CHECK(cudaMalloc((void **)&dm, bytes));
    CHECK(cudaMalloc((void **)&dn, bytes));
    CHECK(cudaMalloc((void **)&dp, bytes));
    CHECK(cudaMemcpy(dm, m.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dn, nn.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dp, 0xff, bytes));
    launch_matmul(dm, dn, dp, w, w, w);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(p.data(), dp, bytes, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += p[i] != want[i];
    printf("%s\n", wrong ? "wrong" : "right");
    CHECK(cudaFree(dm));
    CHECK(cudaFree(dn));
    CHECK(cudaFree(dp));
    return 0;
}
