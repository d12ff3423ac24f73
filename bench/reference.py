"""Each computation of the bench once: in NumPy (the reference every result is checked against,
and a peer) and as serial C++ (``bench/serial/*.cpp``, a peer on the simulator).

The array versions take an ``ArrayLibrary`` (NumPy here; CuPy and PyTorch in ``bench.peers``),
so that one function runs the same operation on every library, written as its users would write
it. Mandelbrot is the one computation with two: NumPy drops the escaped pixels as it goes (much
faster on a CPU), while a GPU array library computes every pixel every step under a mask.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import BENCH
from helpers.ch13.numbers import bfloat16_value

ALPHA = 2.5                                            # saxpy's a
WEIGHTS = np.array([0.299, 0.587, 0.114], np.float32)  # BT.601 luma


class ArrayLibrary:
    """A library of arrays: its module (``xp``), how arrays go in and out, how to wait for it."""

    def __init__(self, name, xp, put, get, sync=None, cast=None):
        self.name, self.xp, self.put, self.get, self.sync = name, xp, put, get, sync
        self._cast = cast

    def cast(self, a, dtype):
        return self._cast(a, dtype) if self._cast else a.astype(dtype)


NUMPY = ArrayLibrary("NumPy", np, put=lambda a: a, get=np.asarray)


# ---------------------------------------------------------------- in arrays

def vector_add(p, a, b):
    return a + b


def saxpy(p, x, y):
    return ALPHA * x + y


def gray(p, rgb):
    """BT.601 luma of an RGB image, rounded (+ 0.5 and truncated) to uint8."""
    w = p.put(WEIGHTS)
    return p.cast(p.cast(rgb, "float32") @ w + 0.5, "uint8")


def iterate_sin(p, x, work):
    """y <- sin(y) + x, ``work`` times from y = x."""
    y = x
    for _ in range(work):
        y = p.xp.sin(y) + x
    return y


def transpose(p, a):
    """The transposed copy as each library writes it: ``x.T.copy()`` (PyTorch: ``.contiguous()``)."""
    return a.t().contiguous() if p.name == "PyTorch" else a.T.copy()


def matmul(p, a, b):
    """C = A B in NumPy, CuPy or PyTorch, in full float32: TF32 (the tensor cores'
    10-bit-mantissa mode) would be a different and faster computation."""
    if p.name == "PyTorch":
        p.xp.backends.cuda.matmul.allow_tf32 = False
    if p.name == "CuPy" and os.environ.get("CUPY_TF32", "0") != "0":
        raise RuntimeError("CUPY_TF32 is set: CuPy would multiply in TF32")
    return a @ b


def matmul16(p, a, b):
    """C = A B of 16-bit inputs, float16 or bfloat16 (held as int16 bit patterns: NumPy has no
    bfloat16), with every sum in FP32 as the tensor cores' kernels keep theirs. CuPy and PyTorch
    multiply the 16-bit values (cuBLAS, C in 16 bits), PyTorch with its reduced-precision
    reductions (partial sums in 16 bits) off; NumPy multiplies the values widened to float32."""
    if p.name == "NumPy":
        a, b = (bfloat16_value(x.view(np.uint16)) if x.dtype == np.int16 else x.astype(np.float32)
                for x in (a, b))
    elif p.name == "PyTorch":
        flags = p.xp.backends.cuda.matmul
        flags.allow_fp16_reduced_precision_reduction = False
        flags.allow_bf16_reduced_precision_reduction = False
        if a.dtype == p.xp.int16:
            a, b = a.view(p.xp.bfloat16), b.view(p.xp.bfloat16)
    return a @ b


def total(p, x):
    """x.sum() in NumPy, CuPy or PyTorch, as a one-element array."""
    return p.xp.sum(x).reshape(1)


def bincount(p, x):
    """The 256-bin histogram of uint8 pixels: ``bincount(x, minlength=256)`` (every library)."""
    return p.xp.bincount(x, minlength=256)


def histogram(p, x):
    """The libraries' histogram of 256 bins of width 1 from 0, of the pixels as floats."""
    if p.name == "PyTorch":
        return p.xp.histc(x, bins=256, min=0, max=256)
    return p.xp.histogram(x, bins=256, range=(0, 256))[0]


def softmax(p, x):
    """The softmax of each row, the max subtracted: ``torch.softmax(x, dim=-1)`` in PyTorch, the
    formula elsewhere. NumPy computes in float32 (its float16 arithmetic is emulated, and slow);
    CuPy and PyTorch in the inputs' float16, as a model would."""
    if p.name == "PyTorch":
        return p.xp.softmax(x, dim=-1)
    if p.name == "NumPy":
        x = x.astype(np.float32)
    e = p.xp.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(p, q, k, v):
    """softmax(Q K^T / sqrt(d)) V, head by head (heads x n x d): PyTorch's fused
    ``scaled_dot_product_attention``; in NumPy (float32) and CuPy the composition of the steps."""
    if p.name == "PyTorch":   # as 1 x heads x n x d: with 3-D inputs it takes its unfused path
        return p.xp.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]
    if p.name == "NumPy":
        q, k, v = (a.astype(np.float32) for a in (q, k, v))
    scores = q @ k.swapaxes(-1, -2) * q.dtype.type(q.shape[-1] ** -0.5)
    return softmax(p, scores) @ v


