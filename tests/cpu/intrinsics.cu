// Bit and warp intrinsics on awkward inputs: each line prints a digest of one intrinsic's
// results over 256 threads. The CPU backend must print exactly what a GPU prints; the expected
// lines in CMakeLists.txt were taken from an H100 (tools/verify-gpu.sh runs this there too).
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define THREADS 256
#define BLOCK 128
#define RESULTS 40 // results per thread

// Inputs that find edge cases: zero, all ones, the sign bit, float specials, then a mix.
__host__ __device__ static uint32_t input(uint32_t i, uint32_t salt)
{
    const uint32_t special[] = {0u,          0xffffffffu, 0x80000000u, 0x7fffffffu,
                                0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u,
                                0x00800000u, 0x807fffffu, 0x3f800000u, 0x00ff00ffu};
    uint32_t x = i * 2654435761u ^ salt * 40503u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    return i < sizeof special / sizeof special[0] ? special[(i + salt) % 12] : x;
}

__device__ static uint32_t as_u32(float f) { return __float_as_uint(f); }

__global__ void lanewise(uint32_t *out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t a = input(t, 1), b = input(t, 2), c = input(t, 3);
    uint64_t wa = (uint64_t)a << 32 | b;
    uint32_t *r = out + t * RESULTS;
    float fa = __uint_as_float(a), fb = __uint_as_float(b);
    r[0] = __popc(a);
    r[1] = __popcll(wa);
    r[2] = __clz(a);
    r[3] = __clzll(wa);
    r[4] = __brev(a);
    r[5] = (uint32_t)(__brevll(wa) >> 7);
    r[6] = __ffs(a);
    r[7] = __ffsll(wa);
    r[8] = __byte_perm(a, b, c);
    r[9] = __funnelshift_l(a, b, c);
    r[10] = __funnelshift_r(a, b, c);
    r[11] = __funnelshift_lc(a, b, c);
    r[12] = __funnelshift_rc(a, b, c);
    r[13] = __mul24(a, b);
    r[14] = __umul24(a, b);
    r[15] = __mulhi(a, b);
    r[16] = __umulhi(a, b);
    r[17] = (uint32_t)__mul64hi((long long)wa, (long long)c);
    r[18] = __sad(a, b, c);
    r[19] = __usad(a, b, c);
    r[20] = as_u32(copysignf(fa, fb));
    r[21] = isfinite(fa) | isinf(fa) << 1 | isnan(fa) << 2;
    uint32_t v;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[22] = v;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b & 0x3f), "r"(c & 0x3f));
    r[23] = v;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(v) : "r"(a), "r"(b), "r"(c & 0x3f), "r"(c >> 8 & 0x3f));
    r[24] = v;
    asm("bfind.s32 %0, %1;" : "=r"(v) : "r"(a));
    r[25] = v;
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(v) : "r"(a));
    r[26] = v;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[27] = v;
    asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[28] = v;
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[29] = v;
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[30] = v;
    asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[31] = v;
    asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[32] = v;
    asm("{.reg .pred p; testp.normal.f32 p, %1; selp.u32 %0, 1, 0, p;}" : "=r"(v) : "f"(fa));
    r[33] = v;
    asm("{.reg .pred p; testp.subnormal.f32 p, %1; selp.u32 %0, 1, 0, p;}" : "=r"(v) : "f"(fa));
    r[34] = v;
    asm("mad24.hi.u32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[35] = v;
    asm("mad24.hi.sat.s32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[36] = v;
    asm("mad24.lo.s32 %0, %1, %2, %3;" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    r[37] = v;
    r[38] = (uint32_t)__brevll(wa);
    r[39] = __popc(a & b) + __clz(c | 1);
}

__global__ void warpwise(uint32_t *out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    uint32_t a = input(t, 4), b = input(t, 5);
    uint32_t *r = out + t * RESULTS;
    const unsigned all = 0xffffffffu;
    int k = 0;
    for (int width = 4; width <= 32; width *= 2) {
        r[k++] = __shfl_sync(all, a, (int)(b % 37), width);
        r[k++] = __shfl_up_sync(all, a, b % 9, width);
        r[k++] = __shfl_down_sync(all, a, b % 9, width);
        r[k++] = __shfl_xor_sync(all, a, (int)(b % 33), width);
    }
    r[k++] = __ballot_sync(all, a & 1);
    r[k++] = __all_sync(all, a != 0) | __any_sync(all, a == 0) << 1;
    r[k++] = __reduce_add_sync(all, a);
    r[k++] = __reduce_min_sync(all, (int)a);
    r[k++] = __reduce_max_sync(all, a);
    r[k++] = __reduce_and_sync(all, a | 0x10);
    r[k++] = __reduce_or_sync(all, a & 0xff);
    r[k++] = __reduce_xor_sync(all, a);
    r[k++] = __match_any_sync(all, a % 3);
    int pred = 0;
    r[k++] = __match_all_sync(all, lane / 16, &pred);
    r[k++] = (uint32_t)pred;
    r[k++] = __match_all_sync(all, 7u, &pred) ^ (uint32_t)pred;
    // A sub-group: the lanes below 12 alone, with a mask that names exactly them.
    r[k] = 0;
    if (lane < 12)
        r[k] = __activemask() ^ __ballot_sync(0xfffu, a & 2) ^ __reduce_add_sync(0xfffu, a);
    k++;
    // A warp sum by shuffles, the way reductions write it.
    uint32_t s = a;
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_down_sync(all, s, off);
    r[k++] = s;
    while (k < RESULTS)
        r[k++] = 0;
}

static uint32_t digest(const uint32_t *v, int column)
{
    uint32_t h = 2166136261u; // FNV-1a over one column of every thread's results
    for (int t = 0; t < THREADS; t++) {
        uint32_t x = v[t * RESULTS + column];
        for (int i = 0; i < 4; i++) {
            h ^= x >> (8 * i) & 0xff;
            h *= 16777619u;
        }
    }
    return h;
}

static int report(const char *what, void (*kernel)(uint32_t *), uint32_t *d, uint32_t *h)
{
    kernel<<<THREADS / BLOCK, BLOCK>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaMemcpy(h, d, sizeof(uint32_t) * THREADS * RESULTS, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        printf("%s: %s\n", what, cudaGetErrorString(e));
        return 1;
    }
    for (int c = 0; c < RESULTS; c++)
        printf("%s %d: %08x\n", what, c, digest(h, c));
    return 0;
}

int main()
{
    static uint32_t h[THREADS * RESULTS];
    uint32_t *d = nullptr;
    if (cudaMalloc(&d, sizeof h) != cudaSuccess) {
        printf("cudaMalloc failed\n");
        return 1;
    }
    int rc = report("lanewise", lanewise, d, h) | report("warpwise", warpwise, d, h);
    cudaFree(d);
    return rc;
}
