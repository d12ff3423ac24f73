// Exercise (notebook 09): a bug hunt. One bug, planted; find it with the tools, and fix it.
//
// reverse_chunks cuts x into chunks of CHUNK = 256 elements (the last one shorter when n is not
// a multiple of 256) and reverses each chunk into y through shared memory:
//     y[first + t] = x[first + count - 1 - t]    for the chunk that starts at first, count long.
// A block takes chunk blockIdx.x, then every gridDim.x-th chunk after it (a grid-stride loop
// over chunks), reusing its tile for each.
// Launch: block = (256, 1, 1), grid = (G, 1) with G blocks, often fewer than the chunks.
//
// It compiles and runs, and with as many blocks as chunks it is even right. With fewer, some
// chunks come out wrong, on the simulator and (now and then) on a GPU. Run it with the
// simulator's race check on (settings.racecheck; on a GPU: compute-sanitizer --tool racecheck)
// and read what it says: which array, which two threads, which two lines, which hazard. Fix the
// bug, then run the checker.
//
// Keep the kernel's name and signature as they are: the checker calls it by name.
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
    }
}
