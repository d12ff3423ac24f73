// Softmax and attention (notebook 14): every array is stored in half precision (FP16, 2 bytes a
// number, cuda_fp16.h), every sum and exponential is computed in float (FP32).
//
// softmax(x)_c = exp(x_c - m) / sum over c' of exp(x_c' - m), m = the row's max: subtracting m
// changes nothing mathematically and keeps every exp() at most 1, so that none overflows.
//
// Attention, for one head: Q, K and V are n x HEAD_DIM (n queries, n keys and their values), and
//     O = softmax(Q K^T * scale) V,   scale = 1 / sqrt(HEAD_DIM),   the softmax taken row by row.
// Heads are stored one after the other ([heads][n][HEAD_DIM]) and blockIdx.y (z for the tiled
// products) says which head a block works on.
//
// cuda_fp16.h is C++ (it overloads +, * and the rest for __half), and C++ overloads cannot sit in
// the extern "C" { } that SourceModule wraps around a file (notebook 01): compile this file with
// no_extern_c=True, and each kernel says extern "C" itself, so that get_function finds its name.
#include <cuda_fp16.h>

#define HEAD_DIM 64
#define FULL_MASK 0xffffffffu

// The warp's max and sum with a butterfly of __shfl_xor_sync: after offsets 16, 8, 4, 2, 1 every
// lane (not only lane 0, as with __shfl_down_sync) holds the result, so all can use it at once.
__device__ float warp_max(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    return v;
}

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

// The block's max (take_max) or sum of v, in every thread: each warp by shuffles, the warps'
// results through shared memory, then every warp combines them. (blockDim.x: a multiple of 32.)
__device__ float block_reduce(float v, bool take_max)
{
    __shared__ float partial[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    v = take_max ? warp_max(v) : warp_sum(v);
    __syncthreads();                      // a previous call's readers are done with partial
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < warps ? partial[lane] : (take_max ? -INFINITY : 0.0f);
    return take_max ? warp_max(v) : warp_sum(v);
}

// 1. One warp a row: three passes over the row (its max, the sum of exp(x - max), the outputs),
//    lane k reading columns k, k+32, k+64, ...: a warp reads 32 neighbouring numbers at a time.
extern "C" __global__ void softmax_warp(const __half *x, __half *y, int rows, int cols)
{
    int lane = threadIdx.x % 32;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;              // a whole warp leaves: the shuffles stay full
    const __half *in = x + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32)
        m = fmaxf(m, __half2float(in[c]));
    m = warp_max(m);
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32)
        sum += __expf(__half2float(in[c]) - m);
    float inv = 1.0f / warp_sum(sum);
    for (int c = lane; c < cols; c += 32)
        y[(size_t)row * cols + c] = __float2half(__expf(__half2float(in[c]) - m) * inv);
}

// 2. One block a row: the same three passes, blockDim.x threads on a row instead of 32, for the
//    long rows where one warp a row leaves the GPU with too few warps (or too much work each).
extern "C" __global__ void softmax_block(const __half *x, __half *y, int cols)
{
    const __half *in = x + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, __half2float(in[c]));
    m = block_reduce(m, true);
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        sum += __expf(__half2float(in[c]) - m);
    float inv = 1.0f / block_reduce(sum, false);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[(size_t)blockIdx.x * cols + c] = __float2half(__expf(__half2float(in[c]) - m) * inv);
}

// The online softmax's step: (m, l) is the max of some numbers and the sum of their exp(x - m);
// merge in (m2, l2), another part's. Whichever max is smaller, its sum was taken against the
// wrong max and is rescaled by exp(old max - new max) (one number is the part (x, 1)).
__device__ void online_merge(float &m, float &l, float m2, float l2)
{
    float m_new = fmaxf(m, m2);
    if (m_new == -INFINITY) return;       // both parts empty: exp(-inf - -inf) would be NaN
    l = l * __expf(m - m_new) + l2 * __expf(m2 - m_new);
    m = m_new;
}

// 3. The online softmax, one warp a row: the max and the sum in ONE pass over the row (each lane
//    keeps its running pair, the lanes' pairs merged by shuffles), then the outputs: two passes
//    over memory instead of three.
extern "C" __global__ void softmax_online(const __half *x, __half *y, int rows, int cols)
{
    int lane = threadIdx.x % 32;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    const __half *in = x + (size_t)row * cols;
    float m = -INFINITY, l = 0.0f;
    for (int c = lane; c < cols; c += 32)
        online_merge(m, l, __half2float(in[c]), 1.0f);
    for (int offset = 16; offset > 0; offset /= 2)
        online_merge(m, l, __shfl_xor_sync(FULL_MASK, m, offset),
                     __shfl_xor_sync(FULL_MASK, l, offset));
    float inv = 1.0f / l;
    for (int c = lane; c < cols; c += 32)
        y[(size_t)row * cols + c] = __float2half(__expf(__half2float(in[c]) - m) * inv);
}

// ---- Attention, three kernels: S = scale Q K^T, P = softmax(S) (softmax_block, in place),
//      O = P V. S and P are n x n numbers a head, written to memory and read back.
#define TILE 16

