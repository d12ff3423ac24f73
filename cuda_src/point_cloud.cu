// From a depth image to a point cloud: back-projection, stream compaction, normals, voxel grid.
//
// Layouts. The depth image is row-major, pixel (u, v) (column u, row v) at i = v * width + u.
// An "organized" cloud keeps one point per pixel in three planes, like a NumPy array of shape
// (3, height, width): X at xyz[i], Y at xyz[n + i], Z at xyz[2n + i], n = width * height.
// Pixels without a measurement have Z = 0 there. A compacted cloud is a list of valid points,
// x y z after one another, like a NumPy array of shape (count, 3).
// Camera coordinates: X to the right, Y down, Z forward (metres).

// ---- 1. Back-projection: one thread a pixel ---------------------------------------------------
// The pinhole camera maps a point (X, Y, Z) to the pixel u = fx X / Z + cx, v = fy Y / Z + cy.
// Turned round, a pixel (u, v) with depth Z is the point
//     X = (u - cx) Z / fx,  Y = (v - cy) Z / fy,  Z.
// Launch with a 2D grid over the image, e.g. block=(32, 8, 1).
__global__ void backproject(const unsigned short *depth, float *xyz, int width, int height,
                            float fx, float fy, float cx, float cy, float depth_scale)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int v = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (u >= width || v >= height)
        return;
    int i = v * width + u;
    int n = width * height;
    float z = depth[i] * depth_scale;                // millimetres to metres; 0 stays 0
    xyz[i] = (u - cx) * z / fx;
    xyz[n + i] = (v - cy) * z / fy;
    xyz[2 * n + i] = z;
}

// ---- 2. Stream compaction with an atomic counter -----------------------------------------------
// Each thread with a valid point takes the next free slot of the output with atomicAdd and
// writes its point there. Simple, and one pass; but the slots go to threads in whatever order
// they get to the counter: the points come out shuffled, differently on every run. And every
// warp with a point updates the same counter, one after another: on a large image that queue,
// not the bytes, sets the time (notebook 10 measures it against the prefix sum).
// Launch with a 1D grid of at least n threads; *count must be 0 before the launch.
__global__ void compact_atomic(const float *xyz, int n, float *points, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float z = xyz[2 * n + i];
    if (z <= 0.0f)                                   // no measurement: no point
        return;
    int k = atomicAdd(count, 1);                     // my slot: the counter's old value
    points[3 * k] = xyz[i];
    points[3 * k + 1] = xyz[n + i];
    points[3 * k + 2] = z;
}

// ---- 3. Stream compaction with a prefix sum: the points keep the pixels' order ------------------
// The slot of a valid point is the number of valid points before it, its exclusive prefix sum.
// Three launches compute it for n elements cut into blocks of blockDim.x threads:
//   count_valid   block b counts its valid elements into counts[b];
//   scan_counts   one block turns counts into offsets: offsets[b] = counts[0] + ... + counts[b-1];
//   scatter_...   each block ranks its valid elements among themselves and adds its offset.
// An element is valid when key[i] > 0 (the Z plane of a cloud, the count plane of a voxel grid).
// count_valid and the scatter kernels must be launched with the same block size, a multiple of
// 32 (at most 1024).

__global__ void count_valid(const float *key, int n, int *counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int valid = i < n && key[i] > 0.0f;
    int count = __syncthreads_count(valid);          // how many threads of the block have 1
    if (threadIdx.x == 0)
        counts[blockIdx.x] = count;
}

// Exclusive prefix sum of `value` over the threads of a (1D) block, Hillis-Steele style in
// shared memory: after step s, sums[t] holds the sum of the 2^s values up to t. *total gets the
// block's sum. Every thread of the block must call it (it waits at barriers).
__device__ int block_exclusive_scan(int value, int *total)
{
    __shared__ int sums[1024];
    int t = threadIdx.x;
    sums[t] = value;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        int add = t >= offset ? sums[t - offset] : 0;
        __syncthreads();                             // everyone has read before anyone writes
        sums[t] += add;
        __syncthreads();
    }
    int inclusive = sums[t];
    *total = sums[blockDim.x - 1];
    __syncthreads();                                 // sums may be reused by the next call
    return inclusive - value;
}

