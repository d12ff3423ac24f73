// Exercise: sum an array, one partial sum per work-group, in local memory.
//
// Each work-group of GROUP work-items sums its GROUP elements of x: every work-item loads one
// element into the group's __local tile, then the tile is folded in half again and again (step
// 1: tile[t] += tile[t + 64] for t < 64, then 32, ..., 1) until tile[0] holds the group's sum,
// which work-item 0 stores in partial[get_group_id(0)]. The host adds the partial sums.
//
//     tile:  a b c d e f g h  ->  a+e b+f c+g d+h  ->  a+e+c+g b+f+d+h  ->  the sum
//
// Work-items share the tile, so each step must wait until the step before it is done everywhere
// in the group: barrier(CLK_LOCAL_MEM_FENCE), CUDA's __syncthreads(). And n is not a multiple of
// GROUP: the last group's work-items past n load 0.
//
// TODO: guard the load; add the two barriers.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.group_sum_opencl import check_group_sum_opencl
//   check_group_sum_opencl()

#define GROUP 128   // work-items in a work-group: the checker launches groups of 128

__kernel void group_sum(__global const float *x, __global float *partial, int n)
{
    __local float tile[GROUP];
    int i = get_global_id(0), t = get_local_id(0);

    tile[t] = x[i];   // TODO: a work-item past the end (i >= n) loads 0 instead
    // TODO: wait until every work-item of the group has stored its element

    for (int stride = GROUP / 2; stride > 0; stride /= 2) {
        if (t < stride)
            tile[t] += tile[t + stride];
        // TODO: wait until this step is done before the next one reads the tile
    }
    if (t == 0)
        partial[get_group_id(0)] = tile[0];
}
