// Exercise (notebook 07): a warp vote. Count, for each warp, how many of its 32 elements are above
// a threshold, with one __ballot_sync and one __popc: no loop, no shuffle, no shared memory.
//
// One thread an element: thread i = blockIdx.x * blockDim.x + threadIdx.x looks at x[i], and warp
// w of the grid (w = i / 32) covers x[32 * w] to x[32 * w + 31]. counts has one entry a warp that
// has elements, (n + 31) / 32 of them: counts[w] must end up as the number of its elements (those
// below n) with x[i] > threshold.
//
//   votes = __ballot_sync(0xffffffff, p) gives every lane of the warp the same 32-bit word, whose
//   bit k is 1 where lane k's p was true; __popc(votes) counts its 1 bits.
//
// The mask 0xffffffff names all 32 lanes: all 32 must call __ballot_sync there, so a lane whose
// element lies past n must not return, nor skip the vote in an if; it votes false.
// The checker launches warp_vote with blocks of a multiple of 32 threads, grid = (n + block - 1) /
// block, n a multiple of 32 or not, counts filled with a poison value first.
//
// TODO: the vote (a lane past n votes false), the ballot, and lane 0 storing its count of 1 bits.
//
// Check your kernel in the notebook with:
//   from helpers.exercises.warp_vote import check_warp_vote
//   check_warp_vote()

__global__ void warp_vote(const float *x, unsigned int *counts, int n, float threshold)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = i / 32, lane = threadIdx.x % 32;
    if (32 * warp >= n)
        return;                      // a warp with no element counts nothing (the whole warp returns)

    bool above = false;              // TODO: this lane's vote: its element exists and is above threshold
    unsigned int votes = above;      // TODO: the warp's votes, one bit a lane: __ballot_sync
    if (lane == 0)
        counts[warp] = votes;        // TODO: the number of lanes that voted true: __popc(votes)
}