def plane(x_min, y_min, dx, dy, width, height, step=1):
    """(c_re, c_im) of every pixel (every ``step``-th row and column), in float32 as the
    Mandelbrot kernel computes them: x_min + x * dx."""
    f32 = np.float32
    c_re = f32(x_min) + np.arange(0, width, step, dtype=f32) * f32(dx)
    c_im = f32(y_min) + np.arange(0, height, step, dtype=f32) * f32(dy)
    return tuple(np.meshgrid(c_re, c_im))


def mandelbrot(p, c_re, c_im, max_iter):
    """Iterations before |z|^2 > 4 (at most max_iter), in float32 as the kernel computes them.
    NumPy's way (notebook 03): escaped pixels are dropped from the arrays as it goes."""
    f32 = np.float32
    counts = np.full(c_re.size, max_iter, dtype=np.int32)
    running = np.arange(c_re.size)
    cr, ci = c_re.ravel(), c_im.ravel()
    zr, zi = np.zeros_like(cr), np.zeros_like(ci)
    for n in range(max_iter):
        re2, im2 = zr * zr, zi * zi
        escaped = re2 + im2 > f32(4)
        if escaped.any():
            counts[running[escaped]] = n
            keep = ~escaped
            running, cr, ci, zr, zi, re2, im2 = (
                a[keep] for a in (running, cr, ci, zr, zi, re2, im2))
            if running.size == 0:
                break
        zi = f32(2) * zr * zi + ci
        zr = re2 - im2 + cr
    return counts.reshape(c_re.shape)


def mandelbrot_masks(p, c_re, c_im, max_iter):
    """Mandelbrot as a GPU array library writes it: every pixel every step, masks for the
    escaped ones (a pixel stops counting, and its z stops changing, once |z|^2 > 4)."""
    xp = p.xp
    z_re, z_im = xp.zeros_like(c_re), xp.zeros_like(c_im)
    counts = xp.zeros_like(c_re, dtype=xp.int32)
    for _ in range(max_iter):
        re2, im2 = z_re * z_re, z_im * z_im
        going = re2 + im2 <= 4
        counts += going
        z_im = xp.where(going, 2 * z_re * z_im + c_im, z_im)
        z_re = xp.where(going, re2 - im2 + c_re, z_re)
    return counts


def tree_sums(x, block):
    """The block sums of a shared-memory tree reduction (bench/reduction.cu), in the same order
    of additions, so bit for bit the same: each step adds the upper half onto the lower half."""
    blocks = -(-x.size // block)
    s = np.zeros(blocks * block, np.float32)
    s[:x.size] = x
    s = s.reshape(blocks, block)
    stride = block // 2
    while stride > 0:
        s[:, :stride] += s[:, stride:2 * stride]
        stride //= 2
    return s[:, 0].copy()


# ---------------------------------------------------------------- as serial C++

def _ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


class SerialLibrary:
    """bench/serial/*.cpp built with g++ -O2 into one library: the loop of each course kernel,
    one element after another on one core. Its calls let go of the GIL."""

    def __init__(self):
        cxx = os.environ.get("CXX", "g++")
        sources = sorted(str(p) for p in (BENCH / "serial").glob("*.cpp"))
        with tempfile.TemporaryDirectory(prefix="bench-serial-") as tmp:
            path = Path(tmp) / "libserial.so"
            t0 = time.perf_counter()
            subprocess.run([cxx, "-O2", "-shared", "-fPIC", "-o", str(path), *sources],
                           check=True, capture_output=True)
            self.compile_s = time.perf_counter() - t0
            self.lib = ctypes.CDLL(str(path))   # stays loaded after its file is gone

    def vector_add(self, a, b):
        out = np.empty_like(a)
        self.lib.vector_add_serial(_ptr(a), _ptr(b), _ptr(out), ctypes.c_int(a.size))
        return out

    def saxpy(self, x, y):
        """In place, like the kernel: y = ALPHA * x + y."""
        self.lib.saxpy_serial(ctypes.c_int(x.size), ctypes.c_float(ALPHA), _ptr(x), _ptr(y))
        return y

    def gray(self, rgb):
        out = np.empty(rgb.shape[:2], np.uint8)
        self.lib.rgb_to_gray_serial(_ptr(rgb), _ptr(out), ctypes.c_int(out.size))
        return out

    def mandelbrot(self, width, height, x_min, y_min, dx, dy, max_iter):
        out = np.empty((height, width), np.int32)
        c_float = ctypes.c_float
        self.lib.mandelbrot_serial(_ptr(out), ctypes.c_int(width), ctypes.c_int(height),
                                   c_float(x_min), c_float(y_min), c_float(dx), c_float(dy),
                                   ctypes.c_int(max_iter))
        return out

    def iterate_sin(self, x, work):
        out = np.empty_like(x)
        self.lib.iterate_sin_serial(_ptr(x), _ptr(out), ctypes.c_int(x.size), ctypes.c_int(work))
        return out

    def transpose(self, a):
        out = np.empty(a.shape[::-1], np.float32)
        self.lib.transpose_serial(_ptr(a), _ptr(out), ctypes.c_int(a.shape[1]),
                                  ctypes.c_int(a.shape[0]))
        return out

    def total(self, x):
        """The sum in double (a float total of millions of floats loses digits), as float32."""
        self.lib.sum_serial.restype = ctypes.c_double
        return np.array([self.lib.sum_serial(_ptr(x), ctypes.c_int(x.size))], np.float32)

    def histogram(self, pixels):
        pixels = np.ascontiguousarray(pixels, np.uint8)   # histogram_range's are floats
        bins = np.zeros(256, np.uint32)
        self.lib.histogram_serial(_ptr(pixels), ctypes.c_int(pixels.size), _ptr(bins))
        return bins
