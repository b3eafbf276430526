// wbCheck, as the GPU Teaching Kit's libwb templates define it at their top (libwb's header does
// not): a failed CUDA call is logged and the enclosing function returns -1.
#ifndef TILELAB_TEST_WB_CHECK_H
#define TILELAB_TEST_WB_CHECK_H

#include <wb.h>

#define wbCheck(stmt)                                                     \
  do {                                                                    \
    cudaError_t err = stmt;                                               \
    if (err != cudaSuccess) {                                             \
      wbLog(ERROR, "Failed to run stmt ", #stmt);                         \
      wbLog(ERROR, "Got CUDA error ...  ", cudaGetErrorString(err));      \
      return -1;                                                          \
    }                                                                     \
  } while (0)

#endif
