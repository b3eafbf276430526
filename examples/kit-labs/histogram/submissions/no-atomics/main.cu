// expect: wrong
// Counts straight into the global bins with `bins[v]++`, no atomic: threads of a warp that meet
// the same bin all read the old count and all write it plus one, so counts are lost wherever
// that happens: on every dataset but the two smallest (16 values and 1 value pass).
#include <gputk.h>

#define NUM_BINS 4096
#define BIN_CAP 127u
#define THREADS 512
#define MAX_BLOCKS 32

__global__ void count_bins(const unsigned int *input, unsigned int *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned int v = input[i];
    if (v < NUM_BINS)
      bins[v]++;
  }
}

__global__ void cap_bins(unsigned int *bins) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < NUM_BINS && bins[b] > BIN_CAP)
    bins[b] = BIN_CAP;
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
  cap_bins<<<(NUM_BINS + THREADS - 1) / THREADS, THREADS>>>(deviceBins);
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
