/* The libwb layer of a program capture: wb.h's functions as a libwb program graded whole sees
 * them. The program never gets a dataset: each input file it is given is a stub that says only
 * the input's shape (CAPLOG_STUB_MAGIC), and wbImport hands back memory of that shape holding
 * the NaN pattern, registered as host input hI<n> so that copying it to the device is recorded
 * as "the dataset's input goes here". The memory the program hands to wbSolution becomes the
 * answer (capture_answer); nothing is compared here, nothing is written, and the expected
 * output cannot be imported. The whole of main is one program call, begun before main runs and
 * ended, with the log written, when the program exits.
 *
 * Linked instead of the harness's wb_compat.c and wb_solution.c, it defines every tl_wb_*
 * function wb.h declares. */
#include "capture_runtime.h"
#include "wb.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ARG_INPUTS 64
#define POISON 0xff

static struct {
    char *inputs[MAX_ARG_INPUTS];
    int ninputs;
    const char *log_path;
    bool log_written;
} cap;

static void write_log(void)
{
    if (cap.log_written || !cap.log_path)
        return;
    cap.log_written = true;
    capture_program_end();
    capture_log()->complete = true;
    FILE *f = fopen(cap.log_path, "w");
    if (!f || caplog_write(f, capture_log()) != 0)
        fprintf(stderr, "tilelab capture: cannot write %s\n", cap.log_path);
    if (f)
        fclose(f);
}

/* Before main: the program call opens, and its log is written however the program ends
 * (returning, exit, a failed gpuTKCheck) except by a crash, which leaves no log. */
__attribute__((constructor)) static void begin_program(void)
{
    cap.log_path = getenv(CAPLOG_ENV_LOG);
    const char *ptx = getenv(CAPLOG_ENV_PTX);
    if (!cap.log_path || !ptx) {
        fprintf(stderr, "tilelab capture: %s and %s must name the log and the module's PTX\n",
                CAPLOG_ENV_LOG, CAPLOG_ENV_PTX);
        exit(TL_EXIT_BAD_INPUT);
    }
    tl_error err;
    if (capture_load_outline(ptx, &err) != 0) {
        fprintf(stderr, "tilelab capture: %s\n", err.msg);
        exit(TL_EXIT_BAD_INPUT);
    }
    capture_begin(CAPLOG_CALL_PROGRAM, 1, 1, 1);
    atexit(write_log);
}

/* Ends the capture with a refusal: what the program asked for cannot be graded. */
static void refuse_and_end(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void refuse_and_end(const char *fmt, ...)
{
    char why[CAPLOG_MAX_REFUSAL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    caplog_refuse(capture_log(), "%s", why);
    exit(TL_EXIT_CRASH);
}

static void *checked_malloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "tilelab capture: out of memory\n");
        exit(TL_EXIT_CRASH);
    }
    return p;
}

wbArg_t tl_wb_arg_read(int argc, char **argv)
{
    wbArg_t a;
    memset(&a, 0, sizeof a);
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *opt = argv[i];
        char *value = argv[i + 1];
        if (strcmp(opt, "-i") == 0) {
            for (char *save = NULL, *t = strtok_r(value, ",", &save);
                 t && cap.ninputs < MAX_ARG_INPUTS; t = strtok_r(NULL, ",", &save))
                cap.inputs[cap.ninputs++] = t;
        } else if (strcmp(opt, "-e") == 0) {
            a.expectedOutput = value;
        } else if (strcmp(opt, "-o") == 0) {
            a.outputFile = value;
        } else if (strcmp(opt, "-t") == 0) {
            a.type = value;
        }
    }
    a.inputCount = cap.ninputs;
    a.inputFiles = cap.inputs;
    return a;
}

char *tl_wb_arg_input(wbArg_t args, int index)
{
    return index >= 0 && index < args.inputCount ? args.inputFiles[index] : NULL;
}

/* The stub a file name stands for: its kind and up to three sizes; returns its -i index. */
static int read_stub(const char *file, char kind[16], long dims[3])
{
    FILE *f = file ? fopen(file, "r") : NULL;
    char magic[32] = "";
    int n = f ? fscanf(f, "%31s %15s %ld %ld %ld", magic, kind, &dims[0], &dims[1], &dims[2]) : 0;
    if (f)
        fclose(f);
    if (n != 5 || strcmp(magic, CAPLOG_STUB_MAGIC) != 0)
        refuse_and_end("wbImport of \"%.200s\", which is not one of the program's input files "
                       "(only the files given with -i are imported when a program is graded)",
                       file ? file : "(null)");
    if (strcmp(kind, "expected") == 0)
        refuse_and_end("the program imports the expected output (the file given with -e); a "
                       "graded program gets its answer from its kernels, never from the dataset");
    for (int i = 0; i < cap.ninputs; i++)
        if (strcmp(cap.inputs[i], file) == 0)
            return i;
    refuse_and_end("wbImport of a file that is not one of the program's -i inputs");
}

