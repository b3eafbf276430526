/* libwb's images (wbImage_t): made, imported, exported and checked through the harness's image
 * reader, writer and answer check (tl_import_file, tl_image_write, tl_check_answer). */
#include "wb_session.h"

#include <stdlib.h>
#include <string.h>

static wbImage_t image_of(int width, int height, int channels, float *data)
{
    wbImage_t image = malloc(sizeof *image);
    if (!image) {
        free(data);
        wb_die_bad_input("out of memory for an image");
    }
    *image = (tl_wb_image){width, height, channels, width * channels, data};
    return image;
}

wbImage_t tl_wb_image_new(int width, int height, int channels)
{
    if (width <= 0 || height <= 0 || channels <= 0 ||
        (int64_t)width * height * channels > TL_MAX_ELEMENTS) {
        char msg[256];
        snprintf(msg, sizeof msg, "wbImage_new: cannot make a %d x %d image of %d channels "
                                  "(each must be positive, at most %lld values in all)",
                 width, height, channels, (long long)TL_MAX_ELEMENTS);
        wb_die_bad_input(msg);
    }
    float *data = calloc((size_t)width * (size_t)height * (size_t)channels, sizeof *data);
    if (!data)
        wb_die_bad_input("out of memory for an image");
    return image_of(width, height, channels, data);
}

void tl_wb_image_delete(wbImage_t image)
{
    if (!image)
        return;
    free(image->data);
    free(image);
}

wbImage_t tl_wb_import_image(const char *file)
{
    tl_import imp;
    wb_import_or_die(file, "image", TL_IMPORT_IMAGE, &imp);
    return image_of(imp.cols, imp.rows, imp.channels, imp.data);
}

void tl_wb_export_image(const char *file, wbImage_t image)
{
    if (!file || !image)
        wb_die_bad_input(file ? "wbExport: no image (NULL)" : "wbExport: no output file name");
    tl_error err;
    if (tl_image_write(file, image->data, image->width, image->height, image->channels, &err))
        wb_die_bad_input(err.msg);
}

bool tl_wb_solution_image(wbArg_t args, wbImage_t image)
{
    const wb_type *type = wb_type_find(args.type);
    if (!type || type->data != WB_DATA_IMAGE) {
        /* No -t reads as a matrix; an image handed over says what it is. */
        if (args.type) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s: wbSolution was handed an image, but -t says \"%.64s\" "
                                      "(give -t image)", wb_session_program(), args.type);
            wb_die_bad_input(msg);
        }
        type = wb_type_find("image");
    }
    if (!image)
        wb_die_bad_input("wbSolution: no image (NULL)");
    tl_run_report report;
    wb_report_init(args, &report);
    tl_import got = {image->data,
                     sizeof(float) * (size_t)image->width * (size_t)image->height *
                         (size_t)image->channels,
                     image->height, image->width, image->channels};
    tl_answer_spec spec = {type->answer, type->tolerance, NULL, NULL};
    tl_error err;
    if (tl_check_answer(&spec, &got, args.expectedOutput, &report.check, &err) != 0)
        wb_die_bad_input(err.msg);
    report.checked = true;
    if (args.outputFile)
        tl_wb_export_image(args.outputFile, image);
    return wb_print_verdict(args, &report, NULL);
}
