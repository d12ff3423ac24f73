// Solution: the nearest and the farthest depth a camera measured, with atomics.
//
// A hole (0) returns first: it is no measurement, and would make the nearest depth 0. Each
// measured depth then goes through atomicMin into range[0] and atomicMax into range[1]: each
// reads, compares and writes in one step, so no thread's depth is lost between another's read
// and write, whatever order the threads come in.

__global__ void depth_range(const unsigned short *depth, int n, unsigned int *range)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int d = depth[i];
    if (d == 0)
        return;
    atomicMin(&range[0], d);
    atomicMax(&range[1], d);
}
