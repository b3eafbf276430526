/* wb.h: libwb compatibility for tilelab's harness.
 *
 * A .cu file written for the GPU Teaching Kit's libwb (wbArg_read, wbImport, wbExport, wbSolution,
 * wbTime_start/stop, wbLog) compiles unchanged against this header and gets tilelab's behaviour:
 * input validation with one-line errors, the fp32 error-bound check with a full mismatch report,
 * and timers that never synchronize the device. docs/libwb-compat.md lists the differences.
 *
 * The libwb names (overloads, variadic messages) need C++, which is what nvcc compiles .cu files
 * as. Plain C code sees only the tl_wb_* functions below; C programs should use harness.h.
 */
#ifndef TILELAB_WB_H
#define TILELAB_WB_H

#include "harness.h"

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
#define wbTrue true
#define wbFalse false

/* Command line: -i in0,in1,... -o output -e expected -t type [--json]. Strings stay valid until
 * tl_wb_reset or exit. */
typedef struct wbArg_t {
    int inputCount;
    char **inputFiles;
    char *outputFile;
    char *expectedOutput;
    char *type;
    bool json;
} wbArg_t;

/* Exits with status 2 and a usage line on an unknown option or a missing value. */
wbArg_t tl_wb_arg_read(int argc, char **argv);
/* NULL when fewer inputs were given. */
char *tl_wb_arg_input(wbArg_t args, int index);
/* Reads a matrix; type "Real" (float, the default) or "Integer" (int, values must be whole
 * numbers). Exits with status 2 and a one-line error on bad input. Returns a malloc'd array. */
void *tl_wb_import(const char *file, int *rows, int *cols, const char *type);
/* Writes libwb text; exits with status 2 if the file cannot be written. */
void tl_wb_export(const char *file, const float *data, int rows, int cols);
/* Checks `data` (rows x cols floats) against the expected output named on the command line and
 * prints the run report (text, or JSON with --json). With two inputs that form a product, the
 * fp32 dot-product error bound is used; otherwise a relative element-wise tolerance. */
bool tl_wb_solution(wbArg_t args, const void *data, int rows, int cols);
void tl_wb_time_start(wbTimerKind_t kind, const char *msg);
void tl_wb_time_stop(wbTimerKind_t kind, const char *msg);
void tl_wb_log(wbLogLevel_t level, const char *msg);
/* Forgets the arguments and timers (for tests that call wbArg_read more than once). */
void tl_wb_reset(void);

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
inline void *wbImport(const char *file, int *length)
{
    int rows = 0, cols = 0;
    void *data = tl_wb_import(file, &rows, &cols, "Real");
    *length = rows * cols;
    return data;
}

inline void wbExport(const char *file, const float *data, int rows, int cols)
{
    tl_wb_export(file, data, rows, cols);
}

inline wbBool wbSolution(wbArg_t args, const void *data, int rows, int cols)
{
    return tl_wb_solution(args, data, rows, cols);
}
inline wbBool wbSolution(wbArg_t args, const void *data, int length)
{
    return tl_wb_solution(args, data, length, 1);
}

#define wbTime_start(kind, ...) \
    tl_wb_time_start(wbTimerKind_##kind, tl_wb_concat(__VA_ARGS__).c_str())
#define wbTime_stop(kind, ...) \
    tl_wb_time_stop(wbTimerKind_##kind, tl_wb_concat(__VA_ARGS__).c_str())
#define wbLog(level, ...) tl_wb_log(wbLogLevel_##level, tl_wb_concat(__VA_ARGS__).c_str())

#endif /* __cplusplus */

#endif /* TILELAB_WB_H */
