/* wb.h: libwb compatibility for tilelab's harness.
 *
 * A .cu file written for the GPU Teaching Kit's libwb (wbArg_read, wbImport, wbExport, wbSolution,
 * wbTime_start/stop, wbLog) compiles unchanged against this header and gets tilelab's behaviour:
 * input validation with one-line errors, the fp32 error-bound check with a full mismatch report,
 * and timers that never synchronize the device. docs/libwb-compat.md lists the differences.
 *
 * The libwb names (overloads, variadic messages) need C++, which is what nvcc compiles .cu files
 * as. Plain C code sees only the tl_wb_* functions below; C programs should use harness.h.
 * gputk.h gives the same functions under libgputk's gpuTK names.
 */
#ifndef TILELAB_WB_H
#define TILELAB_WB_H

#include "harness.h"
#include "cuda_removed.h"

/* libwb's header brings these in, and its programs rely on them (assert, malloc, memcpy). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wbTimerKind_t {
    wbTimerKind_Generic,
    wbTimerKind_IO,
    wbTimerKind_GPU,
    wbTimerKind_Copy,
    wbTimerKind_Driver,
    wbTimerKind_CopyAsync,
    wbTimerKind_Compute,
    wbTimerKind_CPUGPUOverlap
} wbTimerKind_t;

typedef enum wbLogLevel_t {
    wbLogLevel_OFF = -1,
    wbLogLevel_FATAL = TL_LOG_FATAL,
    wbLogLevel_ERROR = TL_LOG_ERROR,
    wbLogLevel_WARN = TL_LOG_WARN,
    wbLogLevel_INFO = TL_LOG_INFO,
    wbLogLevel_DEBUG = TL_LOG_DEBUG,
    wbLogLevel_TRACE = TL_LOG_TRACE
} wbLogLevel_t;

typedef bool wbBool;
typedef float wbReal_t;
#define wbTrue true
#define wbFalse false

/* Command line: -i in0,in1,... -o output -e expected -t type [--json]. The type is one of
 * matrix, vector, integral_vector, histogram, image (any case); it tells wbSolution what the data
 * is.
 * Strings stay valid until tl_wb_reset or exit. */
typedef struct wbArg_t {
    int inputCount;
    char **inputFiles;
    char *outputFile;
    char *expectedOutput;
    char *type;
    bool json;
} wbArg_t;

/* Exits with status 2 and a usage line on an unknown option, a missing value or a -t type
 * wbSolution does not compare. Makes the log threshold trace (unless TILELAB_LOG names one), as
 * libwb's logger keeps every level. */
wbArg_t tl_wb_arg_read(int argc, char **argv);
/* NULL when fewer inputs were given. */
char *tl_wb_arg_input(wbArg_t args, int index);
/* Reads a matrix (libwb text, tilelab binary or CSV); type "Real" (float, the default) or
 * "Integer" (int, values must be whole numbers); or "Text": the file's chars, *rows their count,
 * *cols 1. Exits with status 2 and a one-line error on bad input. Returns a malloc'd array. */
void *tl_wb_import(const char *file, int *rows, int *cols, const char *type);
/* Write libwb text, atomically; exit with status 2 if the file cannot be written. */
void tl_wb_export(const char *file, const float *data, int rows, int cols);
void tl_wb_export_int(const char *file, const int *data, int rows, int cols);
void tl_wb_export_uchar(const char *file, const unsigned char *data, int rows, int cols);
/* Checks `data` (rows x cols values of the -t type) against the expected output named on the
 * command line (through tl_check_answer) and prints the run report (text, or JSON with --json):
 *   matrix (or no -t)  floats; the fp32 error bound when the two inputs form a product with the
 *                      expected output's shape, else libwb's tolerance (tl_check_libwb)
 *   vector             floats; libwb's tolerance
 *   integral_vector    ints, equal to the expected whole numbers
 *   histogram          unsigned chars, equal to the expected whole numbers
 *   image              a wbImage_t (as libwb takes it): tl_wb_solution_image
 * With -o, the data is also written there (as wbExport would). Returns whether it passed. */
bool tl_wb_solution(wbArg_t args, const void *data, int rows, int cols);
void tl_wb_time_start(wbTimerKind_t kind, const char *msg);
void tl_wb_time_stop(wbTimerKind_t kind, const char *msg);
void tl_wb_log(wbLogLevel_t level, const char *msg);
/* Forgets the arguments and timers (for tests that call wbArg_read more than once). */
void tl_wb_reset(void);

/* libwb's image: width x height pixels of `channels` floats each (1 gray, 3 RGB), values in
 * [0, 1], interleaved, row after row; pitch is floats per row (width * channels). */
typedef struct tl_wb_image {
    int width, height, channels, pitch;
    float *data;
} tl_wb_image;
typedef tl_wb_image *wbImage_t;

