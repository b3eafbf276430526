// A whole libwb program that computes the product on the host, uploads it into the device
// buffer and copies it back, so the answer "comes from the device".
// Must get: every dataset wrong (only what wbImport returned, and zeros, reach the device; any
// other host bytes arrive there as the NaN pattern).
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
    cudaMemcpy(dC, hC, bytesC, cudaMemcpyHostToDevice);
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
