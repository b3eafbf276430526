// Runs the reduction kernels of NVIDIA/cuda-samples (Samples/2_Concepts_and_Techniques/reduction:
// reduce0-reduce6 and the sample's kernels 7-9) through the sample's own launcher, reduce<T>(),
// and prints a digest of the per-block partial sums of the first pass.
//
// Built with -I<corpus>/cuda-samples/Samples/2_Concepts_and_Techniques/reduction. Only
// reduction_kernel.cu is included: reduction.cpp is the sample's main program.
#include "corpus_digest.h"

#include <type_traits>

#include "reduction_kernel.cu"

// The launcher calls it to choose reduce6's and reduce7's variant; reduction.cpp defines it.
extern "C" bool isPow2(unsigned int x) { return (x & (x - 1)) == 0; }

namespace {

const char *const kProject = "cuda-samples";
const int kMaxBlocks = 64; // the sample's default --maxblocks

unsigned int next_pow2(unsigned int x)
{
    --x;
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    return ++x;
}

// The sample's getNumBlocksAndThreads(): kernels 0-2 reduce one element per thread, the others
// two while loading; kernels 6 and up loop over the input with at most kMaxBlocks blocks.
void blocks_and_threads(int kernel, int n, int max_threads, int &blocks, int &threads)
{
    if (kernel < 3) {
        threads = n < max_threads ? (int)next_pow2(n) : max_threads;
        blocks = (n + threads - 1) / threads;
    } else {
        threads = n < max_threads * 2 ? (int)next_pow2((n + 1) / 2) : max_threads;
        blocks = (n + threads * 2 - 1) / (threads * 2);
    }
    if (kernel >= 6)
        blocks = blocks < kMaxBlocks ? blocks : kMaxBlocks;
}

template <class T> const char *type_name();
template <> const char *type_name<int>() { return "int"; }
template <> const char *type_name<float>() { return "float"; }
template <> const char *type_name<double>() { return "double"; }

template <class T> std::vector<T> inputs(int n)
{
    corpus_rng rng(41);
    std::vector<T> v(n);
    for (T &x : v)
        x = std::is_integral<T>::value ? (T)(rng.next() % 2001) - 1000 : (T)rng.uniform(-1, 1);
    return v;
}

template <class T> void reduction(const char *name, int kernel, int n, int max_threads)
{
    int blocks, threads;
    blocks_and_threads(kernel, n, max_threads, blocks, threads);
    if (kernel == 9 && threads < 64)
        return; // the launcher would run kernel 7 instead
    std::vector<T> in = inputs<T>(n);
    corpus_buf idata(n * sizeof(T)), odata(blocks * sizeof(T));
    idata.upload(in.data());
    odata.fill(0);
    if (corpus_ready())
        reduce<T>(n, threads, blocks, kernel, idata.as<T>(), odata.as<T>());
    std::string config = std::string(type_name<T>()) + "-n" + std::to_string(n) + "-t" +
                         std::to_string(threads) + "-b" + std::to_string(blocks);
    corpus_report(kProject, name, config, corpus_finish_launch(), {{"partial", &odata}});
}

// Powers of two and not (reduce6 and 7 have a variant for each), blocks of 32 threads (the
// launcher then gives two warps' worth of shared memory), one block and many, float, int and
// double.
template <int Kernel> void run(const char *name)
{
    reduction<float>(name, Kernel, 1 << 20, 256);
    reduction<float>(name, Kernel, 1 << 16, 256);
    reduction<float>(name, Kernel, 10007, 128);
    reduction<float>(name, Kernel, 1000, 512);
    reduction<float>(name, Kernel, 77, 256);
    reduction<float>(name, Kernel, 40, 32);
    reduction<int>(name, Kernel, 50000, 256);
    reduction<double>(name, Kernel, 4096, 128);
}

} // namespace

int main(int argc, char **argv)
{
    return corpus_main(argc, argv,
                       {{"reduce0", run<0>}, {"reduce1", run<1>}, {"reduce2", run<2>},
                        {"reduce3", run<3>}, {"reduce4", run<4>}, {"reduce5", run<5>},
                        {"reduce6", run<6>}, {"reduce7", run<7>}, {"cg_reduce", run<8>},
                        {"multi_warp_cg_reduce", run<9>}});
}
