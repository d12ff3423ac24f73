"""The NumPy models of ``helpers.exercises.warp_vote``'s kernel (each warp's count of its
elements above a threshold, one __ballot_sync and one __popc): each warp's votes as the right
kernel and known mistakes cast them, and the counts of known mistakes, each with its problem and
hint."""

from __future__ import annotations

import os

import numpy as np

THRESHOLD = np.float32(0.5)
JUNK = np.float32(2.0)
"""What x holds past n: above the threshold, so a lane that reads there votes true."""


def votes_of_warps(x, n, reads_past_n=False, at_least=False, one_past=False,
                   threshold=THRESHOLD):
    """Each warp's votes, (warps, 32) booleans, as the kernel with these mistakes casts them
    (``one_past``: the lane i == n reads x[n] too, a guard i <= n) against ``threshold``."""
    padded = np.full(-(-n // 32) * 32, JUNK if reads_past_n else -np.inf, np.float32)
    if one_past and n < padded.size:
        padded[n] = JUNK
    padded[:n] = x
    votes = padded >= threshold if at_least else padded > threshold
    return votes.reshape(-1, 32)


def threshold_of(case):
    """The threshold a case passes: its third element where that is a number, else THRESHOLD."""
    return np.float32(case[2]) if len(case) > 2 and not isinstance(case[2], str) else THRESHOLD


def threshold_ignored(x, n, got, want, threshold):
    """Wrong counts where the case passes a threshold other than THRESHOLD (the cases before it
    passed): those of x[i] > THRESHOLD, the vote comparing with the notebook's constant, not
    with the kernel's parameter; else the first wrong count. Nothing where they are right."""
    if np.array_equal(got, want):
        return
    w = int(np.argmax(got != want))
    shown = (f"counts[{w}] = {got[w]}, where {want[w]} of x[{32 * w}..{min(32 * w + 31, n - 1)}] "
             f"are above {threshold:g}")
    if np.array_equal(got, votes_of_warps(x, n).sum(axis=1)):
        yield (f"the counts are those of x[i] > {THRESHOLD:g} whatever threshold is passed (here "
               f"threshold = {threshold:g}: {shown}): the vote ignores the kernel's threshold "
               f"parameter and compares with the constant {THRESHOLD:g}, which every other case "
               "passed", "compare with the parameter: bool above = i < n && x[i] > threshold;")
    yield (f"with threshold = {threshold:g}, {shown}", "compare with the parameter the launch "
           "passes: bool above = i < n && x[i] > threshold;")


def float_votes(x, n):
    """Each warp's votes, (warps, 32) booleans, for a vote given as the float x[i] - threshold
    (0 past n): __ballot_sync's int predicate keeps its whole part."""
    padded = np.zeros(-(-n // 32) * 32, np.float32)
    padded[:n] = x - THRESHOLD
    return (np.trunc(padded) != 0).reshape(-1, 32)


def in_a_float(words):
    """32-bit words as a float holds them (to nearest), then turned back into an unsigned int
    (PTX's conversion: toward 0, 2^32 saturates to 2^32 - 1)."""
    rounded = words.astype(np.uint32).astype(np.float32).astype(np.float64)
    return np.minimum(rounded, 2.0 ** 32 - 1).astype(np.uint64)


def popc(words):
    """The number of 1 bits in each of ``words`` (unsigned, below 2^32)."""
    return sum((words.astype(np.uint64) >> np.uint64(k)) & np.uint64(1) for k in range(32))


def votes_read_at(x, n, index):
    """Each warp's votes, (warps, 32) booleans, where lane l of the thread i = 32w + l reads
    x[index(i)] (below n) in place of x[i]."""
    i = np.arange(-(-n // 32) * 32)
    return ((i < n) & (x[np.minimum(index(i), n - 1)] > THRESHOLD)).reshape(-1, 32)


def word_mistakes(votes):
    """(counts, problem, hint) for a ballot's word stored as it is, or kept in a float."""
    bits = (votes * (1 << np.arange(32, dtype=np.uint64))).sum(axis=1).astype(np.uint32)
    yield (bits, "each count is the ballot's word itself, its bits read as a number",
           "count the word's 1 bits: counts[warp] = __popc(votes)")
    yield (popc(in_a_float(bits)), "each count is how many bits are 1 in the ballot's word "
           "rounded to a float: votes was declared a float, which holds 24 bits of a number, so "
           "the 32-bit word lost its low bits before __popc counted them", "keep the ballot's "
           "word in an unsigned int: unsigned int votes = __ballot_sync(0xffffffff, above)")
    yield (popc(bits & np.uint32(0xFFFF)), "only lanes 0 to 15 were counted: the ballot's word "
           "was kept in 16 bits (an unsigned short), which drops lanes 16 to 31's bits", "the "
           "ballot is 32 bits, one a lane: keep it in an unsigned int, unsigned int votes = "
           "__ballot_sync(0xffffffff, above)")


def own_bit_mask(words, votes):
    """(counts, problem, hint) for a ballot whose mask is built with a shift, the calling lane's
    own bit (__ballot_sync(1u << lane, above), in the kernel body's ``words``): each lane's
    ballot names itself alone, so lane 0's word holds its own vote."""
    k = next((k for k in range(len(words) - 1)
              if words[k:k + 2] == ["__ballot_sync", "("] and "," in words[k:]), None)
    mask = [] if k is None else words[k + 2:words.index(",", k)]
    if "<<" in mask:
        shown = " ".join(mask).replace("( ", "(").replace(" )", ")")
        yield (votes[:, 0], f"each count is 0 or 1, lane 0's own vote: the ballot's mask {shown} "
               "names only the calling lane, so __ballot_sync gave each lane a word that holds "
               "its own vote alone, not the warp's 32", "the mask names every lane that takes "
               "part in the vote, all 32: votes = __ballot_sync(0xffffffff, above), then "
               "counts[warp] = __popc(votes)")


def cut_to_int(x, n):
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


def index_mistakes(x, n, block):
    """(counts, problem, hint) for a vote that reads another element than x[i]."""
    yield (votes_read_at(x, n, lambda i: i % 32).sum(axis=1), "every warp voted on x[0] to x[31]: "
           "the vote read x[lane], the lane's place in its warp, not its element", "thread i "
           "looks at x[i], i = blockIdx.x * blockDim.x + threadIdx.x: above = i < n && x[i] > "
           "threshold")
    yield (votes_read_at(x, n, lambda i: i % block).sum(axis=1), "every block voted on x[0] to "
           f"x[{min(block, n) - 1}]: the vote read x[threadIdx.x], the thread's place in its "
           "block, not its element", "thread i looks at x[i], i = blockIdx.x * blockDim.x + "
           "threadIdx.x: above = i < n && x[i] > threshold")


def below_the_threshold(x, n, want):
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


def block_counts(want, block):
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


def last_element_left_out(words, n):
    """The last count never written where the last warp holds one element, x[n - 1] (n one past
    a multiple of 32), and the kernel's words (``words``) guard with 32 * warp >= n - 1: n - 1
    taken for the end, where n is."""
    text, w = " ".join(words), n // 32
    if n % 32 != 1 or "32 * warp >= n - 1" not in text:
        return
    yield (f"only the last count, counts[{w}], was never written, and the others are right: "
           f"warp {w} holds one element, x[{n - 1}] (n = {n}), and the guard 32 * warp >= n - 1 "
           f"sent it home: 32 * {w} = {32 * w} >= {n - 1}; x[n - 1] is the last element, but a "
           "warp has elements as long as its first one is below n, not below n - 1",
           "a warp has elements when its first one, 32 * warp, is below n: keep the stub's "
           "if (32 * warp >= n) return;")


def warps_a_block_miscounted(trace, out, want, n, per_block):
    """warp = blockIdx.x * K + threadIdx.x / 32 with K not the block's warps (32 assumed): K read
    from where lane 0 of block 1's warps stored in ``trace()`` (the accesses of a launch of 5,000
    elements in blocks of 128, 4 warps a block: counts[K + t]); this launch's counts matched
    with what that numbering gives (warp t of block b stores its count at counts[b * K + t],
    returning where 32 * (b * K + t) >= n)."""
    blocks = -(-n // (32 * per_block))
    if not out.unwritten.any() or out.past.size:
        return
    seen = trace()
    mine = None if seen is None else seen[(seen["array"] == "counts") & seen["write"]]
    if mine is None or not (mine["block"] > 0).any() or (mine["thread"] % 32).any():
        return
    k = set(((mine["index"] - mine["thread"] // 32) // np.maximum(mine["block"], 1))
            [mine["block"] > 0].tolist())
    if len(k) != 1 or (held := k.pop()) in (4, 0) or \
            ((mine["index"] - mine["thread"] // 32) != mine["block"] * held).any():
        return
    slots = {b * held + t: b * per_block + t for b in range(blocks) for t in range(per_block)
             if 32 * (b * held + t) < n}
    right = np.append(want, 0)
    if np.flatnonzero(~out.unwritten).tolist() != sorted(slots) or \
            any(out.got[s] != right[min(w, want.size)] for s, w in slots.items()):
        return
    shown = (f"whose elements would start at x[{32 * held}], past n = {n:,}, so it returned: only "
             f"block 0's warps stored, counts[0] to counts[{per_block - 1}]" if 32 * held >= n else
             f"and stored at counts[{held}]: the counts landed apart, with gaps")
    yield (f"warp = blockIdx.x * {held} + threadIdx.x / 32 numbers each block's warps as if a block "
           f"held {held}, but a block of {32 * per_block} threads holds {per_block} (blockDim.x / "
           f"32): block 1's first warp became warp {held}, {shown}, and the other "
           f"{int(out.unwritten.sum())} counts were never written",
           "number the warps across the grid: warp = i / 32, with i = blockIdx.x * blockDim.x + "
           "threadIdx.x (block b's first warp is b * blockDim.x / 32)")


def ballot_arguments_swapped(failure):
    """The vote passed as the ballot's mask, __ballot_sync(above, 0xffffffff): the simulator's
    mask error of a lane its mask leaves out, the mask 0 or 1, the lane's own vote (a bool made
    an unsigned int) as its element says it (x[i] > threshold, false past n)."""
    from helpers.exercises.failure import describe

    err, launch = failure.error, failure.launch
    if failure.kind != "warp mask" or getattr(err, "rule", None) != "leaves out the caller" or \
            launch is None or not err.block or not err.thread or err.mask not in (0, 1):
        return
    n, threshold, x = int(launch.args[2]), launch.args[3], launch.model
    i = err.block[0] * launch.block[0] + err.thread[0]
    vote = bool(i < n and x[i] > threshold)
    if err.mask != vote:
        return
    said = (f"x[{i}] = {x[i]:g} is {'' if vote else 'not '}above {threshold:g}" if i < n else
            f"i = {i} is past n")
    yield (f"{describe(err)}: that mask is lane {err.lane}'s own vote, {int(vote)} for "
           f"{str(vote).lower()} ({said}): __ballot_sync's first argument is the mask, its "
           "second the vote, and this call has them swapped, the vote first",
           "the mask first, the vote second: __ballot_sync(0xffffffff, above)")


def rounded_up(failure):
    """The ballot called by lane 0 of the last warp alone (the simulator's mask error, its
    ``waiting`` lanes): warp rounded up, (i + 31) / 32, gives lanes 1 to 31 of a warp the next
    warp's number, and in the last warp the guard 32 * warp >= n sends them home."""
    err, launch = failure.error, failure.launch
    if failure.kind != "warp mask" or getattr(err, "rule", None) != "lanes never arrive" or \
            not err.block or not err.thread or launch is None or not failure.block:
        return
    t = err.thread[0]
    i, n = err.block[0] * failure.block[0] + t, int(launch.args[2])
    if t % 32 or list(err.waiting or ()) != [t] or not i < n <= i + 32:
        return
    w = i // 32
    yield (f"warp was rounded up: lanes 1 to 31 of warp {w} (i = {i + 1} to {i + 31}) took warp "
           f"number {w + 1}, so 32 * warp = {32 * (w + 1)} >= n = {n} sent them home before the "
           f"ballot, and lane 0 (i = {i}) called __ballot_sync(0xffffffff, ...) alone ((i + 31) "
           f"/ 32 = {w + 1} for i = {i + 1}, where i / 32 = {w})", "number the warps rounding "
           "down: warp = i / 32, so that the 32 lanes of a warp share its number, and the warp "
           "with elements keeps all 32 for the ballot")


def bitwise_and(words, failure):
    """(problem, hint) for a read past x's end (``failure``'s error, read by its fields) where a
    statement of the kernel body's ``words`` (``microscope.body_words``) that reads x[...] joins
    tests with a binary &, which evaluates both sides, where && stops at a false i < n."""
    err = failure.error
    if failure.kind != "out of bounds" or err.is_write is not False or \
            getattr(err, "array", None) != "x" or not err.thread or not err.block:
        return
    ends = [-1, *(k for k, word in enumerate(words) if word in (";", "{", "}")), len(words)]
    if not any(_reads_x(words[a + 1:b]) and _binary_and(words[a + 1:b])
               for a, b in zip(ends, ends[1:])):
        return
    yield (f"thread {err.thread[0]} of block {err.block[0]}, a lane past n = {err.length}, read "
           f"x[{err.element}] at {os.path.basename(err.line or '?')}: the vote joins its tests "
           "with &, which evaluates both sides (it does not stop at a false i < n, as && does), "
           "so a lane past n still reads x[i]", "join them with &&, which skips x[i] > "
           "threshold where i < n is false: above = i < n && x[i] > threshold")


def _reads_x(statement) -> bool:
    return any(a == "x" and b == "[" for a, b in zip(statement, statement[1:]))


def _binary_and(statement) -> bool:
    """An & between two values (after a ")", a "]", a name or a number), not an address-of."""
    return any(word == "&" and (before in (")", "]") or before.isidentifier() or
                                before[:1].isdigit())
               for before, word in zip(statement, statement[1:]))
