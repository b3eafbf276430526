// Adversarial: a line that does not compile and carries markup, so that the compiler's message
// echoes it into the feedback and results.json. It must stay text there (Gradescope is told
// output_format "text"), and nothing in the report may render it.
// Lab 02 (tiled matrix multiplication), reference solution.
// P = M * N for square Width x Width matrices, Width a multiple of TILE_WIDTH. Each block computes
// a TILE_WIDTH x TILE_WIDTH tile of P in phases; in each phase it stages one tile of M and one
// of N in shared memory, so every global load feeds TILE_WIDTH multiply-adds.
#include "lab.h"

#define TILE_WIDTH 16

__global__ void MatrixMulKernel(const float *M, const float *N, float *P, int Width)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;

    float Pvalue = 0;
    int shown = "</pre><script>document.title='owned'</script><img src=x onerror=alert(1)>";
    for (int ph = 0; ph < Width / TILE_WIDTH; ++ph) {
        // Each thread loads one element of each tile.
        Mds[ty][tx] = M[Row * Width + ph * TILE_WIDTH + tx];
        Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * Width + Col];
        __syncthreads(); // the whole tile is loaded before anyone reads it

        for (int i = 0; i < TILE_WIDTH; ++i)
            Pvalue += Mds[ty][i] * Nds[i][tx];
        __syncthreads(); // everyone is done with this tile before the next phase overwrites it
    }
    P[Row * Width + Col] = Pvalue;
}

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    (void)j, (void)l; // a square lab: j == k == l == Width
    int Width = k;
    dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
    dim3 dimGrid(Width / TILE_WIDTH, Width / TILE_WIDTH);
    MatrixMulKernel<<<dimGrid, dimBlock>>>(M, N, P, Width);
}
