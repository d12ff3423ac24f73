"""Device memory as PyCUDA hands it out: `mem_alloc`'s DeviceAllocation, managed memory (an
array the host and kernels share), where an address lies (`mem_get_address_range`), and the
address a kernel receives for anything that stands for device memory."""

import ctypes
import os
import sys
from pathlib import Path

import numpy as np

from ..errors import LogicError
from . import devices, memory, streams


class DeviceAllocation:
    """What mem_alloc returns: int() of it is the address a kernel receives. Its memory is
    charged against the simulated device's size until it is freed, by free(), by the garbage
    collector, or with its context (devices.detach)."""

    _host_keeps = False  # whether a host array still reads its pages once it is freed

    def __init__(self, nbytes):
        self._block = self._freed = memory.allocate(nbytes)
        self._valid = True  # until free(), as PyCUDA's
        devices.adopt_allocation(self)  # it belongs to the current context
        self._ward = devices.current()  # which it keeps alive (PyCUDA's context_dependent)

    def __int__(self):
        if self._block is None:
            raise LogicError("this allocation has been freed: it is "
                             + memory.freed_words(self._freed))
        return self._block.address

    __index__ = __int__

    def __repr__(self):
        if self._block is None:
            return "<DeviceAllocation (freed)>"
        return f"<DeviceAllocation of {self._block.size} bytes at 0x{int(self):x} (simulated)>"

    def free(self):
        """Gives the memory back; a second free() is a LogicError, as PyCUDA's is. Memory that
        went with its context is gone already: then PyCUDA frees nothing, and says nothing."""
        if not self._valid:
            raise LogicError("device_allocation::free failed: invalid resource handle (this "
                             "allocation was freed before: it is "
                             + memory.freed_words(self._freed) + ")")
        self._valid = False
        self._release(program_line())

    def end_with_context(self, where):
        """Its context was destroyed (``where``: the line of the detach() that did it, or None)."""
        self._release(where, with_context=True)

    def _release(self, site, with_context=False):
        """Give the memory back (site: where in the program, or None)."""
        if self._block is not None:
            streams.before_free(self._block)  # cuMemFree waits for the work that uses it
            devices.forget_allocation(self._block)
            memory.release(self._block, site, with_context, self._host_keeps)
            self._block = None

    def __del__(self):
        try:
            self._release(None)  # by the garbage collector: no line of the program did it
        except Exception:
            pass


