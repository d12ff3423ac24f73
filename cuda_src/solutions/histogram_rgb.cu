// Exercise solution: the three histograms of an RGB image (red, green, blue: 768 bins), privatised.
// Each block counts its bytes into 768 bins of its own in shared memory (atomics there are fast,
// and only the block's threads compete for them), then adds each bin to the global bins with one
// atomic. Byte j of the interleaved image is channel j % 3 of pixel j / 3.

__global__ void histogram_rgb(const unsigned char *rgb, unsigned int *bins, int n)
{
    const int CHANNELS = 3, LEVELS = 256;  // 768 bins: the levels of red, green, blue
    __shared__ unsigned int local[CHANNELS * LEVELS];

    // 768 bins, and blocks of any size: each thread clears every blockDim.x-th bin
    for (int b = threadIdx.x; b < CHANNELS * LEVELS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();                       // every bin is 0 before anyone counts

    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < CHANNELS * n;
         j += blockDim.x * gridDim.x)
        atomicAdd(&local[(j % CHANNELS) * LEVELS + rgb[j]], 1u);
    __syncthreads();                       // every byte is counted before the bins are added

    for (int b = threadIdx.x; b < CHANNELS * LEVELS; b += blockDim.x)
        if (local[b] > 0)
            atomicAdd(&bins[b], local[b]);
}
