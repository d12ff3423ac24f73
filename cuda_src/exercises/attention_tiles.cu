// Exercise (notebook 14): tiled attention, one thread a query, every tile the last one too.
//
// q, k, v and o are n x HEAD_DIM numbers in half precision (FP16), row after row: o must become
//     softmax(q k^T / sqrt(HEAD_DIM)) v,   the softmax taken over each query's n scores.
// A block of TILE threads takes TILE queries (one a thread) and walks over the keys TILE at a
// time: its threads stage a tile of keys and values in shared memory (one key each), then each
// thread scores its query against the tile's keys and carries its running max m, its sum l and
// its output row acc from key to key with the online softmax (rescaling l and acc by
// exp(m - m_new) when the max grows). At the end, o = acc / l.
//
// The checker launches attention_tiles with blocks of TILE threads and (n + TILE - 1) / TILE
// blocks, on n shorter than a tile, a whole number of tiles, and a partial last tile.
//
// TODO:
//   1. walk over every tile: (n + TILE - 1) / TILE of them (n / TILE in integers rounds down),
//      the last one partial when n is not a multiple of TILE;
//   2. score only the keys that exist: the last tile has n - tile * TILE of them.
//
// Keep the kernel's name and signature as they are: the checker calls it by name. (extern "C":
// cuda_fp16.h is C++, so the checker compiles this file with no_extern_c=True, notebook 01.)
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
    int tiles = n / TILE;                 // TODO: every tile, the last partial one too
    for (int tile = 0; tile < tiles; ++tile) {
        int j = tile * TILE + t;          // the key this thread stages
        for (int c = 0; c < HEAD_DIM; ++c) {
            Ks[t][c] = j < n ? __half2float(k[(size_t)j * HEAD_DIM + c]) : 0.0f;
            Vs[t][c] = j < n ? __half2float(v[(size_t)j * HEAD_DIM + c]) : 0.0f;
        }
        __syncthreads();
        int keys = TILE;                  // TODO: the keys this tile holds (fewer in the last)
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
