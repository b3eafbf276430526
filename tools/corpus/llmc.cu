// Runs the kernels of karpathy/llm.c's dev/cuda softmax_forward.cu, layernorm_forward.cu and
// matmul_forward.cu (the variants that need no cuBLAS) with the launch configurations of their
// own launcher functions, and prints a digest of every output buffer.
//
// Built with -I<corpus>/llm.c/dev/cuda. Each file includes common.h, which has no include guard
// and defines functions and globals, so each is included inside a namespace of its own; the
// system headers they use are included first, at global scope, so that their guards make the
// includes inside the namespaces empty. Their main() functions are renamed and, with their
// cuBLAS calls, removed by the linker (-ffunction-sections, --gc-sections): nothing calls them.
// Their launchers are not called either, because they exit() on the first CUDA error; the
// launches are restated here.
#include "corpus_digest.h"

#include <assert.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utility>

#define main outside_main_unused
namespace llmc_softmax {
#include "softmax_forward.cu"
}
// common.h's function-like macros would rename its functions in its next inclusion.
#undef cudaCheck
#undef cublasCheck
namespace llmc_layernorm {
#include "layernorm_forward.cu"
}
#undef cudaCheck
#undef cublasCheck
namespace llmc_matmul {
#include "matmul_forward.cu"
}
#undef main

