// expect: wrong
// An attack on the upload rule: the host computes the product itself, copies it to the device,
// launches a kernel that leaves C alone, and copies C back as the answer. Host-made bytes reach
// the device only as the NaN pattern, so the answer is never credited.
#include <wb.h>

__global__ void idle(float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 0 && n < 0) // never true: C keeps what was uploaded
    C[i] = 0;
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int rowsA, colsA, rowsB, colsB;
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &rowsA, &colsA);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &rowsB, &colsB);
  int n = rowsA * colsB;
  float *hostC = (float *)malloc(sizeof(float) * n);
  for (int r = 0; r < rowsA; ++r)
    for (int c = 0; c < colsB; ++c) {
      float sum = 0;
      for (int k = 0; k < colsA; ++k)
        sum += hostA[r * colsA + k] * hostB[k * colsB + c];
      hostC[r * colsB + c] = sum;
    }
  float *deviceC;
  cudaMalloc((void **)&deviceC, sizeof(float) * n);
  cudaMemcpy(deviceC, hostC, sizeof(float) * n, cudaMemcpyHostToDevice);
  idle<<<(n + 255) / 256, 256>>>(deviceC, n);
  cudaDeviceSynchronize();
  cudaMemcpy(hostC, deviceC, sizeof(float) * n, cudaMemcpyDeviceToHost);
  wbSolution(args, hostC, rowsA, colsB);
  cudaFree(deviceC);
  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
