// Solution of the exercise of notebook 09: subtract_block_mean with its three bugs fixed.
//
// y[i] = x[i] - (the mean of x over the block of 256 elements that i belongs to), and each
// block's mean in means[blockIdx.x]; the last block's mean is over the elements it has.
// Launch: block = (256, 1, 1), grid = ((n + 255) / 256, 1).
#define BLOCK 256

__global__ void subtract_block_mean(const float *x, float *y, float *means, int n)
{
    __shared__ float tile[BLOCK];
    int t = threadIdx.x;
    int first = blockIdx.x * BLOCK;
    int i = first + t;
    int count = min(BLOCK, n - first);  // the elements this block has

    tile[t] = i < n ? x[i] : 0.0f;      // FIX 1: the threads past the end read nothing
    __syncthreads();                    // FIX 2: every tile[k] is stored before thread 0 reads it

    if (t == 0) {
        float sum = 0.0f;               // FIX 3: the sum starts at 0, not at whatever means held
        for (int k = 0; k < count; k++)
            sum += tile[k];             // FIX 3
        means[blockIdx.x] = sum / count;    // FIX 3
    }
    __syncthreads();

    if (i < n)
        y[i] = x[i] - means[blockIdx.x];
}
