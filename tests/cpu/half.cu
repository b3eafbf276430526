// Half precision (cuda_fp16.h, cuda_bf16.h) on awkward inputs: each digest line is one
// intrinsic's raw result bits over N threads (64-bit FNV-1a), then a few results by hand. The
// CPU backend must print exactly what an H100 prints (tools/gpu-probes.sh --update takes it).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N 1024
#define BLOCK 128
#define MAX_FUNCS 64

typedef __nv_bfloat16 bf16;
typedef __nv_bfloat162 bf162;

// A 16-bit pattern: specials first (zeros, ones, subnormals, the largest finite numbers,
// infinities, NaNs with payloads, a half place of 1 for ties), then values near 1, tiny ones,
// large ones and any bits.
__host__ __device__ static uint16_t pattern(uint32_t i, uint32_t salt, bool brain)
{
    const uint16_t f16[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x0400,
                            0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x1400,
                            0x1000, 0x3c01, 0x3800, 0x4000, 0x7800, 0x0200, 0x3bff, 0x9000};
    const uint16_t b16[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x0001, 0x8001, 0x007f, 0x0080,
                            0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x3c00,
                            0x3b80, 0x3f81, 0x3f00, 0x4000, 0x7f00, 0x0040, 0x3f7f, 0xbb80};
    const uint32_t nspecial = sizeof f16 / sizeof f16[0];
    if (i < nspecial)
        return brain ? b16[(i + salt) % nspecial] : f16[(i + salt) % nspecial];
    uint32_t x = i * 2654435761u ^ salt * 40503u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    uint16_t sign = (uint16_t)(x >> 31 << 15), low = (uint16_t)(x & 0x3ff);
    unsigned man = brain ? 7 : 10, bias = brain ? 127 : 15;
    low &= (uint16_t)((1u << man) - 1);
    switch (x >> 16 & 3) {
    case 0: return (uint16_t)(sign | (bias - 2 + (x >> 20 & 3)) << man | low); // near 1
    case 1: return (uint16_t)(sign | (x >> 20 & 3) << man | low);              // tiny
    case 2: return (uint16_t)(sign | ((2 * bias - 2) + (x >> 20 & 1)) << man | low); // large
    default: return (uint16_t)x;
    }
}

