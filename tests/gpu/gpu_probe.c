/* Exit 0 when a CUDA device is usable, 77 (CTest's "skipped") when not, with the reason. */
#include "harness.h"

int main(void)
{
    char name[256];
    if (tl_device_name(name, sizeof name)) {
        printf("GPU: %s\n", name);
        return 0;
    }
    printf("SKIPPED: %s; GPU tests need a CUDA device\n", name);
    return 77;
}
