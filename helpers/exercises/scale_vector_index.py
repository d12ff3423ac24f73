"""The index of notebook 01's scale_vector (``cuda_src/exercises/scale_vector.cu``) held in a type
that cannot hold every i: a float (past 2^24 only even numbers), an unsigned short (wrapping to 0
past 65535), a short or a signed char (wrapping negative), each named from the elements never
written or from the access before an array's start."""

from __future__ import annotations

import numpy as np

FLOAT_EXACT = 1 << 24
"""Past 2^24 a float stops holding every whole number."""


def index_type(n, threads, unwritten):
    """The elements never written show the index held in a type that cannot hold every i: a
    float, or an unsigned short."""
    yield from _float_index(n, threads, unwritten)
    yield from _unsigned_short_index(n, threads, unwritten)


def _float_index(n, threads, unwritten):
    """The elements a kernel whose index went through a float never writes: past 2^24 a float
    holds only even numbers, so odd threads round onto their neighbours' elements (the last two
    left out of the comparison: the guard may compare the float or the int)."""
    if n <= FLOAT_EXACT or not unwritten.any():
        return
    index = np.arange(threads).astype(np.float32).astype(np.int64)
    missed = np.ones(n, bool)
    missed[index[index < n]] = False
    if np.array_equal(unwritten[:-2], missed[:-2]):
        yield (f"{int(unwritten.sum())} of {n} elements were never written, all past 2^24 = "
               f"{FLOAT_EXACT} (the first is y[{int(np.argmax(unwritten))}]): the index went "
               "through a float, which holds every whole number only up to 2^24; past it, two "
               "threads round to one element and the odd ones are skipped",
               "keep the index an int: int i = blockIdx.x * blockDim.x + threadIdx.x")


NARROW = {8: "signed char", 16: "short"}
"""The signed integer types narrower than an int, by their bits: an index held in one wraps
negative at 2^(bits - 1)."""


def narrow_index(failure):
    """An access before an array's start by a thread whose index i, held in a narrower signed
    integer (a short), wrapped negative: its offset is i wrapped at 2^15 (or 2^7) elements."""
    err = failure.error
    if failure.kind != "out of bounds" or err.offset is None or err.offset >= 0 or \
            err.offset % 4 or not failure.block or not err.thread or not err.block:
        return
    i = err.block[0] * failure.block[0] + err.thread[0]
    for bits, name in NARROW.items():
        half = 1 << (bits - 1)
        if i >= half and (i + half) % (2 * half) - half == err.offset // 4:
            yield (f"thread {err.thread[0]} of block {err.block[0]}, whose i is {i}, reached "
                   f"element {err.offset // 4} of its array, before the start: i is held in a "
                   f"{bits}-bit {name}, which holds only {-half} to {half - 1}, so past "
                   f"2^{bits - 1} = {half} it wrapped negative",
                   "keep the index an int: int i = blockIdx.x * blockDim.x + threadIdx.x")


def _unsigned_short_index(n, threads, unwritten):
    """The elements a kernel whose index is held in a 16-bit unsigned short never writes: past
    65535 the index wraps to 0, so only y[0] to y[65535] are written (over and over)."""
    if n <= 1 << 16 or not unwritten.any():
        return
    missed = np.ones(n, bool)
    missed[np.unique(np.arange(threads).astype(np.uint16))] = False
    if np.array_equal(unwritten, missed):
        yield (f"only y[0] to y[65535] were written, none past them ({int(unwritten.sum())} of "
               f"{n} elements never written): i is held in a 16-bit unsigned short, which "
               "wraps to 0 past 65535",
               "keep the index an int: int i = blockIdx.x * blockDim.x + threadIdx.x")
