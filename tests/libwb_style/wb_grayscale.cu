// Color to grayscale, written the way the GPU Teaching Kit's image labs are: its own main, a
// wbImage_t imported from a PPM, a gray wbImage_t made with wbImage_new and checked with
// wbSolution(args, image) under -t image. Built with PIXEL_OFF_BY_ONE, each thread reads the pixel
// to its right (the last column reads its own): the check must fail there.
#include <wb.h>

#include "wb_check.h"

#define CHANNELS 3

__global__ void colorToGray(const float *rgb, float *gray, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    int idx = row * width + col;
#ifdef PIXEL_OFF_BY_ONE
    int src = col + 1 < width ? idx + 1 : idx;
#else
    int src = idx;
#endif
    float r = rgb[CHANNELS * src], g = rgb[CHANNELS * src + 1], b = rgb[CHANNELS * src + 2];
    gray[idx] = 0.21f * r + 0.71f * g + 0.07f * b;
  }
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);

  wbTime_start(Generic, "Importing data and creating memory on host");
  wbImage_t inputImage = wbImport(wbArg_getInputFile(args, 0));
  int width = wbImage_getWidth(inputImage);
  int height = wbImage_getHeight(inputImage);
  wbImage_t outputImage = wbImage_new(width, height, 1);
  wbTime_stop(Generic, "Importing data and creating memory on host");
  wbLog(TRACE, "The image is ", width, " x ", height, " with ", wbImage_getChannels(inputImage),
        " channels");

  size_t inBytes = (size_t)width * height * CHANNELS * sizeof(float);
  size_t outBytes = (size_t)width * height * sizeof(float);
  float *deviceInput, *deviceOutput;
  wbCheck(cudaMalloc((void **)&deviceInput, inBytes));
  wbCheck(cudaMalloc((void **)&deviceOutput, outBytes));
  wbCheck(cudaMemcpy(deviceInput, wbImage_getData(inputImage), inBytes, cudaMemcpyHostToDevice));

  wbTime_start(Compute, "Doing the computation on the GPU");
  dim3 block(16, 16, 1);
  dim3 grid((width + 15) / 16, (height + 15) / 16, 1);
  colorToGray<<<grid, block>>>(deviceInput, deviceOutput, width, height);
  wbCheck(cudaGetLastError());
  wbCheck(cudaDeviceSynchronize());
  wbTime_stop(Compute, "Doing the computation on the GPU");

  wbCheck(cudaMemcpy(wbImage_getData(outputImage), deviceOutput, outBytes,
                     cudaMemcpyDeviceToHost));
  wbSolution(args, outputImage);

  cudaFree(deviceInput);
  cudaFree(deviceOutput);
  wbImage_delete(outputImage);
  wbImage_delete(inputImage);
  return 0;
}