// One block (up to 1024 threads) for any number m of counts. Thread t takes a run of `run`
// consecutive counts: it adds them up, the block scans the runs' sums, and the thread writes
// the offsets of its run, starting from the sum of the runs before it. Replaces counts by
// offsets; *total gets the sum of all.
__global__ void scan_counts(int *counts, int m, int *total)
{
    int run = (m + blockDim.x - 1) / blockDim.x;
    int lo = threadIdx.x * run, hi = min(lo + run, m);
    int sum = 0;
    for (int j = lo; j < hi; j++)
        sum += counts[j];
    int all;
    int offset = block_exclusive_scan(sum, &all);    // the counts of all the runs before mine
    for (int j = lo; j < hi; j++) {
        int count = counts[j];
        counts[j] = offset;
        offset += count;
    }
    if (threadIdx.x == 0)
        *total = all;
}

// The rank of this thread's flag (0 or 1) in its block: how many threads before it have a 1.
// The 32 threads of a warp vote: __ballot_sync returns a word whose bit k is lane k's flag, in
// every lane; the 1 bits below a lane's own are the flags before it in its warp. The warps'
// counts go through shared memory. Every thread of the block must call it.
__device__ int block_rank(int flag)
{
    __shared__ int warp_counts[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned int votes = __ballot_sync(0xffffffffU, flag);
    int rank = __popc(votes & ((1U << lane) - 1));   // 1 bits of the lanes below mine
    if (lane == 0)
        warp_counts[warp] = __popc(votes);
    __syncthreads();
    for (int w = 0; w < warp; w++)                   // the flags of the warps before mine
        rank += warp_counts[w];
    __syncthreads();                                 // warp_counts may be reused by the next call
    return rank;
}

// The valid points of an organized cloud, in pixel order: points[3k .. 3k + 2].
__global__ void scatter_points(const float *xyz, int n, const int *offsets, float *points)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int valid = i < n && xyz[2 * n + i] > 0.0f;      // threads past n take part in the vote
    int k = offsets[blockIdx.x] + block_rank(valid);
    if (valid) {
        points[3 * k] = xyz[i];
        points[3 * k + 1] = xyz[n + i];
        points[3 * k + 2] = xyz[2 * n + i];
    }
}

// ---- 4. Normals from neighbouring pixels ------------------------------------------------------
// In an organized cloud the neighbours of a point are the neighbouring pixels. The pixels `step`
// to the left and right span a vector along the surface, those above and below another; their
// cross product is perpendicular to the surface. Turned to face the camera and made unit length,
// it is the normal. No normal (NaN) where a neighbour has no measurement or lies on another
// surface (a jump in depth of more than max_jump times the pixel's depth), or near the border.
// nrm has the layout of xyz. Launch like backproject.
__global__ void normals(const float *xyz, float *nrm, int width, int height, int step,
                        float max_jump)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    int v = blockIdx.y * blockDim.y + threadIdx.y;
    if (u >= width || v >= height)
        return;
    int n = width * height, i = v * width + u;
    const float *X = xyz, *Y = xyz + n, *Z = xyz + 2 * n;
    nrm[i] = nrm[n + i] = nrm[2 * n + i] = nanf("");
    if (u < step || v < step || u >= width - step || v >= height - step)
        return;
    int left = i - step, right = i + step, up = i - step * width, down = i + step * width;
    float z = Z[i], jump = max_jump * z;
    if (z <= 0.0f || Z[left] <= 0.0f || Z[right] <= 0.0f || Z[up] <= 0.0f || Z[down] <= 0.0f)
        return;
    if (fabsf(Z[right] - Z[left]) > jump || fabsf(Z[down] - Z[up]) > jump)
        return;
    float ax = X[right] - X[left], ay = Y[right] - Y[left], az = Z[right] - Z[left];
    float bx = X[down] - X[up], by = Y[down] - Y[up], bz = Z[down] - Z[up];
    float nx = by * az - bz * ay;                    // (down - up) x (right - left)
    float ny = bz * ax - bx * az;
    float nz = bx * ay - by * ax;
    float length = sqrtf(nx * nx + ny * ny + nz * nz);
    if (nx * X[i] + ny * Y[i] + nz * z > 0.0f)       // facing away from the camera: turn round
        length = -length;
    nrm[i] = nx / length;
    nrm[n + i] = ny / length;
    nrm[2 * n + i] = nz / length;
}

