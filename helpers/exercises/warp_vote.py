"""Checker for the warp-vote exercise of notebook 07 (``cuda_src/exercises/warp_vote.cu``).

The kernel under test::

    __global__ void warp_vote(const float *x, unsigned int *counts, int n, float threshold)

stores in counts[w], for each warp w of the grid that has elements, how many of x[32w] to
x[32w + 31] (those below n) are above ``threshold``: one ``__ballot_sync``, one ``__popc``.

The cases have n not a multiple of 32 (a partial last warp), and once a multiple (a warp that
starts at n must not store), with blocks of 1 to 8 warps, so the grid has warps past n; x holds values from -1 to 2 on a grid of 1/64, so some equal the threshold (``>=`` for
``>`` shows), and 2.0 past n (a lane that reads there votes true); in the launch on the
simulator nothing follows x, so a read past n, which the vote may ignore, is out of bounds there,
as on a GPU where x ends its memory. counts is poisoned and guarded.
A wrong count is matched with what known mistakes give: the ballot's bits stored for their
number, lane 0's own vote, ``>=``, the lanes past n voting. A lane that returns or skips the ballot
in an if leaves the mask 0xffffffff naming lanes that never vote: the simulator stops there, and
on a GPU, where it may come out right by luck, a last launch on the simulator finds it. A vote
declared without a value and set only under ``if (i < n)`` comes out right on the simulator (its
bool starts false), but lanes past n vote garbage on a GPU: the simulator's compiler finds that
read in __ballot_sync, and the PASS becomes a NOT YET that names it (``_unset``).
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Input, Output, poison_value
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import accesses_of, observe, observed_launch, observed_mistakes

THRESHOLD = np.float32(0.5)
JUNK = np.float32(2.0)
"""What x holds past n: above the threshold, so a lane that reads there votes true."""
BLOCKS = (32, 64, 96, 128, 256)
# (n, threads per block): a partial last warp but in the fourth, warps past n in the last block of
# the second to fourth, 3 warps a block in the third and fourth; the last on the simulator
CASES = [(1000, 128), (77, 64), (5000, 96), (256, 96), (203, 256, "observe")]


def _draw(rng):
    """The grader's cases: n not a multiple of 32, few warps and many, on any of the blocks."""
    return [(awkward(rng, 32, 2, 300), pick(rng, BLOCKS)),
            (awkward(rng, 32, 300, 20_000), pick(rng, BLOCKS))]


def _where(case):
    return f"n = {case[0]:,}, block = ({case[1]}, 1, 1), grid = ({-(-case[0] // case[1])}, 1)"


