// Lab 06 (the challenge), reference solution: every step of the handout in one kernel.
// P = M * N with M j x k, N k x l and P j x l, for any j, k, l.
//
// One block of 256 threads computes a BM x BN tile of P; each thread accumulates TM x TN of it
// in registers, so every value read from shared memory feeds TN (or TM) fused multiply-adds
// instead of one. Per phase of BK columns of M and rows of N:
//   - each thread fetches its part of both tiles as float4 (one 16-byte load instead of four),
//   - the M tile is stored transposed (Ms[k][row]), so a thread's TM values of one column of M
//     are contiguous and are read back as float4; its rows are padded by 4 floats, so the two
//     threads that store one row's halves hit different banks,
//   - a thread's TM x TN outputs are 2 x 4 pieces of 4 x 4 spread RT_M and RT_N apart over the
//     block's tile (warptiling), so the eight threads of a quarter-warp read 32 consecutive
//     words: no bank conflicts,
//   - two shared stages: the next phase's loads are in flight while this phase's products are
//     computed, and one __syncthreads per phase hands the filled stage over.
// Blocks wholly inside P, on shapes whose rows suit float4, run a kernel without a single
// bounds test. The blocks on the right and bottom edges, and every block of the other shapes,
// run its twin: it loads element by element (consecutive threads, consecutive addresses) with
// zeros outside the matrices, and writes its tile through shared memory, row by row, only
// where P is.
#include "lab.h"

#include <stdint.h>

#define BM 128  // rows of P per block
#define BN 256  // columns of P per block
#define BK 8    // columns of M (rows of N) per phase
#define TM 8    // rows of P per thread
#define TN 16   // columns of P per thread
#define VEC 4   // floats per float4
#define PAD VEC // spare floats per row of the transposed M tile (a multiple of VEC: float4 reads)
#define THREADS ((BM / TM) * (BN / TN))
#define M_LOADS (BM * BK / VEC / THREADS) // float4 loads of the M tile per thread
#define N_LOADS (BK * BN / VEC / THREADS) // and of the N tile
#define RT_M (BM / (TM / VEC))            // distance between a thread's 4 x 4 pieces, rows
#define RT_N (BN / (TN / VEC))            // and columns
#define OUT_ROWS (BM / TM)               // rows of P one round of the edge store holds
static_assert(OUT_ROWS * BN <= 2 * BK * BN, "the edge store's rows fit in the N stages");

typedef float MTile[BK][BM + PAD];
typedef float NTile[BK][BN];

// ---- the loads of a phase: fetched into registers, staged into shared memory after the
// ---- products of the previous phase

static __device__ __forceinline__ void fetch_fast(const float *M, const float *N, int k, int l,
                                                  int row0, int col0, int kt, float4 *m, float4 *n)
{
    for (int i = 0; i < M_LOADS; i++) {
        int idx = threadIdx.x + i * THREADS;
        int r = idx / (BK / VEC), c = (idx % (BK / VEC)) * VEC;
        m[i] = *(const float4 *)&M[(size_t)(row0 + r) * k + kt + c];
    }
    for (int i = 0; i < N_LOADS; i++) {
        int idx = threadIdx.x + i * THREADS;
        int r = idx / (BN / VEC), c = (idx % (BN / VEC)) * VEC;
        n[i] = *(const float4 *)&N[(size_t)(kt + r) * l + col0 + c];
    }
}

static __device__ __forceinline__ void stage_fast(MTile Ms, NTile Ns, const float4 *m,
                                                  const float4 *n)
{
    for (int i = 0; i < M_LOADS; i++) {
        int idx = threadIdx.x + i * THREADS;
        int r = idx / (BK / VEC), c = (idx % (BK / VEC)) * VEC;
        Ms[c + 0][r] = m[i].x;
        Ms[c + 1][r] = m[i].y;
        Ms[c + 2][r] = m[i].z;
        Ms[c + 3][r] = m[i].w;
    }
    for (int i = 0; i < N_LOADS; i++) {
        int idx = threadIdx.x + i * THREADS;
        int r = idx / (BN / VEC), c = (idx % (BN / VEC)) * VEC;
        *(float4 *)&Ns[r][c] = n[i];
    }
}

