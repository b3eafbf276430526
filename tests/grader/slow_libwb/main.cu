// A correct whole libwb program with too little parallelism, as a course's exercise has it: one
// thread per row of C, or with PER_COLUMN defined per column (whose loads coalesce, so the
// interpreter runs more of a block before the bound is proven). At 2048^3 eight blocks of 256
// threads each compute 2048 x 2048 multiply-adds: the grader must give their speed no points,
// and quickly (grader_cases.sh, slow_libwb).
#include <wb.h>

#define wbCheck(stmt)                                                   \
  do {                                                                  \
    cudaError_t err = stmt;                                             \
    if (err != cudaSuccess) {                                           \
      wbLog(ERROR, "Failed to run stmt ", #stmt);                       \
      return -1;                                                        \
    }                                                                   \
  } while (0)

#define THREADS 256

// C (rows x cols) = A (rows x inner) * B (inner x cols); each thread one row or column of C.
__global__ void matrixMultiplyLines(float *A, float *B, float *C, int rows, int inner, int cols) {
  int line = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef PER_COLUMN
  int col = line;
  if (col < cols)
    for (int row = 0; row < rows; ++row) {
#else
  int row = line;
  if (row < rows)
    for (int col = 0; col < cols; ++col) {
#endif
      float sum = 0;
      for (int k = 0; k < inner; ++k)
        sum += A[row * inner + k] * B[k * cols + col];
      C[row * cols + col] = sum;
    }
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int numARows, numAColumns, numBRows, numBColumns;
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &numARows, &numAColumns);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &numBRows, &numBColumns);
  float *hostC = (float *)malloc(numARows * numBColumns * sizeof(float));
  float *deviceA, *deviceB, *deviceC;
  wbCheck(cudaMalloc((void **)&deviceA, numARows * numAColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceB, numBRows * numBColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceC, numARows * numBColumns * sizeof(float)));
  wbCheck(cudaMemcpy(deviceA, hostA, numARows * numAColumns * sizeof(float), cudaMemcpyHostToDevice));
  wbCheck(cudaMemcpy(deviceB, hostB, numBRows * numBColumns * sizeof(float), cudaMemcpyHostToDevice));
#ifdef PER_COLUMN
  int lines = numBColumns;
#else
  int lines = numARows;
#endif
  matrixMultiplyLines<<<(lines + THREADS - 1) / THREADS, THREADS>>>(
      deviceA, deviceB, deviceC, numARows, numAColumns, numBColumns);
  wbCheck(cudaGetLastError());
  wbCheck(cudaDeviceSynchronize());
  wbCheck(cudaMemcpy(hostC, deviceC, numARows * numBColumns * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(deviceA);
  cudaFree(deviceB);
  cudaFree(deviceC);
  wbSolution(args, hostC, numARows, numBColumns);
  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