def program_line():
    """Where the program (not the course's helpers) is now: 'line 3 of a notebook cell' or
    'script.py:12'; None when no frame outside the helpers is found."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_HELPERS):
        frame = frame.f_back
    if frame is None:
        return None
    file = frame.f_code.co_filename
    if "ipykernel_" in file or file.startswith("<ipython-input"):
        return f"line {frame.f_lineno} of a notebook cell"
    return f"{os.path.basename(file)}:{frame.f_lineno}"


_HELPERS = str(Path(__file__).resolve().parents[2])


class mem_attach_flags:  # noqa: N801 - PyCUDA's name
    GLOBAL, HOST, SINGLE = 1, 2, 4


class ManagedAllocation(DeviceAllocation):
    """pycuda.driver.ManagedAllocation: memory the host and the device use at one address
    (cuMemAllocManaged), the ``.base`` of managed_empty's arrays. The simulated device's memory
    is the host's, so it is device memory (charged, guarded, freed with its context) that NumPy
    reads and writes in place. Once freed, a kernel given it is refused; the host's array still
    reads its pages until the array goes (on a GPU that read is undefined, often a crash, which
    would end the learner's Jupyter kernel)."""

    _host_keeps, _pages = True, None

    def __init__(self, nbytes):
        super().__init__(nbytes)
        self._pages = self._block  # unmapped when this object goes, freed or not (memory.unmap)

    def get_device_pointer(self):
        return int(self)

    def attach(self, mem_flags, stream=None):
        """Which of host, context or stream may use it (cuStreamAttachMemAsync): on the
        simulator every one may, always; the flags and the stream are checked."""
        if mem_flags not in (mem_attach_flags.GLOBAL, mem_attach_flags.HOST,
                             mem_attach_flags.SINGLE):
            raise LogicError("cuStreamAttachMemAsync failed: invalid argument")
        if stream is not None:
            stream._check_alive("cuStreamAttachMemAsync")

    def __del__(self):
        super().__del__()
        if self._pages is not None:
            memory.unmap(self._pages)


def managed_empty(shape, dtype, order="C", mem_flags=0):
    """An array on managed memory whose ``.base`` is its ManagedAllocation, as PyCUDA's."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if mem_flags not in (mem_attach_flags.GLOBAL, mem_attach_flags.HOST) or nbytes <= 0:
        raise LogicError("cuMemAllocManaged failed: invalid argument (" + (
            "mem_flags must be mem_attach_flags.GLOBAL or HOST" if nbytes > 0 else
            "no bytes asked for") + ")")
    allocation = ManagedAllocation(nbytes)
    layout = np.ndarray(shape, dtype, order=order,   # its strides and dtype, on its memory
                        buffer=(ctypes.c_char * nbytes).from_address(int(allocation)))
    allocation.__array_interface__ = layout.__array_interface__
    return np.asarray(allocation)


def managed_zeros(shape, dtype, order="C", mem_flags=0):
    result = managed_empty(shape, dtype, order, mem_flags)
    result.fill(0)
    return result


def managed_empty_like(array, mem_flags=0):
    if array.flags.c_contiguous:
        order = "C"
    elif array.flags.f_contiguous:
        order = "F"
    else:
        raise ValueError("could not detect array order")
    return managed_empty(array.shape, array.dtype, order, mem_flags)


def managed_zeros_like(array, mem_flags=0):
    result = managed_empty_like(array, mem_flags)
    result.fill(0)
    return result


def mem_get_address_range(ptr):
    """(start, bytes) of the allocation that ptr points into (cuMemGetAddressRange)."""
    at = address(ptr)
    block = memory.find(at)
    if block is None or not block.address <= at < block.end:
        raise LogicError(f"cuMemGetAddressRange failed: invalid argument (0x{at:x} "
                         f"{memory.describe_address(at)})")
    return block.address, block.size


class PointerHolderBase:
    """Subclass it and define get_pointer() to hand PyCUDA memory it did not allocate."""

    def get_pointer(self):
        raise NotImplementedError("a PointerHolderBase subclass must define get_pointer()")

    def __int__(self):
        return int(self.get_pointer())

    __index__ = __int__


class ArgumentError(TypeError):
    """Boost.Python.ArgumentError, which PyCUDA's functions written in C++ raise for an argument
    of a type their signature does not take: a float, or a NumPy integer, where a Python int
    belongs (``mem_alloc(unsigned long)``, on an H100 with PyCUDA 2026.1)."""


def mem_alloc(nbytes):
    """pycuda.driver.mem_alloc: ``nbytes`` a Python int, at least 1, as PyCUDA takes it."""
    if not isinstance(nbytes, int):
        kind = type(nbytes)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise ArgumentError(
            f"Python argument types in pycuda._driver.mem_alloc({name}) did not match C++ "
            f"signature: mem_alloc(unsigned long). The size is a Python int of bytes: "
            f"drv.mem_alloc(int({nbytes!r}))" + (", or // where / divided" if isinstance(
                nbytes, float) else " (NumPy's integers are not Python ints)"))
    if nbytes < 0:
        raise OverflowError("can't convert negative value to unsigned int (mem_alloc was asked "
                            f"for {nbytes} bytes)")
    if nbytes == 0:
        raise LogicError("cuMemAlloc failed: invalid argument (mem_alloc was asked for 0 bytes: "
                         "allocate nothing where there is nothing to hold)")
    return DeviceAllocation(nbytes)


def mem_alloc_like(ary):
    return mem_alloc(ary.nbytes)


def address(ptr):
    """The device address that ptr stands for (an allocation, a pointer holder, an array's
    gpudata, an integer)."""
    if isinstance(ptr, (DeviceAllocation, PointerHolderBase)):
        return int(ptr)
    if hasattr(ptr, "gpudata"):
        return address(ptr.gpudata)
    if isinstance(ptr, (int, np.integer)):
        return int(ptr)
    raise TypeError(f"expected a device pointer (DeviceAllocation or int), got {type(ptr).__name__}")
