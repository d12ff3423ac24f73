// Solution: scale each slice of a volume by its own factor, out = vol * scale[z], in 3-D.
//
// The 1-D index formula once per dimension; a guard on all three, since the grid is rounded up
// in each; and element (x, y, z) of a (nz, ny, nx) volume at (z * ny + y) * nx + x: z picks the
// slice, y the row in it, x the element in the row.

__global__ void scale_slices(const float *vol, const float *scale, float *out,
                             int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    int i = (z * ny + y) * nx + x;
    out[i] = vol[i] * scale[z];
}