namespace {

const char *const kProject = "llm.c";

std::string tag(const char *shape, int block) { return shape + ("/bs" + std::to_string(block)); }

// ---------------------------------------------------------------------------------------------
// softmax: N = B*T rows of V values. Block sizes stay at most V: kernels 7 and 8 let threads past
// the row's end exit before full-warp shuffles, which a GPU leaves undefined.
namespace sm = llmc_softmax;
const int kRows = 4 * 32, kCols = 3001;
const char *const kSoftmaxShape = "B4T32V3001";
const int kSoftmaxBlocks[] = {32, 256, 1024};

void softmax(const char *kernel, int version)
{
    std::vector<float> in = corpus_floats((size_t)kRows * kCols, 11, -4.0f, 4.0f);
    for (int block : kSoftmaxBlocks) {
        if (version == 3 && block != 32)
            continue; // its launcher always uses 32
        corpus_buf inp(in.size() * sizeof(float)), out(in.size() * sizeof(float));
        inp.upload(in.data());
        out.fill(0);
        float *o = out.as<float>();
        const float *x = inp.as<float>();
        const int N = kRows, C = kCols;
        const size_t warps_smem = block / 32 * sizeof(float);
        if (corpus_ready()) {
            switch (version) {
            case 1:
                sm::softmax_forward_kernel1<<<sm::ceil_div(N, block), block>>>(o, x, N, C);
                break;
            case 2:
                sm::softmax_forward_kernel2<<<N, block, block * sizeof(float)>>>(o, x, N, C);
                break;
            case 3:
                sm::softmax_forward_kernel3<<<N, 32, 32 * sizeof(float)>>>(o, x, N, C);
                break;
            case 4:
                sm::softmax_forward_kernel4<<<N, block, warps_smem>>>(o, x, N, C);
                break;
            case 5:
                sm::softmax_forward_online_kernel1<<<sm::ceil_div(N, block), block>>>(o, x, N, C);
                break;
            case 6:
                sm::softmax_forward_online_kernel2<<<sm::ceil_div(N * 32, block), block>>>(o, x, N,
                                                                                          C);
                break;
            case 7:
                sm::softmax_forward_kernel7<<<N, block, 2 * warps_smem>>>(o, x, N, C);
                break;
            case 8:
                sm::softmax_forward_online_kernel8<<<sm::ceil_div(N * 32, block), block>>>(o, x, N,
                                                                                          C);
                break;
            }
        }
        corpus_report(kProject, kernel, tag(kSoftmaxShape, block), corpus_finish_launch(),
                      {{"out", &out}});
    }
}

// ---------------------------------------------------------------------------------------------
// layernorm: N = B*T rows of C channels (GPT-2's 768); C is a multiple of 4 (kernel 6 loads 16
// bytes at a time) and B*T*C of 256 (version 2's normalisation kernel has no bounds check).
// Kernel 6 at 1024 threads needs more than 48 KiB of dynamic shared memory.
namespace ln = llmc_layernorm;
const int kLnB = 4, kLnT = 64, kLnC = 768;
const char *const kLnShape = "B4T64C768";
const int kLnBlocks[] = {32, 256, 1024};

void layernorm(const char *kernel, int version)
{
    const int B = kLnB, T = kLnT, C = kLnC, N = B * T;
    std::vector<float> in = corpus_floats((size_t)N * C, 21);
    std::vector<float> w = corpus_floats(C, 22), b = corpus_floats(C, 23);
    for (int block : kLnBlocks) {
        corpus_buf inp(in.size() * sizeof(float)), weight(C * sizeof(float));
        corpus_buf bias(C * sizeof(float)), out(in.size() * sizeof(float));
        corpus_buf mean(N * sizeof(float)), rstd(N * sizeof(float));
        inp.upload(in.data());
        weight.upload(w.data());
        bias.upload(b.data());
        out.fill(0);
        mean.fill(0);
        rstd.fill(0);
        float *o = out.as<float>(), *m = mean.as<float>(), *r = rstd.as<float>();
        const float *x = inp.as<float>(), *wt = weight.as<float>(), *bs = bias.as<float>();
        const int warps_grid = ln::ceil_div(N * 32, block);
        if (corpus_ready()) {
            switch (version) {
            case 1:
                ln::layernorm_forward_kernel1<<<ln::ceil_div(N, block), block>>>(o, m, r, x, wt, bs,
                                                                                N, C);
                break;
            case 2:
                ln::mean_kernel<<<N, block, block * sizeof(float)>>>(m, x, N, C, block);
                ln::rstd_kernel<<<N, block, block * sizeof(float)>>>(r, x, m, N, C, block);
                ln::normalization_kernel<<<ln::ceil_div(B * T * C, 256), 256>>>(o, x, m, r, wt,
                                                                                bs, B, T, C);
                break;
            case 3:
                ln::layernorm_forward_kernel3<<<warps_grid, block>>>(o, m, r, x, wt, bs, N, C);
                break;
            case 4:
                ln::layernorm_forward_kernel4<<<warps_grid, block>>>(o, m, r, x, wt, bs, N, C);
                break;
            case 5:
                ln::layernorm_forward_kernel5<<<N, block>>>(o, m, r, x, wt, bs, N, C);
                break;
            case 6: {
                // Its launcher falls back to kernel 5 when the attribute is refused; here that
                // is reported instead, since it is kernel 6 that is under test.
                const int block_y = block / 32;
                const size_t smem = (2 + block_y) * C * sizeof(float);
                if (CORPUS_CHECK(cudaFuncSetAttribute(ln::layernorm_forward_kernel6,
                                                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                      (int)smem)))
                    ln::layernorm_forward_kernel6<<<ln::ceil_div(N, block_y), dim3(32, block_y),
                                                    smem>>>(o, m, r, x, wt, bs, N, C);
                break;
            }
            }
        }
        corpus_report(kProject, kernel, tag(kLnShape, block), corpus_finish_launch(),
                      {{"out", &out}, {"mean", &mean}, {"rstd", &rstd}});
    }
}

// ---------------------------------------------------------------------------------------------
// matmul: out (B*T x OC) = inp (B*T x C) . weight^T (C x OC) + bias. Kernel 4 computes 128x128
// tiles 32 channels at a time with 16-byte loads: B*T and OC multiples of 128, C of 32.
namespace mm = llmc_matmul;
const int kMmB = 2, kMmT = 128, kMmC = 256, kMmOC = 384;
const char *const kMmShape = "B2T128C256OC384";

struct matmul_data {
    std::vector<float> in = corpus_floats((size_t)kMmB * kMmT * kMmC, 31);
    std::vector<float> w = corpus_floats((size_t)kMmOC * kMmC, 32);
    std::vector<float> b = corpus_floats(kMmOC, 33);
    corpus_buf inp{in.size() * sizeof(float)}, weight{w.size() * sizeof(float)};
    corpus_buf bias{b.size() * sizeof(float)}, out{(size_t)kMmB * kMmT * kMmOC * sizeof(float)};
    matmul_data()
    {
        inp.upload(in.data());
        weight.upload(w.data());
        bias.upload(b.data());
        out.fill(0);
    }
};

void matmul(const char *kernel, int version)
{
    const int BT = kMmB * kMmT, C = kMmC, OC = kMmOC;
    // Version 1's block is sqrt_block_size squared; version 4 always uses 16x16.
    const std::vector<int> sqrt_blocks = version == 1 ? std::vector<int>{8, 32}
                                                      : std::vector<int>{16};
    for (int sq : sqrt_blocks) {
        matmul_data d;
        float *o = d.out.as<float>();
        const float *x = d.inp.as<float>(), *w = d.weight.as<float>(), *b = d.bias.as<float>();
        if (corpus_ready()) {
            if (version == 1)
                mm::matmul_forward_kernel1<<<dim3(mm::ceil_div(BT, sq), mm::ceil_div(OC, sq)),
                                             dim3(sq, sq)>>>(o, x, w, b, BT, C, OC);
            else
                mm::matmul_forward_kernel4<<<dim3(mm::ceil_div(BT, 8 * sq),
                                                  mm::ceil_div(OC, 8 * sq)),
                                             dim3(sq, sq)>>>(o, x, w, b, C, OC);
        }
        corpus_report(kProject, kernel, tag(kMmShape, sq * sq), corpus_finish_launch(),
                      {{"out", &d.out}});
    }
}

// Version 2's bias kernel (its product comes from cuBLAS), here on an output of known values.
void add_bias(const char *kernel)
{
    const int block = 256;
    matmul_data d;
    std::vector<float> prior = corpus_floats((size_t)kMmB * kMmT * kMmOC, 34);
    d.out.upload(prior.data());
    if (corpus_ready())
        mm::add_bias<<<mm::ceil_div(kMmOC * kMmB * kMmT, block), block>>>(
            d.out.as<float>(), d.bias.as<float>(), kMmB, kMmT, kMmOC);
    corpus_report(kProject, kernel, tag(kMmShape, block), corpus_finish_launch(),
                  {{"out", &d.out}});
}

template <void (*F)(const char *, int), int V> void variant(const char *name) { F(name, V); }

} // namespace

int main(int argc, char **argv)
{
    return corpus_main(argc, argv,
                       {{"softmax_forward1", variant<softmax, 1>},
                        {"softmax_forward2", variant<softmax, 2>},
                        {"softmax_forward3", variant<softmax, 3>},
                        {"softmax_forward4", variant<softmax, 4>},
                        {"softmax_forward5", variant<softmax, 5>},
                        {"softmax_forward6", variant<softmax, 6>},
                        {"softmax_forward7", variant<softmax, 7>},
                        {"softmax_forward8", variant<softmax, 8>},
                        {"layernorm_forward1", variant<layernorm, 1>},
                        {"layernorm_forward2", variant<layernorm, 2>},
                        {"layernorm_forward3", variant<layernorm, 3>},
                        {"layernorm_forward4", variant<layernorm, 4>},
                        {"layernorm_forward5", variant<layernorm, 5>},
                        {"layernorm_forward6", variant<layernorm, 6>},
                        {"matmul_forward1", variant<matmul, 1>},
                        {"matmul_forward4", variant<matmul, 4>},
                        {"matmul_add_bias", add_bias}});
}
