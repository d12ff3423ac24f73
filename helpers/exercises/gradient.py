"""Checker for the second exercise of notebook 06: ``cuda_src/exercises/gradient.cu``.

``gradient(in, out, n)``: out[i] = (in[i + 1] - in[i - 1]) / 2, the ends clamped, through a window
of blockDim.x + 2 floats of dynamic shared memory (the block's inputs and a halo of one on either
side). Blocks of 32 to 512 threads, n not a multiple of the block but in the last case (there
the right halo of the last block is in[n], past the end), the output poisoned and guarded, the
input between junk; the first case also runs on the simulator, race-checked and
traced. Wrong values are matched with known mistakes, then with models of what a kernel computes
whose halos hold other inputs or were never loaded, or whose difference takes other neighbours or
another factor (``_windowed``), then located: at the ends of the array (the halo not clamped, or
its load skipped there), at the last output (threads past n returned before loading), at the
blocks' edges (no halo). A right kernel is rated (``_fast``): FAST on the simulator when the
trace shows the window read from shared memory, on a GPU by events against a copy's bandwidth.
"""

from __future__ import annotations

import itertools

import numpy as np

from helpers.exercises import speed
from helpers.exercises.common import Input, Output, one_further
from helpers.exercises.gradient_models import (barrier_in_a_thread_if,
                                              doubled_offset, fits, halo_misloaded,
                                              halo_skipped, neighbours_at_i,
                                              own_load_unclamped, past_the_window,
                                              shifted_centre, stored_at_thread,
                                              window_declared_int, windowed, wrapped_ends)
from helpers.exercises.hidden import awkward, pick
from helpers.exercises.kernel import KernelExercise, Launch
from helpers.exercises.microscope import grid_for_block, observe, race_mistake
from helpers.exercises.origin import Wrong

CASES = [(1000, 128), (77, 32), (5003, 512), (300, 96), (1, 64), (1024, 128)]
JUNK, MAX_LOADS, TARGET, BIG = np.float32(1000.0), 2, 0.4, 1 << 26
"""CASES: (n, threads a block), the first race-checked and traced. TARGET: the fraction of a
copy's bandwidth FAST takes on a GPU (4 bytes read and 4 written an element, BIG elements):
notebook 06's stencils reached 54% to 57% of the copy on an H200."""
FORMULA_HINT = "out[i] = (s[j + 1] - s[j - 1]) * 0.5f, where s[j] holds in[i]"
STORE_HINT = "each thread stores only out[i]"
HALO_HINT = ("thread 0 loads s[0] = in[clamp_index(i - 1, n)] and the block's last thread "
             "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]")


def _draw(rng):  # the grader's cases: several blocks of a size the shipped cases may not have
    block = pick(rng, (32, 64, 96, 128, 256, 512))
    return [(awkward(rng, block, 2 * block + 1, 40 * block), block)]


def _refine(failure):
    """The exercise's hints for a crash: s[-1] read (the window not shifted past the halo), a
    static array sized for a smaller block than the largest launched."""
    err = failure.error
    if (failure.kind == "out of bounds" and getattr(err, "space", None) == "shared"
            and getattr(err, "element", None) == -1):   # s[j - 1] with j = threadIdx.x
        yield ("s[0] is the halo, in[i - 1] of the block's first thread: thread t's input goes "
               "one further, to s[j] with j = threadIdx.x + 1")
    if failure.launch is not None:   # the launch's model is in, n elements
        yield from grid_for_block(failure, "out", failure.launch.model.size)
    yield from _halo_past_the_window(failure)
    yield from doubled_offset(failure)
    yield from neighbours_at_i(failure)
    if failure.kind == "race" and err.space == "shared" and err.hazard == "write-after-write" \
            and err.element in (0, (failure.block or (0,))[0] + 1):
        yield (f"several threads stored the halo s[{err.element}]: each side's halo is one "
               "element, loaded by one thread, so its store needs its if: if (threadIdx.x == "
               "0) s[0] = in[clamp_index(i - 1, n)]; if (threadIdx.x == blockDim.x - 1) "
               "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]")
    if failure.kind == "array bounds":
        yield ("a __shared__ array of a fixed size is too small for the largest block: declare "
               "extern __shared__ float s[], whose size the launch gives, blockDim.x + 2 floats")


