// expect: refused
// Never computes the sum: it imports the expected output named by -e (wbArg_getExpectedOutputFile)
// and hands that to wbSolution. Run by hand it "passes"; graded, its import of the expected
// output is refused (a graded program gets its answer from its kernels, never from the dataset).
#include <wb.h>

__global__ void vector_add(const float *a, const float *b, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    sum[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int n, n_second, n_expected;

  float *a = (float *)wbImport(wbArg_getInputFile(args, 0), &n);
  float *b = (float *)wbImport(wbArg_getInputFile(args, 1), &n_second);
  wbLog(TRACE, "The vectors have ", n, " and ", n_second, " elements");

  // The kernel above is never launched: the answer is read instead of computed.
  float *answer = (float *)wbImport(wbArg_getExpectedOutputFile(args), &n_expected);
  wbSolution(args, answer, n_expected);

  free(a);
  free(b);
  free(answer);
  return 0;
}