static void *poisoned(uint64_t bytes)
{
    void *p = checked_malloc(bytes);
    memset(p, POISON, bytes ? bytes : 1);
    return p;
}

void *tl_wb_import(const char *file, int *rows, int *cols, const char *type)
{
    char kind[16];
    long d[3];
    int index = read_stub(file, kind, d);
    caplog_input_kind as;
    if (!type || strcasecmp(type, "Real") == 0 || strcasecmp(type, "float") == 0)
        as = CAPLOG_INPUT_REAL;
    else if (strcasecmp(type, "Integer") == 0 || strcasecmp(type, "int") == 0)
        as = CAPLOG_INPUT_INTEGER;
    else if (strcasecmp(type, "Text") == 0)
        as = CAPLOG_INPUT_TEXT;
    else
        refuse_and_end("wbImport with the unknown type \"%.100s\" (Real, Integer or Text)", type);
    bool text = strcmp(kind, "text") == 0;
    if (strcmp(kind, "image") == 0 || text != (as == CAPLOG_INPUT_TEXT))
        refuse_and_end("input %d (-i) imported as %s, but it is %s", index,
                       as == CAPLOG_INPUT_TEXT ? "text" : "numbers",
                       strcmp(kind, "image") == 0 ? "an image" : text ? "text" : "numbers");
    *rows = (int)d[0];
    *cols = text ? 1 : (int)d[1];
    uint64_t bytes = (uint64_t)d[0] * (uint64_t)(text ? 1 : d[1]) * (text ? 1 : 4);
    void *data = poisoned(bytes + (text ? 1 : 0));
    if (text)
        ((char *)data)[bytes] = '\0';
    capture_add_host_input(data, bytes, index, as);
    return data;
}

wbImage_t tl_wb_image_new(int width, int height, int channels)
{
    if (width <= 0 || height <= 0 || channels <= 0 || (int64_t)width * height * channels > TL_MAX_ELEMENTS)
        refuse_and_end("wbImage_new with a size that is not positive or too large");
    wbImage_t image = checked_malloc(sizeof *image);
    *image = (tl_wb_image){width, height, channels, width * channels, NULL};
    image->data = calloc((size_t)width * height * channels, sizeof *image->data);
    if (!image->data)
        refuse_and_end("out of memory for an image");
    return image;
}

void tl_wb_image_delete(wbImage_t image)
{
    if (image)
        free(image->data);
    free(image);
}

wbImage_t tl_wb_import_image(const char *file)
{
    char kind[16];
    long d[3];
    int index = read_stub(file, kind, d);
    if (strcmp(kind, "image") != 0)
        refuse_and_end("input %d (-i) imported as an image, but it is not one", index);
    wbImage_t image = checked_malloc(sizeof *image);
    uint64_t count = (uint64_t)d[0] * (uint64_t)d[1] * (uint64_t)d[2];
    *image = (tl_wb_image){(int)d[0], (int)d[1], (int)d[2], (int)(d[0] * d[2]),
                           poisoned(count * sizeof(float))};
    capture_add_host_input(image->data, count * sizeof(float), index, CAPLOG_INPUT_IMAGE);
    return image;
}

/* Nothing is written during a capture: the grader writes what it checked. */
void tl_wb_export(const char *file, const float *data, int rows, int cols)
{
    (void)file, (void)data, (void)rows, (void)cols;
}

void tl_wb_export_int(const char *file, const int *data, int rows, int cols)
{
    (void)file, (void)data, (void)rows, (void)cols;
}

void tl_wb_export_uchar(const char *file, const unsigned char *data, int rows, int cols)
{
    (void)file, (void)data, (void)rows, (void)cols;
}

void tl_wb_export_image(const char *file, wbImage_t image) { (void)file, (void)image; }

/* The bytes of one element of the -t type's data. */
static uint64_t element_bytes(const char *type)
{
    return type && strcasecmp(type, "histogram") == 0 ? 1 : 4;
}

bool tl_wb_solution(wbArg_t args, const void *data, int rows, int cols)
{
    if (rows < 0 || cols < 0)
        refuse_and_end("wbSolution with a negative size");
    capture_answer(data, (uint64_t)rows * (uint64_t)cols * element_bytes(args.type));
    return true;
}

bool tl_wb_solution_image(wbArg_t args, wbImage_t image)
{
    (void)args;
    if (!image)
        refuse_and_end("wbSolution with a null image");
    capture_answer(image->data, (uint64_t)image->width * image->height * image->channels *
                                    sizeof(float));
    return true;
}

/* The program's own messages still reach its author; timers measure nothing worth keeping. */
void tl_wb_time_start(wbTimerKind_t kind, const char *msg) { (void)kind, (void)msg; }
void tl_wb_time_stop(wbTimerKind_t kind, const char *msg) { (void)kind, (void)msg; }

void tl_wb_log(wbLogLevel_t level, const char *msg)
{
    tl_log_level l = (tl_log_level)level;
    fprintf(stderr, "[%s] %s\n", tl_log_level_name(l), msg);
}

void tl_wb_reset(void) {}
