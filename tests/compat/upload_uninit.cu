// expect: pass
// A habit of course programs: hostC is malloc'd, never written, and copied to the device before
// the launch. The kernel overwrites every element, so the upload does not matter: it passes,
// whatever malloc returned. Built with -DACCUMULATE the kernel adds to what is there instead,
// relying on values the host never made: wrong, on every dataset. With -DROUND_TRIP hostC is
// first copied back from the device: device data through the host is not graded (refused).
#include <wb.h>

#define BLOCK 16

__global__ void product(const float *A, const float *B, float *C, int rows, int inner, int cols) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || c >= cols)
    return;
#ifdef ACCUMULATE
  for (int k = 0; k < inner; ++k)
    C[r * cols + c] += A[r * inner + k] * B[k * cols + c];
#else
  float sum = 0;
  for (int k = 0; k < inner; ++k)
    sum += A[r * inner + k] * B[k * cols + c];
  C[r * cols + c] = sum;
#endif
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int rowsA, colsA, rowsB, colsB;
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &rowsA, &colsA);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &rowsB, &colsB);
  size_t bytesC = sizeof(float) * rowsA * colsB;
  float *hostC = (float *)malloc(bytesC);
  float *deviceA, *deviceB, *deviceC;
  cudaMalloc((void **)&deviceA, sizeof(float) * rowsA * colsA);
  cudaMalloc((void **)&deviceB, sizeof(float) * rowsB * colsB);
  cudaMalloc((void **)&deviceC, bytesC);
  cudaMemcpy(deviceA, hostA, sizeof(float) * rowsA * colsA, cudaMemcpyHostToDevice);
  cudaMemcpy(deviceB, hostB, sizeof(float) * rowsB * colsB, cudaMemcpyHostToDevice);
#ifdef ROUND_TRIP
  cudaMemcpy(hostC, deviceC, bytesC, cudaMemcpyDeviceToHost);
#endif
  cudaMemcpy(deviceC, hostC, bytesC, cudaMemcpyHostToDevice);
  dim3 block(BLOCK, BLOCK);
  dim3 grid((colsB + BLOCK - 1) / BLOCK, (rowsA + BLOCK - 1) / BLOCK);
  product<<<grid, block>>>(deviceA, deviceB, deviceC, rowsA, colsA, colsB);
  cudaDeviceSynchronize();
  cudaMemcpy(hostC, deviceC, bytesC, cudaMemcpyDeviceToHost);
  wbSolution(args, hostC, rowsA, colsB);
  cudaFree(deviceA);
  cudaFree(deviceB);
  cudaFree(deviceC);
  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
