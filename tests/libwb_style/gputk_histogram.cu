// A histogram in the GPU Teaching Kit's style, written for libgputk: integer input, unsigned
// int bins, checked with -t integral_vector (exactly, as integers). Built with BIN_OFF_BY_ONE,
// one bin is one too many: the check must fail on that bin.
#include <gputk.h>

#define NUM_BINS 8

__global__ void histogram(const unsigned int *input, unsigned int *bins, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len && input[i] < NUM_BINS)
    atomicAdd(&bins[input[i]], 1u);
}

int main(int argc, char **argv) {
  gpuTKArg_t args = gpuTKArg_read(argc, argv);
  int inputLength;

  unsigned int *hostInput =
      (unsigned int *)gpuTKImport(gpuTKArg_getInputFile(args, 0), &inputLength, "Integer");
  unsigned int hostBins[NUM_BINS];
  gpuTKLog(TRACE, "The number of input elements is ", inputLength);

  unsigned int *deviceInput, *deviceBins;
  gpuTKCheck(cudaMalloc((void **)&deviceInput, inputLength * sizeof(unsigned int)));
  gpuTKCheck(cudaMalloc((void **)&deviceBins, NUM_BINS * sizeof(unsigned int)));
  gpuTKCheck(cudaMemcpy(deviceInput, hostInput, inputLength * sizeof(unsigned int),
                        cudaMemcpyHostToDevice));
  gpuTKCheck(cudaMemset(deviceBins, 0, NUM_BINS * sizeof(unsigned int)));

  gpuTKTime_start(Compute, "Performing CUDA computation");
  histogram<<<(inputLength + 127) / 128, 128>>>(deviceInput, deviceBins, inputLength);
  gpuTKCheck(cudaDeviceSynchronize());
  gpuTKTime_stop(Compute, "Performing CUDA computation");

  gpuTKCheck(cudaMemcpy(hostBins, deviceBins, sizeof hostBins, cudaMemcpyDeviceToHost));
#ifdef BIN_OFF_BY_ONE
  hostBins[NUM_BINS / 2] += 1;
#endif
  gpuTKSolution(args, hostBins, NUM_BINS);

  cudaFree(deviceInput);
  cudaFree(deviceBins);
  free(hostInput);
  return 0;
}