// A float for the conversions: overflow and tie boundaries of both formats, then a mix.
__host__ __device__ static float in_float(uint32_t i, uint32_t salt)
{
    const uint32_t special[] = {
        0x00000000, 0x80000000, 0x3f800000, 0x477fe000, 0x477fefff, 0x477ff000, 0xc77ff000,
        0x47800000, 0x501502f9, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0x33800000,
        0x33000000, 0x33400000, 0x38800000, 0x3f801000, 0x3f803000, 0xbf801000, 0x00000001,
        0x3f808000, 0x3f818000, 0x7f7fffff, 0x7f7f8000, 0x00400000, 0x40200000, 0x40600000,
        0xc0200000, 0x3fc00000, 0x4f000000, 0xcf000000};
    const uint32_t nspecial = sizeof special / sizeof special[0];
    uint32_t bits;
    if (i < nspecial) {
        bits = special[(i + salt) % nspecial];
    } else {
        uint32_t x = i * 2246822519u ^ salt * 2654435761u;
        x ^= x >> 13;
        x *= 3266489917u;
        x ^= x >> 16;
        // exponents from 2^-30 to 2^20, where f16 rounds, subnormals and overflows; or any
        bits = (x & 3) ? (x & 0x807fffff) | (97 + (x >> 23 & 63)) << 23 : x;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

// An integer across magnitudes, for the integer-to-half conversions.
__host__ __device__ static long long in_int(uint32_t i)
{
    const long long special[] = {0, 1, -1, 2047, 2049, 2051, 65504, 65519, 65520, 65536,
                                 2147483647LL, -2147483647LL - 1, 9223372036854775807LL,
                                 -9223372036854775807LL - 1, 16777217, -16777217};
    const uint32_t nspecial = sizeof special / sizeof special[0];
    if (i < nspecial)
        return special[i];
    uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (long long)x >> (i % 63);
}

__device__ static uint32_t h(__half v) { return __half_as_ushort(v); }
__device__ static uint32_t h(bf16 v) { return __bfloat16_as_ushort(v); }
__device__ static uint32_t h2(__half2 v) { return *(uint32_t *)&v; }
__device__ static uint32_t h2(bf162 v) { return *(uint32_t *)&v; }

__global__ void fp16(uint32_t *out)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    __half a = __ushort_as_half(pattern(i, 1, false)), b = __ushort_as_half(pattern(i, 2, false));
    __half c = __ushort_as_half(pattern(i, 3, false));
    __half2 p = __halves2half2(a, b), q = __halves2half2(b, c), r = __halves2half2(c, a);
    __half e = (i & 3) == 0 ? a : b; // compared with a: equal now and then
    __half2 pe = __halves2half2((i & 4) ? a : c, (i & 8) ? b : c);
    float f = in_float(i, 1), g = in_float(i, 2);
    long long n = in_int(i);
    double d = (double)f * (1.0 + 0x1p-40);
    uint32_t *o = out + i;
    int k = 0;
    o[k++ * N] = h(__hadd(a, b)); o[k++ * N] = h(__hsub(a, b)); o[k++ * N] = h(__hmul(a, b));
    o[k++ * N] = h(__hfma(a, b, c)); o[k++ * N] = h(__hadd_rn(a, b));
    o[k++ * N] = h(__hmul_rn(a, b)); o[k++ * N] = h(__hadd_sat(a, b));
    o[k++ * N] = h(__hsub_sat(a, b)); o[k++ * N] = h(__hmul_sat(a, b));
    o[k++ * N] = h(__hfma_sat(a, b, c)); o[k++ * N] = h(__hfma_relu(a, b, c));
    o[k++ * N] = h(__hmax(a, e)); o[k++ * N] = h(__hmin(a, b)); o[k++ * N] = h(__hmax_nan(a, b));
    o[k++ * N] = h(__hmin_nan(a, e)); o[k++ * N] = h(__habs(a)); o[k++ * N] = h(__hneg(a));
    o[k++ * N] = __heq(a, e) | __hne(a, e) << 1 | __hlt(a, e) << 2 | __hle(a, e) << 3 |
                 __hgt(a, e) << 4 | __hge(a, e) << 5 | __hequ(a, e) << 6 | __hneu(a, e) << 7 |
                 __hltu(a, e) << 8 | __hgtu(a, e) << 9 | __hisnan(a) << 10 | __hisinf(a) << 11;
    o[k++ * N] = h2(__hadd2(p, q)); o[k++ * N] = h2(__hsub2(p, q)); o[k++ * N] = h2(__hmul2(p, q));
    o[k++ * N] = h2(__hfma2(p, q, r)); o[k++ * N] = h2(__hadd2_sat(p, q));
    o[k++ * N] = h2(__hfma2_sat(p, q, r)); o[k++ * N] = h2(__hfma2_relu(p, q, r));
    o[k++ * N] = h2(__hmax2(p, q)); o[k++ * N] = h2(__hmin2(p, q));
    o[k++ * N] = h2(__hmax2_nan(p, q)); o[k++ * N] = h2(__hmin2_nan(p, q));
    o[k++ * N] = h2(__habs2(p)); o[k++ * N] = h2(__hneg2(p));
    o[k++ * N] = h2(__heq2(p, pe)); o[k++ * N] = h2(__hlt2(p, pe));
    o[k++ * N] = h2(__hisnan2(p)); o[k++ * N] = __heq2_mask(p, pe);
    o[k++ * N] = __hgtu2_mask(p, pe);
    o[k++ * N] = __hbeq2(p, pe) | __hblt2(p, pe) << 1 | __hbgtu2(p, pe) << 2;
    o[k++ * N] = h(__float2half_rn(f)); o[k++ * N] = h(__float2half_rz(f));
    o[k++ * N] = h(__float2half_rd(f)); o[k++ * N] = h(__float2half_ru(f));
    o[k++ * N] = h(__double2half(d)); o[k++ * N] = __float_as_uint(__half2float(a));
    o[k++ * N] = h2(__float22half2_rn(make_float2(f, g))); o[k++ * N] = h2(__floats2half2_rn(f, g));
    o[k++ * N] = __half2int_rn(a); o[k++ * N] = __half2int_rz(a); o[k++ * N] = __half2int_rd(a);
    o[k++ * N] = __half2int_ru(a); o[k++ * N] = __half2uint_rn(a);
    o[k++ * N] = (uint16_t)__half2short_rz(a); o[k++ * N] = (uint32_t)(__half2ll_rn(a) >> 8);
    o[k++ * N] = h(__int2half_rn((int)n)); o[k++ * N] = h(__int2half_rz((int)n));
    o[k++ * N] = h(__int2half_rd((int)n)); o[k++ * N] = h(__int2half_ru((int)n));
    o[k++ * N] = h(__uint2half_rn((unsigned)n)); o[k++ * N] = h(__short2half_rn((short)n));
    o[k++ * N] = h(__ll2half_rn(n)); o[k++ * N] = h(__ll2half_ru(n));
    o[k++ * N] = h(__ull2half_rd((unsigned long long)n));
    o[k++ * N] = h(htrunc(a)) | h(hceil(a)) << 16; o[k++ * N] = h(hfloor(a)) | h(hrint(a)) << 16;
    o[k++ * N] = h(__hdiv(a, b));
}

__global__ void bf16s(uint32_t *out)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bf16 a = __ushort_as_bfloat16(pattern(i, 1, true));
    bf16 b = __ushort_as_bfloat16(pattern(i, 2, true));
    bf16 c = __ushort_as_bfloat16(pattern(i, 3, true));
    bf162 p = __halves2bfloat162(a, b), q = __halves2bfloat162(b, c), r = __halves2bfloat162(c, a);
    bf16 e = (i & 3) == 0 ? a : b;
    bf162 pe = __halves2bfloat162((i & 4) ? a : c, (i & 8) ? b : c);
    float f = in_float(i, 1), g = in_float(i, 2);
    long long n = in_int(i);
    double d = (double)f * (1.0 + 0x1p-40);
    uint32_t *o = out + i;
    int k = 0;
    o[k++ * N] = h(__hadd(a, b)); o[k++ * N] = h(__hsub(a, b)); o[k++ * N] = h(__hmul(a, b));
    o[k++ * N] = h(__hfma(a, b, c)); o[k++ * N] = h(__hadd_rn(a, b));
    o[k++ * N] = h(__hfma_relu(a, b, c)); o[k++ * N] = h(__hfma_sat(a, b, c));
    o[k++ * N] = h(__hmax(a, e)); o[k++ * N] = h(__hmin(a, b)); o[k++ * N] = h(__hmax_nan(a, b));
    o[k++ * N] = h(__hmin_nan(a, e)); o[k++ * N] = h(__habs(a)); o[k++ * N] = h(__hneg(a));
    o[k++ * N] = __heq(a, e) | __hne(a, e) << 1 | __hlt(a, e) << 2 | __hle(a, e) << 3 |
                 __hgt(a, e) << 4 | __hge(a, e) << 5 | __hequ(a, e) << 6 | __hneu(a, e) << 7 |
                 __hltu(a, e) << 8 | __hgtu(a, e) << 9 | __hisnan(a) << 10 | __hisinf(a) << 11;
    o[k++ * N] = h2(__hadd2(p, q)); o[k++ * N] = h2(__hsub2(p, q)); o[k++ * N] = h2(__hmul2(p, q));
    o[k++ * N] = h2(__hfma2(p, q, r)); o[k++ * N] = h2(__hfma2_relu(p, q, r));
    o[k++ * N] = h2(__hmax2(p, q)); o[k++ * N] = h2(__hmin2(p, q));
    o[k++ * N] = h2(__hmax2_nan(p, q)); o[k++ * N] = h2(__hmin2_nan(p, q));
    o[k++ * N] = h2(__habs2(p)); o[k++ * N] = h2(__hneg2(p));
    o[k++ * N] = h2(__heq2(p, pe)); o[k++ * N] = h2(__hlt2(p, pe));
    o[k++ * N] = __heq2_mask(p, pe); o[k++ * N] = __hbeq2(p, pe) | __hblt2(p, pe) << 1;
    o[k++ * N] = h(__float2bfloat16(f)); o[k++ * N] = h(__float2bfloat16_rz(f));
    o[k++ * N] = h(__float2bfloat16_rd(f)); o[k++ * N] = h(__float2bfloat16_ru(f));
    o[k++ * N] = h(__double2bfloat16(d)); o[k++ * N] = __float_as_uint(__bfloat162float(a));
    o[k++ * N] = h2(__float22bfloat162_rn(make_float2(f, g)));
    o[k++ * N] = h2(__floats2bfloat162_rn(f, g));
    o[k++ * N] = __bfloat162int_rn(a); o[k++ * N] = __bfloat162int_rz(a);
    o[k++ * N] = __bfloat162int_rd(a); o[k++ * N] = (uint32_t)(__bfloat162ll_rn(a) >> 8);
    o[k++ * N] = h(__int2bfloat16_rn((int)n)); o[k++ * N] = h(__int2bfloat16_rz((int)n));
    o[k++ * N] = h(__ll2bfloat16_rn(n)); o[k++ * N] = h(__uint2bfloat16_rz((unsigned)n));
    o[k++ * N] = h(htrunc(a)) | h(hrint(a)) << 16;
    o[k++ * N] = h(__float2half_rn(__bfloat162float(a)));
    o[k++ * N] = h(__float2bfloat16(__half2float(__ushort_as_half(pattern(i, 4, false)))));
}

