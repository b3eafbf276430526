// expect: pass
// A correct list reduction with libwb's names: each block of 512 threads sums 1024 elements
// (two loads per thread, then a tree in shared memory) into one partial sum; the partial sums are
// copied back and the host adds them up, as the lab asks.
#include <wb.h>

#define BLOCK_SIZE 512

#define check_cuda(call)                                                                  \
  do {                                                                                    \
    cudaError_t status_ = (call);                                                         \
    if (status_ != cudaSuccess) {                                                         \
      wbLog(ERROR, #call, " failed: ", cudaGetErrorString(status_));                      \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

__global__ void block_sums(const float *input, float *partial, int n) {
  __shared__ float s[BLOCK_SIZE];
  int t = threadIdx.x;
  int start = 2 * blockIdx.x * blockDim.x;
  float v = 0.0f;
  if (start + t < n)
    v += input[start + t];
  if (start + blockDim.x + t < n)
    v += input[start + blockDim.x + t];
  s[t] = v;
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    __syncthreads();
    if (t < stride)
      s[t] += s[t + stride];
  }
  if (t == 0)
    partial[blockIdx.x] = s[0];
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int numInputElements;

  wbTime_start(Generic, "Importing data and creating memory on host");
  float *hostInput = (float *)wbImport(wbArg_getInputFile(args, 0), &numInputElements);
  int numOutputElements = (numInputElements + 2 * BLOCK_SIZE - 1) / (2 * BLOCK_SIZE);
  float *hostOutput = (float *)malloc(numOutputElements * sizeof(float));
  assert(hostOutput != NULL);
  wbTime_stop(Generic, "Importing data and creating memory on host");
  wbLog(TRACE, "The number of input elements is ", numInputElements);
  wbLog(TRACE, "The number of partial sums is ", numOutputElements);

  float *deviceInput, *deviceOutput;
  wbTime_start(GPU, "Allocating GPU memory.");
  check_cuda(cudaMalloc((void **)&deviceInput, numInputElements * sizeof(float)));
  check_cuda(cudaMalloc((void **)&deviceOutput, numOutputElements * sizeof(float)));
  wbTime_stop(GPU, "Allocating GPU memory.");

  wbTime_start(GPU, "Copying input memory to the GPU.");
  check_cuda(cudaMemcpy(deviceInput, hostInput, numInputElements * sizeof(float),
                        cudaMemcpyHostToDevice));
  wbTime_stop(GPU, "Copying input memory to the GPU.");

  wbTime_start(Compute, "Performing CUDA computation");
  block_sums<<<numOutputElements, BLOCK_SIZE>>>(deviceInput, deviceOutput, numInputElements);
  check_cuda(cudaGetLastError());
  check_cuda(cudaDeviceSynchronize());
  wbTime_stop(Compute, "Performing CUDA computation");

  wbTime_start(Copy, "Copying output memory to the CPU");
  check_cuda(cudaMemcpy(hostOutput, deviceOutput, numOutputElements * sizeof(float),
                        cudaMemcpyDeviceToHost));
  wbTime_stop(Copy, "Copying output memory to the CPU");

  // The partial sums are few: the host adds them up.
  for (int i = 1; i < numOutputElements; ++i)
    hostOutput[0] += hostOutput[i];
  wbLog(TRACE, "The total is ", hostOutput[0]);

  check_cuda(cudaFree(deviceInput));
  check_cuda(cudaFree(deviceOutput));

  wbSolution(args, hostOutput, 1);

  free(hostInput);
  free(hostOutput);
  return 0;
}