// 4a. S = scale * Q K^T: a block of 16 x 16 threads computes a 16 x 16 tile of S. The 16 rows of
//     Q and of K it needs (all HEAD_DIM columns) are staged in shared memory first, as in
//     notebook 08's tiled kernel. Grid: (ceil(n / 16), ceil(n / 16), heads).
extern "C" __global__ void attention_scores(const __half *q, const __half *k, __half *s, int n, float scale)
{
    // One float of padding a row: the product loop's reads Ks[tx][c] fall in 16 banks, not all
    // in one (16-way). The staging stores below stay 2-way, padding or not.
    __shared__ float Qs[TILE][HEAD_DIM + 1], Ks[TILE][HEAD_DIM + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    size_t head = blockIdx.z;
    q += head * n * HEAD_DIM;
    k += head * n * HEAD_DIM;
    s += head * n * n;
    int q_row = blockIdx.y * TILE + ty, k_row = blockIdx.x * TILE + ty;
    for (int c = tx; c < HEAD_DIM; c += TILE) {
        Qs[ty][c] = q_row < n ? __half2float(q[(size_t)q_row * HEAD_DIM + c]) : 0.0f;
        Ks[ty][c] = k_row < n ? __half2float(k[(size_t)k_row * HEAD_DIM + c]) : 0.0f;
    }
    __syncthreads();
    int col = blockIdx.x * TILE + tx;
    if (q_row < n && col < n) {
        float sum = 0.0f;
        for (int c = 0; c < HEAD_DIM; ++c)
            sum += Qs[ty][c] * Ks[tx][c];
        s[(size_t)q_row * n + col] = __float2half(sum * scale);
    }
}

// 4c. O = P V: notebook 08's tiled product (P is n x n, V is n x HEAD_DIM), 16 x 16 tiles along
//     the keys. Grid: (HEAD_DIM / 16, ceil(n / 16), heads).
extern "C" __global__ void attention_values(const __half *p, const __half *v, __half *o, int n)
{
    __shared__ float Ps[TILE][TILE], Vs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    size_t head = blockIdx.z;
    p += head * n * n;
    v += head * n * HEAD_DIM;
    o += head * n * HEAD_DIM;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int j0 = 0; j0 < n; j0 += TILE) {
        Ps[ty][tx] = row < n && j0 + tx < n ? __half2float(p[(size_t)row * n + j0 + tx]) : 0.0f;
        Vs[ty][tx] = j0 + ty < n ? __half2float(v[(size_t)(j0 + ty) * HEAD_DIM + col]) : 0.0f;
        __syncthreads();
        for (int j = 0; j < TILE; ++j)
            sum += Ps[ty][j] * Vs[j][tx];
        __syncthreads();
    }
    if (row < n)
        o[(size_t)row * HEAD_DIM + col] = __float2half(sum);
}

// ---- 5. Fused: one kernel, one block of FUSED_THREADS a query. Its row of scores lives in
//      shared memory, never in global memory; but every query reads all of K and V again.
#define FUSED_THREADS 128
#define FUSED_MAX_N 8192                  // the row of scores must fit: 32 KB of shared memory

extern "C" __global__ void attention_fused(const __half *q, const __half *k, const __half *v, __half *o,
                                int n, float scale)
{
    __shared__ float qs[HEAD_DIM], p[FUSED_MAX_N], halves[FUSED_THREADS];
    int t = threadIdx.x, lane = t % 32, warp = t / 32, i = blockIdx.x;
    size_t head = blockIdx.y;
    k += head * n * HEAD_DIM;
    v += head * n * HEAD_DIM;
    if (t < HEAD_DIM)
        qs[t] = __half2float(q[(head * n + i) * HEAD_DIM + t]) * scale;
    __syncthreads();
    float m = -INFINITY;                  // a warp a key: the lanes read its 64 numbers together
    for (int j = warp; j < n; j += FUSED_THREADS / 32) {
        const __half *kj = k + (size_t)j * HEAD_DIM;
        float sc = warp_sum(qs[lane] * __half2float(kj[lane])
                            + qs[lane + 32] * __half2float(kj[lane + 32]));
        if (lane == 0) p[j] = sc;
        m = fmaxf(m, sc);
    }
    m = block_reduce(m, true);            // (its barrier also makes p[] visible to the block)
    float l = 0.0f;
    for (int j = t; j < n; j += FUSED_THREADS) {
        p[j] = __expf(p[j] - m);
        l += p[j];
    }
    l = block_reduce(l, false);
    int c = t % HEAD_DIM, part = t / HEAD_DIM;   // two threads a column, every other key each
    float acc = 0.0f;
    for (int j = part; j < n; j += FUSED_THREADS / HEAD_DIM)
        acc += p[j] * __half2float(v[(size_t)j * HEAD_DIM + c]);
    halves[t] = acc;
    __syncthreads();
    if (t < HEAD_DIM)
        o[(head * n + i) * HEAD_DIM + t] = __float2half((halves[t] + halves[t + HEAD_DIM]) / l);
}

