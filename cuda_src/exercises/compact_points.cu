// Exercise: stream compaction, the last step: each valid point to its place in the list.
//
// xyz is an organized cloud of n pixels in three planes (X at xyz[i], Y at xyz[n + i], Z at
// xyz[2n + i]); a hole has NaN in all three. slot is the exclusive prefix sum of the valid flags
// (section 3 of the notebook): slot[i] is the number of valid pixels before pixel i, so the
// valid pixel i is point number slot[i] of the list, at points[3 * slot[i]] .. + 2.
//
//     valid:  1  1  0  1  0  0  1       slot:  0  1  2  2  3  3  3
//     points: pixel 0, pixel 1, pixel 3, pixel 6
//
// A pixel is valid when its Z is a number: Z > 0.0f is false for NaN, as in scatter_points.
// points has room for the valid points only, and a hole's slot is the next point's.
//
// TODO: a hole writes nothing; the place of a point is slot[i].
//
// Check your kernel in the notebook with:
//   from helpers.exercises.compact_points import check_compact_points
//   check_compact_points()

__global__ void compact_points(const float *xyz, int n, const int *slot, float *points)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    // TODO: a hole (its Z is NaN, so not Z > 0.0f) must return here, without writing
    int k = i;   // TODO: i is the pixel's place in the image; its point's place is slot[i]
    points[3 * k] = xyz[i];
    points[3 * k + 1] = xyz[n + i];
    points[3 * k + 2] = xyz[2 * n + i];
}
