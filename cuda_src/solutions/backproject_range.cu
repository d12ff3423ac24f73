// Solution: back-projection with a depth range filter, one thread per pixel.
//
// Pixel (u, v) (column u, row v, index i = v * width + u) with depth[i] millimetres is the point
//     Z = depth[i] * depth_scale,  X = (u - cx) * Z / fx,  Y = (v - cy) * Z / fy
// in the camera's coordinates (X right, Y down, Z forward, metres). It is kept only when it was
// measured (depth[i] > 0) and z_min <= Z <= z_max; every other pixel gets NaN in all three planes,
// the usual mark of "no point here" in an organized point cloud (a zero would be a point at the
// camera's centre). xyz has three planes of width * height floats: X, then Y, then Z.

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
    if (depth[i] == 0 || z < z_min || z > z_max) {
        xyz[i] = xyz[n + i] = xyz[2 * n + i] = nanf("");
        return;
    }
    xyz[i] = (u - cx) * z / fx;
    xyz[n + i] = (v - cy) * z / fy;
    xyz[2 * n + i] = z;
}
