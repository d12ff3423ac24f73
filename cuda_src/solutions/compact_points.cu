// Solution: stream compaction, the last step: each valid point to its place in the list.
//
// A hole returns before it writes (its slot is the next valid point's: it would overwrite that
// point, or write one past the list's end after the last one). A valid pixel i writes its three
// coordinates at row slot[i] of points: the prefix sum made the places, in pixel order, with no
// gaps and no two pixels on one row.

__global__ void compact_points(const float *xyz, int n, const int *slot, float *points)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (!(xyz[2 * n + i] > 0.0f))
        return;
    int k = slot[i];
    points[3 * k] = xyz[i];
    points[3 * k + 1] = xyz[n + i];
    points[3 * k + 2] = xyz[2 * n + i];
}
