// Exercise (notebook 07): the red, green and blue histograms of an RGB image, privatised.
//
// rgb holds n pixels of interleaved RGB, as in notebook 04: byte j is channel j % 3 (0 red,
// 1 green, 2 blue) of pixel j / 3. bins has 3 * 256 = 768 counters, 0 before the launch:
// bins[c * 256 + v] must end up as the number of pixels whose channel c has the value v.
//
// The checker launches histogram_rgb with blocks of 64 to 1024 threads and grids that often have
// far fewer threads than the image has bytes. Write it as histogram_shared in
// cuda_src/histogram.cu counts grey levels, with three channels:
//
//   1. a block's own 768 bins in shared memory (__shared__ unsigned int local[768]), set to 0:
//      there may be fewer threads than bins, or more, so each thread clears bins threadIdx.x,
//      threadIdx.x + blockDim.x, ... below 768; then a __syncthreads();
//   2. every byte j < 3 * n counted into local with atomicAdd, in a grid-stride loop;
//   3. a __syncthreads(), then each bin of local that is not 0 added to bins with one atomicAdd.
//
// As shipped it counts straight into the global bins with bins[...]++, one thread a byte. Run
// the checker: it names what is wrong with that, one mistake at a time.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.histogram_rgb import check_histogram_rgb
//   check_histogram_rgb()

__global__ void histogram_rgb(const unsigned char *rgb, unsigned int *bins, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // TODO 2
    if (j < 3 * n)                                   // TODO 2
        bins[(j % 3) * 256 + rgb[j]]++;              // TODO 1, 2, 3
}
