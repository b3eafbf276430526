// expect: unsafe
// The __syncthreads() after the inner product is missing: a warp that finishes a phase early
// overwrites tiles that slower warps are still reading. A race on every dataset with more than
// one phase (1 to 8); dataset 0 (16x16x16) has a single phase and passes.
#include <gputk.h>

#define TILE_WIDTH 16

__global__ void tiled_matmul(const float *A, const float *B, float *C, int numARows,
                             int numAColumns, int numBColumns) {
  __shared__ float tileA[TILE_WIDTH][TILE_WIDTH];
  __shared__ float tileB[TILE_WIDTH][TILE_WIDTH];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE_WIDTH + ty;
  int col = blockIdx.x * TILE_WIDTH + tx;
  float acc = 0.0f;
  int phases = (numAColumns + TILE_WIDTH - 1) / TILE_WIDTH;
  for (int p = 0; p < phases; ++p) {
    int aCol = p * TILE_WIDTH + tx;
    int bRow = p * TILE_WIDTH + ty;
    tileA[ty][tx] = (row < numARows && aCol < numAColumns) ? A[row * numAColumns + aCol] : 0.0f;
    tileB[ty][tx] = (bRow < numAColumns && col < numBColumns) ? B[bRow * numBColumns + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k)
      acc += tileA[ty][k] * tileB[k][tx];
  }
  if (row < numARows && col < numBColumns)
    C[row * numBColumns + col] = acc;
}

int main(int argc, char **argv) {
  gpuTKArg_t args = gpuTKArg_read(argc, argv);
  int numARows, numAColumns, numBRows, numBColumns;

  gpuTKTime_start(Generic, "Importing data and creating memory on host");
  float *hostA = (float *)gpuTKImport(gpuTKArg_getInputFile(args, 0), &numARows, &numAColumns);
  float *hostB = (float *)gpuTKImport(gpuTKArg_getInputFile(args, 1), &numBRows, &numBColumns);
  gpuTKTime_stop(Generic, "Importing data and creating memory on host");
  if (numAColumns != numBRows) {
    gpuTKLog(ERROR, "A has ", numAColumns, " columns but B has ", numBRows, " rows");
    return 1;
  }
  int numCRows = numARows, numCColumns = numBColumns;
  float *hostC = (float *)malloc((size_t)numCRows * numCColumns * sizeof(float));
  assert(hostC != NULL);
  gpuTKLog(TRACE, "C is ", numCRows, " x ", numCColumns);

  size_t bytesA = (size_t)numARows * numAColumns * sizeof(float);
  size_t bytesB = (size_t)numBRows * numBColumns * sizeof(float);
  size_t bytesC = (size_t)numCRows * numCColumns * sizeof(float);
  float *deviceA, *deviceB, *deviceC;
  gpuTKTime_start(GPU, "Allocating GPU memory.");
  gpuTKCheck(cudaMalloc((void **)&deviceA, bytesA));
  gpuTKCheck(cudaMalloc((void **)&deviceB, bytesB));
  gpuTKCheck(cudaMalloc((void **)&deviceC, bytesC));
  gpuTKTime_stop(GPU, "Allocating GPU memory.");

  gpuTKTime_start(GPU, "Copying input memory to the GPU.");
  gpuTKCheck(cudaMemcpy(deviceA, hostA, bytesA, cudaMemcpyHostToDevice));
  gpuTKCheck(cudaMemcpy(deviceB, hostB, bytesB, cudaMemcpyHostToDevice));
  gpuTKTime_stop(GPU, "Copying input memory to the GPU.");

  dim3 block(TILE_WIDTH, TILE_WIDTH);
  dim3 grid((numCColumns + TILE_WIDTH - 1) / TILE_WIDTH, (numCRows + TILE_WIDTH - 1) / TILE_WIDTH);
  gpuTKTime_start(Compute, "Performing CUDA computation");
  tiled_matmul<<<grid, block>>>(deviceA, deviceB, deviceC, numARows, numAColumns, numBColumns);
  gpuTKCheck(cudaGetLastError());
  gpuTKCheck(cudaDeviceSynchronize());
  gpuTKTime_stop(Compute, "Performing CUDA computation");

  gpuTKTime_start(Copy, "Copying output memory to the CPU");
  gpuTKCheck(cudaMemcpy(hostC, deviceC, bytesC, cudaMemcpyDeviceToHost));
  gpuTKTime_stop(Copy, "Copying output memory to the CPU");

  gpuTKTime_start(GPU, "Freeing GPU Memory");
  gpuTKCheck(cudaFree(deviceA));
  gpuTKCheck(cudaFree(deviceB));
  gpuTKCheck(cudaFree(deviceC));
  gpuTKTime_stop(GPU, "Freeing GPU Memory");

  gpuTKSolution(args, hostC, numCRows, numCColumns);

  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
