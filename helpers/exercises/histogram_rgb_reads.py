"""Reads past the RGB image's end that name the loop which made them: a byte loop that read its
byte j at rgb[3 * j], as if j counted pixels, and a loop over pixels (a pixel's three bytes a
step) that kept the byte loop's bound, p < 3 * n. A launch on an image with room after it (255s,
as the checker's guard) tells the two apart."""

from __future__ import annotations

import numpy as np

from helpers.exercises.common import Output
from helpers.exercises.histogram_rgb_counts import BINS, reference
from helpers.exercises.kernel import Launch

PAD, PROBE = 255, dict(n=500, block=64, grid=4)
"""The probe: an image of 500 pixels, then 2n pixels and 64 bytes more of 255s."""


def read_past_the_image(failure, exercise):
    """A read past rgb's end by a thread at offset 3 * k + c, k one of that thread's indices in
    the grid-stride loop (from blockIdx.x * blockDim.x + threadIdx.x on, blockDim.x * gridDim.x
    apart, below 3 * n): a pixel loop run to 3 * n where ``exercise`` launched on the probe
    counts all 9n bytes as pixels; otherwise, at c = 0, byte j = k read at rgb[3 * j]."""
    err, launch = failure.error, failure.launch
    if failure.kind != "out of bounds" or getattr(err, "is_write", True) is not False or \
            launch is None or err.thread is None or err.block is None or err.offset is None:
        return
    rgb, n = launch.args[0], int(launch.args[2])
    if (err.allocation or (0, -1))[1] != getattr(rgb, "nbytes", None):
        return
    k, width, threads = err.offset // 3, launch.block[0], launch.block[0] * launch.grid[0]
    if k >= 3 * n or (k - err.block[0] * width - err.thread[0]) % threads:
        return
    said = (f"thread {err.thread[0]} of block {err.block[0]} read rgb[{err.offset}] = "
            f"rgb[3 * {k}{f' + {err.offset % 3}' if err.offset % 3 else ''}], past the image's "
            f"{3 * n:,} bytes")
    if _pixels_to_3n(failure.kernel, exercise):
        yield (f"{said}, for its pixel p = {k}: the loop counts a pixel a step, its bytes "
               "rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2], but runs while p < 3 * n, the byte "
               f"loop's bound, over 3 * n pixels where the image has n = {n:,}",
               "a loop over pixels stops at the image's n pixels: for (int p = blockIdx.x * "
               "blockDim.x + threadIdx.x; p < n; p += blockDim.x * gridDim.x)")
    elif err.offset % 3 == 0:
        yield (f"{said}, for its byte j = {k} (below 3 * n, one of its grid-stride loop's): j "
               "already counts bytes, and 3 * j counted it as a pixel", "byte j is rgb[j], "
               "channel j % 3 of pixel j / 3: atomicAdd(&local[(j % 3) * 256 + rgb[j]], 1u)")


def _pixels_to_3n(kernels, exercise) -> bool:
    """The kernel, launched on the probe's image with 6n + 64 bytes of 255s after it, counted
    its 9n bytes as 3n pixels: a pixel loop to p < 3 * n."""
    if kernels is None:
        return False
    n = PROBE["n"]
    image = np.random.default_rng(n).integers(0, PAD, 3 * n, dtype=np.uint8)
    rgb = np.concatenate([image, np.full(6 * n + 64, PAD, np.uint8)])
    launched = exercise.run(kernels, Launch((rgb, Output(BINS, np.uint32, 64, poisons=(0,)),
                                             np.int32(n)), block=(PROBE["block"], 1, 1),
                                            grid=(PROBE["grid"], 1), model=rgb))
    try:
        next(launched)
    except StopIteration as stop:
        return stop.value is not None and np.array_equal(
            stop.value.out.got.astype(np.int64), reference(rgb[:9 * n]))
    return False
