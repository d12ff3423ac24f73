// Solution: add a constant to every element, y[i] = x[i] + c, with one block of threads.
//
// One block of exactly n threads: thread threadIdx.x of the block has element threadIdx.x, and
// there is no thread without an element, so no guard is needed (scale_vector, the chapter's next
// exercise, has several blocks and spare threads).

__global__ void add_constant(const float *x, float *y, float c)
{
    int i = threadIdx.x;
    y[i] = x[i] + c;
}
