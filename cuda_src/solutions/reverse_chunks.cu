// Solution of the third bug hunt of notebook 09: reverse_chunks with its second barrier.
//
// The tile is used again for the next chunk: thread t stores the next chunk's tile[t] while
// thread count - 1 - t may not have read this chunk's tile[t] yet (a write-after-read hazard, the
// race check says). A second __syncthreads() at the end of the loop's body, where every thread of
// the block reaches it, keeps the next chunk's stores until every thread has read.
#define CHUNK 256

__global__ void reverse_chunks(const float *x, float *y, int n)
{
    __shared__ float tile[CHUNK];
    int t = threadIdx.x;
    for (int first = blockIdx.x * CHUNK; first < n; first += gridDim.x * CHUNK) {
        int count = min(CHUNK, n - first);   // the elements this chunk has
        if (t < count)
            tile[t] = x[first + t];
        __syncthreads();
        if (t < count)
            y[first + t] = tile[count - 1 - t];
        __syncthreads();                     // FIX: every thread has read before the next stores
    }
}
