// Measures the tables of ptx/mufu/ on a GPU: ex2.approx (of positive and of negative fractions),
// rcp.approx and rsqrt.approx (f32, .ftz) over every mantissa, each result stored as its difference from an exact reference
// (ptx/mufu_reference.h) in two bits. Build and run on a machine with an sm_90 GPU:
//
//   nvcc -O2 -arch=sm_90 -Xcompiler -ffp-contract=off -Iptx tools/mufu-tables.cu -o mufu-tables
//   ./mufu-tables DIR && gzip -9nf DIR/sm90-*.bin        (DIR: ptx/mufu to replace the tables)
//
// The other rules of ptx/mufu.c (2^x from the table of x's fraction scaled by its integer part,
// 1/x and 1/sqrt(x) by the exponent, subnormals, the non-.ftz forms, div.approx) are checked
// against the GPU by the probe tests/cpu/approx.cu, a million inputs per instruction.
//
// Fails, writing nothing, if any result lies outside the two bits' range: then the model of
// the unit in ptx/mufu.c no longer holds for that GPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

extern "C" {
#include "mufu_reference.h"
}

#define THREADS_PER_BLOCK 256
#define CODE_MAX 3 // two bits

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "mufu-tables: %s: %s\n", #call, cudaGetErrorString(e_));       \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

enum unit { EX2, EX2N, RCP, RSQRT };

__global__ void measure(unit u, uint32_t n, uint32_t *out)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float r;
    if (u == EX2 || u == EX2N) {
        float f = (u == EX2 ? 1.0f : -1.0f) * (float)i * 0x1p-23f; // exact: i < 2^23
        asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(f));
    } else if (u == RCP) {
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(__uint_as_float(MUFU_ONE_BITS | i)));
    } else {
        asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(__uint_as_float(MUFU_ONE_BITS + i)));
    }
    out[i] = __float_as_uint(r);
}

static bool table(unit u, const char *dir, const char *name)
{
    uint32_t n = u == RSQRT ? MUFU_RSQRT_ENTRIES : u == RCP ? MUFU_RCP_ENTRIES : MUFU_EX2_ENTRIES;
    int bias = u == EX2 ? MUFU_EX2_BIAS : u == EX2N ? MUFU_EX2N_BIAS
               : u == RCP ? MUFU_RCP_BIAS : MUFU_RSQRT_BIAS;
    uint32_t *d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof *d));
    measure<<<(n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK, THREADS_PER_BLOCK>>>(u, n, d);
    CHECK(cudaGetLastError());
    std::vector<uint32_t> gpu(n);
    CHECK(cudaMemcpy(gpu.data(), d, n * sizeof *d, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    std::vector<uint8_t> packed(n / 4, 0);
    int counts[CODE_MAX + 1] = {0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ref = u == EX2 ? mufu_reference_ex2(i) : u == EX2N ? mufu_reference_ex2_negative(i)
                       : u == RCP ? mufu_reference_rcp(i) : mufu_reference_rsqrt(i);
        int64_t code = (int64_t)gpu[i] - (int64_t)ref + bias;
        if (code < 0 || code > CODE_MAX) {
            fprintf(stderr, "mufu-tables: %s entry %u: the GPU gives %08x, the reference %08x: "
                            "more than two bits apart\n", name, i, gpu[i], ref);
            return false;
        }
        counts[code]++;
        packed[i / 4] |= (uint8_t)(code << (2 * (i % 4)));
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/sm90-%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(packed.data(), 1, packed.size(), f) != packed.size() || fclose(f) != 0) {
        fprintf(stderr, "mufu-tables: cannot write %s\n", path);
        return false;
    }
    printf("%-6s %9u entries; GPU minus reference (ulps):", name, n);
    for (int c = 0; c <= CODE_MAX; c++)
        printf(" %+d: %d", c - bias, counts[c]);
    printf("  -> %s\n", path);
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: mufu-tables DIR   (writes DIR/sm90-{ex2,ex2n,rcp,rsqrt}.bin)\n");
        return 2;
    }
    bool ok = table(EX2, argv[1], "ex2") && table(EX2N, argv[1], "ex2n") &&
              table(RCP, argv[1], "rcp") &&
              table(RSQRT, argv[1], "rsqrt");
    return ok ? 0 : 1;
}