/* A new image holding zeros; exits with status 2 on a size that is not positive or too large. */
wbImage_t tl_wb_image_new(int width, int height, int channels);
void tl_wb_image_delete(wbImage_t image);
/* Reads a PPM (P6 or P3, 3 channels) or PGM (P5 or P2, 1 channel) image, any maxval up to
 * 65535, into floats value / maxval. Bad input: one line naming the file and place, status 2. */
wbImage_t tl_wb_import_image(const char *file);
/* Writes a binary PPM (3 channels) or PGM (1 channel) with maxval 255, atomically. */
void tl_wb_export_image(const char *file, wbImage_t image);
/* Checks the image against the expected image named by -e (shape, then libwb's rule per
 * value) and prints the report as tl_wb_solution does. */
bool tl_wb_solution_image(wbArg_t args, wbImage_t image);

#ifdef __cplusplus
} /* extern "C" */

#include <sstream>
#include <string>

/* libwb's message arguments are any streamable values, concatenated. */
template <typename... Parts>
inline std::string tl_wb_concat(const Parts &...parts)
{
    std::ostringstream text;
    (void)(text << ... << parts);
    return text.str();
}
inline std::string tl_wb_concat() { return std::string(); }

inline wbArg_t wbArg_read(int argc, char **argv) { return tl_wb_arg_read(argc, argv); }
inline int wbArg_getInputCount(wbArg_t args) { return args.inputCount; }
inline char *wbArg_getInputFile(wbArg_t args, int index) { return tl_wb_arg_input(args, index); }
inline char *wbArg_getOutputFile(wbArg_t args) { return args.outputFile; }
inline char *wbArg_getExpectedOutputFile(wbArg_t args) { return args.expectedOutput; }
inline char *wbArg_getType(wbArg_t args) { return args.type; }

inline void *wbImport(const char *file, int *rows, int *cols)
{
    return tl_wb_import(file, rows, cols, "Real");
}
inline void *wbImport(const char *file, int *rows, int *cols, const char *type)
{
    return tl_wb_import(file, rows, cols, type);
}
/* A vector: *length receives the element count. */
inline void *wbImport(const char *file, int *length, const char *type)
{
    int rows = 0, cols = 0;
    void *data = tl_wb_import(file, &rows, &cols, type);
    *length = rows * cols;
    return data;
}
inline void *wbImport(const char *file, int *length) { return wbImport(file, length, "Real"); }

inline void wbExport(const char *file, const float *data, int rows, int cols)
{
    tl_wb_export(file, data, rows, cols);
}
inline void wbExport(const char *file, const int *data, int rows, int cols)
{
    tl_wb_export_int(file, data, rows, cols);
}
inline void wbExport(const char *file, const unsigned char *data, int rows, int cols)
{
    tl_wb_export_uchar(file, data, rows, cols);
}
/* Vectors: one column. */
template <typename T> inline void wbExport(const char *file, const T *data, int length)
{
    wbExport(file, data, length, 1);
}

inline wbBool wbSolution(wbArg_t args, const void *data, int rows, int cols)
{
    return tl_wb_solution(args, data, rows, cols);
}
inline wbBool wbSolution(wbArg_t args, const void *data, int length)
{
    return tl_wb_solution(args, data, length, 1);
}

inline wbImage_t wbImage_new(int width, int height, int channels)
{
    return tl_wb_image_new(width, height, channels);
}
inline wbImage_t wbImage_new(int width, int height) { return tl_wb_image_new(width, height, 3); }
inline void wbImage_delete(wbImage_t image) { tl_wb_image_delete(image); }
inline int wbImage_getWidth(wbImage_t image) { return image->width; }
inline int wbImage_getHeight(wbImage_t image) { return image->height; }
inline int wbImage_getChannels(wbImage_t image) { return image->channels; }
inline int wbImage_getPitch(wbImage_t image) { return image->pitch; }
inline float *wbImage_getData(wbImage_t image) { return image->data; }
/* One argument: an image file (libwb reads the kind from the extension). */
inline wbImage_t wbImport(const char *file) { return tl_wb_import_image(file); }
inline void wbExport(const char *file, wbImage_t image) { tl_wb_export_image(file, image); }
inline wbBool wbSolution(wbArg_t args, wbImage_t image) { return tl_wb_solution_image(args, image); }

#define wbTime_start(kind, ...) \
    tl_wb_time_start(wbTimerKind_##kind, tl_wb_concat(__VA_ARGS__).c_str())
#define wbTime_stop(kind, ...) \
    tl_wb_time_stop(wbTimerKind_##kind, tl_wb_concat(__VA_ARGS__).c_str())
#define wbLog(level, ...) tl_wb_log(wbLogLevel_##level, tl_wb_concat(__VA_ARGS__).c_str())

#endif /* __cplusplus */

#endif /* TILELAB_WB_H */
