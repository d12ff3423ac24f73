// Counting grey levels: the 256-bin histogram of an 8-bit image, bins[v] = the number of pixels
// of value v. Many threads add to the same few counters, so this is the chapter's example of
// atomics, of contention (threads queueing for one counter) and of privatisation (each block
// counting in its own shared-memory copy of the bins first).
//
// Kernels 0 to 4 add to bins, which must be 0 before the launch (drv.memset_d32(bins, 0, 256));
// kernel 5 writes them. Kernels 0 and 1 take one thread a pixel (grid = ceil(n / block)); kernels
// 2 to 5 take any grid and any block, their threads walking the image with a grid-stride loop.
#define BINS 256

// 0. Wrong on purpose. bins[v]++ is three steps: read bins[v], add one, write it back. Two threads
//    that read the same bin before either writes both write the old value + 1: one pixel is lost.
__global__ void histogram_racy(const unsigned char *pixels, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        bins[pixels[i]]++;
}

// 1. Global atomics: atomicAdd does the three steps as one, which no other thread can split.
//    Right, but every pixel is an atomic on one of 256 counters in global memory, and threads
//    that hit the same counter wait for each other in the L2 cache, where global atomics are done.
__global__ void histogram_global(const unsigned char *pixels, unsigned int *bins, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[pixels[i]], 1u);
}

// The privatised kernels' first and last steps: a block's shared bins set to 0, and added to the
// global bins (one atomic a bin, skipped where the block counted nothing).
__device__ void clear_bins(unsigned int *local)
{
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
}

__device__ void add_bins(const unsigned int *local, unsigned int *bins)
{
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b] > 0)
            atomicAdd(&bins[b], local[b]);
}

// 2. Privatised: each block counts into its own bins in shared memory, where atomics are done
//    next to the cores and only the block's own threads compete; then adds them to the global
//    bins once. Two barriers: no thread may count before every bin is 0, and no thread may add a
//    bin to the global ones before every thread has finished counting.
__global__ void histogram_shared(const unsigned char *pixels, unsigned int *bins, int n)
{
    __shared__ unsigned int local[BINS];
    clear_bins(local);
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[pixels[i]], 1u);
    __syncthreads();
    add_bins(local, bins);
}

// 3. Privatised, 16 pixels a thread: one 16-byte load (a uint4, as in notebook 04) brings 16
//    pixels, counted from the four 32-bit words a byte at a time. The n % 16 pixels after the last
//    whole group are counted by the first threads of the grid. `pixels` must be 16-byte aligned.
__device__ void count_word(unsigned int *local, unsigned int w)
{
    for (int k = 0; k < 4; k++)
        atomicAdd(&local[(w >> (8 * k)) & 0xff], 1u);
}

__device__ void count_x16(unsigned int *local, const unsigned char *pixels, int n)
{
    const uint4 *groups = reinterpret_cast<const uint4 *>(pixels);
    int first = blockIdx.x * blockDim.x + threadIdx.x, whole = n / 16;
    for (int g = first; g < whole; g += blockDim.x * gridDim.x) {
        uint4 v = groups[g];
        count_word(local, v.x);
        count_word(local, v.y);
        count_word(local, v.z);
        count_word(local, v.w);
    }
    if (16 * whole + first < n)
        atomicAdd(&local[pixels[16 * whole + first]], 1u);
}

__global__ void histogram_shared_x16(const unsigned char *pixels, unsigned int *bins, int n)
{
    __shared__ unsigned int local[BINS];
    clear_bins(local);
    __syncthreads();
    count_x16(local, pixels, n);
    __syncthreads();
    add_bins(local, bins);
}

// 4. As kernel 3, with runs: a thread keeps the value it last saw and how many times in a row
//    (in registers), and does one atomic a run instead of one a pixel. A one-colour image is one
//    long run; in a photograph neighbouring pixels often have the same grey level too.
struct Run {
    unsigned int value, count;
};

__device__ void count_run(unsigned int *local, Run &run, unsigned int v)
{
    if (v == run.value) {
        run.count++;
        return;
    }
    if (run.count > 0)
        atomicAdd(&local[run.value], run.count);
    run.value = v;
    run.count = 1;
}

__device__ void count_word_runs(unsigned int *local, Run &run, unsigned int w)
{
    for (int k = 0; k < 4; k++)
        count_run(local, run, (w >> (8 * k)) & 0xff);
}

__global__ void histogram_shared_runs(const unsigned char *pixels, unsigned int *bins, int n)
{
    __shared__ unsigned int local[BINS];
    clear_bins(local);
    __syncthreads();
    const uint4 *groups = reinterpret_cast<const uint4 *>(pixels);
    int first = blockIdx.x * blockDim.x + threadIdx.x, whole = n / 16;
    Run run = {0, 0};
    for (int g = first; g < whole; g += blockDim.x * gridDim.x) {
        uint4 v = groups[g];
        count_word_runs(local, run, v.x);
        count_word_runs(local, run, v.y);
        count_word_runs(local, run, v.z);
        count_word_runs(local, run, v.w);
    }
    if (16 * whole + first < n)
        count_run(local, run, pixels[16 * whole + first]);
    if (run.count > 0)
        atomicAdd(&local[run.value], run.count);
    __syncthreads();
    add_bins(local, bins);
}

// 5. Kernel 3 in one launch, without the memset: on a small image the time is mostly what each
//    launch costs from Python, and this saves the memset's launch. The blocks add their bins
//    into scratch (256 counters and a count of finished blocks, all 0 before the first launch)
//    and count themselves in; the last block to arrive moves the totals into bins with
//    atomicExch, which reads each counter and sets it to 0 in one step, so scratch is ready for
//    the next launch and bins need not be cleared. Each thread's __threadfence() makes its
//    additions visible to every block before its block counts itself in: whoever arrives last
//    sees them all.
__global__ void histogram_once(const unsigned char *pixels, unsigned int *bins,
                               unsigned int *scratch, int n)
{
    __shared__ unsigned int local[BINS];
    __shared__ bool last;
    clear_bins(local);
    __syncthreads();
    count_x16(local, pixels, n);
    __syncthreads();
    add_bins(local, scratch);
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(&scratch[BINS], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last)
        return;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        bins[b] = atomicExch(&scratch[b], 0u);
    if (threadIdx.x == 0)
        scratch[BINS] = 0;
}
