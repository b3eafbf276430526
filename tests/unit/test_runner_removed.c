/* Which runtime calls CUDA 13 removed a submission's own code makes: calls found wherever a
 * macro put them, with the first one's line; names in strings, in longer names or in the kit's
 * headers are not calls; an older toolkit, which still has them, gets no note. */
#include <criterion/criterion.h>

#include "runner_removed.h"

#include <string.h>

static const char own[] =
    "# 1 \"main.cu\"\n"
    "int main() {\n"
    "  const char *m = \"cudaThreadExit() failed\"; char q = 'c';\n"
    "  int cudaThreadSynchronizeCount = 0; my_cudaThreadExit();\n"
    "# 40 \"main.cu\"\n"
    "  do { cudaError_t e = cudaThreadSynchronize(); if (e) { wbLog(\"cudaThreadSynchronize()\"); } } while (0);\n"
    "  cudaThreadGetLimit(&n, cudaLimitStackSize);\n"
    "}\n";

Test(removed_calls, names_each_call_once_with_the_first_line)
{
    char note[512];
    cr_assert_eq(removed_calls_note(own, 13000, note, sizeof note), 2);
    cr_assert_str_eq(note, "this program calls cudaThreadSynchronize and cudaThreadGetLimit, "
                           "removed in CUDA 13; the kit maps them to cudaDeviceSynchronize and "
                           "cudaDeviceGetLimit (first call at main.cu:40)");
}

Test(removed_calls, one_call_is_it)
{
    char note[512];
    cr_assert_eq(removed_calls_note("# 7 \"a.cu\"\n\n cudaThreadSynchronize();\n", 13000, note,
                                    sizeof note), 1);
    cr_assert_str_eq(note, "this program calls cudaThreadSynchronize, removed in CUDA 13; the kit "
                           "maps it to cudaDeviceSynchronize (first call at a.cu:8)");
}

Test(removed_calls, none_in_strings_longer_names_or_on_an_older_toolkit)
{
    char note[512] = "x";
    cr_assert_eq(removed_calls_note("# 1 \"a.cu\"\nputs(\"cudaThreadExit\"); cudaThreadExit_(); "
                                    "x.cudaThreadExitFlag = 'cudaThreadExit';\n", 13000, note,
                                    sizeof note), 0);
    cr_assert_str_eq(note, "");
    cr_assert_eq(removed_calls_note(own, 12080, note, sizeof note), 0);
    cr_assert_str_eq(note, "");
    cr_assert_eq(removed_calls_note(NULL, 13000, note, sizeof note), 0);
}

Test(removed_calls, a_short_buffer_is_cut_not_overrun)
{
    char note[24];
    memset(note, 'z', sizeof note);
    cr_assert_eq(removed_calls_note(own, 13000, note, sizeof note), 2);
    cr_assert_eq(strlen(note), sizeof note - 1);
}
