// expect: wrong
// Counts correctly but never caps the bins at 127 (the second kernel is missing): right where no
// bin passes 127, wrong on the datasets where some do (5: 500000 values, 7: 2000 in 8 bins).
#include <gputk.h>

#define NUM_BINS 4096
#define THREADS 512
#define MAX_BLOCKS 32

__global__ void count_bins(const unsigned int *input, unsigned int *bins, int n) {
  __shared__ unsigned int local[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned int v = input[i];
    if (v < NUM_BINS)
      atomicAdd(&local[v], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    if (local[b] != 0)
      atomicAdd(&bins[b], local[b]);
}

int main(int argc, char **argv) {
  gpuTKArg_t args = gpuTKArg_read(argc, argv);
  int inputLength;

  gpuTKTime_start(Generic, "Importing data and creating memory on host");
  unsigned int *hostInput =
      (unsigned int *)gpuTKImport(gpuTKArg_getInputFile(args, 0), &inputLength, "Integer");
  unsigned int *hostBins = (unsigned int *)malloc(NUM_BINS * sizeof(unsigned int));
  assert(hostBins != NULL);
  gpuTKTime_stop(Generic, "Importing data and creating memory on host");
  gpuTKLog(TRACE, "The input length is ", inputLength);
  gpuTKLog(TRACE, "The number of bins is ", NUM_BINS);

  unsigned int *deviceInput, *deviceBins;
  gpuTKTime_start(GPU, "Allocating GPU memory.");
  gpuTKCheck(cudaMalloc((void **)&deviceInput, inputLength * sizeof(unsigned int)));
  gpuTKCheck(cudaMalloc((void **)&deviceBins, NUM_BINS * sizeof(unsigned int)));
  gpuTKTime_stop(GPU, "Allocating GPU memory.");

  gpuTKTime_start(GPU, "Copying input memory to the GPU.");
  gpuTKCheck(cudaMemcpy(deviceInput, hostInput, inputLength * sizeof(unsigned int),
                        cudaMemcpyHostToDevice));
  gpuTKCheck(cudaMemset(deviceBins, 0, NUM_BINS * sizeof(unsigned int)));
  gpuTKTime_stop(GPU, "Copying input memory to the GPU.");

  gpuTKTime_start(Compute, "Performing CUDA computation");
  int blocks = (inputLength + THREADS - 1) / THREADS;
  if (blocks > MAX_BLOCKS)
    blocks = MAX_BLOCKS;
  count_bins<<<blocks, THREADS>>>(deviceInput, deviceBins, inputLength);
  gpuTKCheck(cudaGetLastError());
  gpuTKCheck(cudaDeviceSynchronize());
  gpuTKTime_stop(Compute, "Performing CUDA computation");

  gpuTKTime_start(Copy, "Copying output memory to the CPU");
  gpuTKCheck(cudaMemcpy(hostBins, deviceBins, NUM_BINS * sizeof(unsigned int),
                        cudaMemcpyDeviceToHost));
  gpuTKTime_stop(Copy, "Copying output memory to the CPU");

  gpuTKCheck(cudaFree(deviceInput));
  gpuTKCheck(cudaFree(deviceBins));

  gpuTKSolution(args, hostBins, NUM_BINS);

  free(hostInput);
  free(hostBins);
  return 0;
}
