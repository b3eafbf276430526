// expect: pass
// A correct inclusive scan with libwb's names: each block scans a section of 1024 elements in
// shared memory (a Brent-Kung tree: up-sweep, then down-sweep), the sections' totals are scanned
// the same way, and each section then adds the total of the sections before it. Any length.
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

// Adds to every element of section b > 0 the scanned total of sections 0 .. b-1.
__global__ void add_earlier_totals(float *out, const float *scanned_totals, int n) {
  if (blockIdx.x == 0)
    return;
  float earlier = scanned_totals[blockIdx.x - 1];
  int i = blockIdx.x * SECTION + threadIdx.x;
  if (i < n)
    out[i] += earlier;
  if (i + BLOCK_SIZE < n)
    out[i + BLOCK_SIZE] += earlier;
}

// Scans n elements of device memory, a level of section totals at a time.
static int scan(const float *d_in, float *d_out, int n) {
  int sections = (n + SECTION - 1) / SECTION;
  if (sections == 1) {
    scan_sections<<<1, BLOCK_SIZE>>>(d_in, d_out, NULL, n);
    check_cuda(cudaGetLastError());
    return 0;
  }
  float *d_totals;
  check_cuda(cudaMalloc((void **)&d_totals, sections * sizeof(float)));
  scan_sections<<<sections, BLOCK_SIZE>>>(d_in, d_out, d_totals, n);
  check_cuda(cudaGetLastError());
  if (scan(d_totals, d_totals, sections) != 0)
    return -1;
  add_earlier_totals<<<sections, BLOCK_SIZE>>>(d_out, d_totals, n);
  check_cuda(cudaGetLastError());
  check_cuda(cudaFree(d_totals));
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
