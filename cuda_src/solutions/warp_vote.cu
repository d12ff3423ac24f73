// Solution of the warp-vote exercise of notebook 07: each warp's count of elements above a
// threshold, with one __ballot_sync and one __popc.
//
// Every lane of a warp that has elements votes (false past n: it neither returns nor skips the
// ballot, which names all 32 lanes), __ballot_sync gives each lane the warp's votes as one bit a
// lane, and lane 0 stores how many bits are 1.

__global__ void warp_vote(const float *x, unsigned int *counts, int n, float threshold)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = i / 32, lane = threadIdx.x % 32;
    if (32 * warp >= n)
        return;                      // a warp with no element counts nothing (the whole warp returns)

    bool above = i < n && x[i] > threshold;
    unsigned int votes = __ballot_sync(0xffffffff, above);
    if (lane == 0)
        counts[warp] = __popc(votes);
}
