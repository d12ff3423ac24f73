// Solution (notebook 04): grey, one thread a pixel, on a flat grid, coalesced.
//
// Thread t takes pixel t of the image read as one flat run of width * height pixels: x = t %
// width, y = t / width. A warp's 32 threads then take 32 neighbouring pixels of a row (at most two
// rows, where a row ends inside the warp): each of its three byte loads touches the 3 or 4
// sectors that hold 96 neighbouring bytes, and its store one or two. The threads past the last
// pixel return first: the grid is rounded up to whole blocks.

__device__ unsigned char bt601_gray(unsigned int r, unsigned int g, unsigned int b)
{
    return (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);
}

__global__ void gray_coalesced(const unsigned char *rgb, unsigned char *gray, int width,
                               int height)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= width * height)
        return;
    int x = t % width;     // along a row: neighbouring threads, neighbouring pixels
    int y = t / width;
    int i = y * width + x;
    gray[i] = bt601_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
}
