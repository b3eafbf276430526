/* How the interpreter names kernels and source files to people. */
#include "ptx.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *shown(const char *mangled)
{
    static char out[128];
    ptx_kernel_name(mangled, out, sizeof out);
    return out;
}

Test(ptx_names, plain_kernels_lose_their_mangling_and_parameters)
{
    cr_assert_str_eq(shown("_Z15MatrixMulKernelPKfS0_Pfi"), "MatrixMulKernel");
    cr_assert_str_eq(shown("_Z21MatrixMulKernelPaddedPKfS0_Pfiii"), "MatrixMulKernelPadded");
    cr_assert_str_eq(shown("_Z1Kv"), "K");
}

Test(ptx_names, templates_keep_their_arguments_without_the_return_type)
{
    cr_assert_str_eq(shown("_Z7stridedILi1EEvPf"), "strided<1>");
    cr_assert_str_eq(shown("_Z5tiledILi16EfEvPKT0_S2_PS0_i"), "tiled<16, float>");
}

Test(ptx_names, namespaces_are_kept)
{
    cr_assert_str_eq(shown("_ZN2ns6kernelEPf"), "ns::kernel");
    cr_assert_str_eq(shown("_ZN12_GLOBAL__N_16kernelEPf"), "(anonymous namespace)::kernel");
}

Test(ptx_names, other_names_are_copied_unchanged)
{
    cr_assert_str_eq(shown("matmul"), "matmul");       /* extern "C" */
    cr_assert_str_eq(shown("_Z3"), "_Z3");             /* not a complete mangled name */
    cr_assert_str_eq(shown("_Zgarbage"), "_Zgarbage");
    cr_assert_str_eq(shown(""), "");
}

Test(ptx_names, a_short_buffer_gets_a_terminated_prefix)
{
    char out[5];
    ptx_kernel_name("_Z15MatrixMulKernelPKfS0_Pfi", out, sizeof out);
    cr_assert_str_eq(out, "Matr");
}

Test(ptx_names, base_name)
{
    cr_assert_str_eq(ptx_base_name("/submission/sub/mine.cu"), "mine.cu");
    cr_assert_str_eq(ptx_base_name("mine.cu"), "mine.cu");
}
