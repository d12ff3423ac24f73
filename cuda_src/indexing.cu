// indexing.cu: how a thread finds its element (notebook 02_threads_and_blocks).
//
// Every thread of a launch runs the same kernel. What tells threads apart are the
// built-in variables:
//   threadIdx  which thread this is inside its block    (x, y, z)
//   blockIdx   which block this is inside the grid      (x, y, z)
//   blockDim   how many threads a block has             (same for every thread)
//   gridDim    how many blocks the grid has             (same for every thread)
// A thread combines them into a global index, the element it works on.

// ---- 1D: each thread records its block and its thread number, at its global index.
__global__ void whoami_1d(int *block, int *thread, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // global index
    if (i < n) {                                    // bounds guard: the last block may stick out
        block[i] = blockIdx.x;
        thread[i] = threadIdx.x;
    }
}

// ---- 2D: a width x height image stored row-major: pixel (x, y) lives at y * width + x.
// x is the column (it moves fastest in memory), y is the row.
// Each pixel gets two pairs: block_xy[2*i], block_xy[2*i+1] = blockIdx.x, blockIdx.y, and
// thread_xy the same for threadIdx.
__global__ void whoami_2d(int *block_xy, int *thread_xy, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;  // column
    int y = blockIdx.y * blockDim.y + threadIdx.y;  // row
    if (x < width && y < height) {
        int i = y * width + x;                      // row-major
        block_xy[2 * i + 0] = blockIdx.x;
        block_xy[2 * i + 1] = blockIdx.y;
        thread_xy[2 * i + 0] = threadIdx.x;
        thread_xy[2 * i + 1] = threadIdx.y;
    }
}

// ---- 2D, for a map picture: one number per block and one per thread inside its block,
// both counted row by row (x fastest), the way CUDA numbers them.
__global__ void block_map_2d(int *block_id, int *thread_id, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int i = y * width + x;
        block_id[i] = blockIdx.y * gridDim.x + blockIdx.x;
        thread_id[i] = threadIdx.y * blockDim.x + threadIdx.x;
    }
}

// ---- 3D: an nx x ny x nz volume, element (x, y, z) at (z * ny + y) * nx + x.
// block_xyz[3*i + 0..2] = blockIdx.x, .y, .z and thread_xyz the same for threadIdx.
__global__ void whoami_3d(int *block_xyz, int *thread_xyz, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        int i = (z * ny + y) * nx + x;
        block_xyz[3 * i + 0] = blockIdx.x;
        block_xyz[3 * i + 1] = blockIdx.y;
        block_xyz[3 * i + 2] = blockIdx.z;
        thread_xyz[3 * i + 0] = threadIdx.x;
        thread_xyz[3 * i + 1] = threadIdx.y;
        thread_xyz[3 * i + 2] = threadIdx.z;
    }
}

// ---- Bounds guards: out[i] = i, with and without the guard.
__global__ void fill_index(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i;
}

// No guard: every thread of the grid writes, including the ones past the end of the data.
// Only safe when the allocation has room for gridDim.x * blockDim.x elements.
__global__ void fill_index_no_guard(int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;
}

// ---- Warps: the hardware runs the threads of a block in groups of warpSize (32) threads.
__global__ void whoami_warp(int *warp, int *lane, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        warp[i] = threadIdx.x / warpSize;  // which warp of its block
        lane[i] = threadIdx.x % warpSize;  // which lane of its warp
    }
}

// ---- One element per thread: y = a * x + y (SAXPY, "single-precision a times x plus y").
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// ---- Grid-stride loop: a grid of any size covers n elements. Thread t handles
// t, t + stride, t + 2 * stride, ... where stride is the number of threads in the grid.
__global__ void saxpy_grid_stride(int n, float a, const float *x, float *y)
{
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = a * x[i] + y[i];
}

// The same loop, recording which thread (global thread number) handled each element.
__global__ void grid_stride_owner(int *owner, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int i = t; i < n; i += stride)
        owner[i] = t;
}
