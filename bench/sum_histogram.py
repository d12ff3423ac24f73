"""Notebook 07's kernels for bench/course_kernels.py: the sum and the histogram, with their peers.

Each function returns the ``bench.cases.Case`` of one course kernel: how to launch it (with notebook 07's launch configuration), its result, a part of its input for a
slower peer, and the ``bench.reference`` function that computes the same. Unlike the element-wise kernels,
a reduction's output is not one element an input element: ``count(inputs)`` says how many
elements a run covered, so that a peer that ran on a part is scaled by its input.

- sum: ``reduce_grid_stride`` and ``reduce_grid_stride_x4`` (a memset of the result, then one
  launch of a full grid: grid-stride loops, one atomic a block), against ``x.sum()``; GB/s counts
  the floats read.
- histogram: the 256-bin histogram of notebook 04's photograph in grey (a memset of the bins and a
  launch; histogram_once, the one-launch kernel, with a prepared call as the notebook times it),
  against ``bincount(x, minlength=256)`` (NumPy, CuPy and PyTorch all have it) or, for
  ``histogram_range``, against ``histogram(x, 256, (0, 256))`` (NumPy, CuPy) and ``torch.histc``
  (PyTorch), which are given the pixels as float32, converted before the timing (``histc`` counts
  floats); and on the photograph tiled to a large image.
"""

from __future__ import annotations

import numpy as np

from bench import reference
from bench.cases import Case, leading
from helpers.backend import compile_cu, drv, gpuarray


def full_grid():
    """Blocks of 256 threads that fill every multiprocessor once."""
    dev = drv.Context.get_device()
    attr = drv.device_attribute
    return (dev.get_attribute(attr.MULTIPROCESSOR_COUNT)
            * dev.get_attribute(attr.MAX_THREADS_PER_MULTIPROCESSOR) // 256)


def _count(inputs):
    """A reduction's output is no measure of its work: the elements it read."""
    return inputs[0].size


# ---------------------------------------------------------------- sum

def _sum_close(got, want):
    return got.shape == want.shape == (1,) and bool(np.allclose(got, want, rtol=1e-5, atol=0))


def reduction(n, ceil, kernel):
    """The Case of one of notebook 07's one-launch sums of n random floats."""
    x = np.random.default_rng(5).random(n, dtype=np.float32)
    x_gpu, out_gpu = gpuarray.to_gpu(x), gpuarray.empty(1, np.float32)
    f, grid = compile_cu("reduction.cu").get_function(kernel), (full_grid(), 1)

    def launch():
        drv.memset_d32(out_gpu.gpudata, 0, 1)     # the blocks' atomics add to 0
        f(x_gpu, out_gpu, np.int32(n), block=(256, 1, 1), grid=grid)

    return Case(kernel, "sum", f"2^{n.bit_length() - 1} floats", n,
                launch=launch, result=out_gpu.get, sample=lambda m: leading(m, n, x),
                xp_op=reference.total, check=_sum_close, serial=lambda lib, x: lib.total(x),
                count=_count, rate=lambda ms: ceil.bandwidth(4 * n, ms),
                notes=["sum: a memset, then one launch of a full grid (one atomic a block); "
                       "GB/s counts the floats read, % against the copy's reads and writes"])


# ---------------------------------------------------------------- histogram

def photograph(crop=None):
    """Notebook 04's photograph in grey, uint8 (the first crop = (width, height) of it)."""
    import matplotlib.pyplot as plt
    from matplotlib import cbook

    img = plt.imread(cbook.get_sample_data("grace_hopper.jpg", asfileobj=False))
    gray = np.floor(img @ np.array([0.299, 0.587, 0.114]) + 0.5).astype(np.uint8)  # BT.601
    return np.ascontiguousarray(gray[:crop[1], :crop[0]] if crop else gray)


def tiled(width, height):
    """The photograph in grey, tiled to width x height."""
    gray = photograph()
    reps = (-(-height // gray.shape[0]), -(-width // gray.shape[1]))
    return np.ascontiguousarray(np.tile(gray, reps)[:height, :width])


def _same_counts(got, want):
    return got.shape == want.shape == (256,) and bool(np.array_equal(got.astype(np.int64), want))


def _histogram_launch(kernel, pixels_gpu, bins_gpu, n):
    """launch() for one of notebook 07's histogram kernels, as the notebook launches it: a memset
    and a plain call (kernels 1 to 4), or histogram_once's one prepared call."""
    f = compile_cu("histogram.cu").get_function(kernel)
    threads = n if kernel in ("histogram_global", "histogram_shared") else n // 16 + 16
    grid, block = ((threads + 255) // 256, 1), (256, 1, 1)
    if kernel != "histogram_global":      # the others walk the image: at most a full grid
        grid = (min(grid[0], full_grid()), 1)
    if kernel == "histogram_once":        # writes bins; scratch stays 0 between launches
        scratch = gpuarray.zeros(257, np.uint32)
        f.prepare("PPPi")
        return lambda: f.prepared_call(grid, block, pixels_gpu.gpudata, bins_gpu.gpudata,
                                       scratch.gpudata, n)

    def launch():
        drv.memset_d32(bins_gpu.gpudata, 0, 256)
        f(pixels_gpu, bins_gpu, np.int32(n), block=block, grid=grid)
    return launch


def histogram(gray, ceil, kernel, op="histogram", label=None, what="photo"):
    """The Case of one of notebook 07's histograms of the grey image ``gray`` (``what`` it
    is, for the table)."""
    flat = gray.ravel()
    n = flat.size
    pixels_gpu, bins_gpu = gpuarray.to_gpu(flat), gpuarray.empty(256, np.uint32)
    launch = _histogram_launch(kernel, pixels_gpu, bins_gpu, n)

    idiom, given = ((reference.histogram, flat.astype(np.float32)) if op == "histogram_range"
                    else (reference.bincount, flat))
    return Case(label or kernel, op, f"{gray.shape[1]}x{gray.shape[0]} {what}", n,
                launch=launch, result=bins_gpu.get, sample=lambda m: leading(m, n, given),
                xp_op=idiom, check=_same_counts, serial=lambda lib, x: lib.histogram(x),
                count=_count, rate=lambda ms: ceil.bandwidth(n, ms),
                notes=[f"{op}: kernels 1 to 4 a memset and a launch, histogram_once one "
                       "prepared call; peers: "
                       + ("histogram(x, 256, (0, 256)) and torch.histc, on the pixels as "
                          "float32 (converted before the timing)" if op == "histogram_range"
                          else "bincount(x, minlength=256)")])


def makers(size, ceil):
    """Functions that each return one Case, in the table's order: the two sums, the
    photograph's histograms (against bincount, then histogram_once against histogram), the tiled
    one. ``size``:
    course_kernels' sizes for this run ("vector", "photo", "tiled")."""
    gray = photograph(size["photo"])
    width, height = size["tiled"]
    return [lambda: reduction(size["vector"], ceil, "reduce_grid_stride"),
            lambda: reduction(size["vector"], ceil, "reduce_grid_stride_x4"),
            *(lambda k=k: histogram(gray, ceil, k)
              for k in ("histogram_global", "histogram_shared_x16", "histogram_shared_runs",
                        "histogram_once")),
            lambda: histogram(gray, ceil, "histogram_once", op="histogram_range",
                              label="histogram_once [histogram()]"),
            lambda: histogram(tiled(width, height), ceil, "histogram_shared_x16",
                              op="histogram_tiled", label="histogram_shared_x16 [tiled]",
                              what="tiled photo")]
