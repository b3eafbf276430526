// A whole libwb program that hands wbSolution the expected output it imported with
// wbImport(wbArg_getExpectedOutputFile(args), ...) instead of its kernel's product.
// Must get: every dataset refused (a graded program never sees the expected output).
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
    cudaMemcpy(dA, hA, bytesA, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, bytesB, cudaMemcpyHostToDevice);
    tiled<<<grid, block>>>(dA, dB, dC, ar, ac, bc);
    cudaMemcpy(hC, dC, bytesC, cudaMemcpyDeviceToHost);
    int er, ec;
    float *expected = (float *)wbImport(wbArg_getExpectedOutputFile(args), &er, &ec);
    wbSolution(args, expected, er, ec);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    free(hA);
    free(hB);
    free(hC);
    return 0;
}
