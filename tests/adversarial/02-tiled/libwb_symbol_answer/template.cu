// A whole libwb program that computes the product on the host and passes it through a
// __device__ array with cudaMemcpyToSymbol, which a kernel copies into C.
// Must get: every dataset wrong (a variable is filled only from what wbImport returned; other
// host bytes arrive as the NaN pattern).
#include <wb.h>

#define TILE 16

__global__ void tiled(const float *A, const float *B, float *C, int rows, int inner, int cols)
{
    __shared__ float a[TILE][TILE], b[TILE][TILE];
    int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int p = 0; p < (inner + TILE - 1) / TILE; p++) {
        int ac = p * TILE + threadIdx.x, br = p * TILE + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = r < rows && ac < inner ? A[r * inner + ac] : 0;
        b[threadIdx.y][threadIdx.x] = br < inner && c < cols ? B[br * cols + c] : 0;
        __syncthreads();
        for (int e = 0; e < TILE; e++)
            acc += a[threadIdx.y][e] * b[e][threadIdx.x];
        __syncthreads();
    }
    if (r < rows && c < cols)
        C[r * cols + c] = acc;
}

#define MAX_ANSWER (128 * 128)
__device__ float answer[MAX_ANSWER];

__global__ void copy_answer(float *C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        C[i] = answer[i];
}

int main(int argc, char **argv)
{
    wbArg_t args = wbArg_read(argc, argv);
    int ar, ac, br, bc;
    float *hA = (float *)wbImport(wbArg_getInputFile(args, 0), &ar, &ac);
    float *hB = (float *)wbImport(wbArg_getInputFile(args, 1), &br, &bc);
    size_t bytesA = sizeof(float) * ar * ac, bytesB = sizeof(float) * br * bc;
    size_t bytesC = sizeof(float) * ar * bc;
    float *hC = (float *)malloc(bytesC);
    float *dA, *dB, *dC;
    cudaMalloc(&dA, bytesA);
    cudaMalloc(&dB, bytesB);
    cudaMalloc(&dC, bytesC);
    dim3 block(TILE, TILE), grid((bc + TILE - 1) / TILE, (ar + TILE - 1) / TILE);
    for (int i = 0; i < ar; i++)
        for (int j = 0; j < bc; j++) {
            float s = 0;
            for (int e = 0; e < ac; e++)
                s += hA[i * ac + e] * hB[e * bc + j];
            hC[i * bc + j] = s;
        }
    int n = ar * bc < MAX_ANSWER ? ar * bc : MAX_ANSWER;
    cudaMemcpyToSymbol(answer, hC, sizeof(float) * n);
    copy_answer<<<(n + 255) / 256, 256>>>(dC, n);
    cudaMemcpy(hC, dC, bytesC, cudaMemcpyDeviceToHost);
    wbSolution(args, hC, ar, bc);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(hA);
    free(hB);
    free(hC);
    return 0;
}
