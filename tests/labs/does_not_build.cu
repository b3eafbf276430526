// A lab file with a compile error on line 9, for the test that nvcc's message reaches the student
// with their own file name and line number.
#include "lab.h"

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    float Pvalue = M[Row * Width] * N[Col] +;
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    MatrixMulKernel<<<1, 1>>>(M, N, P, k);
}
