// expect: unsafe
// The bound test is `i <= n`: thread n, which every dataset's grid has (no length is a multiple of
// 256), reads a[n] and b[n] and writes sum[n], one element past the end of all three buffers.
#include <gputk.h>

#define THREADS_PER_BLOCK 256

__global__ void vector_add(const float *a, const float *b, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)
    sum[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  gpuTKArg_t args = gpuTKArg_read(argc, argv);
  int n, n_second;

  gpuTKTime_start(Generic, "Importing data and creating memory on host");
  float *a = (float *)gpuTKImport(gpuTKArg_getInputFile(args, 0), &n);
  float *b = (float *)gpuTKImport(gpuTKArg_getInputFile(args, 1), &n_second);
  float *sum = (float *)malloc(n * sizeof(float));
  gpuTKTime_stop(Generic, "Importing data and creating memory on host");
  if (n != n_second || sum == NULL) {
    gpuTKLog(ERROR, "the two vectors differ in length (", n, " and ", n_second, ")");
    return 1;
  }
  gpuTKLog(TRACE, "The vectors have ", n, " elements");

  size_t bytes = n * sizeof(float);
  float *d_a, *d_b, *d_sum;
  gpuTKTime_start(GPU, "Allocating GPU memory.");
  gpuTKCheck(cudaMalloc((void **)&d_a, bytes));
  gpuTKCheck(cudaMalloc((void **)&d_b, bytes));
  gpuTKCheck(cudaMalloc((void **)&d_sum, bytes));
  gpuTKTime_stop(GPU, "Allocating GPU memory.");

  gpuTKTime_start(GPU, "Copying input memory to the GPU.");
  gpuTKCheck(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
  gpuTKCheck(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
  gpuTKTime_stop(GPU, "Copying input memory to the GPU.");

  gpuTKTime_start(Compute, "Performing CUDA computation");
  int blocks = (n + THREADS_PER_BLOCK - 1) / THREADS_PER_BLOCK;
  vector_add<<<blocks, THREADS_PER_BLOCK>>>(d_a, d_b, d_sum, n);
  gpuTKCheck(cudaGetLastError());
  gpuTKCheck(cudaDeviceSynchronize());
  gpuTKTime_stop(Compute, "Performing CUDA computation");

  gpuTKTime_start(Copy, "Copying output memory to the CPU");
  gpuTKCheck(cudaMemcpy(sum, d_sum, bytes, cudaMemcpyDeviceToHost));
  gpuTKTime_stop(Copy, "Copying output memory to the CPU");

  gpuTKCheck(cudaFree(d_a));
  gpuTKCheck(cudaFree(d_b));
  gpuTKCheck(cudaFree(d_sum));

  gpuTKSolution(args, sum, n);

  free(a);
  free(b);
  free(sum);
  return 0;
}
