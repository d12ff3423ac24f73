"""The NumPy models of notebook 06's gradient that ``helpers.exercises.gradient`` compares a
kernel's outputs with (``windowed``: a window whose slots hold other inputs, a difference over
other neighbours), and the centre difference taken one slot right, s[j + 2] - s[j], named from
its outputs on a GPU and from the read past the window it makes on the simulator."""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from helpers.exercises.failure import line_number
from helpers.exercises.signature import function_parameters
from helpers.exercises.unsigned_tests import UNSIGNED_TYPE

DOUBLED = ("j = threadIdx.x + 1 already holds the +1 past the halo (s[j] is in[i]): the "
           "neighbours are s[j + 1] and s[j - 1]: out[i] = (s[j + 1] - s[j - 1]) * 0.5f")


def windowed(x, block, slots=(), plus=1, minus=1, add=False, scale=0.5):
    """What a kernel gives whose window s holds in[start + k - 1] at s[k] (start = blockIdx.x *
    blockDim.x, every index clamped), but for ``slots``, (k, offset) pairs: s[k] holds
    in[start + offset], or NaN for None (never loaded); out[i] = (s[j + plus] - s[j - minus]) *
    scale, or their sum with ``add``."""
    i = np.arange(x.size)
    start = i - i % block

    def s(k):
        value = x[np.clip(start + k - 1, 0, x.size - 1)]
        for slot, offset in slots:
            held = np.nan if offset is None else x[np.clip(start + offset, 0, x.size - 1)]
            value = np.where(k == slot, held, value).astype(np.float32)
        return value

    j = i % block + 1
    a, b = s(j + plus), s(j - minus)
    return ((a + b) if add else (a - b)) * np.float32(scale)


def fits(got, model):
    """Whether got is model wherever the model is a number (NaN: a slot never loaded)."""
    known = np.isfinite(model)
    return bool(np.allclose(got[known], model[known], rtol=1e-5, atol=1e-6))


def past_the_window(failure, write: bool) -> bool:
    """Whether ``failure`` is a read (or, ``write``, a write) by the block's last thread of
    float blockDim.x + 2 of the shared window (its element, or its offset in bytes from the
    extern array's start), one past the window's end."""
    err, threads = failure.error, (failure.block or (0,))[0]
    if failure.kind != "out of bounds" or getattr(err, "space", None) != "shared" or \
            bool(getattr(err, "is_write", not write)) != write or \
            (getattr(err, "thread", None) or (0,))[0] != threads - 1:
        return False
    element = getattr(err, "element", None)
    return (element if element is not None else (getattr(err, "offset", None) or 0) / 4) == \
        threads + 2


def doubled_offset(failure):
    """A read by the block's last thread of s[blockDim.x + 2], one past the window and two past
    that thread's own input, s[blockDim.x] (j = threadIdx.x + 1): a neighbour read at s[j + 2]."""
    threads = (failure.block or (0,))[0]
    if past_the_window(failure, write=False):
        yield (f"on the simulator, the block's last thread (thread {threads - 1}) read "
               f"s[{threads + 2}], past the "
               f"window's {threads + 2} floats, two slots past its own input's s[j] = "
               f"s[{threads}]: a neighbour was read at s[j + 2], the halo's +1 counted twice "
               "(j = threadIdx.x + 1 already holds it)", DOUBLED)


def shifted_centre(run, block, wrong: str):
    """On a GPU, whose shared memory does not stop at the window's end: every output but each
    block's last is (in[i + 2] - in[i]) / 2, (s[j + 2] - s[j]) * 0.5f, the centre difference of
    the next element (each block's last thread read s[blockDim.x + 2], past the window)."""
    x = run.model
    lane = np.arange(x.size) % block
    model = np.where(lane == block - 1, np.nan, windowed(x, block, plus=2, minus=0))
    if block > 1 and fits(run.out.got, model):
        yield (f"every output is (in[i + 2] - in[i]) / 2, s[j + 2] - s[j], the centre difference "
               "of the next element: the halo's +1 was added again to j, which already holds it, "
               "and each block's last thread read s[blockDim.x + 2], past the window"
               f"{wrong}", DOUBLED)


