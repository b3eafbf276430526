// A whole libwb program as a tiled matrix-multiplication course lab hands it in: its own main,
// wb.h's arguments, import and check, its own wbCheck. diagnose must run it as the grader does
// (the program's -i/-e/-t, never a lab file's capture options) and find nothing; the line
// marked SEEDED is the barrier whole_program.sh removes to seed a race between the next
// phase's stores (BUG2) and this phase's reads (BUG).
#include <wb.h>

#define wbCheck(stmt)                                                                      \
  do {                                                                                     \
    cudaError_t err = stmt;                                                                \
    if (err != cudaSuccess) {                                                              \
      wbLog(ERROR, "Failed to run stmt ", #stmt);                                          \
      return -1;                                                                           \
    }                                                                                      \
  } while (0)

#define TILE_WIDTH 16

__global__ void matrixMultiplyShared(float *A, float *B, float *C, int numARows,
                                     int numAColumns, int numBRows, int numBColumns,
                                     int numCRows, int numCColumns) {
  __shared__ float subTileA[TILE_WIDTH][TILE_WIDTH];
  __shared__ float subTileB[TILE_WIDTH][TILE_WIDTH];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE_WIDTH + ty;
  int col = blockIdx.x * TILE_WIDTH + tx;
  float value = 0;
  for (int m = 0; m < (numAColumns - 1) / TILE_WIDTH + 1; ++m) {
    if (row < numARows && m * TILE_WIDTH + tx < numAColumns)
      subTileA[ty][tx] = A[row * numAColumns + m * TILE_WIDTH + tx]; // BUG2: the next phase's store
    else
      subTileA[ty][tx] = 0;
    if (col < numBColumns && m * TILE_WIDTH + ty < numBRows)
      subTileB[ty][tx] = B[(m * TILE_WIDTH + ty) * numBColumns + col];
    else
      subTileB[ty][tx] = 0;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k)
      value += subTileA[ty][k] * subTileB[k][tx]; // BUG: this phase's read
    __syncthreads(); // SEEDED: the barrier whole_program.sh removes
  }
  if (row < numCRows && col < numCColumns)
    C[row * numCColumns + col] = value;
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int numARows, numAColumns, numBRows, numBColumns;
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &numARows, &numAColumns);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &numBRows, &numBColumns);
  int numCRows = numARows, numCColumns = numBColumns;
  float *hostC = (float *)malloc(numCRows * numCColumns * sizeof(float));
  wbLog(TRACE, "The dimensions of C are ", numCRows, " x ", numCColumns);

  float *deviceA, *deviceB, *deviceC;
  wbCheck(cudaMalloc((void **)&deviceA, numARows * numAColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceB, numBRows * numBColumns * sizeof(float)));
  wbCheck(cudaMalloc((void **)&deviceC, numCRows * numCColumns * sizeof(float)));
  wbCheck(cudaMemcpy(deviceA, hostA, numARows * numAColumns * sizeof(float),
                     cudaMemcpyHostToDevice));
  wbCheck(cudaMemcpy(deviceB, hostB, numBRows * numBColumns * sizeof(float),
                     cudaMemcpyHostToDevice));

  dim3 dimGrid((numCColumns - 1) / TILE_WIDTH + 1, (numCRows - 1) / TILE_WIDTH + 1, 1);
  dim3 dimBlock(TILE_WIDTH, TILE_WIDTH, 1);
  wbTime_start(Compute, "Performing CUDA computation");
  matrixMultiplyShared<<<dimGrid, dimBlock>>>(deviceA, deviceB, deviceC, numARows, numAColumns,
                                              numBRows, numBColumns, numCRows, numCColumns);
  wbCheck(cudaGetLastError());
  wbCheck(cudaDeviceSynchronize());
  wbTime_stop(Compute, "Performing CUDA computation");

  wbCheck(cudaMemcpy(hostC, deviceC, numCRows * numCColumns * sizeof(float),
                     cudaMemcpyDeviceToHost));
  cudaFree(deviceA);
  cudaFree(deviceB);
  cudaFree(deviceC);

  wbSolution(args, hostC, numCRows, numCColumns);

  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
