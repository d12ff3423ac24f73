"""PyCUDA's memory pools: freed blocks are kept in bins by size and handed out again, so that
code which allocates and frees the same sizes over and over does not call mem_alloc each time.

The bins are PyCUDA's: a size's bin number is the index of its leading bit with the next four bits
below it (so sizes within 1/16 of each other share a bin), and a bin's blocks are the largest
size in it. Blocks the pool holds stay charged against the simulated device's memory, as they
stay allocated on a GPU; when an allocation does not fit, the pool frees what it holds and tries
once more, as PyCUDA's does.
"""

import numpy as np

from ..errors import MemoryError
from .allocations import mem_alloc

_MANTISSA_BITS = 4


def bitlog2(n):
    """The index of n's highest set bit (bitlog2(17) == 4), 0 for 0."""
    return max(int(n).bit_length() - 1, 0)


def _shift(x, amount):
    return x << amount if amount >= 0 else x >> -amount


class PooledDeviceAllocation:
    """A block from a pool: int() is its address; free() gives it back to the pool."""

    def __init__(self, pool, allocation, size):
        self._pool, self._allocation, self.size = pool, allocation, size

    def __int__(self):
        return int(self._allocation)

    __index__ = __int__

    def free(self):
        if self._allocation is not None:
            self._pool._give_back(self._allocation, self.size)
            self._allocation = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


class _Pool:
    """Bins of free blocks, handed out by size; subclasses say how to get a new block."""

    def __init__(self):
        self._bins = {}
        self.held_blocks = self.active_blocks = 0
        self._holding = True

    def bin_number(self, size):
        exponent = bitlog2(size)
        shifted = _shift(size, _MANTISSA_BITS - exponent)
        return exponent << _MANTISSA_BITS | (shifted & ((1 << _MANTISSA_BITS) - 1))

    def alloc_size(self, bin_nr):
        exponent, mantissa = bin_nr >> _MANTISSA_BITS, bin_nr & ((1 << _MANTISSA_BITS) - 1)
        ones = _shift(1, exponent - _MANTISSA_BITS)
        ones = ones - 1 if ones else 0
        return _shift((1 << _MANTISSA_BITS) | mantissa, exponent - _MANTISSA_BITS) | ones

    def allocate(self, size):
        bin_nr = self.bin_number(size)
        blocks = self._bins.get(bin_nr)
        if blocks:
            self.held_blocks -= 1
            block = blocks.pop()
        else:
            block = self._new_block(self.alloc_size(bin_nr))
        self.active_blocks += 1
        return self._wrap(block, size)

    def _new_block(self, nbytes):
        try:
            return self._allocate(nbytes)
        except MemoryError:
            self.free_held()
            return self._allocate(nbytes)

    def _give_back(self, block, size):
        self.active_blocks -= 1
        if self._holding:
            self._bins.setdefault(self.bin_number(size), []).append(block)
            self.held_blocks += 1
        else:
            self._release(block)

    def free_held(self):
        # The bins are swapped out first: a collection while they are freed may give a block
        # back (a pooled allocation's __del__), which goes into the new bins.
        bins, self._bins, self.held_blocks = self._bins, {}, 0
        for blocks in bins.values():
            for block in blocks:
                self._release(block)

    def stop_holding(self):
        self._holding = False
        self.free_held()

    def __call__(self, size):
        return self.allocate(size)


class DeviceMemoryPool(_Pool):
    """pycuda.tools.DeviceMemoryPool: pass pool.allocate as a GPUArray's allocator."""

    def _allocate(self, nbytes):
        return mem_alloc(nbytes)

    def _release(self, block):
        block.free()

    def _wrap(self, block, size):
        return PooledDeviceAllocation(self, block, size)


class PageLockedAllocator:
    """Host memory for a PageLockedMemoryPool (ordinary memory on the simulator)."""

    def __init__(self, flags=0):
        self.flags = flags

    def __call__(self, nbytes):
        return np.empty(nbytes, np.uint8)


class PageLockedMemoryPool(_Pool):
    """pycuda.tools.PageLockedMemoryPool: allocate(shape, dtype) gives a host array."""

    def __init__(self, allocator=None):
        super().__init__()
        self._allocator = allocator or PageLockedAllocator()

    def allocate(self, shape, dtype, order="C"):
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        raw = super().allocate(max(nbytes, 1))
        return raw[:nbytes].view(dtype).reshape(shape, order=order)

    def _allocate(self, nbytes):
        return self._allocator(nbytes)

    def _release(self, block):
        pass

    def _wrap(self, block, size):
        return block[:size]

