/* libFuzzer target: the PTX parser and the outline reader. Any text is parsed or refused with a
 * message naming a line; nothing crashes, leaks or reads past the input. */
#include "ptx.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ptx_error err;
    err.msg[0] = '\0';
    ptx_module *m = ptx_module_parse("fuzz.ptx", (const char *)data, size, &err);
    if (!m && !err.msg[0])
        abort();
    for (int i = 0; m && i < ptx_module_entry_count(m); i++) {
        const ptx_entry *e = ptx_module_entry_at(m, i);
        for (int p = 0; p < ptx_entry_param_count(e); p++)
            (void)ptx_entry_param_size(e, p);
    }
    ptx_module_free(m);
    err.msg[0] = '\0';
    ptx_outline *o = ptx_outline_read("fuzz.ptx", (const char *)data, size, &err);
    if (!o && !err.msg[0])
        abort();
    ptx_outline_free(o);
    return 0;
}
