// expect: wrong
// The dot product is accumulated in an int: every partial sum is truncated towards zero, so
// nearly every element of C is wrong, on every dataset.
#include <wb.h>

#define BLOCK_WIDTH 16

// libwb's templates define their own check of a CUDA call; so does this program.
#define check_cuda(call)                                                                  \
  do {                                                                                    \
    cudaError_t status_ = (call);                                                         \
    if (status_ != cudaSuccess) {                                                         \
      wbLog(ERROR, #call, " failed: ", cudaGetErrorString(status_));                      \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

// C (rows x cols) = A (rows x inner) * B (inner x cols), all row-major.
__global__ void matmul(const float *A, const float *B, float *C, int rows, int inner, int cols) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) {
    int acc = 0;
    for (int k = 0; k < inner; ++k)
      acc += A[row * inner + k] * B[k * cols + col];
    C[row * cols + col] = acc;
  }
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int numARows, numAColumns, numBRows, numBColumns;

  wbTime_start(Generic, "Importing data and creating memory on host");
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &numARows, &numAColumns);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &numBRows, &numBColumns);
  wbTime_stop(Generic, "Importing data and creating memory on host");
  if (numAColumns != numBRows) {
    wbLog(ERROR, "A has ", numAColumns, " columns but B has ", numBRows, " rows");
    return 1;
  }
  int numCRows = numARows, numCColumns = numBColumns;
  float *hostC = (float *)malloc((size_t)numCRows * numCColumns * sizeof(float));
  assert(hostC != NULL);
  wbLog(TRACE, "A is ", numARows, " x ", numAColumns, ", B is ", numBRows, " x ", numBColumns);

  size_t bytesA = (size_t)numARows * numAColumns * sizeof(float);
  size_t bytesB = (size_t)numBRows * numBColumns * sizeof(float);
  size_t bytesC = (size_t)numCRows * numCColumns * sizeof(float);
  float *deviceA, *deviceB, *deviceC;
  wbTime_start(GPU, "Allocating GPU memory.");
  check_cuda(cudaMalloc((void **)&deviceA, bytesA));
  check_cuda(cudaMalloc((void **)&deviceB, bytesB));
  check_cuda(cudaMalloc((void **)&deviceC, bytesC));
  wbTime_stop(GPU, "Allocating GPU memory.");

  wbTime_start(GPU, "Copying input memory to the GPU.");
  check_cuda(cudaMemcpy(deviceA, hostA, bytesA, cudaMemcpyHostToDevice));
  check_cuda(cudaMemcpy(deviceB, hostB, bytesB, cudaMemcpyHostToDevice));
  wbTime_stop(GPU, "Copying input memory to the GPU.");

  dim3 block(BLOCK_WIDTH, BLOCK_WIDTH);
  dim3 grid((numCColumns + BLOCK_WIDTH - 1) / BLOCK_WIDTH,
            (numCRows + BLOCK_WIDTH - 1) / BLOCK_WIDTH);
  wbTime_start(Compute, "Performing CUDA computation");
  matmul<<<grid, block>>>(deviceA, deviceB, deviceC, numCRows, numAColumns, numCColumns);
  check_cuda(cudaGetLastError());
  check_cuda(cudaDeviceSynchronize());
  wbTime_stop(Compute, "Performing CUDA computation");

  wbTime_start(Copy, "Copying output memory to the CPU");
  check_cuda(cudaMemcpy(hostC, deviceC, bytesC, cudaMemcpyDeviceToHost));
  wbTime_stop(Copy, "Copying output memory to the CPU");

  wbTime_start(GPU, "Freeing GPU Memory");
  check_cuda(cudaFree(deviceA));
  check_cuda(cudaFree(deviceB));
  check_cuda(cudaFree(deviceC));
  wbTime_stop(GPU, "Freeing GPU Memory");

  wbSolution(args, hostC, numCRows, numCColumns);

  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