// PTX forms the headers do not reach: .ftz, setp on pairs, cvt .relu and .satfinite.
__global__ void forms(uint32_t *out)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint16_t a = pattern(i, 5, false), b = pattern(i, 6, false), c = pattern(i, 7, false);
    uint32_t p = a | (uint32_t)b << 16, q = b | (uint32_t)c << 16;
    float f = in_float(i, 3), g = in_float(i, 4);
    uint32_t *o = out + i;
    int k = 0;
    uint16_t s;
    uint32_t v;
    asm("add.ftz.f16 %0, %1, %2;" : "=h"(s) : "h"(a), "h"(b)); o[k++ * N] = s;
    asm("fma.rn.ftz.f16 %0, %1, %2, %3;" : "=h"(s) : "h"(a), "h"(b), "h"(c)); o[k++ * N] = s;
    asm("mul.ftz.sat.f16x2 %0, %1, %2;" : "=r"(v) : "r"(p), "r"(q)); o[k++ * N] = v;
    asm("min.ftz.f16 %0, %1, %2;" : "=h"(s) : "h"(a), "h"(b)); o[k++ * N] = s;
    asm("neg.ftz.f16 %0, %1;" : "=h"(s) : "h"(a)); o[k++ * N] = s;
    asm("{.reg .pred x, y; setp.lt.f16x2 x|y, %1, %2; selp.u32 %0, 1, 0, x;"
        " @y add.u32 %0, %0, 2;}" : "=r"(v) : "r"(p), "r"(q)); o[k++ * N] = v;
    asm("{.reg .pred x, y; setp.ne.u16 y, %3, 0; setp.geu.xor.ftz.f16 x, %1, %2, y;"
        " selp.u32 %0, 1, 0, x;}" : "=r"(v) : "h"(a), "h"(b), "h"(c)); o[k++ * N] = v;
    asm("{.reg .pred x, y; setp.ne.bf16x2 x|y, %1, %2; selp.u32 %0, 1, 0, x;"
        " @y add.u32 %0, %0, 2;}" : "=r"(v) : "r"(p), "r"(q)); o[k++ * N] = v;
    asm("set.gt.u32.f16 %0, %1, %2;" : "=r"(v) : "h"(a), "h"(b)); o[k++ * N] = v;
    asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(s) : "f"(f)); o[k++ * N] = s;
    asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(s) : "f"(f)); o[k++ * N] = s;
    asm("cvt.rz.satfinite.relu.bf16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(f), "f"(g)); o[k++ * N] = v;
    asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(f), "f"(g)); o[k++ * N] = v;
    double wide;
    asm("cvt.f64.f16 %0, %1;" : "=d"(wide) : "h"(a));
    long long wide_bits = __double_as_longlong(wide);
    o[k++ * N] = (uint32_t)(wide_bits >> 32) ^ (uint32_t)wide_bits;
    asm("cvt.rn.f16.f64 %0, %1;" : "=h"(s) : "d"((double)g * 3.0)); o[k++ * N] = s;
}

