// expect: pass
// A correct tiled product that launches a thousand times the blocks it needs (ten times in x,
// a hundred in y): the surplus blocks load zeros past the edges, go through every phase like
// the others, and write nothing. It must pass on every backend. With -DENDLESS one thread of
// the first block never leaves its loop: a timeout, whose message blames that loop.
#include <wb.h>

#define wbCheck(stmt)                                                                              \
  do {                                                                                             \
    cudaError_t err_ = stmt;                                                                       \
    if (err_ != cudaSuccess) {                                                                     \
      wbLog(ERROR, "Failed to run stmt ", #stmt);                                                  \
      return -1;                                                                                   \
    }                                                                                              \
  } while (0)

#define TILE 32
#define SURPLUS 1000

__global__ void tiled(const float *A, const float *B, float *C, int rows, int inner, int cols) {
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
#ifdef ENDLESS
  if (r == 0 && c == 0)
    for (int t = 0; acc == acc; t++) // NaN never comes: it never ends
      ((volatile float *)a[0])[t % TILE] = acc = acc * 0.5f + 1;
#endif
  if (r < rows && c < cols)
    C[r * cols + c] = acc;
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int rowsA, colsA, rowsB, colsB;
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &rowsA, &colsA);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &rowsB, &colsB);
  size_t bytesC = sizeof(float) * rowsA * colsB;
  float *hostC = (float *)malloc(bytesC);
  float *deviceA, *deviceB, *deviceC;
  wbCheck(cudaMalloc((void **)&deviceA, sizeof(float) * rowsA * colsA));
  wbCheck(cudaMalloc((void **)&deviceB, sizeof(float) * rowsB * colsB));
  wbCheck(cudaMalloc((void **)&deviceC, bytesC));
  wbCheck(cudaMemcpy(deviceA, hostA, sizeof(float) * rowsA * colsA, cudaMemcpyHostToDevice));
  wbCheck(cudaMemcpy(deviceB, hostB, sizeof(float) * rowsB * colsB, cudaMemcpyHostToDevice));
  // A thousand times the blocks C needs.
  dim3 block(TILE, TILE);
  dim3 grid((colsB + TILE - 1) / TILE * 10, (rowsA + TILE - 1) / TILE * SURPLUS / 10);
  tiled<<<grid, block>>>(deviceA, deviceB, deviceC, rowsA, colsA, colsB);
  wbCheck(cudaGetLastError());
  wbCheck(cudaDeviceSynchronize());
  wbCheck(cudaMemcpy(hostC, deviceC, bytesC, cudaMemcpyDeviceToHost));
  wbSolution(args, hostC, rowsA, colsB);
  cudaFree(deviceA);
  cudaFree(deviceB);
  cudaFree(deviceC);
  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