// ---- 5. Voxel grid: one point per occupied cube, at the mean of its points ----------------------
// The grid has nx * ny * nz cubes of side `voxel` from the corner (x0, y0, z0). acc holds four
// planes of one float per cube: the sums of x, y and z of the points in it, and their count.
// Points outside the grid are left out. acc must be zero before the launch.
// Launch with a 1D grid of at least `count` threads.
__global__ void voxel_accumulate(const float *points, int count, float *acc, int nx, int ny,
                                 int nz, float x0, float y0, float z0, float voxel)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count)
        return;
    float x = points[3 * k], y = points[3 * k + 1], z = points[3 * k + 2];
    int ix = (int)floorf((x - x0) / voxel);
    int iy = (int)floorf((y - y0) / voxel);
    int iz = (int)floorf((z - z0) / voxel);
    if (ix < 0 || iy < 0 || iz < 0 || ix >= nx || iy >= ny || iz >= nz)
        return;
    int cells = nx * ny * nz;
    int j = (iz * ny + iy) * nx + ix;
    atomicAdd(&acc[j], x);                           // many points land in one cube: atomics
    atomicAdd(&acc[cells + j], y);
    atomicAdd(&acc[2 * cells + j], z);
    atomicAdd(&acc[3 * cells + j], 1.0f);
}

// The occupied cubes' mean points, in the order of the cubes' index j: centroids[3k .. 3k + 2].
// Offsets from count_valid (on the count plane, acc + 3 * cells) and scan_counts.
__global__ void scatter_centroids(const float *acc, int cells, const int *offsets,
                                  float *centroids)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    float count = j < cells ? acc[3 * cells + j] : 0.0f;
    int k = offsets[blockIdx.x] + block_rank(count > 0.0f);
    if (count > 0.0f) {
        centroids[3 * k] = acc[j] / count;
        centroids[3 * k + 1] = acc[cells + j] / count;
        centroids[3 * k + 2] = acc[2 * cells + j] / count;
    }
}

// ---- 6. Back-projection, four pixels a thread -------------------------------------------------
// Section 1's kernel moves 2 bytes in and 12 out a thread, with a 2-byte load and three 4-byte
// stores: small memory operations, few bytes in flight for each instruction. Here each thread
// takes four neighbouring pixels of a row, with one 8-byte load of their depths (ushort4) and
// one 16-byte store (float4) into each plane: a quarter of the memory instructions for the same
// bytes. The arithmetic is section 1's, pixel for pixel, so the points are the same to the bit.
// Needs width % 4 == 0: the four pixels are then in one row, and each plane starts 16 bytes
// aligned, as a float4 store must. Launch with a 1D grid of at least width * height / 4 threads.
__global__ void backproject_x4(const unsigned short *depth, float *xyz, int width, int height,
                               float fx, float fy, float cx, float cy, float depth_scale)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;   // pixels 4g to 4g + 3
    int n = width * height;
    if (g >= n / 4)
        return;
    int u = 4 * g % width, v = 4 * g / width;        // the first one's column and row
    ushort4 d = reinterpret_cast<const ushort4 *>(depth)[g];
    float4 z = make_float4(d.x * depth_scale, d.y * depth_scale, d.z * depth_scale,
                           d.w * depth_scale);
    float4 x = make_float4((u - cx) * z.x / fx, (u + 1 - cx) * z.y / fx,
                           (u + 2 - cx) * z.z / fx, (u + 3 - cx) * z.w / fx);
    float dy = v - cy;
    float4 y = make_float4(dy * z.x / fy, dy * z.y / fy, dy * z.z / fy, dy * z.w / fy);
    reinterpret_cast<float4 *>(xyz)[g] = x;
    reinterpret_cast<float4 *>(xyz + n)[g] = y;
    reinterpret_cast<float4 *>(xyz + 2 * n)[g] = z;
}
