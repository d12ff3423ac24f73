"""The models of ``helpers.exercises.reverse_blocks``'s mistakes: each block mirrored, with its
own length or another (``reference``), the last block's len one short (``len_one_short``), and
which of a thread's four accesses were made at its mirror rather than at its own j, from a trace
on the simulator (``mirrors``), the output the input where two undo each other
(``mirrored_twice``)."""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from helpers.exercises.common import Input
from helpers.exercises.microscope import accesses_of

BLOCK = 256


def reference(x, sizes=None):
    """Each block of x reversed; ``sizes``: the block lengths to mirror (the blocks' own)."""
    n = x.size
    out = np.full(n, np.nan, np.float32)
    for start in range(0, n, BLOCK):
        size = sizes(n - start) if sizes else min(BLOCK, n - start)
        for j in range(min(BLOCK, n - start)):
            k = size - 1 - j
            out[start + j] = x[start + k] if 0 <= k < n - start else np.nan
    return out


PLACES = (("in", False, "the load from in", "loaded in[{}]"),
          ("s", True, "the store into s", "put it in s[{}]"),
          ("s", False, "the read of s", "read s[{}]"),
          ("out", True, "the store into out", "stored that at out[{}]"))
"""The four accesses each thread makes: (array, a write, what it is, what the thread did)."""


def mirrors(run):
    """For each of the four accesses (``PLACES``), whether every thread made it at its mirror,
    len - 1 - j, rather than at its own j (offsets from the block's start for in and out), in
    a trace of the launch on the simulator; None where a thread made one at another index, or
    the trace has none."""
    n = run.model.size
    kept = accesses_of(run.kernel, dataclasses.replace(run.launch, args=(
        Input(run.model), *run.launch.args[1:])), f"mirrors, n = {n}", 8 * n)
    if kept is None or not kept.size:
        return None
    start = kept["block"].astype(np.int64) * BLOCK
    j = kept["thread"].astype(np.int64)
    mirror = np.minimum(BLOCK, n - start) - 1 - j
    local = kept["index"] - np.where(kept["shared"], 0, start)
    found = []
    for array, write, _, _ in PLACES:
        mine = (kept["array"] == array) & (kept["write"] == write) & (j != mirror)
        own, mirrored = local[mine] == j[mine], local[mine] == mirror[mine]
        if not mine.any() or not ((own | mirrored).all() and (own.all() or mirrored.all())):
            return None
        found.append(bool(mirrored.all()))
    return found


def mirrored_twice(run):
    """The output is the input: two of the four accesses mirrored (``mirrors``), which undo each
    other, as out[start + len - 1 - j] = s[len - 1 - j] does."""
    found = mirrors(run)
    if found is None or sum(found) < 2:
        return
    n = run.model.size
    b, j = (1, 3) if n > BLOCK + 3 else (0, 3)
    start = b * BLOCK
    size = min(BLOCK, n - start)
    twice = [what for (_, _, what, _), m in zip(PLACES, found) if m]
    did = ", ".join(done.format((0 if array == "s" else start) + (size - 1 - j if m else j))
                    for (array, _, _, done), m in zip(PLACES, found))
    yield (f"the output is the input, unchanged: the mirror, len - 1 - j, was applied "
           f"{'twice' if len(twice) == 2 else 'four times'}, in {' and '.join(twice)}, and "
           f"each undoes the other (thread {j} of block {b}, start = {start}, len = {size}: {did})",
           "mirror once, in the read of s alone: s[j] = in[start + j], then out[start + j] = "
           "s[len - 1 - j], with len = min(BLOCK, n - start)")


