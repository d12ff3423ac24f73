// Summing an array: the reduction ladder, each step one idea faster than the last.
//
// Kernels 1 to 5 sum one piece of the input per block and write that block's sum to
// out[blockIdx.x]; launch them again on the block sums until one value is left. They run with
// block=(REDUCE_BLOCK, 1, 1) = (256, 1, 1): kernels 1 to 3 take 256 elements a block
// (grid = ceil(n / 256)), kernels 4 and 5 take 512 (grid = ceil(n / 512)).
// Kernels 6 and 7 need one launch: any grid, each thread first adds up its share of the whole
// array, and each block adds its sum to *out with one atomic (*out must start at 0).
// Missing elements (past n) count as 0, so any n works.
#define REDUCE_BLOCK 256

// 1. Interleaved addressing, divergent: in step s, the threads whose index is a multiple of 2s
//    add their neighbour s away. Half the lanes of every warp sit out the first step, three
//    quarters the second...: the warps diverge.
__global__ void reduce_interleaved_divergent(const float *in, float *out, int n)
{
    __shared__ float sdata[REDUCE_BLOCK];
    unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (t % (2 * s) == 0)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

// 2. Interleaved addressing, contiguous threads: thread t works on element 2*s*t, so the busy
//    threads are the first ones (whole warps idle instead of half-empty warps)... but a warp's
//    words are now 2s floats apart: for s = 1 they fall in 16 banks, 2 words a bank (a 2-way
//    bank conflict), for s = 2 in 8 banks (4-way), for s = 4 to 16 8 words share a bank (8-way,
//    in a block of 256), and fewer after that, as fewer threads work.
__global__ void reduce_interleaved(const float *in, float *out, int n)
{
    __shared__ float sdata[REDUCE_BLOCK];
    unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * t;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

// 3. Sequential addressing: in each step the first half of the remaining threads adds the
//    second half. Consecutive threads touch consecutive words: no bank conflicts.
__global__ void reduce_sequential(const float *in, float *out, int n)
{
    __shared__ float sdata[REDUCE_BLOCK];
    unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sdata[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

// 4. First add during load: half the threads of kernel 3 were idle from the first step. Each
//    thread now adds two elements (a block's width apart) as it loads them: half the blocks.
__global__ void reduce_first_add(const float *in, float *out, int n)
{
    __shared__ float sdata[REDUCE_BLOCK];
    unsigned int t = threadIdx.x, i = blockIdx.x * (2 * blockDim.x) + t;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[t] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}

// The 32 lanes of a warp add up their values by passing them along in registers: after
// offsets 16, 8, 4, 2, 1, lane 0 holds the warp's sum. No shared memory, no __syncthreads().
__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

// 5. Warp shuffles for the last 32: as kernel 4 until 64 values are left; then the first warp
//    adds the last 64 with shuffles, without the last six barriers. (Block of at least 64.)
__global__ void reduce_warp_shuffle(const float *in, float *out, int n)
{
    __shared__ float sdata[REDUCE_BLOCK];
    unsigned int t = threadIdx.x, i = blockIdx.x * (2 * blockDim.x) + t;
    float v = i < n ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[t] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (t < s)
            sdata[t] += sdata[t + s];
        __syncthreads();
    }
    if (t < 32) {
        v = warp_sum(sdata[t] + sdata[t + 32]);
        if (t == 0) out[blockIdx.x] = v;
    }
}

// A block's threads add up their values: each warp with shuffles, the warps' sums meet in shared
// memory, the first warp adds them, and one atomicAdd puts the block's sum into *out.
__device__ void add_block_sum(float v, float *out)
{
    __shared__ float warp_sums[32];
    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f);
        if (lane == 0) atomicAdd(out, v);
    }
}

// 6. Grid-stride loop, one atomic a block: a grid of any size walks the whole array, each
//    thread adding every (total threads)-th element in registers; then add_block_sum. One
//    launch, one atomic a block: 1,056 in all for a grid that fills an H200's 132 SMs once.
__global__ void reduce_grid_stride(const float *in, float *out, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    add_block_sum(v, out);
}

// 7. Kernel 6 with 16-byte loads: each load instruction brings a float4 (four floats), so a warp
//    moves 512 bytes an instruction instead of 128, and each thread has two of them in flight at
//    once (two independent sums, a and b). The n % 4 floats after the last whole float4 are added
//    by the first threads of the grid. `in` must be 16-byte aligned, as arrays from gpuarray and
//    mem_alloc are (a view that starts elsewhere would not be).
__device__ float4 add4(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

__global__ void reduce_grid_stride_x4(const float *in, float *out, int n)
{
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    int n4 = n / 4, stride = blockDim.x * gridDim.x;
    int first = blockIdx.x * blockDim.x + threadIdx.x, i = first;
    float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f), b = a;
    for (; i + stride < n4; i += 2 * stride) {
        float4 p = in4[i], q = in4[i + stride];     // two 16-byte loads, both in flight at once
        a = add4(a, p);
        b = add4(b, q);
    }
    if (i < n4) {
        float4 p = in4[i];
        a = add4(a, p);
    }
    float v = (a.x + a.y) + (a.z + a.w) + ((b.x + b.y) + (b.z + b.w));
    if (4 * n4 + first < n)
        v += in[4 * n4 + first];
    add_block_sum(v, out);
}

// 8. A count, with __reduce_add_sync. A count is a sum of integers, and for 32-bit integers a
//    warp has one instruction that adds its 32 lanes' values and gives the sum to every lane:
//    __reduce_add_sync (compute capability 8.0 on), where warp_sum needs five shuffles. These
//    two kernels count the elements of `in` above `threshold` with kernel 7's loads, and differ
//    only in how a warp adds its lanes' counts. A count is exact, whatever the order of the adds.
__device__ unsigned int warp_count(unsigned int c, bool one_instruction)
{
#if __CUDA_ARCH__ >= 800                                // older GPUs have no such instruction
    if (one_instruction)
        return __reduce_add_sync(0xffffffff, c);        // every lane gets the warp's sum
#endif
    for (int offset = 16; offset > 0; offset /= 2)
        c += __shfl_down_sync(0xffffffff, c, offset);   // lane 0 gets the warp's sum
    return c;
}

__device__ unsigned int above(float4 p, float threshold)
{
    return (p.x > threshold) + (p.y > threshold) + (p.z > threshold) + (p.w > threshold);
}

__device__ void count_above(const float *in, unsigned int *out, int n, float threshold,
                            bool one_instruction)
{
    __shared__ unsigned int warp_counts[32];
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    int n4 = n / 4, stride = blockDim.x * gridDim.x;
    int first = blockIdx.x * blockDim.x + threadIdx.x, i = first;
    unsigned int a = 0, b = 0;
    for (; i + stride < n4; i += 2 * stride) {
        float4 p = in4[i], q = in4[i + stride];     // two 16-byte loads in flight, as kernel 7
        a += above(p, threshold);
        b += above(q, threshold);
    }
    if (i < n4)
        a += above(in4[i], threshold);
    if (4 * n4 + first < n)
        a += in[4 * n4 + first] > threshold;
    unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int c = warp_count(a + b, one_instruction);
    if (lane == 0) warp_counts[warp] = c;
    __syncthreads();
    if (warp == 0) {
        c = warp_count(lane < (blockDim.x + 31) / 32 ? warp_counts[lane] : 0u, one_instruction);
        if (lane == 0) atomicAdd(out, c);
    }
}

__global__ void count_above_shuffle(const float *in, unsigned int *out, int n, float threshold)
{
    count_above(in, out, n, threshold, false);
}

__global__ void count_above_reduce(const float *in, unsigned int *out, int n, float threshold)
{
    count_above(in, out, n, threshold, true);
}
