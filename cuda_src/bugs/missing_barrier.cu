// Bug: a missing barrier.
//
// Each block reverses its 256 elements through shared memory: thread t stores its element at
// s[t], then reads its partner's at s[255 - t]. Nothing makes thread t wait until its partner
// has stored: the read may come first and get whatever s[255 - t] held before.
// (The fix: __syncthreads() between the store and the read. n is a multiple of 256.)
#define REVERSE_BLOCK 256

__global__ void reverse_blocks(const float *x, float *y, int n)
{
    __shared__ float s[REVERSE_BLOCK];
    int t = threadIdx.x, i = blockIdx.x * REVERSE_BLOCK + t;
    s[t] = x[i];
    y[i] = s[REVERSE_BLOCK - 1 - t];
}
