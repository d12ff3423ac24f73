// Solution (notebook 14): tiled attention, one thread a query, every tile the last one too.
//
// ceil(n / TILE) tiles, written (n + TILE - 1) / TILE; in the last one only n - tile * TILE keys
// exist, and only those are scored: the zeros staged in place of the missing ones would be keys
// with a score of 0, which take a share of the softmax (exp(0 - m) is not 0).
#include <cuda_fp16.h>

#define HEAD_DIM 64
#define TILE 32

extern "C" __global__ void attention_tiles(const __half *q, const __half *k, const __half *v, __half *o, int n)
{
    __shared__ float Ks[TILE][HEAD_DIM], Vs[TILE][HEAD_DIM];
    int t = threadIdx.x, i = blockIdx.x * TILE + t;       // this thread's query
    const float scale = rsqrtf((float)HEAD_DIM);
    float qi[HEAD_DIM], acc[HEAD_DIM];
    for (int c = 0; c < HEAD_DIM; ++c) {
        qi[c] = i < n ? __half2float(q[(size_t)i * HEAD_DIM + c]) * scale : 0.0f;
        acc[c] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;
    int tiles = (n + TILE - 1) / TILE;
    for (int tile = 0; tile < tiles; ++tile) {
        int j = tile * TILE + t;          // the key this thread stages
        for (int c = 0; c < HEAD_DIM; ++c) {
            Ks[t][c] = j < n ? __half2float(k[(size_t)j * HEAD_DIM + c]) : 0.0f;
            Vs[t][c] = j < n ? __half2float(v[(size_t)j * HEAD_DIM + c]) : 0.0f;
        }
        __syncthreads();
        int keys = min(TILE, n - tile * TILE);
        for (int jj = 0; jj < keys; ++jj) {
            float s = 0.0f;
            for (int c = 0; c < HEAD_DIM; ++c)
                s += qi[c] * Ks[jj][c];
            float m_new = fmaxf(m, s);
            float rescale = __expf(m - m_new), p = __expf(s - m_new);
            l = l * rescale + p;
            for (int c = 0; c < HEAD_DIM; ++c)
                acc[c] = acc[c] * rescale + p * Vs[jj][c];
            m = m_new;
        }
        __syncthreads();                  // the tile is used up before the next is staged
    }
    if (i < n)
        for (int c = 0; c < HEAD_DIM; ++c)
            o[(size_t)i * HEAD_DIM + c] = __float2half(acc[c] / l);
}
