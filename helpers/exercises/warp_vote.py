"""Checker for the warp-vote exercise of notebook 07 (``cuda_src/exercises/warp_vote.cu``).

The kernel under test::

    __global__ void warp_vote(const float *x, unsigned int *counts, int n, float threshold)

stores in counts[w], for each warp w of the grid that has elements, how many of x[32w] to
x[32w + 31] (those below n) are above ``threshold``: one ``__ballot_sync``, one ``__popc``.

The cases have n not a multiple of 32 (a partial last warp), and once a multiple (a warp that
starts at n must not store), with blocks of 1 to 8 warps, so the grid has warps past n; all but
one pass the threshold 0.5, the notebook's, and that one 0.25 (a vote that compares with the
constant 0.5, not with the parameter, shows there: ``threshold_ignored``); x holds values
from -1 to 2 on a grid of 1/64, so some equal the threshold (``>=`` for ``>`` shows), and 2.0
past n (a lane that reads there votes true); in the launch on the simulator nothing follows x,
so a read past n, which the vote may ignore, is out of bounds there, as on a GPU where x ends its
memory. counts is poisoned and guarded.
A wrong count is matched with what known mistakes give: the ballot's bits stored for their
number, lane 0's own vote, ``>=``, the lanes past n voting. A lane that returns or skips the ballot
in an if leaves the mask 0xffffffff naming lanes that never vote: the simulator stops there, and
on a GPU, where it may come out right by luck, a last launch on the simulator finds it. A vote
declared without a value and set only under ``if (i < n)`` comes out right on the simulator (its
bool starts false), but lanes past n vote garbage on a GPU: the simulator's compiler finds that
read in __ballot_sync, and the PASS becomes a NOT YET that names it (``_unset``).
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from helpers.exercises.common import Input, Output, poison_value
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import accesses_of, body_words, observe, observed_mistakes
from helpers.exercises.verdict import not_yet
from helpers.exercises.warp_vote_models import (JUNK, THRESHOLD, ballot_arguments_swapped,
                                               below_the_threshold, bitwise_and, block_counts,
                                               cut_to_int, rounded_up,
                                               float_votes, index_mistakes,
                                               last_element_left_out, own_bit_mask,
                                               threshold_ignored,
                                               threshold_of, votes_of_warps,
                                               warps_a_block_miscounted, word_mistakes)

BLOCKS = (32, 64, 96, 128, 256)
# (n, threads per block): a partial last warp but in the fourth, warps past n in the last block of
# the second to fifth, 3 warps a block in the third to fifth, in the fifth a last warp of one
# element (n one past a multiple of 32); in the sixth another threshold; the last on the simulator
CASES = [(1000, 128), (77, 64), (5000, 96), (256, 96), (289, 96), (300, 64, 0.25),
         (203, 256, "observe")]


def _draw(rng):
    """The grader's cases: n not a multiple of 32, few warps and many, on any of the blocks."""
    return [(awkward(rng, 32, 2, 300), pick(rng, BLOCKS)),
            (awkward(rng, 32, 300, 20_000), pick(rng, BLOCKS))]


def _where(case):
    told = f", threshold = {threshold_of(case):g}" if threshold_of(case) != THRESHOLD else ""
    return f"n = {case[0]:,}, block = ({case[1]}, 1, 1), grid = ({-(-case[0] // case[1])}, 1){told}"