// ---- 6. Tiled, in the manner of FlashAttention: a block takes BQ queries and walks over the
//      keys BK at a time. Each tile of K and V is staged in shared memory once and used by all BQ
//      queries; the online softmax carries each query's max m, sum l and output row acc from
//      tile to tile, rescaling l and acc when the max grows. No n x n matrix anywhere.
#define BQ 64                             // queries a block
#define BK 32                             // keys a tile: lane j of a warp scores key j
#define FLASH_THREADS 256                 // 8 warps
#define ROWS (BQ / (FLASH_THREADS / 32))  // queries a warp: 8

extern "C" __global__ void __launch_bounds__(FLASH_THREADS)
attention_tiled(const __half *q, const __half *k, const __half *v, __half *o, int n, float scale)
{
    __shared__ __align__(16) float Qs[BQ][HEAD_DIM];    // read 4 at a time (float4)
    __shared__ float Ks[BK][HEAD_DIM + 1];              // + 1: lanes read different rows
    __shared__ float Vs[BK][HEAD_DIM];
    __shared__ __align__(16) float Ps[BQ][BK];          // this tile's exp(s - m), by query
    int t = threadIdx.x, lane = t % 32, warp = t / 32, q0 = blockIdx.x * BQ;
    size_t head = blockIdx.y;
    q += head * n * HEAD_DIM;
    k += head * n * HEAD_DIM;
    v += head * n * HEAD_DIM;
    o += head * n * HEAD_DIM;
    for (int e = t; e < BQ * HEAD_DIM; e += FLASH_THREADS) {
        int r = e / HEAD_DIM, c = e % HEAD_DIM;
        Qs[r][c] = q0 + r < n ? __half2float(q[(size_t)(q0 + r) * HEAD_DIM + c]) * scale : 0.0f;
    }
    float m[ROWS], l[ROWS], acc[ROWS][2];  // query warp * ROWS + i: columns lane and lane + 32
    for (int i = 0; i < ROWS; ++i) {
        m[i] = -INFINITY;
        l[i] = acc[i][0] = acc[i][1] = 0.0f;
    }
    for (int k0 = 0; k0 < n; k0 += BK) {  // every tile, the last partial one too
        __syncthreads();                  // Qs is loaded; the last tile's Ks, Vs are used up
        for (int e = t; e < BK * HEAD_DIM; e += FLASH_THREADS) {
            int r = e / HEAD_DIM, c = e % HEAD_DIM;
            bool key = k0 + r < n;        // keys past n: zeros (and no score, below)
            Ks[r][c] = key ? __half2float(k[(size_t)(k0 + r) * HEAD_DIM + c]) : 0.0f;
            Vs[r][c] = key ? __half2float(v[(size_t)(k0 + r) * HEAD_DIM + c]) : 0.0f;
        }
        __syncthreads();
        float s[ROWS] = {};
        for (int c = 0; c < HEAD_DIM; c += 4) {
            float k_0 = Ks[lane][c], k_1 = Ks[lane][c + 1], k_2 = Ks[lane][c + 2],
                  k_3 = Ks[lane][c + 3];
            for (int i = 0; i < ROWS; ++i) {
                float4 qv = *reinterpret_cast<const float4 *>(&Qs[warp * ROWS + i][c]);
                s[i] += qv.x * k_0 + qv.y * k_1 + qv.z * k_2 + qv.w * k_3;
            }
        }
        for (int i = 0; i < ROWS; ++i) {
            float score = k0 + lane < n ? s[i] : -INFINITY;
            float m_new = fmaxf(m[i], warp_max(score));
            float p = __expf(score - m_new);               // 0 for a key past n
            float rescale = __expf(m[i] - m_new);          // 0 on the first tile
            l[i] = l[i] * rescale + warp_sum(p);
            acc[i][0] *= rescale;
            acc[i][1] *= rescale;
            m[i] = m_new;
            Ps[warp * ROWS + i][lane] = p;
        }
        __syncwarp();                     // a warp reads only its own rows of Ps
        for (int j = 0; j < BK; j += 4) {
            float v0[4], v1[4];
            for (int u = 0; u < 4; ++u) {
                v0[u] = Vs[j + u][lane];
                v1[u] = Vs[j + u][lane + 32];
            }
            for (int i = 0; i < ROWS; ++i) {
                float4 pv = *reinterpret_cast<const float4 *>(&Ps[warp * ROWS + i][j]);
                acc[i][0] += pv.x * v0[0] + pv.y * v0[1] + pv.z * v0[2] + pv.w * v0[3];
                acc[i][1] += pv.x * v1[0] + pv.y * v1[1] + pv.z * v1[2] + pv.w * v1[3];
            }
        }
        __syncwarp();                     // its reads of Ps are done before the next tile's writes
    }
    for (int i = 0; i < ROWS; ++i) {
        int row = q0 + warp * ROWS + i;
        if (row < n) {
            o[(size_t)row * HEAD_DIM + lane] = __float2half(acc[i][0] / l[i]);
            o[(size_t)row * HEAD_DIM + lane + 32] = __float2half(acc[i][1] / l[i]);
        }
    }
}
