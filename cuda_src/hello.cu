// hello.cu: the course's first kernel.
//
// __global__ marks a kernel: a function that runs on the GPU and is launched from the host
// (Python). Every thread of the launch runs this same function; the built-in variables
// blockIdx and threadIdx tell each thread which one it is.
//
// Kernel printf writes to the process's standard output (file descriptor 1), in whatever order
// the threads happen to run.

__global__ void hello()
{
    printf("Hello from block %d, thread %d\n", blockIdx.x, threadIdx.x);
}
