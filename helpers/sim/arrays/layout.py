"""How a GPUArray lies in memory: its flags and strides, PyCUDA's launch shape for its
elements (splay), and the NumPy view of simulated device memory that every host-side operation
goes through."""

import builtins
import functools

import numpy as np

from ..errors import LogicError
from ..machine import memory
from ..machine.device import Context, device_attribute


class ArrayFlags:
    def __init__(self, ary):
        trivial = ary.size == 0
        self.c_contiguous = trivial or _same_strides(ary, c_strides(ary.itemsize, ary.shape))
        self.f_contiguous = trivial or _same_strides(ary, f_strides(ary.itemsize, ary.shape))
        self.forc = self.c_contiguous or self.f_contiguous

    def __repr__(self):
        return f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}"


def _same_strides(ary, strides):
    return builtins.all(n == 1 or a == b for n, a, b in zip(ary.shape, ary.strides, strides))


def c_strides(itemsize, shape):
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.insert(0, step)
        step *= builtins.max(n, 1)
    return tuple(strides)


def f_strides(itemsize, shape):
    strides, step = [], itemsize
    for n in shape:
        strides.append(step)
        step *= builtins.max(n, 1)
    return tuple(strides)


def compact_strides(a):
    """Packed strides with the axes in the same order of stride as a's."""
    strides, step = [0] * len(a.shape), a.dtype.itemsize
    for _, n, axis in sorted((a.strides[i], a.shape[i], i) for i in range(len(a.shape))):
        strides[axis] = step
        step *= n
    return strides


@functools.lru_cache(maxsize=None)
def _splay(n, workers):
    """PyCUDA's launch shape for n elements: at most 4 x 8 blocks per multiprocessor of
    32 to 128 threads, each thread looping over the elements."""
    min_threads, max_threads, max_blocks = 32, 128, 4 * 8 * workers
    if n < min_threads:
        return (1, 1), (min_threads, 1, 1)
    if n < max_blocks * min_threads:
        return ((n + min_threads - 1) // min_threads, 1), (min_threads, 1, 1)
    if n < max_blocks * max_threads:
        groups = (n + min_threads - 1) // min_threads
        return (max_blocks, 1), (((groups + max_blocks - 1) // max_blocks) * min_threads, 1, 1)
    return (max_blocks, 1), (max_threads, 1, 1)


def splay(n, dev=None):
    dev = dev or Context.get_device()
    return _splay(n, dev.get_attribute(device_attribute.MULTIPROCESSOR_COUNT))


def device_view(address, shape, dtype, strides):
    """A NumPy array over simulated device memory (no copy); refuses to reach outside the
    allocation that address lies in. The init check counts what it spans as written."""
    dtype = np.dtype(dtype)
    low = builtins.sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0)
    high = dtype.itemsize + builtins.sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0)
    block = memory.find(address)
    if block is None or not (block.address <= address + low
                             and address + high <= block.address + block.size):
        raise LogicError(
            f"a GPUArray of shape {shape} at 0x{address:x} reaches outside its memory "
            f"({memory.describe_address(address)})")
    memory.note_written(address + low, high - low)  # NumPy may write through the view
    buffer = (memory.ctypes.c_char * block.size).from_address(block.address)
    return np.ndarray(shape, dtype, buffer=buffer, offset=address - block.address,
                      strides=strides)
