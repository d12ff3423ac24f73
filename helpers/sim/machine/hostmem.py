"""Page-locked ("pinned") and aligned host memory for the CPU simulator: NumPy arrays it knows
as such, and host memory registered with CUDA afterwards.

On a CPU there is nothing to lock, but whether a host array is page-locked changes what an
asynchronous copy does, and the simulator keeps that difference (streams.py): from page-locked
memory the copy runs when its stream gets to it, so the array must not be touched until the
stream has been synchronized; from ordinary (pageable) memory CUDA copies the data at once
(host to device) or waits for the copy (device to host). The memory of pagelocked_empty and
friends, and of register_host_memory, is remembered by the addresses it spans while it is
page-locked, so that slices and views of its arrays count as page-locked too, as they do in
PyCUDA. With unified addressing (every 64-bit CUDA platform) page-locked memory is mapped into
the device's address space at the same address: a kernel may be handed it
(HostPointer.get_device_pointer), and the simulator's pointer checks let it through while it is
page-locked (memory.register_global).

Every array's ``.base`` is its allocation, as PyCUDA's: PagelockedHostAllocation (also named
HostAllocation), AlignedHostAllocation, RegisteredHostMemory, each with PyCUDA's free() or
unregister() and its error for a second one.
"""

import weakref

import numpy as np

from ..errors import LogicError
from . import memory
from .table_lock import AddressTable

_spans = AddressTable()  # start -> end of each page-locked buffer (a buffer's finalizer,
                         # _forget, may run while this thread holds its lock)


def _span(array):
    start = array.__array_interface__["data"][0]
    return start, start + array.nbytes


class host_alloc_flags:  # noqa: N801 - PyCUDA's name
    PORTABLE, DEVICEMAP, WRITECOMBINED = 1, 2, 4


class mem_host_register_flags:  # noqa: N801 - PyCUDA's name
    PORTABLE, DEVICEMAP = 1, 2


_REGISTER_FLAGS = 0xF  # cuMemHostRegister's: PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY


class HostPointer:
    """pycuda.driver.HostPointer: host memory that CUDA knows of. While it is page-locked its
    device pointer is its host address (unified addressing), and kernels and copies may use it;
    free() or unregister() (``_unlock``) ends that, and so does the garbage collector."""

    _address, _pinned, _valid = 0, None, True

    def _lock_pages(self, address, nbytes):
        """Count [address, address + nbytes) page-locked and mapped until _unlock."""
        self._address = address
        if nbytes:
            _spans.add(address, address + nbytes)
            memory.register_global(address, nbytes)
            self._pinned = weakref.finalize(self, _forget, address)

    def _unlock(self, call):
        """End it (call: PyCUDA's name for the routine, for the error of a second time)."""
        if not self._valid:
            raise LogicError(f"{call} failed: invalid resource handle")
        self._valid = False
        if self._pinned is not None:
            self._pinned()  # forgotten now, not again when it is collected

    def get_device_pointer(self):
        if not (self._valid and self._pinned):
            raise LogicError("cuMemHostGetDevicePointer failed: invalid argument (this host "
                             "memory is not page-locked" + ("" if self._valid else
                                                            " any more: it was freed") + ")")
        return self._address


def _forget(start):
    _spans.forget(start)
    memory.unregister(start)


def is_pinned(array):
    """True if all of array lies in page-locked memory (pagelocked_empty and friends, or
    register_host_memory)."""
    start, end = _span(array)
    return end <= (_spans.at_or_below(start) or 0)


class PagelockedHostAllocation(HostPointer, bytearray):
    """pycuda.driver.PagelockedHostAllocation: the memory behind a page-locked array (its
    ``.base``). ``free()`` gives it back; on the simulator the bytes stay while the array lives
    (reading it after free() is a mistake on a GPU), but they are no longer page-locked."""

    def __init__(self, nbytes, flags=0):
        super().__init__(nbytes)
        self._flags = flags
        self._lock_pages(_address(self) if nbytes else 0, nbytes)

    @property
    def freed(self):
        return not self._valid

    def get_flags(self):
        """The flags it was allocated with, and DEVICEMAP: with unified addressing (every 64-bit
        CUDA platform) page-locked memory is always mapped, and cuMemHostGetFlags says so (the
        H200 answered 3 for memory asked for as PORTABLE)."""
        return self._flags | host_alloc_flags.DEVICEMAP

    def free(self):
        self._unlock("pagelocked_host_allocation::free")


HostAllocation = PagelockedHostAllocation  # PyCUDA's older name, still exported


class AlignedHostAllocation(HostPointer, bytearray):
    """pycuda.driver.AlignedHostAllocation: the memory behind an aligned array (ordinary host
    memory, not page-locked: register_host_memory locks it). ``offset``: where in it the
    array starts."""

    def __init__(self, nbytes, alignment):
        super().__init__(nbytes + alignment)
        self.offset = -_address(self) % alignment

    def free(self):
        self._unlock("aligned_host_allocation::free")


class RegisteredHostMemory(HostPointer):
    """pycuda.driver.RegisteredHostMemory: host memory page-locked after it was allocated
    (cuMemHostRegister); the ``.base`` of register_host_memory's array, whose own ``.base`` is
    the array that was registered. unregister() unlocks it (the memory stays the array's)."""

    def __init__(self, ary, flags):
        self.base, self.__array_interface__ = ary, ary.__array_interface__
        self._lock_pages(*_span(ary))

    def unregister(self):
        self._unlock("registered_host_memory::free")


def _address(buffer):
    return np.frombuffer(buffer, np.uint8).__array_interface__["data"][0]


def _nbytes(shape, dtype):
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def _pagelocked(shape, dtype, order, mem_flags):
    return np.ndarray(shape, dtype, buffer=PagelockedHostAllocation(_nbytes(shape, dtype),
                                                                     mem_flags), order=order)


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
    allocation = AlignedHostAllocation(_nbytes(shape, dtype), alignment)
    return np.ndarray(shape, dtype, buffer=allocation, offset=allocation.offset, order=order)


def aligned_zeros(shape, dtype, order="C", alignment=4096):
    return aligned_empty(shape, dtype, order, alignment)  # a new bytearray is zeroed


def aligned_empty_like(array, alignment=4096):
    return aligned_empty(array.shape, array.dtype, _order(array), alignment)


def aligned_zeros_like(array, alignment=4096):
    return aligned_zeros(array.shape, array.dtype, _order(array), alignment)


# ---- host memory page-locked afterwards ------------------------------------------------------
def register_host_memory(ary, flags=0):
    """A new array on ary's memory, page-locked while its ``.base`` (a RegisteredHostMemory)
    lives, with PyCUDA's errors for what cannot be registered and cuMemHostRegister's for a
    range registered already."""
    if not isinstance(ary, np.ndarray):
        raise LogicError("register_host_memory failed: invalid argument - ary argument is not "
                         "a numpy array")
    if not ary.flags.c_contiguous:
        raise LogicError("register_host_memory failed: invalid argument - ary argument is not "
                         "contiguous")
    start, end = _span(ary)
    if int(flags) & ~_REGISTER_FLAGS or end == start:
        raise LogicError("cuMemHostRegister failed: invalid argument"
                         + ("" if end > start else " (the array has no bytes to lock)"))
    if (_spans.at_or_below(end - 1) or 0) > start:
        raise LogicError("cuMemHostRegister failed: part or all of the requested memory "
                         "range is already mapped (it is page-locked already)")
    return np.asarray(RegisteredHostMemory(ary, flags))