def len_one_short(n, run, want):
    """len = min(BLOCK, n - start - 1): the last block (n - start <= BLOCK elements) mirrored one
    fewer, each element the one before its mirror, and its last element never written."""
    short = reference(run.model, lambda rest: min(BLOCK, rest - 1))
    if np.array_equal(short, want, equal_nan=True) or not np.array_equal(
            run.out.got, short, equal_nan=True):
        return
    start = (n - 1) // BLOCK * BLOCK
    rest = n - start
    shifted = (f"out[{start}] got in[{n - 2}] where in[{n - 1}] belongs, each element the one "
               "before its mirror, and " if rest > 1 else "")
    yield (f"the last block's len is one short: it holds n - start = {rest} elements (out[{start}] "
           f"to out[{n - 1}]) but mirrored {rest - 1}, so {shifted}out[{n - 1}] was "
           "never written: n - start is already the block's number of elements, and the - 1 in "
           "len = min(BLOCK, n - start - 1) takes its last one off",
           "len counts the block's elements: len = min(BLOCK, n - start); the mirror's - 1 "
           "belongs in the read alone, s[len - 1 - j]")


def len_one_too_many(n, run, junk):
    """len = min(BLOCK, n - start + 1): the last, partial block mirrored one more, in[n] (the
    ``junk`` after in) loaded and stored into its first element, each other element the one after
    its mirror, and out[n] written, past the end."""
    start = (n - 1) // BLOCK * BLOCK
    rest = n - start
    model = reference(run.model)
    model[start], model[start + 1:] = junk, run.model[start + 1:][::-1]
    if rest == BLOCK or run.out.past.tolist() != [n] or not np.array_equal(run.out.got, model):
        return
    yield (f"the last block's len is one too many: it holds n - start = {rest} elements "
           f"(out[{start}] to out[{n - 1}]) but mirrored {rest + 1}, so its thread {rest} loaded "
           f"in[{n}], past the end of in, which thread 0 stored into out[{start}], each other "
           f"element got the one after its mirror, and out[{n}], past the end of out, was written: "
           "n - start is already the block's number of elements, and the + 1 in "
           "len = min(BLOCK, n - start + 1) adds one more",
           "len counts the block's elements: len = min(BLOCK, n - start)")


