// Exercise: scale each slice of a volume by its own factor, out = vol * scale[z], in 3-D.
//
// vol and out are volumes nx wide, ny tall and nz deep, stored slice after slice, each slice
// row after row (NumPy shape (nz, ny, nx)): element (x, y, z) is at (z * ny + y) * nx + x.
// scale has one factor a slice: out(x, y, z) = vol(x, y, z) * scale[z].
//
// The checker launches a 3-D grid of 3-D blocks, rounded up in every dimension (blocks such as
// (8, 4, 2), sides that are not multiples of them): the grid sticks out past the volume in x, y
// and z alike. whoami_3d in cuda_src/indexing.cu shows the three indices.
//
// TODO:
//   1. This thread's z, the way x and y are computed.
//   2. Threads outside the volume in ANY dimension do nothing.
//   3. The index of element (x, y, z).
//
// Check your kernel in the notebook with:
//   from helpers.exercises.scale_slices import check_scale_slices
//   check_scale_slices()

__global__ void scale_slices(const float *vol, const float *scale, float *out,
                             int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = 0;                  // TODO 1: z from blockIdx.z, blockDim.z and threadIdx.z
    if (x >= nx || y >= ny)     // TODO 2: and z
        return;
    int i = y * nx + x;         // TODO 3: element (x, y) of slice z
    out[i] = vol[i] * scale[z];
}