def stored_at_thread(run, block, wrong: str):
    """Each thread's input stored at s[threadIdx.x], not s[j] = s[threadIdx.x + 1]: s[k] holds
    in[start + k] for k = 1 to blockDim.x - 1, s[0] the left halo (thread 0 stored it after its
    input), s[blockDim.x] nothing."""
    slots = [(k, k) for k in range(1, block)] + [(block, None)]
    if block > 2 and fits(run.out.got, windowed(run.model, block, slots)):
        yield ("each thread stored its input at s[threadIdx.x], one slot left of s[j] = "
               "s[threadIdx.x + 1], where the reads look for it: s[0], the left halo, took thread "
               "0's input (its halo load then overwrote it), s[j + 1] held in[i + 2] and "
               f"s[blockDim.x] nothing{wrong}",
               "s[0] is the left halo, so in[i] goes one slot on: s[j] = in[clamp_index(i, n)], "
               "j = threadIdx.x + 1")


def own_load_unclamped(run, where):
    """The last output alone wrong, from in[n], and a trace of the launch on the simulator shows
    threads reading in past in[n] (in[n + 1], ...): each thread's own load, s[j] = in[i], left
    without clamp_index (a clamp that lets i == n through reads in[n] alone)."""
    from helpers.exercises.microscope import accesses_of

    n, (threads,), blocks = run.model.size, run.launch.block[:1], run.launch.grid[0]
    kept = accesses_of(run.kernel, run.launch, "loads past n", 8 * threads * blocks)
    if kept is None:
        return
    past = kept[(kept["array"] == "in") & ~kept["write"] & (kept["index"] > n)]
    if not len(past):
        return
    line = int(past["line"][0])
    yield (f"{where}, from in[n], past the end: s[j] = in[i] loads without clamp_index (line "
           f"{line}), so the last block's threads past n read past the array, in[{n}] to "
           f"in[{int(past['index'].max())}], and the last output's right neighbour, loaded by "
           "the thread after it, was in[n]", "clamp the thread's own load as well as the halo's: "
           "s[j] = in[clamp_index(i, n)]")


def halo_by_thread(run, block, wrong):
    """The right halo loaded by thread L, not the block's last (if (threadIdx.x == 31), a warp's
    last lane): s[blockDim.x + 1] holds in[start + L + 1] (clamped), which each block's last
    output reads as its right neighbour (the model, for every L from 1 below blockDim.x - 1)."""
    if block < 3 or not wrong.size or (wrong % block != block - 1).any():
        return
    for lane in range(1, block - 1):  # thread 0: _models names it, with its left halo
        if fits(run.out.got, windowed(run.model, block, [(block + 1, lane + 1)])):
            x, first = run.model, int(wrong[0])
            yield (f"{wrong.size} of {x.size} outputs are wrong, each at a block's last thread "
                   f"(the first is out[{first}] = {run.out.got[first]:.6g}, expected "
                   f"{reference_at(x, first):.6g}): the right "
                   f"halo s[blockDim.x + 1] = s[{block + 1}] was loaded by thread {lane} "
                   f"(threadIdx.x == {lane}), not by the block's last thread, threadIdx.x == "
                   f"blockDim.x - 1 = {block - 1}, so it held in[i + 1] of thread {lane}, "
                   f"in[{first - block + lane + 2}], not in[{first + 1}]", "the block's last "
                   "thread loads the right halo, whatever the block's size: if (threadIdx.x == "
                   "blockDim.x - 1) s[blockDim.x + 1] = in[clamp_index(i + 1, n)];")
            return


def halo_misloaded(run, block, wrong):
    """A halo loaded from the other side's neighbour, by another thread than the block's last,
    or from its slot's index j where the global i belongs (the models, in that order)."""
    yield from halo_from_the_other_side(run, block, wrong)
    yield from halo_by_thread(run, block, wrong)
    yield from halo_from_slot(run, block, wrong)