def load_guard_global(run, want):
    """The load guarded by if (start + j < len), the element's global index against the block's
    own count: in a trace on the simulator only block 0's threads wrote s (j < len there), while
    every block's threads j < len stored into out, as the solution's do, from an s never filled."""
    n = run.model.size
    if n <= BLOCK or not np.array_equal(run.out.got[:BLOCK], want[:BLOCK]):
        return
    kept = accesses_of(run.kernel, dataclasses.replace(run.launch, args=(
        Input(run.model), *run.launch.args[1:])), f"load guard, n = {n}", 8 * n)
    if kept is None or not kept.size:
        return
    block, j = kept["block"].astype(np.int64), kept["thread"].astype(np.int64)
    start = block * BLOCK
    size = np.minimum(BLOCK, n - start)
    loads = kept["shared"] & kept["write"]
    stores = (kept["array"] == "out") & kept["write"]
    ours = {(b, t) for b in range(-(-n // BLOCK)) for t in range(min(BLOCK, n - b * BLOCK))}
    if set(zip(block[loads].tolist(), j[loads].tolist())) != {(0, t) for t in range(BLOCK)} or \
            set(zip(block[stores].tolist(), j[stores].tolist())) != ours or \
            not np.array_equal(kept["index"][loads], j[loads]) or \
            not np.all((start + j)[loads] < size[loads]):
        return
    bad = int(np.flatnonzero(run.out.got != want)[0])
    yield (f"no thread of a block past 0 loaded into s: the load's guard compared start + j with "
           f"len (block 1: start + j = {BLOCK} to {2 * BLOCK - 1}, len = {min(BLOCK, n - BLOCK)}), "
           "the element's place in the whole array against the block's own count, true in block "
           "0 alone, yet every block stored into out, from an s never filled (the first wrong, "
           f"out[{bad}] = {run.out.got[bad]:g}, expected {want[bad]:g})",
           "the load's guard is the store's, the thread's place in its block against the block's "
           "len: if (j < len) s[j] = in[start + j];")


def j_as_the_lane(failure):
    """j = threadIdx.x % 32 (a warp's lane for the thread's place): threads j and j + 32 of a
    block both load s[j % 32] (a write-after-write on s, the element the first thread's lane), so
    only s[0] to s[31] are loaded, each by blockDim.x / 32 threads."""
    err = failure.error
    if failure.kind != "race" or err.array != "s" or err.hazard != "write-after-write" or \
            err.first.block != err.second.block or not err.same_line:
        return
    a, b = sorted((err.first.thread[0], err.second.thread[0]))
    threads = (failure.block or (BLOCK,))[0]
    if b - a != 32 or err.element != a % 32 or threads <= 32:
        return
    yield (f"threads {a} and {b} of block {err.first.block[0]} both loaded s[{err.element}] at "
           f"{err.first.line} (a data race, {err.count} hazards in this launch): j = threadIdx.x "
           f"% 32 is a lane, which repeats every 32 threads, so only s[0] to s[31] were loaded, "
           f"each by {threads // 32} threads, and s[32] to s[{threads - 1}] never",
           f"j is the thread's place in the block, 0 to {threads - 1}, not its lane in a warp: "
           "int j = threadIdx.x;")


def s_declared_short(failure):
    """s declared with fewer elements than the block's threads (its fields: the size it was
    declared with, the index, the thread): thread j stores s[j] for every j < len, so s needs
    BLOCK elements; BLOCK - 1, the largest index, is the size taken for the count."""
    err = failure.error
    size, threads = getattr(err, "length", None), (failure.block or (BLOCK,))[0]
    if failure.kind != "array bounds" or size is None or not 0 < size < threads or \
            err.element is None or err.element < size or not err.thread or not err.block:
        return
    at = f" at {os.path.basename(err.line)}" if getattr(err, "line", None) else ""
    fewer, why = "fewer", ""
    if size == threads - 1:
        fewer, why = "one fewer", (f": the size given is the largest index, {size}, but a size "
                                   f"counts the elements, {threads} for indices 0 to {size}")
    yield (f"s is declared with {size} floats, {fewer} than the block's {threads} threads: thread "
           f"{err.thread[0]} of block {err.block[0]} reached s[{err.element}]{at}, past its last "
           f"element, s[{size - 1}]{why}", f"s needs one element for each of the block's "
           f"{threads} threads, __shared__ float s[BLOCK]")


def len_of_the_last_block(n, run):
    """len = n % BLOCK in every block: the full blocks mirrored the last block's count, each
    element j < len getting the block's element len - 1 - j, the others never written."""
    rest = n % BLOCK
    if n <= BLOCK or not rest or not np.array_equal(
            run.out.got, reference(run.model, lambda _: rest), equal_nan=True):
        return
    yield (f"every block mirrored len = n % BLOCK = {n} % {BLOCK} = {rest} elements, the last "
           f"block's count, where its own belongs: a full block holds {BLOCK}, so out[0] = "
           f"{run.out.got[0]:g} got in[{rest - 1}], expected in[{BLOCK - 1}], and out[{rest}] to "
           f"out[{BLOCK - 1}] of each full block were never written",
           "each block counts its own elements: len = min(BLOCK, n - start), BLOCK in every full "
           "block and n - start in the last")


def minus_j_outside(n, run, want):
    """out[start + j] = s[len - 1] - j: every thread read the block's last element and took j
    off its value, the - j outside the brackets (the model, exact in float)."""
    i = np.arange(n)
    j, got = i % BLOCK, run.out.got
    lens = np.minimum(BLOCK, n - (i - j))
    model = run.model[i - j + lens - 1] - j.astype(np.float32)
    bad = np.flatnonzero(got != want)
    if not bad.size or not np.array_equal(got, model):
        return
    k = int(bad[0])
    yield (f"out[start + j] is s[len - 1] minus j: every thread read its block's last element, "
           f"s[len - 1], and subtracted j from its value (out[{k}] = s[{lens[k] - 1}] - {j[k]} = "
           f"{got[k]:g}, where s[{lens[k] - 1 - j[k]}] = {want[k]:g} belongs): the - j is outside "
           "the brackets, so it takes j off the value, not off the index",
           "move - j inside the brackets, into the index: out[start + j] = s[len - 1 - j]")
