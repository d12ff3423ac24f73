// vector_add.cl: out[i] = a[i] + b[i], one work-item per element (vector_add.cu in CUDA).
//
// Two differences from CUDA. Every pointer to a buffer says which memory it points into:
// __global is the device's main memory (what cudaMalloc and gpuarray hand out in CUDA). And the
// work-item's global index is one call, get_global_id(0), which is
// get_group_id(0) * get_local_size(0) + get_local_id(0), CUDA's
// blockIdx.x * blockDim.x + threadIdx.x.
//
// The launch is rounded up to whole work-groups, so the last group has work-items with no
// element: the bounds guard (i < n) keeps them from writing past the end of out.

__kernel void vector_add(__global const float *a, __global const float *b, __global float *out,
                         int n)
{
    int i = get_global_id(0);
    if (i < n) {
        out[i] = a[i] + b[i];
    }
}