def halo_from_the_other_side(run, block, wrong):
    """A halo's line copied from the other side's, its sign kept: the block's last thread loaded
    s[blockDim.x + 1] from in[i - 1], or thread 0 loaded s[0] from in[i + 1] (the models), so
    that output read one neighbour on both sides and came out 0."""
    x, got = run.model, run.out.got
    if block < 3 or not wrong.size:
        return
    for slot, edge, halo, sign, side, fix in (
            ((block + 1, block - 2), "last", "the right halo, s[blockDim.x + 1]", ("-", "+"),
             ("left", "right"), "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]"),
            ((0, 1), "first", "the left halo, s[0]", ("+", "-"), ("right", "left"),
             "s[0] = in[clamp_index(i - 1, n)]")):
        if fits(got, windowed(x, block, [slot])):
            first = int(wrong[0])
            yield (f"{wrong.size} of {x.size} outputs are wrong, each at a block's {edge} thread "
                   f"(the first is out[{first}] = {got[first]:.6g}, expected "
                   f"{reference_at(x, first):.6g}): the block's {edge} thread loaded {halo}, "
                   f"from in[i {sign[0]} 1], its {side[0]} neighbour, where in[i {sign[1]} 1] "
                   f"belongs (the line copied from the {side[0]} halo's), so out[i] read in[i "
                   f"{sign[0]} 1] on both sides and came out 0", f"the {side[1]} halo is the "
                   f"{side[1]} neighbour, i {sign[1]} 1: {fix}")
            return


def reference_at(x, k):
    """The gradient's output k, the ends clamped."""
    return (x[min(k + 1, x.size - 1)] - x[max(k - 1, 0)]) * np.float32(0.5)


def halo_from_slot(run, block, wrong):
    """A halo loaded from in[j + 1] or in[j - 1], j = threadIdx.x + 1 its slot in s, not from the
    global i: s[blockDim.x + 1] holds in[blockDim.x + 1] and s[0] in[0] in every block."""
    x, got = run.model, run.out.got
    if block < 2 or not wrong.size or x.size <= block:
        return
    i = np.arange(x.size)
    right, left = x[np.minimum(i + 1, x.size - 1)], x[np.maximum(i - 1, 0)]
    want, held = (right - left) * np.float32(0.5), min(block + 1, x.size - 1)
    for model, words in (
            ((np.where(i % block == block - 1, x[held], right) - left) * np.float32(0.5),
             ("last", f"s[blockDim.x + 1], the right halo, held in[{held}]", "+", "blockDim.x",
              "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]")),
            ((right - np.where(i % block == 0, x[0], left)) * np.float32(0.5),
             ("first", "s[0], the left halo, held in[0]", "-", "1", "s[0] = in[clamp_index(i - 1, n)]"))):
        if fits(got, model):
            edge, halo, sign, slot, fix = words
            first = int(wrong[0])
            yield (f"{wrong.size} of {x.size} outputs are wrong, each at a block's {edge} thread "
                   f"(the first is out[{first}] = {got[first]:.6g}, expected {want[first]:.6g}): "
                   f"{halo} in every block, in[j {sign} 1] with j = threadIdx.x + 1 = {slot}, its "
                   f"slot in s, where in[i {sign} 1] belongs (i = blockIdx.x * blockDim.x + "
                   "threadIdx.x, its place in in)", "j indexes s, i indexes in: " + fix)
            return