def _halo_past_the_window(failure):
    """A write by the block's last thread at float blockDim.x + 2 of the window (its element, or
    its offset in bytes from the extern array's start), just past the launch's shared memory:
    the right halo stored one slot too far, the window's size taken as its last index."""
    threads = (failure.block or (0,))[0]
    if past_the_window(failure, write=True):
        yield (f"the block's last thread (thread {threads - 1}) wrote s[{threads + 2}], past the "
               f"window's {threads + 2} floats: the right halo went to s[blockDim.x + 2], one "
               "past the window's end: its last slot is s[blockDim.x + 1]", "s[0] to "
               "s[blockDim.x + 1] are the window's blockDim.x + 2 floats: s[blockDim.x + 1] = "
               "in[clamp_index(i + 1, n)]")


def reference(x):  # NumPy's gradient, the ends clamped
    p = np.concatenate([x[:1], x, x[-1:]]).astype(np.float64)
    return ((p[2:] - p[:-2]) * 0.5).astype(np.float32)


def _launch(case):
    n, block = case
    x = np.random.default_rng(n).uniform(-1, 1, n).astype(np.float32)
    return Launch((Input(x, block, JUNK, before=block), Output(n, guard=block), np.int32(n)),
                  (block, 1, 1), (-(-n // block), 1), x, shared=4 * (block + 2))


def _mistakes(case, run):
    n, block = case
    got, want = run.out.got, reference(run.model)
    yield from one_further("out", "element", run.out.past, run.out.unwritten, STORE_HINT)
    if run.out.past.size:
        yield (f"threads past the end wrote out[{int(run.out.past.max())}] (out has {n})",
               "the threads with i >= n return after the barrier, before the store")
    if (seen := observe(run.kernel, run.launch) if case == CASES[0] else None) and seen.error:
        yield from barrier_in_a_thread_if(run.kernel, seen.error)
        yield race_mistake(seen.error, STORE_HINT, (block, 1, 1), _refine, run.launch)
    wrong = np.flatnonzero(~np.isclose(got, want, rtol=1e-5, atol=1e-6))
    if not wrong.size:
        return
    if run.out.unwritten.all():
        yield ("out was never written: it still holds what it was filled with",
               "each thread stores its result, out[i] = (s[j + 1] - s[j - 1]) * 0.5f")
    yield from window_declared_int(run, EXERCISE.run)
    for model, problem in ((0 * want, "every output is 0: nothing is computed yet, or it is "
                            "multiplied by a factor that is 0 (1 / 2 is integer division in C: "
                            "write 0.5f)"),
                           (-want, "the sign is turned: in[i - 1] - in[i + 1]"),
                           (2 * want, "the results are twice too large: the centre difference "
                            "was not halved")):
        if np.allclose(got, model, rtol=1e-5, atol=1e-6):
            yield problem, FORMULA_HINT
    where, lane = f"{wrong.size} of {n} outputs are wrong (the first is out[{wrong[0]}])", wrong % block
    yield from _last_skipped(run, block, wrong)
    unloaded = getattr(_unloaded(run.kernel), "element", None) if case == CASES[0] else None
    yield from _right_halo(run, block, wrong, unloaded)
    yield from halo_misloaded(run, block, wrong)
    yield from wrapped_ends(run, wrong)
    if wrong.tolist() == [n - 1] and n > 1 and np.isclose(
            got[-1], (JUNK - run.model[-2]) * np.float32(0.5), rtol=1e-5, atol=1e-6):
        yield from own_load_unclamped(run, where)
        yield (f"{where}, from in[n], past the end: the last block's last thread loaded the "
               "right halo from in[n], its index clamped to n, not n - 1", "clamp the halo's "
               "index like the others: in[clamp_index(i + 1, n)]") if n % block == 0 else (
              f"{where}, from in[n], past the end: the clamp lets i == n through, and the "
              "thread after the last loaded in[n] as its right neighbour",
              "clamp every index i >= n to the last: i >= n ? n - 1 : i")
    yield from _halo_clamped_short(run, block, wrong)
    yield from _end_unloaded(run, case, wrong, where)
    if wrong.tolist() == [n - 1]:
        yield (f"{where}, the last alone: its right neighbour, loaded by the thread after it, "
               "is missing", "every thread loads its element (clamped), those past n too: "
               "return after the barrier, not before the loads")
    if set(wrong.tolist()) <= {0, n - 1} and _loads(run.kernel) > MAX_LOADS:
        yield (f"{where}, at the ends of the array: out[i] read its neighbours from global "
               "memory, in[i + 1] and in[i - 1], not from s, and at the ends they lie outside "
               "the array (the trace found the extra loads)", "read both neighbours from s, "
               "whose halo is clamped: " + FORMULA_HINT)
    if set(wrong.tolist()) <= {0, n - 1}:
        yield (f"{where}, at the ends of the array: the halo read outside it",
               "clamp the halo: " + HALO_HINT)
    yield from _left_halo(run, block, wrong, unloaded)
    yield from _models(run, block, wrong.size)
    if ((lane == 0) | (lane == block - 1) | (wrong == n - 1)).all():
        yield f"{where}, all at the first or last element of a block: the halo", HALO_HINT
    yield Wrong(where, FORMULA_HINT + "; and " + HALO_HINT, "out", wrong[0])


def _last_skipped(run, block, wrong):
    """The last output alone wrong and never written (it holds the poison), every other right,
    out[n - 2] too, so the thread of i = n - 1 loaded its input: the store's guard is off by
    one, i >= n - 1 ('the last index is n - 1')."""
    n = run.model.size
    if wrong.tolist() == [n - 1] and np.flatnonzero(run.out.unwritten).tolist() == [n - 1]:
        yield (f"out[{n - 1}], the last output (i = n - 1), was never written: every other output "
               f"is right, so the thread of i = n - 1 loaded its input, but the store's guard skips "
               f"i = n - 1 (thread {(n - 1) % block} of block {(n - 1) // block}) too", "the last "
               "index, n - 1, has an output too: return only for i past it, if (i >= n) return; "
               "after the barrier")


def _end_unloaded(run, case, wrong, where):
    """An end's output wrong, its neighbour never loaded: the halo's load skipped there (the init
    check of the case's launch finds the read), or the threads past n loading 0."""
    n, block = case
    if set(wrong.tolist()) <= {0, n - 1}:
        yield from halo_skipped(run, block, wrong, _unloaded(run.kernel, case), where)
    yield from _zero_past_n(run, wrong, where)


def _zero_past_n(run, wrong, where):
    """The last output alone wrong, (0 - in[n - 2]) / 2: its right neighbour, the thread past n's
    s[j], held 0, loaded as 0.0f (the init check of the first case finds no slot of s read
    before it was loaded, as a thread that returned before its load leaves one)."""
    x, n = run.model, run.model.size
    if wrong.tolist() != [n - 1] or n < 2 or not np.isclose(
            run.out.got[-1], -x[-2] * np.float32(0.5), rtol=1e-5, atol=1e-6) or \
            _unloaded(run.kernel) is not None:
        return
    yield (f"{where}: its right neighbour, loaded by the thread after it (i = n, past the end), "
           f"is 0, so out[n - 1] = (0 - in[n - 2]) * 0.5 = {run.out.got[-1]:.6g}: the threads "
           "past n loaded 0.0f where the last element belongs (the gradient clamps at the "
           "ends: the neighbour past the end is in[n - 1])", "every thread loads its element "
           "clamped, those past n the last one: s[j] = in[clamp_index(i, n)], that is "
           "in[min(i, n - 1)], not 0.0f")


def _unloaded(kernels, case=CASES[0]):
    """The simulator's init check's read of an element of s before any thread of its block
    loaded it, in ``case``'s launch: its error (None when it found none)."""
    from helpers.sim.settings import settings

    with settings.changed(initcheck=True):
        error = observe(kernels, _launch(case), key=f"initcheck {case}").error
    if getattr(error, "kind", None) == "uninitialised read" and error.space == "shared":
        return error
    return None


def _right_halo(run, block, wrong, unloaded):
    """The right halo, s[blockDim.x + 1], never loaded (``unloaded``, the element of s the init
    check found read before any thread loaded it): by no thread, or the last thread stored it in
    its own input's slot, s[blockDim.x], so that the thread before it read in[i + 2] (the model);
    each block's last output reads it."""
    if unloaded != block + 1:
        return
    x, i = run.model, np.arange(run.model.size)
    slot, before = reference(x), i[i % block == block - 2]
    slot[before] = (x[np.minimum(before + 2, x.size - 1)] - x[np.maximum(before - 1, 0)]) * 0.5
    rest = i % block != block - 1
    halo = "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]"
    if np.isin(before, wrong).any() and np.allclose(run.out.got[rest], slot[rest], 1e-5, 1e-6):
        yield (f"{wrong.size} of {x.size} outputs are wrong, at each block's last two threads: "
               "the block's last thread stored the right halo in s[blockDim.x], its own input's "
               "slot (in[i] goes to s[threadIdx.x + 1]), so the thread before it read in[i + 2] "
               "as its right neighbour, and s[blockDim.x + 1] was never loaded",
               f"the right halo goes after the block's inputs s[1] .. s[blockDim.x]: {halo}")
    if (wrong % block == block - 1).all():
        yield (f"{wrong.size} of {x.size} outputs are wrong, each at a block's last thread: no "
               "thread loaded the right halo, s[blockDim.x + 1], which it reads as its right "
               "neighbour (the simulator's init check found the read)", "threadIdx.x runs from 0 "
               f"to blockDim.x - 1: the block's last thread, threadIdx.x == blockDim.x - 1, loads "
               f"{halo}")


def _halo_clamped_short(run, block, wrong):
    """The right halo's index clamped to n - 2, as clamp_index(i + 1, n - 1) does (clamp_index
    takes the size): the block whose last thread's i + 1 reaches n - 1 loads in[n - 2] as its
    right halo (the model), so its last output reads in[n - 2] where in[n - 1] belongs."""
    x = run.model
    n = x.size
    if n < 2:
        return
    i = np.arange(block - 1, n, block)   # each block's last thread, below n
    model = reference(x)
    model[i] = (x[np.where(i + 1 >= n - 1, n - 2, i + 1)] - x[np.maximum(i - 1, 0)]) * \
        np.float32(0.5)
    if wrong.size and np.allclose(run.out.got, model, rtol=1e-5, atol=1e-6):
        alone = ", the last output alone," if wrong.tolist() == [n - 1] else ""
        yield ("the last block's right halo, s[blockDim.x + 1], held in[n - 2], not in[n - 1]: "
               f"its index was clamped to n - 2, so out[{wrong[0]}]{alone} read in[n - 2] as its "
               "right neighbour" + (", the same as its left one, and came out 0" if alone else
                                    "") + f" ({wrong.size} of {n} outputs are wrong)",
               "clamp_index takes the size, n, and clamps to n - 1 itself: s[blockDim.x + 1] = "
               "in[clamp_index(i + 1, n)]")


def _left_halo(run, block, wrong, unloaded):
    """The left halo, s[0], never loaded (``unloaded``, as for _right_halo): thread 0 stored it
    in its own input's slot, s[1], so that the thread after it read in[i - 2] (the model), or no
    thread of the block loaded it; each block's first output reads it."""
    if unloaded != 0:
        return
    n, got = run.model.size, run.out.got
    if (wrong % block == 1).any() and fits(got, windowed(run.model, block, ((0, None), (1, -1)))):
        yield ("thread 0 stored the left halo in s[1], its own input's slot (in[i] goes to "
               "s[threadIdx.x + 1]), so the thread after it read in[i - 2] as its left "
               f"neighbour, and s[0] was never loaded: {wrong.size} of {n} outputs are wrong, at "
               "each block's first two threads", "the left halo goes before the block's inputs "
               "s[1] .. s[blockDim.x]: s[0] = in[clamp_index(i - 1, n)]")
    if (wrong % block == 0).all():
        yield ("s[0], the left halo, was read before any thread of its block loaded it (the "
               f"simulator's init check found the read): {wrong.size} of {n} outputs are wrong, "
               "each at a block's first thread", "threadIdx.x counts from 0 in every block: "
               "thread 0 of each block, threadIdx.x == 0, loads s[0] = in[clamp_index(i - 1, n)]")


def _at(offset, block):
    """in[start + offset], in the notebook's table's words."""
    base, d = ("start + blockDim.x", offset - block) if offset > block // 2 else ("start", offset)
    name = f"in[{base}{f' + {d}' if d > 0 else f' - {-d}' if d < 0 else ''}]"
    return name + {0: ", the block's first input", block - 1: ", the block's last input",
                   1: ", thread 0's right neighbour"}.get(offset, "")


def _halos(block):
    """(slots, problem, hint) of each halo loaded from the wrong offset (or by the wrong thread)."""
    lefts, rights = (-1, 0, -2, 1), (block, block - 1, block + 1, block - 2, 1, 2 * block - 1)
    for left, right in itertools.product(lefts, rights):
        said, hints = [], []
        if left != -1:
            said.append(f"s[0], the left halo, held {_at(left, block)}, not in[start - 1]")
            hints.append("thread 0 (i == start) loads s[0] = in[clamp_index(i - 1, n)]")
        if right == 2 * block - 1:   # i taken for the block's start: in[i + blockDim.x]
            said.append("s[blockDim.x + 1], the right halo, held in[i + blockDim.x], the next "
                        "block's last input, not in[i + 1]: i was taken for the block's start")
            hints.append("the block's last thread's i is start + blockDim.x - 1 already, so "
                         "its right neighbour is in[i + 1]: s[blockDim.x + 1] = "
                         "in[clamp_index(i + 1, n)]")
        elif right != block:
            said.append(f"s[blockDim.x + 1], the right halo, held {_at(right, block)}, not "
                        "in[start + blockDim.x]")
            hints.append("the block's last thread, threadIdx.x == blockDim.x - 1, loads "
                         "s[blockDim.x + 1] = in[clamp_index(i + 1, n)]")
        where = ("", "first thread", "last thread", "first and last threads")[
            (left != -1) + 2 * (right != block)]
        if said:
            yield (((0, left), (block + 1, right)), " and ".join(said) +
                   " (start = blockIdx.x * blockDim.x)", where, "; ".join(hints))


def _models(run, block, count):
    """The halos loaded from other offsets, the difference over other neighbours, or scaled."""
    x, got, want = run.model, run.out.got, reference(run.model)
    wrong = f": {count} of {x.size} outputs are wrong"
    for slots, problem, where, hint in _halos(block):
        if fits(got, windowed(x, block, slots)):
            yield f"{problem}{wrong}, each at a block's {where}", hint
    for plus, minus, add, what in (
            (0, 1, False, "the difference is taken over in[i] - in[i - 1], s[j] - s[j - 1]"),
            (1, 0, False, "the difference is taken over in[i + 1] - in[i], s[j + 1] - s[j]"),
            (1, 1, True, "the neighbours are added, s[j + 1] + s[j - 1]")):
        if fits(got, windowed(x, block, plus=plus, minus=minus, add=add)):
            yield (f"{what}, where the gradient subtracts the left neighbour from the right one, "
                   "in[i + 1] - in[i - 1]" + wrong, FORMULA_HINT)
    yield from _one_sided(run, block, wrong)
    yield from stored_at_thread(run, block, wrong)
    yield from shifted_centre(run, block, wrong)
    p, half = np.concatenate([x[:1], x, x[-1:]]), np.float32(0.5)
    for model, side in ((p[2:] - p[:-2] * half, "left"), (p[2:] * half - p[:-2], "right")):
        if fits(got, model):
            yield (f"the difference is not halved, only the {side} neighbour is: * binds tighter "
                   f"than -, so the 0.5f multiplies the {side} neighbour alone" + wrong,
                   "put the difference in parentheses: " + FORMULA_HINT)
    f = float(np.median(got[want != 0] / want[want != 0])) if (want != 0).any() else np.nan
    if np.isfinite(f) and abs(f) > 1e-3 and fits(got, want * np.float32(f)):
        yield (f"every output is {f:.4g} times the right one: the difference was multiplied by "
               f"{0.5 * f:.4g}, not halved", FORMULA_HINT)


def _one_sided(run, block, wrong):
    """A one-sided difference, not halved, as np.diff takes it: forward, in[clamp(i + 1)] -
    in[i] (s[j + 1] - s[j]), or backward, in[i] - in[clamp(i - 1)] (s[j] - s[j - 1])."""
    for plus, minus, side in ((1, 0, "forward: s[j + 1] - s[j], in[i + 1] - in[i]"),
                              (0, 1, "backward: s[j] - s[j - 1], in[i] - in[i - 1]")):
        if fits(run.out.got, windowed(run.model, block, plus=plus, minus=minus, scale=1)):
            yield (f"each output is a one-sided difference, {side}, as np.diff takes it, and "
                   f"not halved{wrong}", "the gradient is the centre difference, the right "
                   "neighbour less the left one, halved: " + FORMULA_HINT)


def _loads(kernels):
    """The global load requests a warp made on the simulator, in the first case's launch."""
    n, block = CASES[0]
    return observe(kernels, _launch(CASES[0])).stats.global_ld.requests / (
        -(-n // block) * block // 32)


def _fast(kernels):
    """What keeps a right kernel from FAST: on a GPU its bandwidth, on the simulator its trace."""
    if speed.on_gpu():
        from helpers.backend import gpuarray

        x, out = gpuarray.to_gpu(np.ones(BIG, np.float32)), gpuarray.empty(BIG, np.float32)
        return (yield from speed.bandwidth(
            lambda: kernels.device(x, out, np.int32(BIG), block=(256, 1, 1),
                                   grid=(BIG // 256, 1), shared=4 * 258),
            8 * BIG, TARGET, HALO_HINT, f"4 bytes read and 4 written an element, {BIG:,} of them"))
    loads = _loads(kernels)
    if loads > MAX_LOADS:
        yield (f"on the simulator each warp makes {loads:.1f} load requests to global memory, "
               "where a window read from shared memory takes 1 or 2: the neighbours are read "
               "from global memory", "read both neighbours from s, which the block loaded once")
    return f"on the simulator each warp made {loads:.2f} global load requests"


EXERCISE = KernelExercise(
    stub="exercises/gradient.cu", kernel="gradient", signature="const float *in, float *out, int n",
    cases=CASES, draw=_draw, launch=_launch, mistakes=_mistakes, fast=_fast,
    where=lambda c: f"n = {c[0]}, block = ({c[1]}, 1, 1), grid = ({-(-c[0] // c[1])}, 1), "
                    f"shared = {4 * (c[1] + 2)} bytes",
    refine=_refine, simulated="runs the race check and the trace",
    crash_hint="every index into in is clamped (clamp_index), s has blockDim.x + 2 floats, and "
               "s[j] holds in[i] with j = threadIdx.x + 1 (s[0] is the left halo): the "
               "neighbours are s[j - 1] and s[j + 1]",
    success=f"the gradient matches NumPy's for {len(CASES)} sizes (blocks of 32 to 512, a "
            "partial last block in all but one), no race, nothing written past the end")

check_gradient = EXERCISE.check_file          # (path="exercises/gradient.cu")
check_gradient_kernel = EXERCISE.check_kernel  # (kernel, simulated=None: on a GPU, the simulator's)
