"""Page-locked ("pinned") host memory for the CPU simulator: NumPy arrays it knows as such.

On a CPU there is nothing to lock, but whether a host array is page-locked changes what an
asynchronous copy does, and the simulator keeps that difference (streams.py): from page-locked
memory the copy runs when its stream gets to it, so the array must not be touched until the
stream has been synchronized; from ordinary (pageable) memory CUDA copies the data at once
(host to device) or waits for the copy (device to host). The arrays that pagelocked_empty and
friends return are remembered by the memory they span, so that slices and views of them count as
page-locked too, as they do in PyCUDA.
"""

import bisect
import threading
import weakref

import numpy as np

_lock = threading.Lock()
_starts = []  # sorted start addresses of page-locked buffers
_ends = {}    # start -> end


def _span(array):
    start = array.__array_interface__["data"][0]
    return start, start + array.nbytes


def _forget(start):
    with _lock:
        if _ends.pop(start, None) is not None:
            _starts.remove(start)


def _remember(array):
    start, end = _span(array)
    if end > start:
        with _lock:
            bisect.insort(_starts, start)
            _ends[start] = end
        weakref.finalize(array, _forget, start)
    return array


def is_pinned(array):
    """True if all of array lies in memory from pagelocked_empty and friends."""
    start, end = _span(array)
    with _lock:
        i = bisect.bisect(_starts, start) - 1
        return i >= 0 and end <= _ends[_starts[i]]


class host_alloc_flags:  # noqa: N801 - PyCUDA's name
    PORTABLE, DEVICEMAP, WRITECOMBINED = 1, 2, 4


class PagelockedHostAllocation(bytearray):
    """pycuda.driver.PagelockedHostAllocation: the memory behind a page-locked array (its
    ``.base``). ``free()`` gives it back; on the simulator the bytes stay while the array lives
    (reading it after free() is a mistake on a GPU), but they are no longer page-locked."""

    def __init__(self, nbytes, flags=0):
        super().__init__(nbytes)
        self._flags, self.freed = flags, False

    def get_flags(self):
        """The flags it was allocated with, and DEVICEMAP: with unified addressing (every 64-bit
        CUDA platform) page-locked memory is always mapped, and cuMemHostGetFlags says so (the
        H200 answered 3 for memory asked for as PORTABLE)."""
        return self._flags | host_alloc_flags.DEVICEMAP

    def free(self):
        if not self.freed:
            self.freed = True
            if len(self):
                _forget(_address(self))


def _address(buffer):
    return np.frombuffer(buffer, np.uint8).__array_interface__["data"][0]


def _pagelocked(shape, dtype, order, mem_flags):
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return _remember(np.ndarray(shape, dtype, buffer=PagelockedHostAllocation(nbytes, mem_flags),
                                order=order))


def pagelocked_empty(shape, dtype, order="C", mem_flags=0):
    return _pagelocked(shape, dtype, order, mem_flags)


def pagelocked_zeros(shape, dtype, order="C", mem_flags=0):
    return _pagelocked(shape, dtype, order, mem_flags)  # a new bytearray is zeroed


def pagelocked_empty_like(array, mem_flags=0):
    return pagelocked_empty(array.shape, array.dtype, _order(array), mem_flags)


def pagelocked_zeros_like(array, mem_flags=0):
    return pagelocked_zeros(array.shape, array.dtype, _order(array), mem_flags)


def _order(array):
    return "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"


# ---- aligned host memory (not page-locked) -----------------------------------------------
def aligned_empty(shape, dtype, order="C", alignment=4096):
    """An uninitialised array whose data starts at a multiple of alignment bytes."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + alignment, np.uint8)
    start = -raw.ctypes.data % alignment
    return raw[start:start + nbytes].view(dtype).reshape(shape, order=order)


def aligned_zeros(shape, dtype, order="C", alignment=4096):
    result = aligned_empty(shape, dtype, order, alignment)
    result.fill(0)
    return result


def aligned_empty_like(array, alignment=4096):
    order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
    return aligned_empty(array.shape, array.dtype, order, alignment)


def aligned_zeros_like(array, alignment=4096):
    result = aligned_empty_like(array, alignment)
    result.fill(0)
    return result


def register_host_memory(ary, flags=0):
    return ary
