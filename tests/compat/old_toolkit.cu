// expect: pass
// A matrix product written for an older CUDA toolkit, the way course templates of the CUDA 4 to
// 12 years wrote the host side: cudaThreadSetLimit, cudaThreadSetCacheConfig, a bare
// cudaThreadSynchronize() and a checked one after the launch, cudaThreadExit() at the end.
// CUDA 13 removed these calls; the kit's headers supply them, so the program builds and passes.
#include <wb.h>

#define wbCheck(stmt)                                                                              \
  do {                                                                                             \
    cudaError_t err_ = stmt;                                                                       \
    if (err_ != cudaSuccess) {                                                                     \
      wbLog(ERROR, "Failed to run stmt ", #stmt, ": ", cudaGetErrorString(err_));                  \
      return -1;                                                                                   \
    }                                                                                              \
  } while (0)

#define BLOCK 16

__global__ void product(const float *A, const float *B, float *C, int rows, int inner, int cols) {
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) {
    float sum = 0;
    for (int k = 0; k < inner; ++k)
      sum += A[r * inner + k] * B[k * cols + c];
    C[r * cols + c] = sum;
  }
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int rowsA, colsA, rowsB, colsB;
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &rowsA, &colsA);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &rowsB, &colsB);
  size_t bytesA = sizeof(float) * rowsA * colsA, bytesB = sizeof(float) * rowsB * colsB;
  size_t bytesC = sizeof(float) * rowsA * colsB;
  float *hostC = (float *)malloc(bytesC);

  size_t fifo = 0;
  wbCheck(cudaThreadSetLimit(cudaLimitPrintfFifoSize, 1 << 20));
  wbCheck(cudaThreadGetLimit(&fifo, cudaLimitPrintfFifoSize));
  wbLog(TRACE, "printf buffer: ", fifo, " bytes");
  wbCheck(cudaThreadSetCacheConfig(cudaFuncCachePreferShared));
  enum cudaFuncCache cache;
  wbCheck(cudaThreadGetCacheConfig(&cache));

  float *deviceA, *deviceB, *deviceC;
  wbCheck(cudaMalloc((void **)&deviceA, bytesA));
  wbCheck(cudaMalloc((void **)&deviceB, bytesB));
  wbCheck(cudaMalloc((void **)&deviceC, bytesC));
  wbCheck(cudaMemcpy(deviceA, hostA, bytesA, cudaMemcpyHostToDevice));
  wbCheck(cudaMemcpy(deviceB, hostB, bytesB, cudaMemcpyHostToDevice));

  dim3 block(BLOCK, BLOCK);
  dim3 grid((colsB + BLOCK - 1) / BLOCK, (rowsA + BLOCK - 1) / BLOCK);
  wbTime_start(Compute, "Performing CUDA computation");
  product<<<grid, block>>>(deviceA, deviceB, deviceC, rowsA, colsA, colsB);
  cudaThreadSynchronize();
  wbCheck(cudaThreadSynchronize());
  wbTime_stop(Compute, "Performing CUDA computation");

  wbCheck(cudaMemcpy(hostC, deviceC, bytesC, cudaMemcpyDeviceToHost));
  wbCheck(cudaFree(deviceA));
  wbCheck(cudaFree(deviceB));
  wbCheck(cudaFree(deviceC));
  wbSolution(args, hostC, rowsA, colsB);
  cudaThreadExit();
  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
