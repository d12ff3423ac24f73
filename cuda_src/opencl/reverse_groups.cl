// reverse_groups.cl: each work-group reverses its own piece of the array, through local memory.
//
// __local is CUDA's __shared__: memory that the work-items of one group share, and nobody else
// sees. barrier(CLK_LOCAL_MEM_FENCE) is CUDA's __syncthreads(): no work-item of the group goes
// past it until all have reached it, and then each sees what the others wrote to local memory.
//
// Work-item k writes tile[k] and then reads tile[n - 1 - k], which another work-item wrote.
// Without the barrier, it may read before that one has written: a data race. Launch with a
// local size of at most 256 and a global size that is a multiple of it.

__kernel void reverse_groups(__global const float *in, __global float *out)
{
    __local float tile[256];
    int k = get_local_id(0);
    int n = get_local_size(0);
    int i = get_global_id(0);

    tile[k] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);      // every tile[k] is written before anyone reads
    out[i] = tile[n - 1 - k];
}