def wrapped_ends(run, wrong):
    """The ends wrapped around, as Python's in[-1] is the last element: out[0] read in[n - 1] as
    its left neighbour (clamp_index sent -1 to n - 1), or out[n - 1] read in[0] as its right one
    (n to 0), where the gradient clamps to in[0] and in[n - 1]; the model is exact."""
    x, got = run.model, run.out.got
    n, half = x.size, np.float32(0.5)
    if n < 3 or not set(wrong.tolist()) <= {0, n - 1}:
        return
    sides = {0: ("left", (x[1] - x[-1]) * half, f"in[{n - 1}], the array's last element,",
                 "in[0]", "index -1 wrapped around to n - 1", "a negative index goes to 0 "
                 "(i < 0 ? 0 : ...)"),
             n - 1: ("right", (x[0] - x[-2]) * half, "in[0], the array's first element,",
                     f"in[{n - 1}]", "index n wrapped around to 0", "an index past the end "
                     "goes to the last (i >= n ? n - 1 : i)")}
    if not all(np.isclose(got[k], sides[k][1], rtol=1e-5, atol=1e-6) for k in wrong.tolist()):
        return
    said = [f"out[{k}] read {held} as its {side} neighbour, not {want}: the {how}"
            for k in wrong.tolist() for side, _, held, want, how, _ in (sides[k],)]
    if wrong.tolist() == [0] and _unsigned_clamp(run.kernel):
        yield (f"out[0] read {sides[0][2]} as its left neighbour, not in[0]: clamp_index takes "
               "its index as an unsigned int, so i - 1 at i = 0 reaches it as 4294967295, not -1, "
               "and the clamp sends that to n - 1 (an unsigned index is never below 0)",
               "make clamp_index take an int: __device__ int clamp_index(int i, int n), so that "
               "i - 1 at i = 0 is -1 and the clamp sends it to 0")
    habit = "as Python's in[-1] is the last element" if 0 in wrong else "as a periodic index would"
    yield ("; ".join(said) + f", {habit} (in C an index does not wrap; {wrong.size} of {n} "
           "outputs are wrong)", "the gradient clamps at the ends: in clamp_index(i, n) "
           + " and ".join(sides[k][5] for k in wrong.tolist()) + ", and every index into in "
           "goes through it, as s[0] = in[clamp_index(i - 1, n)] does")


def _unsigned_clamp(kernel) -> bool:
    """Whether the learner's clamp_index takes its index as an unsigned type (read from the
    source the simulator compiled ``kernel`` from)."""
    source = getattr(getattr(kernel, "simulated", kernel), "source", None)
    found = function_parameters(source, "clamp_index")
    return bool(found) and re.search(UNSIGNED_TYPE, found[0][0]) is not None


def halo_skipped(run, block, wrong, error, where):
    """An end of the array wrong, and the init check of its launch (``error``) finds its halo
    read before any thread stored it: s[0] in block 0, or s[blockDim.x + 1] in the last block
    (a full one): the halo's load left out where its neighbour lies outside the array (a
    condition on it, such as i > 0), where it belongs clamped."""
    n = run.model.size
    sides = {(0, 0): (0, 0, "s[0], the left halo", "start", "i - 1 = -1", "in[-1] is in[0]"),
             (block + 1, (n - 1) // block): (n - 1, block - 1, "s[blockDim.x + 1], the right "
                                              "halo", "end", f"i + 1 = n = {n}",
                                              "in[n] is in[n - 1]")}
    if error is None or (error.element, error.block[0]) not in sides:
        return
    k, thread, slot, end, index, clamped = sides[error.element, error.block[0]]
    if k in wrong:
        yield (f"{where}: thread {thread} of block {error.block[0]} did not load {slot}, "
               f"so out[{k}] read a shared element no thread stored (the simulator's init check "
               f"found the read): at the array's {end} the halo's index, {index}, lies outside "
               "it, and a condition on the load skips it there", "the halo is loaded at the "
               f"array's ends too, clamped ({clamped}), with no condition but the thread's: "
               "thread 0 loads s[0] = in[clamp_index(i - 1, n)] and the block's last thread "
               "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]")


