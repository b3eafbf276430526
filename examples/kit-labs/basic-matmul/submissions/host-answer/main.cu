// expect: wrong
// Computes C on the host with three loops and hands that to wbSolution; the kernel it launches
// is never copied back from the device. Run by hand it passes; the grader checks only what the
// device computed, and no device result ever reaches hostC: wrong on every dataset.
#include <wb.h>

#define TILE 16

__global__ void product(const float *A, const float *B, float *C, int m, int k, int n) {
  int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
  if (r < m && c < n) {
    float s = 0;
    for (int i = 0; i < k; i++)
      s += A[r * k + i] * B[i * n + c];
    C[r * n + c] = s;
  }
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int m, k, kB, n;
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &m, &k);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &kB, &n);
  float *hostC = (float *)malloc((size_t)m * n * sizeof(float));
  if (k != kB || hostC == NULL)
    return 1;

  float *dA, *dB, *dC;
  cudaMalloc((void **)&dA, (size_t)m * k * sizeof(float));
  cudaMalloc((void **)&dB, (size_t)k * n * sizeof(float));
  cudaMalloc((void **)&dC, (size_t)m * n * sizeof(float));
  cudaMemcpy(dA, hostA, (size_t)m * k * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, hostB, (size_t)k * n * sizeof(float), cudaMemcpyHostToDevice);
  wbTime_start(Compute, "Performing CUDA computation");
  product<<<dim3((n + TILE - 1) / TILE, (m + TILE - 1) / TILE), dim3(TILE, TILE)>>>(dA, dB, dC, m,
                                                                                    k, n);
  cudaDeviceSynchronize();
  wbTime_stop(Compute, "Performing CUDA computation");

  // The device's C stays on the device: the answer comes from the host instead.
  for (int r = 0; r < m; r++)
    for (int c = 0; c < n; c++) {
      float s = 0;
      for (int i = 0; i < k; i++)
        s += hostA[r * k + i] * hostB[i * n + c];
      hostC[r * n + c] = s;
    }
  wbSolution(args, hostC, m, n);

  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
