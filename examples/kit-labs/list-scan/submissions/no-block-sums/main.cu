// expect: wrong
// Scans each section of 1024 elements on its own and never adds the totals of the sections
// before it: right for the datasets of one section (0 to 3), wrong past the first 1024 elements
// of every longer one (4 to 9).
#include <wb.h>

#define BLOCK_SIZE 512
#define SECTION (2 * BLOCK_SIZE)

#define check_cuda(call)                                                                  \
  do {                                                                                    \
    cudaError_t status_ = (call);                                                         \
    if (status_ != cudaSuccess) {                                                         \
      wbLog(ERROR, #call, " failed: ", cudaGetErrorString(status_));                      \
      return -1;                                                                          \
    }                                                                                     \
  } while (0)

// Scans each section of `in` into `out`; with `totals`, also writes each section's total there.
__global__ void scan_sections(const float *in, float *out, float *totals, int n) {
  __shared__ float s[SECTION];
  int t = threadIdx.x;
  int first = blockIdx.x * SECTION;
  s[t] = first + t < n ? in[first + t] : 0.0f;
  s[t + BLOCK_SIZE] = first + t + BLOCK_SIZE < n ? in[first + t + BLOCK_SIZE] : 0.0f;
  for (int stride = 1; stride <= BLOCK_SIZE; stride *= 2) {
    __syncthreads();
    int i = (t + 1) * 2 * stride - 1;
    if (i < SECTION)
      s[i] += s[i - stride];
  }
  for (int stride = SECTION / 4; stride > 0; stride /= 2) {
    __syncthreads();
    int i = (t + 1) * 2 * stride - 1;
    if (i + stride < SECTION)
      s[i + stride] += s[i];
  }
  __syncthreads();
  if (first + t < n)
    out[first + t] = s[t];
  if (first + t + BLOCK_SIZE < n)
    out[first + t + BLOCK_SIZE] = s[t + BLOCK_SIZE];
  if (totals != NULL && t == BLOCK_SIZE - 1)
    totals[blockIdx.x] = s[SECTION - 1];
}

// Scans n elements of device memory.
static int scan(const float *d_in, float *d_out, int n) {
  int sections = (n + SECTION - 1) / SECTION;
  scan_sections<<<sections, BLOCK_SIZE>>>(d_in, d_out, NULL, n);
  check_cuda(cudaGetLastError());
  return 0;
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int n;

  wbTime_start(Generic, "Importing data and creating memory on host");
  float *hostInput = (float *)wbImport(wbArg_getInputFile(args, 0), &n);
  float *hostOutput = (float *)malloc(n * sizeof(float));
  assert(hostOutput != NULL);
  wbTime_stop(Generic, "Importing data and creating memory on host");
  wbLog(TRACE, "The number of input elements is ", n);

  float *deviceInput, *deviceOutput;
  wbTime_start(GPU, "Allocating GPU memory.");
  check_cuda(cudaMalloc((void **)&deviceInput, n * sizeof(float)));
  check_cuda(cudaMalloc((void **)&deviceOutput, n * sizeof(float)));
  wbTime_stop(GPU, "Allocating GPU memory.");

  wbTime_start(GPU, "Copying input memory to the GPU.");
  check_cuda(cudaMemcpy(deviceInput, hostInput, n * sizeof(float), cudaMemcpyHostToDevice));
  wbTime_stop(GPU, "Copying input memory to the GPU.");

  wbTime_start(Compute, "Performing CUDA computation");
  if (scan(deviceInput, deviceOutput, n) != 0)
    return 1;
  check_cuda(cudaDeviceSynchronize());
  wbTime_stop(Compute, "Performing CUDA computation");

  wbTime_start(Copy, "Copying output memory to the CPU");
  check_cuda(cudaMemcpy(hostOutput, deviceOutput, n * sizeof(float), cudaMemcpyDeviceToHost));
  wbTime_stop(Copy, "Copying output memory to the CPU");

  check_cuda(cudaFree(deviceInput));
  check_cuda(cudaFree(deviceOutput));

  wbSolution(args, hostOutput, n);

  free(hostInput);
  free(hostOutput);
  return 0;
}