static const char *const fp16_names[] = {
    "__hadd", "__hsub", "__hmul", "__hfma", "__hadd_rn", "__hmul_rn", "__hadd_sat", "__hsub_sat",
    "__hmul_sat", "__hfma_sat", "__hfma_relu", "__hmax", "__hmin", "__hmax_nan", "__hmin_nan",
    "__habs", "__hneg", "compare", "__hadd2", "__hsub2", "__hmul2", "__hfma2", "__hadd2_sat",
    "__hfma2_sat", "__hfma2_relu", "__hmax2", "__hmin2", "__hmax2_nan", "__hmin2_nan",
    "__habs2", "__hneg2", "__heq2", "__hlt2", "__hisnan2", "__heq2_mask", "__hgtu2_mask",
    "compare2", "__float2half_rn", "__float2half_rz", "__float2half_rd", "__float2half_ru",
    "__double2half", "__half2float", "__float22half2_rn", "__floats2half2_rn", "__half2int_rn",
    "__half2int_rz", "__half2int_rd", "__half2int_ru", "__half2uint_rn", "__half2short_rz",
    "__half2ll_rn", "__int2half_rn", "__int2half_rz", "__int2half_rd", "__int2half_ru",
    "__uint2half_rn", "__short2half_rn", "__ll2half_rn", "__ll2half_ru", "__ull2half_rd",
    "htrunc.hceil", "hfloor.hrint", "__hdiv"};
