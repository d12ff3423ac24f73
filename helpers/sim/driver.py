"""`pycuda.driver`, for the CPU simulator: PyCUDA's calls, with its arguments, return values and
errors. A name PyCUDA has and the simulator lacks raises NotProvided (an AttributeError saying what
to do); a feature only a GPU has (textures, OpenGL, IPC) raises NeedsGPU naming it.

Synchronous calls run when they are called. Work queued on a stream (kernels launched with
stream=, asynchronous copies to and from page-locked memory) runs later, when the host waits
for it, as on a GPU; nothing overlaps (streams.py says exactly when what runs).
"""

import ctypes

import numpy as np

from . import device as _device, devices, hostmem, memory, streams
from .device import (  # noqa: F401 - pycuda.driver's names
    CUDA_VERSION, Context, Device, LIMITS, device_attribute, get_driver_version, get_version,
    init, mem_get_info)
from .errors import (  # noqa: F401 - pycuda.driver's names
    CompileError, Error, LaunchError, LogicError, MemoryError, NeedsGPU, NotProvided,
    RuntimeError, module_getattr)
from .unsupported import DRIVER_FEATURES, gpu_only
from .hostmem import host_alloc_flags, pagelocked_empty, pagelocked_empty_like  # noqa: F401
from .hostmem import PagelockedHostAllocation, pagelocked_zeros, pagelocked_zeros_like  # noqa: F401


# ---- memory ----------------------------------------------------------------------------------------
class DeviceAllocation:
    """What mem_alloc returns: int() of it is the address a kernel receives. Its memory is
    charged against the simulated device's size until it is freed."""

    def __init__(self, nbytes):
        self._block = memory.allocate(nbytes)
        devices.adopt_allocation(self._block)  # it belongs to the current device

    def __int__(self):
        if self._block is None:
            raise LogicError("this allocation has been freed")
        return self._block.address

    __index__ = __int__

    def __repr__(self):
        if self._block is None:
            return "<DeviceAllocation (freed)>"
        return f"<DeviceAllocation of {self._block.size} bytes at 0x{int(self):x} (simulated)>"

    def free(self):
        if self._block is not None:
            streams.before_free(self._block)  # cuMemFree waits for the work that uses it
            devices.forget_allocation(self._block)
            memory.release(self._block)
            self._block = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


class PointerHolderBase:
    """Subclass it and define get_pointer() to hand PyCUDA memory it did not allocate."""

    def get_pointer(self):
        raise NotImplementedError("a PointerHolderBase subclass must define get_pointer()")

    def __int__(self):
        return int(self.get_pointer())

    __index__ = __int__


def mem_alloc(nbytes):
    return DeviceAllocation(nbytes)


def mem_alloc_like(ary):
    return mem_alloc(ary.nbytes)


def _address(ptr):
    if isinstance(ptr, (DeviceAllocation, PointerHolderBase)):
        return int(ptr)
    if hasattr(ptr, "gpudata"):
        return _address(ptr.gpudata)
    if isinstance(ptr, (int, np.integer)):
        return int(ptr)
    raise TypeError(f"expected a device pointer (DeviceAllocation or int), got {type(ptr).__name__}")


def _host_buffer(array, what):
    if not isinstance(array, np.ndarray):
        array = np.frombuffer(memoryview(array).cast("B"), np.uint8)
    if not array.flags.c_contiguous and not array.flags.f_contiguous:
        raise ValueError(f"{what}: the host array must be contiguous (use np.ascontiguousarray)")
    return array


def _check_device_range(address, nbytes, call):
    if nbytes and not memory.check_range(address, nbytes):
        raise LogicError(
            f"{call} failed: invalid argument: {nbytes} bytes at 0x{address:x} do not fit inside "
            f"one allocation ({memory.describe_address(address)}); is the array larger than the "
            "device buffer?")


def memcpy_htod(dest, src):
    streams.wait_default()
    src = _host_buffer(src, "memcpy_htod")
    address = _address(dest)
    _check_device_range(address, src.nbytes, "cuMemcpyHtoD")
    memory.write(address, src.ctypes.data, src.nbytes)


def memcpy_dtoh(dest, src):
    streams.wait_default()
    dest = _host_buffer(dest, "memcpy_dtoh")
    if not dest.flags.writeable:
        raise ValueError("memcpy_dtoh: the destination array is read-only")
    address = _address(src)
    _check_device_range(address, dest.nbytes, "cuMemcpyDtoH")
    memory.write(dest.ctypes.data, address, dest.nbytes)


def memcpy_dtod(dest, src, size):
    streams.wait_default()
    d, s = _address(dest), _address(src)
    _check_device_range(d, size, "cuMemcpyDtoD")
    _check_device_range(s, size, "cuMemcpyDtoD")
    memory.write(d, s, size)


def to_device(bf_obj):
    """A new allocation holding a copy of bf_obj (anything with the buffer protocol)."""
    data = memoryview(bf_obj).tobytes()
    result = mem_alloc(len(data))
    memcpy_htod(result, data)
    return result


def from_device(devptr, shape, dtype, order="C"):
    result = np.empty(shape, dtype, order)
    memcpy_dtoh(result, devptr)
    return result


