// Exercise: the nearest and the farthest depth a camera measured, with atomics.
//
// depth holds n pixels of millimetres, 0 where the camera measured nothing (a hole). Find the
// smallest and the largest measured depth, in range[0] and range[1]: the span of Z a point
// cloud's bounding box has, and what a viewer needs to colour it. The checker starts range at
// { 4294967295, 0 } (the largest unsigned int, and 0), so that any depth is nearer than the
// first and farther than the second.
//
// Every thread has one pixel, and all of them update the same two numbers: a plain
// `if (d < range[0]) range[0] = d;` is a read, a compare and a write, and two threads in between
// lose one of the depths (a race). atomicMin(&range[0], d) and atomicMax(&range[1], d) do it as
// one step, like atomicAdd in notebook 07.
//
// TODO: skip the holes; keep the nearest depth with atomicMin and the farthest with atomicMax.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.depth_range import check_depth_range
//   check_depth_range()

__global__ void depth_range(const unsigned short *depth, int n, unsigned int *range)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int d = depth[i];
    // TODO: a hole (d == 0) is no measurement: return without touching range
    range[0] = d;   // TODO: the nearest so far: atomicMin(&range[0], d)
    range[1] = d;   // TODO: the farthest so far: atomicMax(&range[1], d)
}