// Element e of a tile is row e / width, column e % width: a warp reads whole rows of 8 (M) or
// 32 (N) consecutive floats.
static __device__ __forceinline__ void fetch_checked(const float *M, const float *N, int j, int k,
                                                     int l, int row0, int col0, int kt, float *m,
                                                     float *n)
{
    for (int i = 0; i < M_LOADS * VEC; i++) {
        int e = threadIdx.x + i * THREADS, r = row0 + e / BK, c = kt + e % BK;
        m[i] = r < j && c < k ? M[(size_t)r * k + c] : 0.0f;
    }
    for (int i = 0; i < N_LOADS * VEC; i++) {
        int e = threadIdx.x + i * THREADS, r = kt + e / BN, c = col0 + e % BN;
        n[i] = r < k && c < l ? N[(size_t)r * l + c] : 0.0f;
    }
}

static __device__ __forceinline__ void stage_checked(MTile Ms, NTile Ns, const float *m,
                                                     const float *n)
{
    for (int i = 0; i < M_LOADS * VEC; i++) {
        int e = threadIdx.x + i * THREADS;
        Ms[e % BK][e / BK] = m[i];
    }
    for (int i = 0; i < N_LOADS * VEC; i++) {
        int e = threadIdx.x + i * THREADS;
        Ns[e / BN][e % BN] = n[i];
    }
}

// ---- the tile of P at (row0, col0)

// `inside` is a constant in each kernel below, so the compiler builds one copy without a single
// bounds test and one with them: a run-time flag tested in the loop measured 9 % slower on an
// H100 at 4096^3. Ms and Ns are the kernel's two stages of the tiles.
static __device__ __forceinline__ void tile(const float *__restrict__ M, const float *__restrict__ N,
                                            float *__restrict__ P, int j, int k, int l, int row0,
                                            int col0, const bool inside, MTile *Ms, NTile *Ns)
{
    const int trow = threadIdx.x / (BN / TN), tcol = threadIdx.x % (BN / TN);

    float acc[TM][TN];
    for (int r = 0; r < TM; r++)
        for (int c = 0; c < TN; c++)
            acc[r][c] = 0.0f;

    float4 m4[M_LOADS], n4[N_LOADS];            // the fast path's registers
    float m1[M_LOADS * VEC], n1[N_LOADS * VEC]; // the checked path's
    if (inside) {
        fetch_fast(M, N, k, l, row0, col0, 0, m4, n4);
        stage_fast(Ms[0], Ns[0], m4, n4);
    } else {
        fetch_checked(M, N, j, k, l, row0, col0, 0, m1, n1);
        stage_checked(Ms[0], Ns[0], m1, n1);
    }
    __syncthreads();

    int s = 0;
    for (int kt = 0; kt < k; kt += BK) {
        // The last phase fetches itself again rather than skip the fetch: a fetch under a
        // condition was moved by the compiler after the products, where it no longer overlaps
        // them (measured 68 % of cuBLAS instead of 92 % on an H100 at 4096^3).
        int next = kt + BK < k ? kt + BK : kt;
        if (inside)
            fetch_fast(M, N, k, l, row0, col0, next, m4, n4);
        else
            fetch_checked(M, N, j, k, l, row0, col0, next, m1, n1);

#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            float a[TM], b[TN];
#pragma unroll
            for (int p = 0; p < TM / VEC; p++) {
                float4 v = *(const float4 *)&Ms[s][kk][trow * VEC + p * RT_M];
                a[p * VEC + 0] = v.x, a[p * VEC + 1] = v.y, a[p * VEC + 2] = v.z,
                a[p * VEC + 3] = v.w;
            }
#pragma unroll
            for (int p = 0; p < TN / VEC; p++) {
                float4 v = *(const float4 *)&Ns[s][kk][tcol * VEC + p * RT_N];
                b[p * VEC + 0] = v.x, b[p * VEC + 1] = v.y, b[p * VEC + 2] = v.z,
                b[p * VEC + 3] = v.w;
            }
#pragma unroll
            for (int r = 0; r < TM; r++)
#pragma unroll
                for (int c = 0; c < TN; c++)
                    acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
        }

        // The other stage was last read before the previous barrier, so it is free to fill.
        if (inside)
            stage_fast(Ms[s ^ 1], Ns[s ^ 1], m4, n4);
        else
            stage_checked(Ms[s ^ 1], Ns[s ^ 1], m1, n1);
        __syncthreads();
        s ^= 1;
    }

    if (inside) {
#pragma unroll
        for (int r = 0; r < TM; r++) {
            int row = row0 + trow * VEC + (r / VEC) * RT_M + r % VEC;
#pragma unroll
            for (int p = 0; p < TN / VEC; p++) {
                const float *v = &acc[r][p * VEC];
                *(float4 *)&P[(size_t)row * l + col0 + tcol * VEC + p * RT_N] =
                    make_float4(v[0], v[1], v[2], v[3]);
            }
        }
        return;
    }

    // The edge: each round, every thread's row r of its pieces (OUT_ROWS rows of the tile) goes
    // to shared memory, and the block writes those rows out 32 consecutive columns per warp.
    float(*out)[BN] = (float(*)[BN])Ns; // both stages of Ns: OUT_ROWS x BN floats
    for (int r = 0; r < TM; r++) {
#pragma unroll
        for (int p = 0; p < TN / VEC; p++) {
            const float *v = &acc[r][p * VEC];
            *(float4 *)&out[trow][tcol * VEC + p * RT_N] = make_float4(v[0], v[1], v[2], v[3]);
        }
        __syncthreads();
        for (int e = threadIdx.x; e < OUT_ROWS * BN; e += THREADS) {
            int t = e / BN, row = row0 + t * VEC + (r / VEC) * RT_M + r % VEC, col = col0 + e % BN;
            if (row < j && col < l)
                P[(size_t)row * l + col] = out[t][e % BN];
        }
        __syncthreads();
    }
}

