// A 3x3 box blur of a gray image, written for libgputk (gputk.h, gpuTK names): gpuTKImport of a
// PGM, gpuTKImage_new, gpuTKSolution of an image. Each output pixel is the mean of the pixels of
// its 3x3 neighbourhood that lie inside the image.
#include <gputk.h>

#define BLUR_RADIUS 1

__global__ void blur(const float *in, float *out, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col >= width || row >= height)
    return;
  float sum = 0;
  int count = 0;
  for (int dy = -BLUR_RADIUS; dy <= BLUR_RADIUS; ++dy)
    for (int dx = -BLUR_RADIUS; dx <= BLUR_RADIUS; ++dx) {
      int y = row + dy, x = col + dx;
      if (y >= 0 && y < height && x >= 0 && x < width) {
        sum += in[y * width + x];
        ++count;
      }
    }
  out[row * width + col] = sum / count;
}

int main(int argc, char **argv) {
  gpuTKArg_t args = gpuTKArg_read(argc, argv);
  gpuTKImage_t input = gpuTKImport(gpuTKArg_getInputFile(args, 0));
  int width = gpuTKImage_getWidth(input), height = gpuTKImage_getHeight(input);
  gpuTKImage_t output = gpuTKImage_new(width, height, gpuTKImage_getChannels(input));
  gpuTKLog(TRACE, "Blurring a ", width, " x ", height, " image, pitch ",
           gpuTKImage_getPitch(input));

  size_t bytes = (size_t)width * height * sizeof(float);
  float *deviceIn, *deviceOut;
  gpuTKCheck(cudaMalloc((void **)&deviceIn, bytes));
  gpuTKCheck(cudaMalloc((void **)&deviceOut, bytes));
  gpuTKCheck(cudaMemcpy(deviceIn, gpuTKImage_getData(input), bytes, cudaMemcpyHostToDevice));
  gpuTKTime_start(Compute, "Doing the computation on the GPU");
  dim3 block(8, 8, 1), grid((width + 7) / 8, (height + 7) / 8, 1);
  blur<<<grid, block>>>(deviceIn, deviceOut, width, height);
  gpuTKCheck(cudaDeviceSynchronize());
  gpuTKTime_stop(Compute, "Doing the computation on the GPU");
  gpuTKCheck(cudaMemcpy(gpuTKImage_getData(output), deviceOut, bytes, cudaMemcpyDeviceToHost));

  gpuTKSolution(args, output);
  cudaFree(deviceIn);
  cudaFree(deviceOut);
  gpuTKImage_delete(output);
  gpuTKImage_delete(input);
  return 0;
}
