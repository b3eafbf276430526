// The forged kernels' shared part (uninit_branch.cu, uninit_address.cu, uninit_passed.cu): a
// tiled product of M (j x k) by N (k x l) whose tile elements past the edges are never stored.
// Only threads outside P multiply them; what each forgery does with that sum decides.
#define TILE_WIDTH 16

__device__ __forceinline__ float sum_over_unwritten_edges(const float *M, const float *N, int j,
                                                          int k, int l)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = blockIdx.y * TILE_WIDTH + ty;
    int Col = blockIdx.x * TILE_WIDTH + tx;
    float Pvalue = 0;
    for (int ph = 0; ph < (k + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        if (Row < j && ph * TILE_WIDTH + tx < k)
            Mds[ty][tx] = M[Row * k + ph * TILE_WIDTH + tx];
        if (ph * TILE_WIDTH + ty < k && Col < l)
            Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * l + Col];
        __syncthreads();
        for (int i = 0; i < TILE_WIDTH; ++i)
            if (ph * TILE_WIDTH + i < k)
                Pvalue += Mds[ty][i] * Nds[i][tx]; // UNWRITTEN: edge elements nothing stored
        __syncthreads();
    }
    return Pvalue;
}

void launch_forged(const float *M, const float *N, float *P, int j, int k, int l);

void launch_matmul(const float *M, const float *N, float *P, int j, int k, int l)
{
    launch_forged(M, N, P, j, k, l);
}

#define FORGED_GRID(j, l) \
    dim3((l + TILE_WIDTH - 1) / TILE_WIDTH, (j + TILE_WIDTH - 1) / TILE_WIDTH), \
        dim3(TILE_WIDTH, TILE_WIDTH)
