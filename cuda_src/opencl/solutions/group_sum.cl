// Solution: sum an array, one partial sum per work-group, in local memory.
//
// The load is guarded (the last work-group runs past n and adds zeros there), and a barrier
// follows the load and each step of the fold: without it a work-item may read tile[t + stride]
// before its owner has written it (Oclgrind reports that as a data race; a GPU gives a wrong
// sum, or by luck a right one). Every work-item of the group reaches each barrier: they sit
// outside the ifs.

#define GROUP 128   // work-items in a work-group: the checker launches groups of 128

__kernel void group_sum(__global const float *x, __global float *partial, int n)
{
    __local float tile[GROUP];
    int i = get_global_id(0), t = get_local_id(0);

    tile[t] = i < n ? x[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int stride = GROUP / 2; stride > 0; stride /= 2) {
        if (t < stride)
            tile[t] += tile[t + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        partial[get_group_id(0)] = tile[0];
}
