// The GPU Teaching Kit's vector addition as written for libgputk (gputk.h and its gpuTK names),
// built unchanged; -t vector makes gpuTKSolution compare as libgputk does.
#include <gputk.h>

__global__ void vecAdd(const float *in1, const float *in2, float *out, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < len)
    out[i] = in1[i] + in2[i];
}

int main(int argc, char **argv) {
  gpuTKArg_t args = gpuTKArg_read(argc, argv);
  int inputLength;

  gpuTKTime_start(Generic, "Importing data and creating memory on host");
  float *hostInput1 = (float *)gpuTKImport(gpuTKArg_getInputFile(args, 0), &inputLength);
  float *hostInput2 = (float *)gpuTKImport(gpuTKArg_getInputFile(args, 1), &inputLength);
  float *hostOutput = (float *)malloc(inputLength * sizeof(float));
  assert(hostOutput != NULL); // <assert.h> comes with gputk.h, as with libgputk's header
  gpuTKTime_stop(Generic, "Importing data and creating memory on host");
  gpuTKLog(TRACE, "The input length is ", inputLength);

  float *deviceInput1, *deviceInput2, *deviceOutput;
  size_t bytes = inputLength * sizeof(float);
  gpuTKTime_start(GPU, "Allocating GPU memory.");
  gpuTKCheck(cudaMalloc((void **)&deviceInput1, bytes));
  gpuTKCheck(cudaMalloc((void **)&deviceInput2, bytes));
  gpuTKCheck(cudaMalloc((void **)&deviceOutput, bytes));
  gpuTKTime_stop(GPU, "Allocating GPU memory.");

  gpuTKCheck(cudaMemcpy(deviceInput1, hostInput1, bytes, cudaMemcpyHostToDevice));
  gpuTKCheck(cudaMemcpy(deviceInput2, hostInput2, bytes, cudaMemcpyHostToDevice));

  gpuTKTime_start(Compute, "Performing CUDA computation");
  vecAdd<<<(inputLength + 255) / 256, 256>>>(deviceInput1, deviceInput2, deviceOutput,
                                             inputLength);
  gpuTKCheck(cudaDeviceSynchronize());
  gpuTKTime_stop(Compute, "Performing CUDA computation");

  gpuTKCheck(cudaMemcpy(hostOutput, deviceOutput, bytes, cudaMemcpyDeviceToHost));
  gpuTKSolution(args, hostOutput, inputLength);

  cudaFree(deviceInput1);
  cudaFree(deviceInput2);
  cudaFree(deviceOutput);
  free(hostInput1);
  free(hostInput2);
  free(hostOutput);
  return 0;
}
