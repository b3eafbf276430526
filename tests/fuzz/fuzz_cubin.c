/* libFuzzer target: the cubin register reader (perfmodel/src/pm_cubin.c), which reads a file a
 * submission's build made. Any bytes give a count, 0 or a refusal with a message, and no read
 * outside them. */
#include "perfmodel.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[256] = "";
    int regs = pm_cubin_registers_in(data, size, "many", "fuzz", msg, sizeof msg);
    if (regs < -1 || regs > 255 || (regs == -1 && !msg[0]))
        abort();
    return 0;
}
