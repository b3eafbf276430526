/* gputk_generate.h: the libgputk functions the GPU Teaching Kit's dataset generators call, for
 * building those generators unchanged against tilelab's libwb layer (tools/kit-corpus.sh).
 *
 * tilelab's gputk.h already gives what a lab program uses (gpuTKImport, gpuTKExport of an image,
 * gpuTKImage_*, gpuTKLog); a generator also joins paths, creates its dataset folders and has
 * libgputk write random inputs (gpuTKDataset_generate: a raw float matrix or a PPM image). Those
 * are here, under libgputk's names and with its behaviour (docs/corpus.md#the-kits-own-labs):
 * no more than the generators of the seven labs graded need. The generator is compiled with
 * `-include gputk_generate.h` so that its own `#include "gputk.h"` finds this one's.
 *
 * gputk_generate.c is C; the gpuTK names need C++, as the generators are.
 */
#ifndef TILELAB_GPUTK_GENERATE_H
#define TILELAB_GPUTK_GENERATE_H

#include "gputk.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function below ends the program with one line on stderr and status 2 when it cannot do
 * its work; none returns an error. */

/* first + "/" + second, malloc'd (the generators free it). */
char *kitgen_path_join(const char *first, const char *second);
/* Creates the folder and every missing ancestor; returns `dir`. */
const char *kitgen_directory_create(const char *dir);
/* The current folder, malloc'd. */
char *kitgen_directory_current(void);
/* A rows x cols matrix of floats drawn between the bounds, written as libgputk's raw text (its
 * folder created first). */
void kitgen_generate_raw(const char *path, int rows, int cols, double min_val, double max_val);
/* A width x height image of `channels` channels drawn between the bounds, written as a PPM by
 * tilelab's image writer (libwb's encoding; its folder created first). */
void kitgen_generate_ppm(const char *path, int width, int height, int channels, double min_val,
                         double max_val);

#ifdef __cplusplus
} /* extern "C" */

#include <algorithm>
#include <sstream>
#include <string>

/* The element types of a generated raw file: the generators ask only for floats. */
typedef enum gpuTKType_t { gpuTKType_float } gpuTKType_t;

/* The kinds of file gpuTKDataset_generate writes that the generators ask for. */
typedef enum gpuTKExportKind_t { gpuTKExportKind_raw, gpuTKExportKind_ppm } gpuTKExportKind_t;

typedef struct {
    int rows;
    int cols;
    double minVal;
    double maxVal;
    gpuTKType_t type;
} gpuTKRaw_GenerateParams_t;

typedef struct {
    int width;
    int height;
    int channels;
    double minVal;
    double maxVal;
} gpuTKPPM_GenerateParams_t;

typedef union {
    gpuTKRaw_GenerateParams_t raw;
    gpuTKPPM_GenerateParams_t ppm;
} gpuTKGenerateParams_t;

/* libgputk joins any printable values (a folder, a dataset's number) with its separator. */
template <typename T> inline std::string kitgen_text(const T &value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

template <typename T1, typename T2> inline char *gpuTKPath_join(const T1 &p1, const T2 &p2)
{
    return kitgen_path_join(kitgen_text(p1).c_str(), kitgen_text(p2).c_str());
}

template <typename T1, typename T2, typename T3>
inline char *gpuTKPath_join(const T1 &p1, const T2 &p2, const T3 &p3)
{
    char *head = gpuTKPath_join(p1, p2);
    char *path = kitgen_path_join(head, kitgen_text(p3).c_str());
    free(head);
    return path;
}

inline const char *gpuTKDirectory_create(const char *dir) { return kitgen_directory_create(dir); }
inline char *gpuTKDirectory_current() { return kitgen_directory_current(); }

inline void gpuTKDataset_generate(const char *path, gpuTKExportKind_t kind,
                                  gpuTKGenerateParams_t params)
{
    if (kind == gpuTKExportKind_ppm) {
        const gpuTKPPM_GenerateParams_t &p = params.ppm;
        kitgen_generate_ppm(path, p.width, p.height, p.channels, p.minVal, p.maxVal);
    } else {
        const gpuTKRaw_GenerateParams_t &p = params.raw;
        kitgen_generate_raw(path, p.rows, p.cols, p.minVal, p.maxVal);
    }
}

#endif /* __cplusplus */

#endif /* TILELAB_GPUTK_GENERATE_H */
