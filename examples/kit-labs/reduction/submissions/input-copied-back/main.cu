// expect: wrong
// Launches no kernel at all: it copies the input to the device and straight back into the
// buffer it hands to wbSolution, then adds it up on the host. Run by hand it passes. The grader
// sums what the device copied back, never the host's total, and a copy of the input adds up to
// the answer too; but the answer must be the device's work, and what came from an input is not:
// wrong on every dataset, on every backend.
#include <wb.h>

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int numInputElements;
  float *hostInput = (float *)wbImport(wbArg_getInputFile(args, 0), &numInputElements);
  float *hostOutput = (float *)malloc(numInputElements * sizeof(float));
  float *deviceInput;
  cudaMalloc((void **)&deviceInput, numInputElements * sizeof(float));
  cudaMemcpy(deviceInput, hostInput, numInputElements * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(hostOutput, deviceInput, numInputElements * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(deviceInput);
  double total = 0;
  for (int i = 0; i < numInputElements; ++i)
    total += hostOutput[i];
  hostOutput[0] = (float)total;
  wbSolution(args, hostOutput, 1);
  free(hostOutput);
  free(hostInput);
  return 0;
}
