// Exercise: back-projection with a depth range filter, one thread per pixel.
//
// Pixel (u, v) (column u, row v, index i = v * width + u) with depth[i] millimetres is the point
//     Z = depth[i] * depth_scale,  X = (u - cx) * Z / fx,  Y = (v - cy) * Z / fy
// in the camera's coordinates (X right, Y down, Z forward, metres), as in the backproject kernel
// of cuda_src/point_cloud.cu. Here a point is kept only when it was measured (depth[i] > 0) and
// lies in the range z_min <= Z <= z_max (both ends included): a robot may trust its camera only
// between such limits. Every other pixel gets NaN in all three planes, the usual mark of
// "no point here" in an organized point cloud (a zero would be a point at the camera's centre).
//
// xyz has three planes of width * height floats: X at xyz[i], Y at xyz[n + i], Z at xyz[2n + i],
// with n = width * height. The grid is rounded up to whole blocks: threads outside the image
// must not write.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.backproject_range import check_backproject_range
//   check_backproject_range()

__global__ void backproject_range(const unsigned short *depth, float *xyz, int width, int height,
                                  float fx, float fy, float cx, float cy, float depth_scale,
                                  float z_min, float z_max)
{
    int u = blockIdx.x * blockDim.x + threadIdx.x;   // column
    int v = blockIdx.y * blockDim.y + threadIdx.y;   // row
    if (u >= width || v >= height)
        return;
    int i = v * width + u;
    int n = width * height;
    float z = depth[i] * depth_scale;
    // TODO 1: pixels with no measurement (depth[i] == 0) and those with Z outside
    //         [z_min, z_max] are not points: write nanf("") into all three planes and return.
    // TODO 2: X and Y of pixel (u, v) at depth z, with the formula above.
    xyz[i] = 0.0f;       // TODO 2
    xyz[n + i] = 0.0f;   // TODO 2
    xyz[2 * n + i] = z;
}
