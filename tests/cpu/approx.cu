// The GPU's approximate instructions (.approx: the multi-function unit's tables), each over a
// million float bit patterns spread over every exponent plus the special values: one digest
// line per instruction. The CPU backend must print what an H100 prints for the instructions it
// reproduces (ptx/mufu.c); with an instruction's name as argument, one "index input result"
// line per element, to see where two runs differ.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N (1 << 20)
#define SPREAD 4093u // odd, so i * SPREAD visits exponents and mantissas evenly
#define THREADS 256
#define PARTNER 7919u // odd: the divisor's index walks the inputs independently of the dividend's

__host__ __device__ static uint32_t in_bits(uint32_t i)
{
    const uint32_t special[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x3f800000,
                                0x40000000, 0x3f000000, 0xbf800000, 0x42fe0000, 0x43000000,
                                0xc2fc0000, 0xc2fd0000, 0xc3160000, 0x7effffff, 0x00400000};
    const uint32_t specials = sizeof special / sizeof special[0];
    return i < specials ? special[i] : i * SPREAD;
}

#define UNARY(name, text)                                                                  \
    __global__ void name(uint32_t *out)                                                    \
    {                                                                                      \
        uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                                \
        float r, x = __uint_as_float(in_bits(i));                                          \
        asm(text " %0, %1;" : "=f"(r) : "f"(x));                                           \
        out[i] = __float_as_uint(r);                                                       \
    }
#define BINARY(name, text)                                                                 \
    __global__ void name(uint32_t *out)                                                    \
    {                                                                                      \
        uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                                \
        float r, a = __uint_as_float(in_bits(i));                                          \
        float b = __uint_as_float(in_bits((i * PARTNER + 3) % N));                         \
        asm(text " %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));                               \
        out[i] = __float_as_uint(r);                                                       \
    }
#define UNARY64(name, text)                                                                \
    __global__ void name(uint32_t *out)                                                    \
    {                                                                                      \
        uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;                                \
        double r, x = (double)__uint_as_float(in_bits(i)) * 1.0000001;                     \
        asm(text " %0, %1;" : "=d"(r) : "d"(x));                                           \
        uint64_t u = (uint64_t)__double_as_longlong(r);                                    \
        out[i] = (uint32_t)(u >> 32) ^ (uint32_t)u;                                        \
    }

UNARY(ex2, "ex2.approx.f32")
UNARY(ex2_ftz, "ex2.approx.ftz.f32")
UNARY(rcp, "rcp.approx.f32")
UNARY(rcp_ftz, "rcp.approx.ftz.f32")
UNARY(rsqrt, "rsqrt.approx.f32")
UNARY(rsqrt_ftz, "rsqrt.approx.ftz.f32")
UNARY(lg2, "lg2.approx.f32")
UNARY(lg2_ftz, "lg2.approx.ftz.f32")
UNARY(sin_, "sin.approx.f32")
UNARY(cos_, "cos.approx.f32")
UNARY(tanh_, "tanh.approx.f32")
BINARY(div, "div.approx.f32")
BINARY(div_ftz, "div.approx.ftz.f32")
BINARY(div_full, "div.full.f32")
UNARY64(rcp64, "rcp.approx.ftz.f64")
UNARY64(rsqrt64, "rsqrt.approx.f64")

typedef void (*kernel)(uint32_t *);
static const struct {
    const char *name;
    kernel k;
} ops[] = {
    {"ex2.approx.f32", ex2},       {"ex2.approx.ftz.f32", ex2_ftz},
    {"rcp.approx.f32", rcp},       {"rcp.approx.ftz.f32", rcp_ftz},
    {"rsqrt.approx.f32", rsqrt},   {"rsqrt.approx.ftz.f32", rsqrt_ftz},
    {"lg2.approx.f32", lg2},       {"lg2.approx.ftz.f32", lg2_ftz},
    {"sin.approx.f32", sin_},      {"cos.approx.f32", cos_},
    {"div.approx.f32", div},       {"div.approx.ftz.f32", div_ftz},
    {"div.full.f32", div_full},    {"rcp.approx.ftz.f64", rcp64},
    {"rsqrt.approx.f64", rsqrt64},
    {"tanh.approx.f32", tanh_}, // last: the CPU backend refuses it, and the error is sticky
};

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv)
{
    static uint32_t host[N];
    uint32_t *d = nullptr;
    if (cudaMalloc(&d, sizeof host) != cudaSuccess) {
        printf("error: cudaMalloc\n");
        return 1;
    }
    for (const auto &op : ops) {
        if (argc > 1 && strcmp(argv[1], op.name) != 0)
            continue;
        cudaMemset(d, 0, sizeof host);
        op.k<<<N / THREADS, THREADS>>>(d);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            printf("%-20s error: %s\n", op.name, cudaGetErrorString(e));
            continue;
        }
        if (argc > 1) {
            for (uint32_t i = 0; i < N; i++)
                printf("%u %08x %08x\n", i, in_bits(i), host[i]);
            continue;
        }
        printf("%-20s %016llx\n", op.name, (unsigned long long)fnv(host, sizeof host));
    }
    cudaFree(d);
    return 0;
}
