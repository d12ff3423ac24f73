// hello.cl: the course's first kernel in OpenCL (hello.cu is the CUDA version).
//
// __kernel marks a kernel, as __global__ does in CUDA. A work-item (CUDA: a thread) asks where it
// is by calling functions rather than reading built-in variables: get_group_id(0) is CUDA's
// blockIdx.x, get_local_id(0) is threadIdx.x. They return size_t, so they are cast to int for %d.
// printf is part of OpenCL C since version 1.2. The text is the CUDA kernel's, word for word, so
// that the two outputs can be compared.

__kernel void hello(void)
{
    printf("Hello from block %d, thread %d\n", (int)get_group_id(0), (int)get_local_id(0));
}