def _launch(case, after=64):
    """x with ``after`` elements of JUNK after it (none in the case launched on the simulator)."""
    n, block = case[:2]
    # -1 to 2: a vote given as the float x[i] - threshold (cut to an int) differs from x[i] > threshold
    x = np.random.default_rng(n).integers(-64, 128, n).astype(np.float32) / 64
    return Launch((Input(x, after=after, junk=JUNK), Output(-(-n // 32), np.uint32, held=False),
                   np.int32(n), THRESHOLD), block=(block, 1, 1), grid=(-(-n // block), 1), model=x)


def _votes(x, n, reads_past_n=False, at_least=False, one_past=False):
    """Each warp's votes, (warps, 32) booleans, as the kernel with these mistakes casts them
    (``one_past``: the lane i == n reads x[n] too, a guard i <= n)."""
    padded = np.full(-(-n // 32) * 32, JUNK if reads_past_n else -np.inf, np.float32)
    if one_past and n < padded.size:
        padded[n] = JUNK
    padded[:n] = x
    votes = padded >= THRESHOLD if at_least else padded > THRESHOLD
    return votes.reshape(-1, 32)


def _float_votes(x, n):
    """Each warp's votes, (warps, 32) booleans, for a vote given as the float x[i] - threshold
    (0 past n): __ballot_sync's int predicate keeps its whole part."""
    padded = np.zeros(-(-n // 32) * 32, np.float32)
    padded[:n] = x - THRESHOLD
    return (np.trunc(padded) != 0).reshape(-1, 32)


def _in_a_float(words):
    """32-bit words as a float holds them (to nearest), then turned back into an unsigned int
    (PTX's conversion: toward 0, 2^32 saturates to 2^32 - 1)."""
    rounded = words.astype(np.uint32).astype(np.float32).astype(np.float64)
    return np.minimum(rounded, 2.0 ** 32 - 1).astype(np.uint64)


def _popc(words):
    """The number of 1 bits in each of ``words`` (unsigned, below 2^32)."""
    return sum((words.astype(np.uint64) >> np.uint64(k)) & np.uint64(1) for k in range(32))


def _votes_of(x, n, index):
    """Each warp's votes, (warps, 32) booleans, where lane l of the thread i = 32w + l reads
    x[index(i)] (below n) in place of x[i]."""
    i = np.arange(-(-n // 32) * 32)
    return ((i < n) & (x[np.minimum(index(i), n - 1)] > THRESHOLD)).reshape(-1, 32)


def _word_mistakes(votes):
    """(counts, problem, hint) for a ballot's word stored as it is, or kept in a float."""
    bits = (votes * (1 << np.arange(32, dtype=np.uint64))).sum(axis=1).astype(np.uint32)
    yield (bits, "each count is the ballot's word itself, its bits read as a number",
           "count the word's 1 bits: counts[warp] = __popc(votes)")
    yield (_popc(_in_a_float(bits)), "each count is how many bits are 1 in the ballot's word "
           "rounded to a float: votes was declared a float, which holds 24 bits of a number, so "
           "the 32-bit word lost its low bits before __popc counted them", "keep the ballot's "
           "word in an unsigned int: unsigned int votes = __ballot_sync(0xffffffff, above)")
    yield (_popc(bits & np.uint32(0xFFFF)), "only lanes 0 to 15 were counted: the ballot's word "
           "was kept in 16 bits (an unsigned short), which drops lanes 16 to 31's bits", "the "
           "ballot is 32 bits, one a lane: keep it in an unsigned int, unsigned int votes = "
           "__ballot_sync(0xffffffff, above)")


def _cut_to_int(x, n):
    """(counts, problem, hint) for a comparison whose element, or threshold, was cut to an int
    first (toward 0: 0.75 becomes 0, -0.5 becomes 0)."""
    i, whole = np.arange(-(-n // 32) * 32), np.trunc(x)
    for votes, what in ((whole > THRESHOLD, f"x[i] was cut to an int, (int)x[i], before it was "
                         f"compared: 0.75 became 0, not above {THRESHOLD}, so only the elements "
                         "of 1 or more counted"),
                        (x > np.trunc(THRESHOLD), f"the threshold was cut to an int, (int)"
                         f"threshold: {THRESHOLD} became 0, so every element above 0 counted")):
        padded = np.zeros(i.size, bool)
        padded[:n] = votes
        yield (padded.reshape(-1, 32).sum(axis=1), f"the counts are those of a vote in which "
               f"{what}", "compare the floats themselves: above = i < n && x[i] > threshold")


def _index_mistakes(x, n, block):
    """(counts, problem, hint) for a vote that reads another element than x[i]."""
    yield (_votes_of(x, n, lambda i: i % 32).sum(axis=1), "every warp voted on x[0] to x[31]: "
           "the vote read x[lane], the lane's place in its warp, not its element", "thread i "
           "looks at x[i], i = blockIdx.x * blockDim.x + threadIdx.x: above = i < n && x[i] > "
           "threshold")
    yield (_votes_of(x, n, lambda i: i % block).sum(axis=1), "every block voted on x[0] to "
           f"x[{min(block, n) - 1}]: the vote read x[threadIdx.x], the thread's place in its "
           "block, not its element", "thread i looks at x[i], i = blockIdx.x * blockDim.x + "
           "threadIdx.x: above = i < n && x[i] > threshold")


def _below_the_threshold(x, n, want):
    """(counts, problem, hint) for each warp's count of its elements below the threshold: the
    comparison flipped, x[i] < threshold."""
    padded = np.full(want.size * 32, np.inf, np.float32)
    padded[:n] = x
    below = (padded < THRESHOLD).reshape(-1, 32).sum(axis=1)
    if not np.array_equal(below, want):
        w = int(np.argmax(below != want))
        yield (below, f"each warp counted its elements below the threshold, not above: "
               f"counts[{w}] = {below[w]}, and {below[w]} of x[{32 * w}.."
               f"{min(32 * w + 31, n - 1)}] are below {THRESHOLD} ({want[w]} above)",
               "the comparison is flipped: above = i < n && x[i] > threshold")


def _block_counts(want, block):
    """(counts, problem, hint) for each warp storing its whole block's count, as
    __syncthreads_count gives it (blocks of 2 warps or more: with one, the two agree)."""
    per_block = block // 32
    if per_block < 2:
        return
    padded = np.zeros(-(-want.size // per_block) * per_block, want.dtype)
    padded[:want.size] = want
    blocks = padded.reshape(-1, per_block).sum(axis=1)
    yield (blocks[np.arange(want.size) // per_block], "each warp stored its whole block's count: "
           "__syncthreads_count(above) counts the votes of every thread of the block, not of the "
           "warp", "count the warp's votes: votes = __ballot_sync(0xffffffff, above), then "
           "counts[warp] = __popc(votes)")


def _refine(failure):
    """A read past the end of x: a lane past n read x[i] before its guard said no; a store past
    the end of counts by lane 0 of a warp at counts[i], its element's index, not its warp's."""
    err = failure.error
    if failure.kind == "out of bounds" and err.is_write and err.thread and err.block and \
            failure.block and getattr(err, "offset", None) is not None:
        i = err.block[0] * failure.block[0] + err.thread[0]   # the storing thread's i
        if i >= 32 and i % 32 == 0 and err.offset == 4 * i:
            yield (f"thread i = {i}, lane 0 of warp {i // 32}, stored its count at counts[{i}], "
                   "its element's index, past the end of counts: " + BY_WARP)
    if failure.kind == "out of bounds" and failure.error.is_write is False and \
            getattr(failure.error, "array", None) == "x":
        yield ("a lane past n read x[i]: && stops at the first false, left to right, so test "
               "i < n first: above = i < n && x[i] > threshold")


def _unset(read):
    """The verdict for a vote that __ballot_sync reads before anything was stored in it (a
    ``CompilerWarning`` of the simulator's compiler: ``bool above;`` set only under an if)."""
    if read.reader != "__ballot_sync":
        return None
    return (f"{read.name} is read before anything is stored in it: lanes past n vote with "
            "whatever the register held (on the simulator it held false, the right vote, by "
            "luck)", "a lane past n votes false, so give every lane its vote where it is "
            f"declared: bool {read.name} = i < n && x[i] > threshold")


BY_WARP = ("counts has one element a warp: index it by the warp's number, counts[warp] = "
           "__popc(votes) (warp = i / 32)")


def _stored_at_i(out, n):
    """Counts stored at i, lane 0's element's index, not at its warp's (as a GPU shows it: no
    fault where the stores past counts land in its guard): every element written, counts' own and
    those past its end, a multiple of 32; then any store past counts (n elements)."""
    written = np.concatenate([np.flatnonzero(~out.unwritten), out.past])
    if out.past.size and out.unwritten.size > 1 and not (written % 32).any():
        yield ("lane 0 of each warp stored its count at counts[i], its element's index: counts[0], "
               f"counts[32], counts[64], ... were written, counts[{out.past[0]}] on past the end "
               "of counts, and counts[1] and the others never", BY_WARP)
    if out.past.size:
        yield (f"counts was written past its end (counts[{-(-n // 32)}] and on): a warp with no "
               "element below n stored a count", "keep the stub's if (32 * warp >= n) return;")


def _one_count_a_block(out, want, block):
    """Counts stored at blockIdx.x: counts[0] to counts[blocks - 1] written (each block with
    elements), each one of its block's warps' counts, the rest never written."""
    per_block, warps = block // 32, want.size
    blocks = -(-warps // per_block)
    if per_block < 2 or blocks >= warps or out.past.size or \
            np.flatnonzero(~out.unwritten).tolist() != list(range(blocks)):
        return
    own = [want[b * per_block:(b + 1) * per_block] for b in range(blocks)]
    if all(out.got[b] in own[b] for b in range(blocks)):
        yield ("each block's warps stored their counts into one slot, counts[blockIdx.x], one "
               f"over another: only counts[0] to counts[{blocks - 1}] were written, each one of "
               f"its block's {per_block} warps' counts", "one slot a warp: " + BY_WARP)


def _block_plus_warp(out, want, n, block):
    """warp = blockIdx.x + threadIdx.x / 32: the warp of place t in block b (the grid's warp b *
    per_block + t, whose votes it counts) stores at counts[b + t] (returning where 32 * (b + t)
    >= n), warps of neighbouring blocks into one slot, any of whose counts may land last."""
    per_block, blocks = block // 32, -(-n // block)
    slots = {}
    for b in range(blocks):
        for t in range(per_block):
            if b * per_block + t < want.size and 32 * (b + t) < n:
                slots.setdefault(b + t, []).append(want[b * per_block + t])
    written = np.flatnonzero(~out.unwritten).tolist()
    if per_block < 2 or blocks < 2 or out.past.size or written != sorted(slots) or \
            not all(out.got[s] in slots[s] for s in written):
        return
    yield (f"warp = blockIdx.x + threadIdx.x / 32 counts a block as one warp, but a block holds "
           f"{per_block}: warps of neighbouring blocks stored into one slot (counts[1] by warp 1 "
           f"of block 0 and warp 0 of block 1), only counts[0] to counts[{written[-1]}] were "
           f"written, and counts[{written[-1] + 1}] on never",
           "number the warps across the grid: warp = i / 32, with i = blockIdx.x * blockDim.x + "
           "threadIdx.x (block b's first warp is b * blockDim.x / 32)")


def _partial_warp_left_out(out, want, n):
    """Every count right but the last, never written, where the last warp holds fewer than 32
    elements: the guard sent the partial warp home, as if (warp >= n / 32) does (n / 32 rounds
    down)."""
    last = want.size - 1
    if n % 32 and np.flatnonzero(out.unwritten).tolist() == [last] and not out.past.size \
            and np.array_equal(out.got[:last], want[:last]):
        yield (f"only the last count, counts[{last}], was never written, and the others are "
               f"right: warp {last} holds x[{32 * last}] to x[{n - 1}], {n % 32} elements, fewer "
               f"than 32, and the guard sent it home, as warp >= n / 32 does: {n} / 32 = "
               f"{n // 32}, rounded down, leaves out the last, partial warp",
               "a warp has elements when its first one, 32 * warp, is below n: keep the stub's "
               "if (32 * warp >= n) return; (warp >= (n + 31) / 32 is the same)")


def _lane_and_32(out, want, per_block):
    """lane = threadIdx.x & 32: 0 in the warps at an even place in their block, 32 in the
    others, which never store; the counts stored right."""
    odd = np.arange(want.size) % per_block % 2 == 1
    if per_block > 1 and odd.any() and not out.past.size and \
            np.array_equal(out.unwritten, odd) and np.array_equal(out.got[~odd], want[~odd]):
        shown = [", ".join(f"counts[{w}]" for w in np.flatnonzero(m)[:2]) for m in (~odd, odd)]
        yield ("only the warps at an even place in their block stored their counts "
               f"({shown[0]}, ... right; {shown[1]}, ... never written): lane = "
               "threadIdx.x & 32 keeps bit 5 of threadIdx.x, 32 or 0, not its place in its "
               "warp: it is 32 in every lane of the block's warps 1, 3, ..., so none of their "
               "lanes has lane == 0", "a thread's place in its warp is threadIdx.x's low 5 "
               "bits: lane = threadIdx.x % 32 (or threadIdx.x & 31, 31 being 5 bits of 1)")


def _unwritten(out, want, per_block):
    """The mistakes that counts' never-written elements show (``per_block``: warps a block)."""
    yield from _lane_and_32(out, want, per_block)
    unwritten = out.unwritten
    if unwritten.any() and not unwritten[:per_block].any() and unwritten[per_block:].all():
        yield (f"only counts[0] to counts[{per_block - 1}] were written: every block's warps wrote "
               "there, the store's index being threadIdx.x / 32, a warp's place in its block "
               "(counts[threadIdx.x / 32], or warp = threadIdx.x / 32)", "counts has a place for "
               "every warp of the grid: store at counts[warp], with warp = i / 32 and i = "
               "blockIdx.x * blockDim.x + threadIdx.x (the grid's warp number), not threadIdx.x / 32")
    written = np.flatnonzero(~unwritten)
    if per_block > 1 and np.array_equal(written, np.arange(0, unwritten.size, per_block)):
        yield (f"only the first warp of each block stored its count (counts[0], "
               f"counts[{per_block}], ...; the other {int(unwritten.sum())} were never "
               "written): the store was left to the block's thread 0, threadIdx.x == 0, where "
               "each warp's lane 0 was meant", "lane 0 of every warp stores: lane = threadIdx.x "
               "% 32, if (lane == 0) counts[warp] = __popc(votes)")
    if unwritten.any():
        first = int(np.argmax(unwritten))
        yield (f"{int(unwritten.sum())} of the {unwritten.size} counts were never written "
               f"(the first is counts[{first}])",
               "lane 0 of every warp that has elements stores counts[warp]")


def _warp_and_lane_swapped(kernels):
    """warp = i % 32 and lane = threadIdx.x / 32, / and % swapped: the trace of a launch of
    1,000 elements in blocks of 128 (no lane returns there) shows only threads 0 to 31 of each
    block storing, thread i at counts[i % 32]."""
    seen = accesses_of(kernels, _launch((1000, 128), after=0), "counts stores", 4000)
    if seen is None or not len(mine := seen[(seen["array"] == "counts") & seen["write"]]):
        return
    i = mine["block"] * 128 + mine["thread"]
    if (mine["thread"] < 32).all() and (mine["index"] == i % 32).all() and \
            (mine["block"] > 0).any():
        yield ("warp and lane were computed with / and % swapped: warp = i % 32 is a thread's "
               "place in its warp, and lane = threadIdx.x / 32 the warp's place in its block, so "
               "(the trace of 1,000 elements in blocks of 128) only threads 0 to 31 of each "
               "block stored, thread i at counts[i % 32], every block's first warp over the "
               "last one's; and where n is 992 or less, the guard 32 * warp >= n sends "
               "lanes of every warp home before the ballot", "warp = i / 32, the warp's number in the "
               "grid, and lane = threadIdx.x % 32, the thread's place in its warp")


def _mistakes(case, run):
    """The mistakes one launch shows, the most telling first."""
    kernels, n, x, got = run.kernel, case[0], run.model, run.out.got
    votes = _votes(x, n)
    want = votes.sum(axis=1)
    if run.out.unwritten.any() or run.out.past.size or not np.array_equal(got, want):
        yield from _warp_and_lane_swapped(kernels)
    yield from _stored_at_i(run.out, n)
    yield from _one_count_a_block(run.out, want, run.launch.block[0])
    yield from _block_plus_warp(run.out, want, n, run.launch.block[0])
    yield from _partial_warp_left_out(run.out, want, n)
    yield from _unwritten(run.out, want, run.launch.block[0] // 32)
    if np.array_equal(got, want):
        return
    if np.array_equal(got - poison_value(np.uint32), want.astype(np.uint32)):
        yield ("each count is what counts held before the launch plus the right count: the "
               "count was added to counts[warp], which nothing sets to 0 first",
               "store it: counts[warp] = __popc(votes)")
    yield from observed_mistakes(observe(kernels, _launch(CASES[-1]), key="room after x"),
                                 _refine, wrong="the counts are wrong")
    for wrong, problem, hint in (
            *_word_mistakes(votes),
            (votes[:, 0], "each count is 0 or 1, lane 0's own vote: __popc counted a word that "
             "holds lane 0's vote alone, not the ballot's 32", "count the ballot's 1 bits: "
             "counts[warp] = __popc(votes), with votes = __ballot_sync(0xffffffff, above), the "
             "warp's 32 votes, one bit a lane"),
            (_votes(x, n, at_least=True).sum(axis=1),
             "elements equal to the threshold were counted too", "above means x[i] > threshold"),
            (_votes(x, n, reads_past_n=True).sum(axis=1),
             "the last warp counted its lanes past n too (x holds 2.0 there)",
             "a lane past n votes false: above = i < n && x[i] > threshold"),
            (_votes(x, n, one_past=True).sum(axis=1),
             "the last warp counted one element too many: the lane with i == n voted (x[n] lies "
             "past the end)", "the last element is x[n - 1]: above = i < n && x[i] > threshold "
             "(<, not <=)"),
            (np.where(votes.any(axis=1), votes.argmax(axis=1) + 1, 0),
             "each count is the place of the word's lowest 1 bit (__ffs), not how many bits are 1",
             "count the word's 1 bits: counts[warp] = __popc(votes)"),
            (votes.any(axis=1),
             "each count is 0 or 1, whether any lane voted true: the warp's 32 votes were "
             "collapsed to one true or false, as __any_sync gives, or a ballot's word kept in a "
             "bool (any 1 bit makes it true, and __popc of a bool is 0 or 1)", "keep the ballot's "
             "32-bit word, one bit a lane: unsigned int votes = __ballot_sync(0xffffffff, above), "
             "and count its 1 bits with __popc(votes)"),
            (_float_votes(x, n).sum(axis=1),
             "each count is how many lanes had x[i] - threshold at least 1 away from 0: the vote "
             "was a float, and __ballot_sync takes an int, so the float was cut to its whole part "
             "(x[i] - threshold = 0.25 votes 0, false)", "a vote is a bool: bool above = i < n "
             "&& x[i] > threshold"),
            *_cut_to_int(x, n), *_below_the_threshold(x, n, want),
            *_index_mistakes(x, n, run.launch.block[0]),
            *_block_counts(want, run.launch.block[0])):
        if np.array_equal(got, wrong):
            yield problem, hint
    if not got.any():
        yield "every count is 0: no lane voted true", "above = i < n && x[i] > threshold"
    w = int(np.argmax(got != want))
    yield (f"counts[{w}] = {got[w]}, but {want[w]} of x[{32 * w}..{min(32 * w + 31, n - 1)}] are "
           f"above {THRESHOLD}", "above = i < n && x[i] > threshold; votes = __ballot_sync("
           "0xffffffff, above); lane 0 stores __popc(votes)")


EXERCISE = KernelExercise(
    stub="exercises/warp_vote.cu", kernel="warp_vote",
    signature="const float *x, unsigned int *counts, int n, float threshold",
    cases=CASES, draw=_draw, where=_where, launch=_launch, mistakes=_mistakes,
    observed=observed_launch(lambda case: _launch(case, after=0), _refine), observed_as="",
    simulated="checks the warp functions' masks",
    crash_hint="read x[i] only for i < n, and store counts[warp] only for a warp with elements",
    refine=_refine, unset=_unset,
    success=f"every warp's count matches NumPy's ({len(CASES) - 1} sizes, n a multiple of 32 "
            "and not, blocks of 2 to 4 warps), and every lane takes part in the vote")

check_warp_vote = EXERCISE.check_file          # (path="exercises/warp_vote.cu")
check_warp_vote_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same on a compiled
# kernel; on a GPU, simulated is the same source compiled by the simulator
