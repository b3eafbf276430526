/* gputk.h: the GPU Teaching Kit's current names (libgputk's gpuTK*) for tilelab's libwb layer.
 *
 * One implementation, two doors: every gpuTK name below is the wb.h name of the same thing, so
 * a program written for libgputk compiles unchanged and behaves exactly as its libwb twin
 * (docs/libwb-compat.md). The wb names stay available too. C++ only, as wb.h's names are.
 */
#ifndef TILELAB_GPUTK_H
#define TILELAB_GPUTK_H

#include "wb.h"

#ifdef __cplusplus

typedef wbArg_t gpuTKArg_t;
typedef wbBool gpuTKBool;
typedef wbReal_t gpuTKReal_t;
typedef wbTimerKind_t gpuTKTimerKind_t;
typedef wbLogLevel_t gpuTKLogLevel_t;
#define gpuTKTrue wbTrue
#define gpuTKFalse wbFalse

#define gpuTKArg_read wbArg_read
#define gpuTKArg_getInputCount wbArg_getInputCount
#define gpuTKArg_getInputFile wbArg_getInputFile
#define gpuTKArg_getOutputFile wbArg_getOutputFile
#define gpuTKArg_getExpectedOutputFile wbArg_getExpectedOutputFile
#define gpuTKArg_getType wbArg_getType

typedef wbImage_t gpuTKImage_t;
#define gpuTKImage_new wbImage_new
#define gpuTKImage_delete wbImage_delete
#define gpuTKImage_getWidth wbImage_getWidth
#define gpuTKImage_getHeight wbImage_getHeight
#define gpuTKImage_getChannels wbImage_getChannels
#define gpuTKImage_getPitch wbImage_getPitch
#define gpuTKImage_getData wbImage_getData

#define gpuTKImport wbImport
#define gpuTKExport wbExport
#define gpuTKSolution wbSolution

/* Function-like in wb.h: gpuTKTime_start(Compute, "...") becomes wbTime_start(Compute, "..."),
 * and the kind and level names (Compute, TRACE) are the same in both schemes. */
#define gpuTKTime_start wbTime_start
#define gpuTKTime_stop wbTime_stop
#define gpuTKLog wbLog

/* libgputk defines it in its header (gputkCUDA.h) for the kit's templates: a failed CUDA call
 * is logged and the enclosing function returns -1. */
#ifndef gpuTKCheck
#define gpuTKCheck(stmt)                                                                          \
    do {                                                                                          \
        cudaError_t gputk_err_ = stmt;                                                            \
        if (gputk_err_ != cudaSuccess) {                                                          \
            gpuTKLog(ERROR, "Failed to run stmt ", #stmt);                                        \
            gpuTKLog(ERROR, "Got CUDA error ...  ", cudaGetErrorString(gputk_err_));              \
            return -1;                                                                            \
        }                                                                                         \
    } while (0)
#endif

#endif /* __cplusplus */

#endif /* TILELAB_GPUTK_H */
