"""Checker for the exercise in notebook 01: ``cuda_src/exercises/scale_vector.cu``.

The kernel ``scale_vector(const float *x, float *y, float alpha, int n)`` must write
``y[i] = alpha * x[i]`` for every ``i < n`` and nothing else, launched with one thread per
element: a grid of at least ``ceil(n / block)`` blocks (sometimes more), n not a multiple of
the block size.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import GuardedOutput, is_poison, launch_catching
from helpers.exercises.kernel import KernelExercise

ALPHA = np.float32(-2.5)

# (n, threads per block, extra blocks beyond the ones needed). The first has several blocks
# (so "only block 0 is right" shows), the second one partial block, the third extra blocks
# whose threads all lie past n.
CASES = [(1000, 256, 0), (37, 64, 0), (5000, 128, 3)]

GUARD_HINT = "add a bounds guard, if (i < n), so that the threads past the end do nothing"


def _where(case):
    n, block, extra = case
    return f"with n = {n}, block = ({block}, 1, 1), grid = ({-(-n // block) + extra}, 1)"


def _mistakes(kernel, case):
    """Run one case; yield (problem, hint) for each mistake seen, the most telling first."""
    from helpers.backend import gpuarray

    n, block, extra = case
    x_host = np.random.default_rng(n).uniform(-10, 10, n).astype(np.float32)
    # x gets spare elements after n too, so that reading x[i] past n cannot crash.
    x = gpuarray.to_gpu(np.concatenate([x_host, np.ones(64, np.float32)]))
    y = GuardedOutput(n, np.float32)
    error = launch_catching(lambda: kernel(x, y.gpu, ALPHA, np.int32(n), block=(block, 1, 1),
                                           grid=(-(-n // block) + extra, 1)))
    if error:
        yield error, GUARD_HINT
        return
    got, _ = y.read()
    yield from _wrong_values(got, ALPHA * x_host, x_host, y.written_past_end(), n, block)


def _wrong_values(got, want, x, past, n, block):
    """The mistakes a launched kernel's output shows, in order (nothing when it is right)."""
    right = np.isclose(got, want, rtol=1e-6, atol=0)
    unwritten = is_poison(got)
    if past.tolist() == [n]:
        yield ("y[n] was written, one element past the end: the bounds guard is off by one",
               "the last element is y[n - 1]: guard with if (i < n), not i <= n")
    if past.size:
        yield "elements past n were written (y[n] and beyond)", GUARD_HINT
    if unwritten.all():
        yield ("nothing was written: y still holds the NaN it was filled with",
               "each thread should store its result with y[i] = ...")
    if n > block and right[:block].all() and not right[block:].any():
        yield (f"only the first block's elements (y[0] to y[{block - 1}]) are right",
               "did you use blockIdx.x * blockDim.x + threadIdx.x for the index?")
    if right.all():
        return
    if unwritten.any():
        first = int(np.argmax(unwritten))
        yield (f"{int(unwritten.sum())} of {n} elements were never written (the first is "
               f"y[{first}])",
               "every i < n needs a thread: i = blockIdx.x * blockDim.x + threadIdx.x")
    if not right.any() and np.allclose(got, x, rtol=1e-6, atol=0):
        yield "y equals x: alpha is not applied", "y[i] = alpha * x[i]"
    if not right.any():
        yield "values wrong everywhere", "check alpha: y[i] = alpha * x[i]"
    first = int(np.argmin(right))
    yield (f"{int((~right).sum())} of {n} elements are wrong (the first is y[{first}] = "
           f"{got[first]}, expected {want[first]})",
           "every thread should compute y[i] = alpha * x[i] for its own i")


EXERCISE = KernelExercise(
    stub="exercises/scale_vector.cu", kernel="scale_vector",
    signature="const float *x, float *y, float alpha, int n",
    cases=CASES, detect=_mistakes, where=_where,
    success=f"y = alpha * x for every size tried ({len(CASES)} launches, n not a multiple of "
            "the block size), and nothing written past n")


def check_scale_vector(path: str = EXERCISE.stub):
    """Compile ``cuda_src/<path>``, run it on a few sizes; print and return the Verdict."""
    return EXERCISE.check_file(path)


def check_scale_vector_kernel(kernel):
    """The checks of ``check_scale_vector`` on a compiled ``scale_vector`` kernel."""
    return EXERCISE.check_kernel(kernel)
