// What the corpus drivers share: a digest of an output's raw bytes, inputs that are the same on
// every machine, and error checks that report and go on (one kernel's failure must not hide the
// results of the others).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

// FNV-1a, 64 bits: simple enough to recompute anywhere from a saved output.
static inline uint64_t corpus_fnv1a(const void *data, size_t bytes)
{
    const unsigned char *p = static_cast<const unsigned char *>(data);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

// splitmix64: no dependence on the C library's rand(), which differs between machines.
struct corpus_rng {
    uint64_t state;
    explicit corpus_rng(uint64_t seed) : state(seed) {}
    uint64_t next()
    {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [lo, hi) with a full 24-bit mantissa, so sums round and an operation order or a
    // fused multiply-add that differs shows in the result.
    float uniform(float lo, float hi)
    {
        return lo + (hi - lo) * (float)(next() >> 40) * (1.0f / 16777216.0f);
    }
};

static inline std::vector<float> corpus_floats(size_t n, uint64_t seed, float lo = -1.0f,
                                               float hi = 1.0f)
{
    corpus_rng rng(seed);
    std::vector<float> v(n);
    for (auto &x : v)
        x = rng.uniform(lo, hi);
    return v;
}

// The first failure while preparing a kernel's buffers: the kernel is then not launched (its
// pointers may be null) and its outputs report this error instead.
static cudaError_t corpus_pending = cudaSuccess;

// Prints where a CUDA call failed and yields false; the driver goes on with its next kernel.
#define CORPUS_CHECK(call) corpus_check((call), #call, __FILE__, __LINE__)

static inline bool corpus_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess)
        return true;
    // The first failure says it all: the calls after it fail the same way.
    if (corpus_pending == cudaSuccess) {
        fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, cudaGetErrorString(err));
        corpus_pending = err;
    }
    cudaGetLastError();
    return false;
}

static inline bool corpus_ready() { return corpus_pending == cudaSuccess; }

// A device buffer the drivers fill from the host and read back; freed at scope exit.
struct corpus_buf {
    void *dev = nullptr;
    size_t bytes = 0;
    explicit corpus_buf(size_t n) : bytes(n) { CORPUS_CHECK(cudaMalloc(&dev, n)); }
    ~corpus_buf() { cudaFree(dev); }
    corpus_buf(const corpus_buf &) = delete;
    corpus_buf &operator=(const corpus_buf &) = delete;
    template <class T> T *as() const { return static_cast<T *>(dev); }
    bool upload(const void *host) const
    {
        return CORPUS_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    }
    // Memory a kernel may leave unwritten must read the same on every backend.
    bool fill(int byte) const { return CORPUS_CHECK(cudaMemset(dev, byte, bytes)); }
};

struct corpus_out {
    const char *name;
    const corpus_buf *buf;
};

// The launch's error (configuration, then execution), cleared so the next kernel starts clean.
static inline cudaError_t corpus_finish_launch()
{
    cudaError_t err = corpus_pending;
    corpus_pending = cudaSuccess;
    if (err == cudaSuccess)
        err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    cudaGetLastError();
    return err;
}

// One line per output buffer: "<project> <kernel> <config>/<buffer>: <digest or error>".
static inline void corpus_report(const char *project, const char *kernel,
                                 const std::string &config, cudaError_t err,
                                 std::initializer_list<corpus_out> outs)
{
    for (const corpus_out &o : outs) {
        std::string key = std::string(project) + " " + kernel + " " + config + "/" + o.name;
        cudaError_t e = err;
        std::vector<unsigned char> host(o.buf->bytes);
        if (e == cudaSuccess)
            e = cudaMemcpy(host.data(), o.buf->dev, o.buf->bytes, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            cudaGetLastError();
            printf("%s: error: %s\n", key.c_str(), cudaGetErrorString(e));
        } else {
            printf("%s: %016llx\n", key.c_str(),
                   (unsigned long long)corpus_fnv1a(host.data(), host.size()));
        }
    }
    fflush(stdout);
}

// The kernels a driver offers, by name; "--list" prints them and names on the command line pick
// some, so a script can run each kernel in a process of its own (a crash or a hang then costs one
// kernel, not the whole driver).
struct corpus_kernel {
    const char *name;
    void (*run)(const char *name);
};

static inline int corpus_main(int argc, char **argv, const std::vector<corpus_kernel> &kernels)
{
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (const corpus_kernel &k : kernels)
            printf("%s\n", k.name);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        bool known = false;
        for (const corpus_kernel &k : kernels)
            known = known || strcmp(k.name, argv[i]) == 0;
        if (!known) {
            fprintf(stderr, "%s: no kernel named %s (--list names them)\n", argv[0], argv[i]);
            return 2;
        }
    }
    for (const corpus_kernel &k : kernels) {
        bool chosen = argc == 1;
        for (int i = 1; i < argc; i++)
            chosen = chosen || strcmp(k.name, argv[i]) == 0;
        if (chosen)
            k.run(k.name);
    }
    return 0;
}
