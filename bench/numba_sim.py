"""The course kernels in Numba's CUDA dialect, run on Numba's CUDA simulator: a peer of the
course's own simulator, which ``bench.peers.numba_simulator`` runs in a subprocess (for
bench/course_kernels.py and bench/simulator.py).

    NUMBA_ENABLE_CUDASIM=1 python bench/numba_sim.py DIR

Reads DIR/in.npz (arrays named "<op>.<k>", the k-th input of an operation), launches each kernel
once untimed on one block and once timed on the whole input, with the course's block shapes, and
writes DIR/out.npz (the results) and DIR/times.json (ms of the timed launch, wall clock: the
simulator runs a launch before returning). The callers check the results against NumPy. Numba's
simulator runs every CUDA thread as a Python thread, about 0.3 ms a thread, so the inputs are
small.
"""

import json
import math
import os
import sys
import time
from pathlib import Path

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"   # must be set before numba.cuda is imported

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

f32 = np.float32
ALPHA = f32(2.5)   # saxpy's a, as in bench/reference.py


@cuda.jit
def vector_add(a, b, out, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = a[i] + b[i]


@cuda.jit
def saxpy(n, a, x, y):
    i = cuda.grid(1)
    if i < n:
        y[i] = a * x[i] + y[i]


@cuda.jit
def rgb_to_gray(rgb, gray, n):   # flat arrays, one thread a pixel
    i = cuda.grid(1)
    if i < n:
        gray[i] = np.uint8(f32(0.299) * f32(rgb[3 * i]) + f32(0.587) * f32(rgb[3 * i + 1])
                           + f32(0.114) * f32(rgb[3 * i + 2]) + f32(0.5))


@cuda.jit
def mandelbrot(iters, c_re, c_im, max_iter):   # float32 throughout, like the course kernel
    x, y = cuda.grid(2)
    if y < iters.shape[0] and x < iters.shape[1]:
        cr, ci = c_re[y, x], c_im[y, x]
        z_re, z_im = f32(0), f32(0)
        n = 0
        while n < max_iter:
            re2, im2 = z_re * z_re, z_im * z_im
            if re2 + im2 > f32(4):
                break
            z_im = f32(2) * z_re * z_im + ci
            z_re = re2 - im2 + cr
            n += 1
        iters[y, x] = n


@cuda.jit
def iterate_sin(inp, out, n, work):
    i = cuda.grid(1)
    if i < n:
        x = inp[i]
        y = x
        for _ in range(work):
            y = f32(math.sin(y)) + x
        out[i] = y


@cuda.jit
def transpose(a, out):   # the naive kernel: one thread an element, on a 2D grid
    x, y = cuda.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[x, y] = a[y, x]


@cuda.jit
def reduce_grid_stride(x, out, n):   # each thread's share, then one atomic a thread (simpler)
    v = f32(0)
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        v += x[i]
    cuda.atomic.add(out, 0, v)


@cuda.jit
def histogram_shared(pixels, bins, n):   # privatised: shared bins, then one atomic a bin
    local = cuda.shared.array(256, np.uint32)
    for b in range(cuda.threadIdx.x, 256, cuda.blockDim.x):
        local[b] = 0
    cuda.syncthreads()
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        cuda.atomic.add(local, pixels[i], 1)
    cuda.syncthreads()
    for b in range(cuda.threadIdx.x, 256, cuda.blockDim.x):
        if local[b] > 0:
            cuda.atomic.add(bins, b, local[b])


def blocks(n, threads):
    return (n + threads - 1) // threads


def setup_vector_add(a, b):
    a, b = cuda.to_device(a), cuda.to_device(b)
    out = cuda.device_array_like(a)
    return lambda g: vector_add[g, 256](a, b, out, a.size), blocks(a.size, 256), out


def setup_saxpy(x, y):
    x, y = cuda.to_device(x), cuda.to_device(y)
    return lambda g: saxpy[g, 256](x.size, ALPHA, x, y), blocks(x.size, 256), y


def setup_gray(rgb):
    flat = cuda.to_device(rgb.reshape(-1))
    gray = cuda.device_array(rgb.shape[:2], np.uint8)
    n = gray.size
    return lambda g: rgb_to_gray[g, 256](flat, gray.reshape(n), n), blocks(n, 256), gray


def setup_mandelbrot(c_re, c_im, max_iter):
    c_re, c_im = cuda.to_device(c_re), cuda.to_device(c_im)
    iters = cuda.device_array(c_re.shape, np.int32)
    h, w = c_re.shape
    return (lambda g: mandelbrot[g, (16, 16)](iters, c_re, c_im, int(max_iter)),
            (blocks(w, 16), blocks(h, 16)), iters)


def setup_iterate_sin(x, work):
    x = cuda.to_device(x)
    out = cuda.device_array_like(x)
    return lambda g: iterate_sin[g, 256](x, out, x.size, int(work)), blocks(x.size, 256), out


def setup_transpose(a):
    a = cuda.to_device(a)
    out = cuda.device_array((a.shape[1], a.shape[0]), np.float32)
    return (lambda g: transpose[g, (32, 8)](a, out), (blocks(a.shape[1], 32),
                                                       blocks(a.shape[0], 8)), out)


def setup_sum(x):
    x, out = cuda.to_device(x), cuda.device_array(1, np.float32)

    def launch(g):
        out.copy_to_device(np.zeros(1, np.float32))
        reduce_grid_stride[g, 256](x, out, x.size)
    return launch, 2, out


def setup_histogram(pixels):
    pixels, bins = cuda.to_device(pixels), cuda.device_array(256, np.uint32)

    def launch(g):
        bins.copy_to_device(np.zeros(256, np.uint32))
        histogram_shared[g, 256](pixels, bins, pixels.size)
    return launch, 2, bins


def setup_histogram_range(pixels):   # handed out as floats, for the libraries' histc
    return setup_histogram(pixels.astype(np.uint8))


setup_histogram_tiled = setup_histogram


def main(folder):
    folder = Path(folder)
    data = dict(np.load(folder / "in.npz"))
    results, times = {}, {}
    for op in sorted({key.split(".")[0] for key in data}):
        inputs = [data[f"{op}.{k}"] for k in range(sum(key.startswith(op + ".") for key in data))]
        launch, grid, result = globals()["setup_" + op](*inputs)
        launch((1, 1) if isinstance(grid, tuple) else 1)   # warm-up: one block
        if op == "saxpy":     # in place: start again from the input, as the check expects
            result.copy_to_device(inputs[1])
        t0 = time.perf_counter()
        launch(grid)
        cuda.synchronize()
        times[op] = (time.perf_counter() - t0) * 1e3
        results[op] = result.copy_to_host()
    np.savez(folder / "out.npz", **results)
    (folder / "times.json").write_text(json.dumps(times))


if __name__ == "__main__":
    main(sys.argv[1])
