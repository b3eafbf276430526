// expect: unsafe
// No __syncthreads() between loading the tile and using it: a warp reads halo and neighbour
// pixels that other warps of its block have not stored yet. A shared-memory race on every
// dataset.
#include <wb.h>

#define MASK_WIDTH 5
#define MASK_RADIUS (MASK_WIDTH / 2)
#define TILE_WIDTH 16
#define SHARED_WIDTH (TILE_WIDTH + MASK_WIDTH - 1)

#define check_cuda(call)                                                                  \
  do {                                                                                    \
    cudaError_t status_ = (call);                                                         \
    if (status_ != cudaSuccess) {                                                         \
      wbLog(ERROR, #call, " failed: ", cudaGetErrorString(status_));                      \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

__constant__ float mask[MASK_WIDTH * MASK_WIDTH];

// One block per 16x16 tile of one channel (blockIdx.z); pixels are interleaved channels.
__global__ void convolve(const float *in, float *out, int channels, int width, int height) {
  __shared__ float tile[SHARED_WIDTH][SHARED_WIDTH];
  int tx = threadIdx.x, ty = threadIdx.y, channel = blockIdx.z;
  int tileX = blockIdx.x * TILE_WIDTH, tileY = blockIdx.y * TILE_WIDTH;
  const int threads = TILE_WIDTH * TILE_WIDTH;
  for (int i = ty * TILE_WIDTH + tx; i < SHARED_WIDTH * SHARED_WIDTH; i += threads) {
    int sy = i / SHARED_WIDTH, sx = i % SHARED_WIDTH;
    int y = tileY + sy - MASK_RADIUS, x = tileX + sx - MASK_RADIUS;
    bool inside = y >= 0 && y < height && x >= 0 && x < width;
    tile[sy][sx] = inside ? in[(y * width + x) * channels + channel] : 0.0f;
  }
  int x = tileX + tx, y = tileY + ty;
  if (x < width && y < height) {
    float acc = 0.0f;
    for (int dy = 0; dy < MASK_WIDTH; ++dy)
      for (int dx = 0; dx < MASK_WIDTH; ++dx)
        acc += tile[ty + dy][tx + dx] * mask[dy * MASK_WIDTH + dx];
    out[(y * width + x) * channels + channel] = fminf(fmaxf(acc, 0.0f), 1.0f);
  }
}

int main(int argc, char **argv) {
  wbArg_t args = wbArg_read(argc, argv);
  int maskRows, maskColumns;

  wbTime_start(Generic, "Importing data and creating memory on host");
  wbImage_t inputImage = wbImport(wbArg_getInputFile(args, 0));
  float *hostMask = (float *)wbImport(wbArg_getInputFile(args, 1), &maskRows, &maskColumns);
  wbTime_stop(Generic, "Importing data and creating memory on host");
  if (maskRows != MASK_WIDTH || maskColumns != MASK_WIDTH) {
    wbLog(ERROR, "the mask is ", maskRows, " x ", maskColumns, ", not 5 x 5");
    return 1;
  }
  int width = wbImage_getWidth(inputImage);
  int height = wbImage_getHeight(inputImage);
  int channels = wbImage_getChannels(inputImage);
  wbImage_t outputImage = wbImage_new(width, height, channels);
  wbLog(TRACE, "The image is ", width, " x ", height, " with ", channels, " channels");

  size_t bytes = (size_t)width * height * channels * sizeof(float);
  float *deviceInput, *deviceOutput;
  wbTime_start(GPU, "Allocating GPU memory.");
  check_cuda(cudaMalloc((void **)&deviceInput, bytes));
  check_cuda(cudaMalloc((void **)&deviceOutput, bytes));
  wbTime_stop(GPU, "Allocating GPU memory.");

  wbTime_start(Copy, "Copying data to the GPU");
  check_cuda(cudaMemcpy(deviceInput, wbImage_getData(inputImage), bytes, cudaMemcpyHostToDevice));
  check_cuda(cudaMemcpyToSymbol(mask, hostMask, sizeof(float) * MASK_WIDTH * MASK_WIDTH));
  wbTime_stop(Copy, "Copying data to the GPU");

  wbTime_start(Compute, "Doing the computation on the GPU");
  dim3 block(TILE_WIDTH, TILE_WIDTH);
  int tilesX = (width + TILE_WIDTH - 1) / TILE_WIDTH;
  int tilesY = (height + TILE_WIDTH - 1) / TILE_WIDTH;
  dim3 grid(tilesX, tilesY, channels);
  convolve<<<grid, block>>>(deviceInput, deviceOutput, channels, width, height);
  check_cuda(cudaGetLastError());
  check_cuda(cudaDeviceSynchronize());
  wbTime_stop(Compute, "Doing the computation on the GPU");

  wbTime_start(Copy, "Copying data from the GPU");
  float *hostOutput = wbImage_getData(outputImage);
  check_cuda(cudaMemcpy(hostOutput, deviceOutput, bytes, cudaMemcpyDeviceToHost));
  wbTime_stop(Copy, "Copying data from the GPU");

  wbSolution(args, outputImage);

  check_cuda(cudaFree(deviceInput));
  check_cuda(cudaFree(deviceOutput));
  free(hostMask);
  wbImage_delete(outputImage);
  wbImage_delete(inputImage);
  return 0;
}