static const char *const bf16_names[] = {
    "bf16 __hadd", "bf16 __hsub", "bf16 __hmul", "bf16 __hfma", "bf16 __hadd_rn",
    "bf16 __hfma_relu", "bf16 __hfma_sat", "bf16 __hmax", "bf16 __hmin", "bf16 __hmax_nan",
    "bf16 __hmin_nan", "bf16 __habs", "bf16 __hneg", "bf16 compare", "bf16 __hadd2",
    "bf16 __hsub2", "bf16 __hmul2", "bf16 __hfma2", "bf16 __hfma2_relu", "bf16 __hmax2",
    "bf16 __hmin2", "bf16 __hmax2_nan", "bf16 __hmin2_nan", "bf16 __habs2", "bf16 __hneg2",
    "bf16 __heq2", "bf16 __hlt2", "bf16 __heq2_mask", "bf16 compare2", "__float2bfloat16",
    "__float2bfloat16_rz", "__float2bfloat16_rd", "__float2bfloat16_ru", "__double2bfloat16",
    "__bfloat162float", "__float22bfloat162_rn", "__floats2bfloat162_rn", "__bfloat162int_rn",
    "__bfloat162int_rz", "__bfloat162int_rd", "__bfloat162ll_rn", "__int2bfloat16_rn",
    "__int2bfloat16_rz", "__ll2bfloat16_rn", "__uint2bfloat16_rz", "bf16 htrunc.hrint",
    "bf16 to half", "half to bf16"};
static const char *const form_names[] = {
    "add.ftz.f16", "fma.rn.ftz.f16", "mul.ftz.sat.f16x2", "min.ftz.f16", "neg.ftz.f16",
    "setp.lt.f16x2", "setp.geu.xor.ftz.f16", "setp.ne.bf16x2", "set.gt.u32.f16",
    "cvt.rn.relu.f16.f32", "cvt.rn.satfinite.f16.f32", "cvt.rz.satfinite.relu.bf16x2.f32",
    "cvt.rn.relu.f16x2.f32", "cvt.f64.f16", "cvt.rn.f16.f64"};

static uint64_t fnv(const uint32_t *v, size_t n)
{
    uint64_t x = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n * 4; i++) {
        x ^= (v[i / 4] >> (8 * (i % 4))) & 0xff;
        x *= 0x100000001b3ull;
    }
    return x;
}

