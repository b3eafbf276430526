/* libFuzzer target: the capture log reader. Any bytes are either refused with a message or read
 * into a log that writes back out as text the reader accepts again, unchanged. */
#include "capture_log.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    caplog log;
    tl_error err;
    if (caplog_parse("fuzz", (const char *)data, size, &log, &err) != 0) {
        if (!err.msg[0])
            abort(); /* a refusal must say why */
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f || caplog_write(f, &log) != 0)
        abort();
    fclose(f);
    caplog again;
    if (caplog_parse("again", text, len, &again, &err) != 0)
        abort(); /* what the writer writes, the reader reads */
    char *text2 = NULL;
    size_t len2 = 0;
    f = open_memstream(&text2, &len2);
    if (!f || caplog_write(f, &again) != 0)
        abort();
    fclose(f);
    if (len != len2 || memcmp(text, text2, len) != 0)
        abort(); /* and writing is a fixed point */
    free(text);
    free(text2);
    caplog_free(&log);
    caplog_free(&again);
    return 0;
}
