"""Checker for the exercise in notebook 01: ``cuda_src/exercises/scale_vector.cu``.

The kernel ``scale_vector(const float *x, float *y, float alpha, int n)`` must write
``y[i] = alpha * x[i]`` for every ``i < n`` and nothing else, launched with one thread per
element: a grid of at least ``ceil(n / block)`` blocks (sometimes more), n not a multiple of
the block size.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import (
    GuardedOutput,
    compile_exercise,
    is_poison,
    launch_catching,
    not_yet,
    passed,
)

ALPHA = np.float32(-2.5)

# (n, threads per block, extra blocks beyond the ones needed). The first has several blocks
# (so "only block 0 is right" shows), the second one partial block, the third extra blocks
# whose threads all lie past n.
CASES = [(1000, 256, 0), (37, 64, 0), (5000, 128, 3)]

GUARD_HINT = "add a bounds guard, if (i < n), so that the threads past the end do nothing"


def check_scale_vector(path: str = "exercises/scale_vector.cu") -> bool:
    """Compile ``cuda_src/<path>``, run it on a few sizes, print PASS or NOT YET with a hint."""
    kernel = compile_exercise(path, "scale_vector")
    if kernel is None:
        return False
    return check_scale_vector_kernel(kernel)


def check_scale_vector_kernel(kernel) -> bool:
    """Check a compiled ``scale_vector`` kernel; print PASS or NOT YET; return True if right."""
    from helpers.backend import gpuarray

    rng = np.random.default_rng(1)
    for n, block, extra in CASES:
        blocks = (n + block - 1) // block + extra
        where = f"with n = {n}, block = ({block}, 1, 1), grid = ({blocks}, 1)"
        x_host = rng.uniform(-10, 10, n).astype(np.float32)
        # x gets spare elements after n too, so that reading x[i] past n cannot crash.
        x = gpuarray.to_gpu(np.concatenate([x_host, np.ones(64, np.float32)]))
        y = GuardedOutput(n, np.float32)
        error = launch_catching(lambda: kernel(x, y.gpu, ALPHA, np.int32(n),
                                               block=(block, 1, 1), grid=(blocks, 1)))
        if error:
            return not_yet(f"{error} ({where})", GUARD_HINT)
        got, guard_untouched = y.read()
        want = ALPHA * x_host
        problem = _diagnose(got, want, x_host, guard_untouched, n, block)
        if problem:
            return not_yet(f"{problem[0]} ({where})", problem[1])
    return passed(f"y = alpha * x for every size tried ({len(CASES)} launches, "
                  "n not a multiple of the block size), and nothing written past n")


def _diagnose(got, want, x, guard_untouched, n, block):
    """Return (problem, hint) for a wrong result, or None when it is right."""
    right = np.isclose(got, want, rtol=1e-6, atol=0)
    unwritten = is_poison(got)
    if not guard_untouched:
        return ("elements past n were written (y[n] and beyond)", GUARD_HINT)
    if unwritten.all():
        return ("nothing was written: y still holds the NaN it was filled with",
                "each thread should store its result with y[i] = ...")
    if n > block and right[:block].all() and not right[block:].any():
        return (f"only the first block's elements (y[0] to y[{block - 1}]) are right",
                "did you use blockIdx.x * blockDim.x + threadIdx.x for the index?")
    if right.all():
        return None
    if unwritten.any():
        first = int(np.argmax(unwritten))
        return (f"{int(unwritten.sum())} of {n} elements were never written (the first is "
                f"y[{first}])",
                "every i < n needs a thread: i = blockIdx.x * blockDim.x + threadIdx.x")
    if not right.any():
        if np.allclose(got, x, rtol=1e-6, atol=0):
            return ("y equals x: alpha is not applied", "y[i] = alpha * x[i]")
        return ("values wrong everywhere", "check alpha: y[i] = alpha * x[i]")
    first = int(np.argmin(right))
    return (f"{int((~right).sum())} of {n} elements are wrong (the first is y[{first}] = "
            f"{got[first]}, expected {want[first]})",
            "every thread should compute y[i] = alpha * x[i] for its own i")