// One kernel's results: a line per function, the count of results and their digest. With a
// name (`cpu_half __hfma`), that function's results one by one instead, after the inputs.
static const char *wanted = nullptr;

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int family(void (*kernel)(uint32_t *), const char *const *names, int count, bool brain)
{
    static uint32_t host[MAX_FUNCS * N];
    uint32_t *dev = nullptr;
    cudaMalloc(&dev, sizeof host);
    cudaMemset(dev, 0, sizeof host);
    kernel<<<N / BLOCK, BLOCK>>>(dev);
    cudaError_t e = cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    cudaFree(dev);
    if (e != cudaSuccess) {
        printf("error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    for (int j = 0; j < count; j++) {
        if (!wanted) {
            printf("%-34s %d %016llx\n", names[j], N, (unsigned long long)fnv(host + j * N, N));
            continue;
        }
        if (strcmp(wanted, names[j]) != 0)
            continue;
        for (uint32_t i = 0; i < N; i++)
            printf("%4u: a %04x b %04x c %04x f %08x g %08x n %016llx -> %08x\n", i,
                   pattern(i, 1, brain), pattern(i, 2, brain), pattern(i, 3, brain),
                   float_bits(in_float(i, 1)), float_bits(in_float(i, 2)),
                   (unsigned long long)in_int(i), host[j * N + i]);
    }
    return 0;
}

// A few results one can check by hand against IEEE 754 (round to nearest, ties to even).
__global__ void samples(uint32_t *o)
{
    int k = 0;
    o[k++] = h(__float2half_rn(65520.0f));  // halfway between 65504 and 65536: infinity
    o[k++] = h(__float2half_rn(65519.0f));  // below it: 65504
    o[k++] = h(__float2half_rz(1e6f));      // toward zero: the largest finite
    o[k++] = h(__float2half_rd(-1e6f));     // toward -inf: -inf
    o[k++] = h(__float2half_ru(1e-30f));    // toward +inf: the smallest subnormal
    o[k++] = h(__float2half_rn(0x1p-25f));  // halfway between 0 and 2^-24: 0
    o[k++] = h(__float2half_rn(0x1.8p-25f)); // above halfway: 2^-24
    o[k++] = h(__hadd(__ushort_as_half(0x3c00), __ushort_as_half(0x1000))); // 1 + 2^-11: 1
    o[k++] = h(__hadd(__ushort_as_half(0x3c01), __ushort_as_half(0x1000))); // up to even
    // (1 + 2^-10)(1 - 2^-11) + 9 * 2^-24 = 1 + 2^-11 + 2^-24: just above halfway. Rounded to
    // f32 first it would be 1 + 2^-11 exactly, then 1 (a double rounding); fused: 1 + 2^-10.
    o[k++] = h(__hfma(__ushort_as_half(0x3c01), __ushort_as_half(0x3bff), __ushort_as_half(9)));
    o[k++] = h(__hmax(__ushort_as_half(0x7e00), __ushort_as_half(0x3c00))); // NaN ignored
    o[k++] = h(__hmax_nan(__ushort_as_half(0x7e00), __ushort_as_half(0x3c00))); // NaN
    o[k++] = (uint32_t)__half2int_rn(__float2half(2.5f));
    o[k++] = (uint32_t)__half2int_rn(__float2half(3.5f));
    o[k++] = (uint32_t)__half2int_rz(__float2half(-2.5f));
    o[k++] = h(__int2half_rn(2049));  // halfway between 2048 and 2050: 2048
    o[k++] = h(__int2half_rn(2051));  // halfway between 2050 and 2052: 2052
    o[k++] = h(__ll2half_rn(-9223372036854775807LL - 1)); // -2^63: -inf
    o[k++] = h2(__float22half2_rn(make_float2(1.0f, 2.0f))); // .x in the low half
    o[k++] = h(__float2bfloat16(0x1.01p0f)); // 1 + 2^-8, halfway: 1
    o[k++] = h(__float2bfloat16(0x1.03p0f)); // 1 + 3 * 2^-8, halfway: up to even
    o[k++] = h(__float2bfloat16(3.4028235e38f)); // rounds up past the largest: infinity
    o[k++] = h(__hadd(__ushort_as_bfloat16(0x3f80), __ushort_as_bfloat16(0x3b80))); // 1
    o[k++] = h2(__floats2bfloat162_rn(1.0f, -2.0f)); // a in the low half
}

#define SAMPLES 24

int main(int argc, char **argv)
{
    wanted = argc > 1 ? argv[1] : nullptr;
    if (family(fp16, fp16_names, sizeof fp16_names / sizeof *fp16_names, false) ||
        family(bf16s, bf16_names, sizeof bf16_names / sizeof *bf16_names, true) ||
        family(forms, form_names, sizeof form_names / sizeof *form_names, false))
        return 1;
    if (wanted)
        return 0;
    uint32_t *dev = nullptr, host[SAMPLES] = {0};
    cudaMalloc(&dev, sizeof host);
    samples<<<1, 1>>>(dev);
    cudaError_t e = cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        printf("error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    printf("f16 rn 65520 %04x, 65519 %04x; rz 1e6 %04x; rd -1e6 %04x; ru 1e-30 %04x\n", host[0],
           host[1], host[2], host[3], host[4]);
    printf("f16 rn 2^-25 %04x, 1.5*2^-25 %04x\n", host[5], host[6]);
    printf("f16 1+2^-11 %04x, 1+2^-10+2^-11 %04x, fma single rounding %04x\n", host[7], host[8],
           host[9]);
    printf("f16 max(NaN, 1) %04x, max_nan(NaN, 1) %04x\n", host[10], host[11]);
    printf("f16 to int rn 2.5 %d, 3.5 %d; rz -2.5 %d\n", (int)host[12], (int)host[13],
           (int)host[14]);
    printf("f16 from int 2049 %04x, 2051 %04x, -2^63 %04x; pair (1, 2) %08x\n", host[15],
           host[16], host[17], host[18]);
    printf("bf16 1+2^-8 %04x, 1+3*2^-8 %04x, FLT_MAX %04x\n", host[19], host[20], host[21]);
    printf("bf16 1+2^-8 added %04x; pair (1, -2) %08x\n", host[22], host[23]);
    return 0;
}
