// The same libwb-style program with the product computed on the host, so the libwb API
// (arguments, import, export, timers, logging, the check) is exercised on machines with no GPU.
#include <wb.h>

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int numARows, numAColumns, numBRows, numBColumns;

  wbTime_start(Generic, "Importing data and creating memory on host");
  float *hostA = (float *)wbImport(wbArg_getInputFile(args, 0), &numARows, &numAColumns);
  float *hostB = (float *)wbImport(wbArg_getInputFile(args, 1), &numBRows, &numBColumns, "Real");
  float *hostC = (float *)malloc(numARows * numBColumns * sizeof(float));
  wbTime_stop(Generic, "Importing data and creating memory on host");
  wbLog(TRACE, "The dimensions of A are ", numARows, " x ", numAColumns);

  wbTime_start(Compute, "Performing the computation on the host");
  for (int i = 0; i < numARows; ++i)
    for (int j = 0; j < numBColumns; ++j) {
      float sum = 0;
      for (int k = 0; k < numAColumns; ++k)
        sum += hostA[i * numAColumns + k] * hostB[k * numBColumns + j];
      hostC[i * numBColumns + j] = sum;
    }
  wbTime_stop(Compute, "Performing the computation on the host");

  if (wbArg_getOutputFile(args))
    wbExport(wbArg_getOutputFile(args), hostC, numARows, numBColumns);
  wbSolution(args, hostC, numARows, numBColumns);

  free(hostA);
  free(hostB);
  free(hostC);
  return 0;
}
