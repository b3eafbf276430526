// A course's own program, built against the installed CPU backend: a tiled matrix product whose
// sizes are not multiples of the tile, checked against the host's product.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "tile.h"

#define M 24
#define K 40
#define N 20

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e_ = (call);                                                      \
        if (e_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

__global__ void tiled(const float *a, const float *b, float *c)
{
    __shared__ float as[TILE][TILE], bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0;
    for (int p = 0; p < (K + TILE - 1) / TILE; p++) {
        int ka = p * TILE + threadIdx.x, kb = p * TILE + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = row < M && ka < K ? a[row * K + ka] : 0;
        bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? b[kb * N + col] : 0;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        c[row * N + col] = sum;
}

int main()
{
    static float a[M * K], b[K * N], c[M * N];
    for (int i = 0; i < M * K; i++)
        a[i] = (float)(i % 7 - 2);
    for (int i = 0; i < K * N; i++)
        b[i] = (float)(i % 5 - 1);
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, sizeof a));
    CHECK(cudaMalloc(&db, sizeof b));
    CHECK(cudaMalloc(&dc, sizeof c));
    CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE), block(TILE, TILE);
    tiled<<<grid, block>>>(da, db, dc);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
    int wrong = 0;
    double checksum = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = 0;
            for (int k = 0; k < K; k++)
                want += a[i * K + k] * b[k * N + j];
            wrong += c[i * N + j] != want;
            checksum += c[i * N + j] * (i + 1);
        }
    printf("tiled %dx%dx%d, tile %d: %d wrong, checksum %.0f\n", M, K, N, TILE, wrong, checksum);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    return wrong != 0;
}
