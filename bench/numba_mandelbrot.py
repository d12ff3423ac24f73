"""The course's Mandelbrot kernel written for Numba, run on Numba's CUDA simulator.

    python bench/numba_mandelbrot.py --size 128 --iters 256 --repeat 1 --out iters.npy

bench/simulator.py runs this in a subprocess: Numba reads NUMBA_ENABLE_CUDASIM when numba.cuda
is first imported, so the variable is set here, before that import, and the course's own
simulator never shares a process with Numba's.

The kernel is cuda_src/mandelbrot.cu's `mandelbrot` line for line, in float32: the constants are
float32 globals (Numba types a bare 2.0 as float64) and the pixel's column and row are turned into
float32 before they are scaled, as C does with `x * dx`. The image covers the same region at any
size, so a small image has about the same iterations per pixel as the full one.

Prints one line of JSON: the size, the wall-clock time of each timed launch in seconds (launch to
synchronize), and the iteration counts' sum. With --out, the counts go to a .npy file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"  # before numba.cuda is imported

import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba import cuda  # noqa: E402

X_MIN, X_MAX, Y_MIN, Y_MAX = -2.0, 1.0, -1.5, 1.5  # as in bench/simulator.py
BLOCK = (16, 16)

ZERO = np.float32(0.0)
TWO = np.float32(2.0)
FOUR = np.float32(4.0)


@cuda.jit
def mandelbrot(iters, width, height, x_min, y_min, dx, dy, max_iter):
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x   # column
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y   # row
    if x >= width or y >= height:                              # the grid is rounded up
        return

    c_re = x_min + np.float32(x) * dx
    c_im = y_min + np.float32(y) * dy
    z_re = ZERO
    z_im = ZERO
    n = 0
    while n < max_iter:
        re2 = z_re * z_re
        im2 = z_im * z_im
        if re2 + im2 > FOUR:                                   # escaped
            break
        z_im = TWO * z_re * z_im + c_im
        z_re = re2 - im2 + c_re
        n += 1
    iters[y * width + x] = n


def launch(size, max_iter):
    """Run the kernel on a size x size image; (seconds, iteration counts as (size, size))."""
    f32 = np.float32
    dx, dy = f32((X_MAX - X_MIN) / size), f32((Y_MAX - Y_MIN) / size)
    grid = ((size + BLOCK[0] - 1) // BLOCK[0], (size + BLOCK[1] - 1) // BLOCK[1])
    out = cuda.device_array(size * size, dtype=np.int32)
    t0 = time.perf_counter()
    mandelbrot[grid, BLOCK](out, np.int32(size), np.int32(size), f32(X_MIN), f32(Y_MIN), dx, dy,
                            np.int32(max_iter))
    cuda.synchronize()
    seconds = time.perf_counter() - t0
    return seconds, out.copy_to_host().reshape(size, size)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=128, help="image width and height (128)")
    p.add_argument("--iters", type=int, default=256, help="iteration limit (256)")
    p.add_argument("--repeat", type=int, default=1, help="timed launches (1)")
    p.add_argument("--out", help="write the iteration counts of the last launch to this .npy")
    a = p.parse_args(argv)

    launch(16, a.iters)  # warm-up: one block, so that one-off costs are not timed
    times, counts = [], None
    for _ in range(a.repeat):
        seconds, counts = launch(a.size, a.iters)
        times.append(seconds)
    if a.out:
        np.save(a.out, counts)
    print(json.dumps({"size": a.size, "iters": a.iters, "times_s": times,
                      "total_iterations": int(counts.astype(np.int64).sum()),
                      # the dispatcher's class comes from numba.cuda.simulator when it ran there
                      "simulator": type(mandelbrot).__module__.startswith("numba.cuda.simulator"),
                      "numba": numba.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
