// Two kernels for test_perfmodel's cubin: one that needs few registers, one that keeps many
// values live at once (so ptxas gives it more).
extern "C" __global__ void few(float *p) { p[threadIdx.x] += 1.0f; }

extern "C" __global__ void many(const float *in, float *out)
{
    float acc[48];
#pragma unroll
    for (int i = 0; i < 48; i++)
        acc[i] = in[threadIdx.x + i * blockDim.x];
#pragma unroll
    for (int r = 0; r < 8; r++)
#pragma unroll
        for (int i = 0; i < 48; i++)
            acc[i] = acc[i] * acc[(i + r + 1) % 48] + 1.0f;
#pragma unroll
    for (int i = 0; i < 48; i++)
        out[threadIdx.x + i * blockDim.x] = acc[i];
}