def from_device_like(devptr, other_ary):
    result = np.empty_like(other_ary)
    memcpy_dtoh(result, devptr)
    return result


def _blocks(*addresses):
    return [b for b in map(memory.find, addresses) if b is not None]


def memcpy_peer(dest, src, size, dest_context=None, src_context=None):
    """A copy between the memories of two devices (unified addressing: any two will do)."""
    memcpy_dtod(dest, src, size)


def memcpy_peer_async(dest, src, size, dest_context=None, src_context=None, stream=None):
    memcpy_dtod_async(dest, src, size, stream)


def memcpy_htod_async(dest, src, stream=None):
    """Queue a copy to the device on stream. From page-locked memory it reads src when it runs;
    from pageable memory the data is copied at once (CUDA stages it) and only the write waits."""
    src = _host_buffer(src, "memcpy_htod_async")
    address = _address(dest)
    _check_device_range(address, src.nbytes, "cuMemcpyHtoDAsync")
    if not hostmem.is_pinned(src):
        src = src.copy()
    streams.submit(stream, lambda: memory.write(address, src.ctypes.data, src.nbytes),
                   "memcpy_htod_async", touches=_blocks(address))


def memcpy_dtoh_async(dest, src, stream=None):
    """Queue a copy from the device on stream. Into page-locked memory it is written when the
    copy runs; into pageable memory the call returns when the copy is done, as CUDA's does."""
    dest = _host_buffer(dest, "memcpy_dtoh_async")
    if not dest.flags.writeable:
        raise ValueError("memcpy_dtoh_async: the destination array is read-only")
    address = _address(src)
    _check_device_range(address, dest.nbytes, "cuMemcpyDtoHAsync")
    op = streams.submit(stream, lambda: memory.write(dest.ctypes.data, address, dest.nbytes),
                        "memcpy_dtoh_async", touches=_blocks(address))
    if not hostmem.is_pinned(dest):
        streams.synchronize([op])


def memcpy_dtod_async(dest, src, size, stream=None):
    d, s = _address(dest), _address(src)
    _check_device_range(d, size, "cuMemcpyDtoDAsync")
    _check_device_range(s, size, "cuMemcpyDtoDAsync")
    streams.submit(stream, lambda: memory.write(d, s, size), "memcpy_dtod_async",
                   touches=_blocks(d, s))


def _memset(dest, value, count, dtype, call):
    """Fill count elements in place (no host array as large as the device memory)."""
    streams.wait_default()
    address = _address(dest)
    dtype = np.dtype(dtype)
    _check_device_range(address, count * dtype.itemsize, call)
    if count:
        buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
        np.frombuffer(buffer, dtype)[...] = np.array(value).astype(dtype)
        memory.note_written(address, count * dtype.itemsize)


def memset_d8(dest, data, count):
    _memset(dest, data, count, np.uint8, "cuMemsetD8")


def memset_d16(dest, data, count):
    _memset(dest, data, count, np.uint16, "cuMemsetD16")


def memset_d32(dest, data, count):
    _memset(dest, data, count, np.uint32, "cuMemsetD32")


# ---- host memory: page-locked memory is in hostmem.py ------------------------------------
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


# ---- flags and enumerations that code passes around ------------------------------------------
class ctx_flags:  # noqa: N801
    SCHED_AUTO, SCHED_SPIN, SCHED_YIELD, SCHED_BLOCKING_SYNC, MAP_HOST, LMEM_RESIZE_TO_MAX = (
        0, 1, 2, 4, 8, 16)


class limit:  # noqa: N801
    STACK_SIZE, PRINTF_FIFO_SIZE, DEV_RUNTIME_SYNC_DEPTH = 0, 1, 3
    MALLOC_HEAP_SIZE = _device.MALLOC_HEAP_SIZE


class func_cache:  # noqa: N801
    PREFER_NONE, PREFER_SHARED, PREFER_L1, PREFER_EQUAL = 0, 1, 2, 3


class compute_mode:  # noqa: N801
    DEFAULT, PROHIBITED, EXCLUSIVE_PROCESS = 0, 2, 3


# ---- streams and events: queued work, run when the host waits for it (streams.py) -------------
Stream, Event, event_flags = streams.Stream, streams.Event, streams.event_flags


# ---- kernel arguments that copy arrays (In, Out, InOut) ---------------------------------------
class ArgumentHandler:
    def __init__(self, array):
        self.array = array
        self.dev_alloc = None

    def get_device_alloc(self):
        if self.dev_alloc is None:
            self.dev_alloc = mem_alloc(self.array.nbytes)
        return self.dev_alloc

    def pre_call(self, stream):
        pass


class In(ArgumentHandler):
    def pre_call(self, stream):
        memcpy_htod(self.get_device_alloc(), self.array)


class Out(ArgumentHandler):
    def post_call(self, stream):
        memcpy_dtoh(self.array, self.get_device_alloc())


class InOut(In, Out):
    pass


# ---- GPU-only features: textures, OpenGL, IPC, ... -------------------------------------------
for _name, _feature in DRIVER_FEATURES.items():
    globals()[_name] = gpu_only(_feature, f"pycuda.driver.{_name}")

__getattr__ = module_getattr("pycuda.driver")