def neighbours_at_i(failure):
    """An access past the window by thread t of block b > 0 at an element of s counted from i =
    b * blockDim.x + t, its element's global index, where the window's slot j = threadIdx.x + 1
    belongs (in block 0, i + 1 is j, so only the blocks after it reach past s): a read of s[i + 1]
    or s[i - 1], the neighbours indexed with i, or a write of s[i + 1], the thread's own input
    stored there (j = i + 1)."""
    err, threads = failure.error, (failure.block or (0,))[0]
    if failure.kind != "out of bounds" or getattr(err, "space", None) != "shared" or \
            getattr(err, "is_write", None) is None or not (err.block or (0,))[0] or \
            err.thread is None:
        return
    element = err.element if err.element is not None else (err.offset or 0) // 4
    i = err.block[0] * threads + err.thread[0]
    said = (f"thread {err.thread[0]} of block {err.block[0]} (i = {i}) "
            f"{'wrote' if err.is_write else 'read'} s[{element}], past the end of the window's "
            f"{threads + 2} floats, at {err.line}")
    if err.is_write and element == i + 1:
        yield (f"{said}: its input was stored at s[i + 1], indexed with i, the element's global "
               "index, where s is the block's window, indexed by its slot j = threadIdx.x + 1",
               "i indexes in, j indexes s: j = threadIdx.x + 1, and s[j] = in[clamp_index(i, n)]")
    if not err.is_write and element in (i + 1, i - 1):
        yield (f"{said}: the neighbours were indexed with i, the element's global index (s[i "
               f"{'+' if element > i else '-'} 1]), where s is the block's window, indexed by its "
               "slot j = threadIdx.x + 1", "i indexes in, j indexes s: out[i] = (s[j + 1] - "
               "s[j - 1]) * 0.5f")


def window_declared_int(run, rerun):
    """Every output the centre difference of the inputs cut toward 0 to whole numbers (with the
    cases' inputs in (-1, 1), every output 0), here and in a launch of in * 1000 (``rerun``: the
    exercise's run), where the cut inputs differ: s declared int, each input cut into s."""
    x, block = run.model, run.launch.block[0]
    if not fits(run.out.got, windowed(np.trunc(x), block)):
        return
    big = (x * 1000).astype(np.float32)
    launched = rerun(run.kernel, dataclasses.replace(run.launch, args=(dataclasses.replace(
        run.launch.args[0], values=big), *run.launch.args[1:]), model=big))
    try:
        next(launched)
        return
    except StopIteration as stop:
        probe = stop.value
    cut, true = windowed(np.trunc(big), block), windowed(big, block)
    if probe is None or not fits(probe.out.got, cut) or fits(cut, true):
        return
    k = int(np.flatnonzero(~np.isclose(cut, true, rtol=1e-5, atol=1e-6))[0])
    yield ("s is declared int (extern __shared__ int s[]): each input is cut toward 0 to a whole "
           "number when it is stored into s, so with the cases' inputs in (-1, 1) every output "
           f"came out 0; with in * 1000, out[{k}] = {probe.out.got[k]:g}, the difference of the "
           f"cut inputs, where NumPy's is {true[k]:g}", "s holds in's floats: declare it "
           "extern __shared__ float s[]")


def barrier_in_a_thread_if(kernels, error):
    """A race in shared memory between two threads of a block whose two lines have between them
    a __syncthreads() inside an if on a thread's index (``barrier_if.barriers_in_thread_ifs``):
    only the threads for which the if is true wait there, so it holds back none of the others
    (the barrier put inside the right halo's if, before its closing brace)."""
    from helpers.exercises.barrier_if import barriers_in_thread_ifs

    if getattr(error, "kind", None) != "race" or error.space != "shared":
        return
    first, second = error.first, error.second
    lines = sorted(line_number(a.line) for a in (first, second))
    found = next(((line, cond) for line, cond, _ in barriers_in_thread_ifs(kernels)
                  if lines[0] < line < lines[1]), None)
    if found is None or first.block != second.block:
        return
    (line, cond), element = found, f"{error.array}[{error.element}]"
    text = " ".join(cond).replace(" . ", ".")
    yield (f"the __syncthreads() at line {line} is inside if ({text}): only the threads for "
           "which it is true wait there, so it holds the others back from nothing: thread "
           f"{first.thread[0]} of block {first.block[0]} "
           f"{first.does.replace(' it', f' {element}')} at line {first.line.rsplit(':', 1)[1]} "
           f"and thread {second.thread[0]} {second.does} at line "
           f"{second.line.rsplit(':', 1)[1]} with no barrier that both reach between the two "
           f"(a {error.hazard} hazard)", "every thread of the block must reach each "
           "__syncthreads(): take it out of the if, right after its closing brace (after both "
           "halo loads), and keep only the halo's load inside the if")