def _launch(case, after=64):
    """x with ``after`` elements of JUNK after it (none in the case launched on the simulator)."""
    n, block = case[:2]
    # -1 to 2: a vote given as the float x[i] - threshold (cut to an int) differs from x[i] > threshold
    x = np.random.default_rng(n).integers(-64, 128, n).astype(np.float32) / 64
    return Launch((Input(x, after=after, junk=JUNK), Output(-(-n // 32), np.uint32, held=False),
                   np.int32(n), threshold_of(case)), block=(block, 1, 1), grid=(-(-n // block), 1), model=x)


def _refine(failure):
    """A read past the end of x: a lane past n read x[i] before its guard said no; a store past
    the end of counts by lane 0 of a warp at counts[i], its element's index, not its warp's; a
    ballot that lane 0 of the last warp called alone (``rounded_up``)."""
    err = failure.error
    yield from rounded_up(failure)
    yield from ballot_arguments_swapped(failure)
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


def _words_first(kernels):
    """``_refine``, after a read past x by a vote that joins its tests with & (``bitwise_and``)."""
    return lambda failure: chain(bitwise_and(body_words(kernels), failure), _refine(failure))


def _element_guard(kernels):
    """Before the cases: the element's guard, if (i >= n) return;, before the full-mask ballot
    (the kernel's words), and on the simulator (the last case, a partial last warp) the ballot
    called by exactly the lanes of the last warp below n: its lanes past n had returned."""
    if "if ( i >= n ) return" not in " ".join(body_words(kernels)):
        return None
    launch = _launch(CASES[-1], after=0)
    err, n, size = observe(kernels, launch).error, CASES[-1][0], launch.block[0]
    if getattr(err, "rule", None) != "lanes never arrive" or not err.block or not err.thread:
        return None
    first = err.thread[0] - err.thread[0] % 32
    start = err.block[0] * size + first
    if not start < n < start + 32 or tuple(err.waiting or ()) != tuple(range(first, first + n - start)):
        return None
    w, line = start // 32, str(err.line or "").rsplit(":", 1)[-1]
    return not_yet(
        f"the guard if (i >= n) return; sent lanes {n - start} to 31 of warp {w} (i = {n} to "
        f"{start + 31}) home before the ballot, so lanes 0 to {n - start - 1} (i = {start} to "
        f"{n - 1}) called __ballot_sync(0xffffffff, ...) at line {line} without them: a warp "
        "function whose mask names all 32 lanes, where lanes that have returned never call it "
        f"(on the simulator, n = {n}, block = ({size}, 1, 1); on a GPU this is undefined)",
        "the ballot's mask 0xffffffff names all 32 lanes of the warp, so only a warp with no "
        "element returns, if (32 * warp >= n) return;, and a lane past n stays and votes false: "
        "bool above = i < n && x[i] > threshold")


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


def _partial_warp_left_out(kernels, out, want, n):
    """Every count right but the last, never written, where the last warp holds fewer than 32
    elements: the guard sent the partial warp home, as if (warp >= n / 32) does (n / 32 rounds
    down), or, where it holds one element, if (32 * warp >= n - 1) (``last_element_left_out``)."""
    last = want.size - 1
    if n % 32 and np.flatnonzero(out.unwritten).tolist() == [last] and not out.past.size \
            and np.array_equal(out.got[:last], want[:last]):
        yield from last_element_left_out(body_words(kernels), n)
        yield (f"only the last count, counts[{last}], was never written, and the others are "
               f"right: warp {last} holds x[{32 * last}] to x[{n - 1}], {n % 32} elements, fewer "
               f"than 32, and the guard sent it home, as warp >= n / 32 does: {n} / 32 = "
               f"{n // 32}, rounded down, leaves out the last, partial warp",
               "a warp has elements when its first one, 32 * warp, is below n: keep the stub's "
               "if (32 * warp >= n) return; (warp >= (n + 31) / 32 is the same)")


def _lane_0_votes_too(out, want, votes):
    """Only the warps whose lane 0 voted true stored, each its right count: the store's condition
    asks for lane 0's own vote too, if (lane == 0 && above)."""
    skipped = ~votes[:, 0]
    if not skipped.any() or out.past.size or not np.array_equal(out.unwritten, skipped) or \
            not np.array_equal(out.got[~skipped], want[~skipped]):
        return
    w = int(np.argmax(skipped))
    yield (f"only the warps whose lane 0 voted true stored their counts: the store's condition "
           f"tests lane 0's vote too, as if (lane == 0 && above) does, so counts[{w}] (lane 0's "
           f"x[{32 * w}] is not above {THRESHOLD}) and {int(skipped.sum()) - 1} others were never "
           "written, and the counts stored are right", "every warp with elements stores its "
           "count, 0 included, whatever lane 0 voted: if (lane == 0) counts[warp] = __popc(votes)")


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


def _first_warp_of_each_block(kernels, out, per_block):
    """Only each block's first warp stored (counts[0], counts[per_block], ...): the threads that
    stored on the trace of 1,000 elements in blocks of 128 (``_warp_and_lane_swapped``'s) tell
    lane = threadIdx.x / 32, lane 0 in all 32 threads of the first warp, which all store, from
    if (threadIdx.x == 0), thread 0 alone."""
    unwritten = out.unwritten
    if per_block < 2 or not unwritten.any() or not np.array_equal(np.flatnonzero(~unwritten),
                                           np.arange(0, unwritten.size, per_block)):
        return
    shown = (f"only the first warp of each block stored its count (counts[0], counts[{per_block}]"
             f", ...; the other {int(unwritten.sum())} were never written)")
    seen = accesses_of(kernels, _launch((1000, 128), after=0), "counts stores", 4000)
    stored = set() if seen is None else \
        set(np.unique(seen[(seen["array"] == "counts") & seen["write"]]["thread"]).tolist())
    if stored == set(range(32)):
        yield (f"{shown}: lane = threadIdx.x / 32 is the warp's place in its block, not the "
               "thread's place in its warp: all 32 threads of each block's first warp stored "
               "(their lane is 0; the trace of 1,000 elements in blocks of 128), and no thread "
               "of the other warps, whose lane is 1, 2 or 3", "a thread's place in its warp is "
               "the remainder: lane = threadIdx.x % 32 (%, not /)")
    hint = "lane 0 of every warp stores: lane = threadIdx.x % 32, if (lane == 0) counts[warp] = " \
        "__popc(votes)"
    if stored == {0}:
        yield (f"{shown}: the store was left to the block's thread 0, threadIdx.x == 0, where "
               "each warp's lane 0 was meant", hint)
    yield f"{shown}: no thread of the blocks' other warps stored", hint


def _unwritten(kernels, out, votes, n, per_block):
    """The mistakes that counts' never-written elements show (``per_block``: warps a block)."""
    want = votes.sum(axis=1)
    yield from _lane_0_votes_too(out, want, votes)
    yield from _lane_and_32(out, want, per_block)
    unwritten = out.unwritten
    yield from warps_a_block_miscounted(  # the trace: where block 1's warps stored (K + t)
        lambda: accesses_of(kernels, _launch((5000, 128), after=0), "counts by warp number", 8000),
        out, want, n, per_block)
    if unwritten.any() and not unwritten[:per_block].any() and unwritten[per_block:].all():
        yield (f"only counts[0] to counts[{per_block - 1}] were written: every block's warps wrote "
               "there, the store's index being threadIdx.x / 32, a warp's place in its block "
               "(counts[threadIdx.x / 32], or warp = threadIdx.x / 32)", "counts has a place for "
               "every warp of the grid: store at counts[warp], with warp = i / 32 and i = "
               "blockIdx.x * blockDim.x + threadIdx.x (the grid's warp number), not threadIdx.x / 32")
    yield from _first_warp_of_each_block(kernels, out, per_block)
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
    votes = votes_of_warps(x, n, threshold=threshold_of(case))
    want = votes.sum(axis=1)
    if run.out.unwritten.any() or run.out.past.size or not np.array_equal(got, want):
        yield from _warp_and_lane_swapped(kernels)
    yield from _stored_at_i(run.out, n)
    yield from _one_count_a_block(run.out, want, run.launch.block[0])
    yield from _block_plus_warp(run.out, want, n, run.launch.block[0])
    yield from _partial_warp_left_out(kernels, run.out, want, n)
    yield from _unwritten(kernels, run.out, votes, n, run.launch.block[0] // 32)
    if np.array_equal(got, want) or threshold_of(case) != THRESHOLD:  # nothing where right
        return (yield from threshold_ignored(x, n, got, want, threshold_of(case)))
    if np.array_equal(got - poison_value(np.uint32), want.astype(np.uint32)):
        yield ("each count is what counts held before the launch plus the right count: the "
               "count was added to counts[warp], which nothing sets to 0 first",
               "store it: counts[warp] = __popc(votes)")
    yield from observed_mistakes(observe(kernels, _launch(CASES[-1]), key="room after x"),
                                 _words_first(kernels), wrong="the counts are wrong")
    for wrong, problem, hint in (
            *word_mistakes(votes), *own_bit_mask(body_words(kernels), votes),
            (votes[:, 0], "each count is 0 or 1, lane 0's own vote: __popc counted a word that "
             "holds lane 0's vote alone, not the ballot's 32", "count the ballot's 1 bits: "
             "counts[warp] = __popc(votes), with votes = __ballot_sync(0xffffffff, above), the "
             "warp's 32 votes, one bit a lane"),
            (votes_of_warps(x, n, at_least=True).sum(axis=1),
             "elements equal to the threshold were counted too", "above means x[i] > threshold"),
            (votes_of_warps(x, n, reads_past_n=True).sum(axis=1),
             "the last warp counted its lanes past n too (x holds 2.0 there)",
             "a lane past n votes false: above = i < n && x[i] > threshold"),
            (votes_of_warps(x, n, one_past=True).sum(axis=1),
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
            (float_votes(x, n).sum(axis=1),
             "each count is how many lanes had x[i] - threshold at least 1 away from 0: the vote "
             "was a float, and __ballot_sync takes an int, so the float was cut to its whole part "
             "(x[i] - threshold = 0.25 votes 0, false)", "a vote is a bool: bool above = i < n "
             "&& x[i] > threshold"),
            *cut_to_int(x, n), *below_the_threshold(x, n, want),
            *index_mistakes(x, n, run.launch.block[0]),
            *block_counts(want, run.launch.block[0])):
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
    observed=lambda kernels, case: observed_mistakes(observe(kernels, _launch(case, after=0)),
                                                     _words_first(kernels)), observed_as="",
    simulated="checks the warp functions' masks",
    crash_hint="read x[i] only for i < n, and store counts[warp] only for a warp with elements",
    refine=_refine, unset=_unset, before=_element_guard,
    success=f"every warp's count matches NumPy's ({len(CASES) - 1} sizes, n a multiple of 32 "
            "and not, blocks of 2 to 4 warps, thresholds 0.5 and 0.25), and every lane takes "
            "part in the vote")

check_warp_vote = EXERCISE.check_file          # (path="exercises/warp_vote.cu")
check_warp_vote_kernel = EXERCISE.check_kernel  # (kernel, simulated=None): the same on a compiled
# kernel; on a GPU, simulated is the same source compiled by the simulator