// Blocks wholly inside P, on shapes whose rows suit float4.
__global__ void __launch_bounds__(THREADS)
    MatrixMulKernel(const float *__restrict__ M, const float *__restrict__ N, float *__restrict__ P,
                    int j, int k, int l)
{
    __shared__ __align__(16) MTile Ms[2];
    __shared__ __align__(16) NTile Ns[2];
    tile(M, N, P, j, k, l, blockIdx.y * BM, blockIdx.x * BN, true, Ms, Ns);
}

// Any other block: the grid starts at (row_base, col_base) of P.
__global__ void __launch_bounds__(THREADS)
    MatrixMulKernelEdge(const float *__restrict__ M, const float *__restrict__ N,
                        float *__restrict__ P, int j, int k, int l, int row_base, int col_base)
{
    __shared__ __align__(16) MTile Ms[2];
    __shared__ __align__(16) NTile Ns[2];
    tile(M, N, P, j, k, l, row_base + blockIdx.y * BM, col_base + blockIdx.x * BN, false, Ms, Ns);
}

static bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

static int blocks(int n, int per_block) { return (n + per_block - 1) / per_block; }

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    // float4 loads of whole phases need every row of M, N and P to start on 16 bytes and k to
    // be whole phases; other shapes take the checked loads everywhere.
    bool vector_rows = k % BK == 0 && l % VEC == 0 && aligned16(M) && aligned16(N) &&
                       aligned16(P);
    int full_rows = vector_rows ? j / BM * BM : 0, full_cols = vector_rows ? l / BN * BN : 0;
    if (full_rows > 0 && full_cols > 0)
        MatrixMulKernel<<<dim3(full_cols / BN, full_rows / BM), THREADS>>>(M, N, P, j, k, l);
    else
        full_rows = full_cols = 0;
    // What the full blocks leave: the columns to their right (all rows), then the rows below
    // them (their columns only).
    if (full_cols < l)
        MatrixMulKernelEdge<<<dim3(blocks(l - full_cols, BN), blocks(j, BM)), THREADS>>>(
            M, N, P, j, k, l, 0, full_cols);
    if (full_rows < j && full_cols > 0)
        MatrixMulKernelEdge<<<dim3(full_cols / BN, blocks(j - full_rows, BM)), THREADS>>>(
            M, N, P, j, k, l, full_rows, 0);
}
