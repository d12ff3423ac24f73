"""Copies and fills of device memory (pycuda.driver's memcpy_* and memset_*): synchronous ones
wait for the legacy default stream, asynchronous ones are queued on a stream (streams.py).

Every copy from device memory into host memory, whichever call made it (these, Memcpy2D and
Memcpy3D, GPUArray's get and get_async), is noted by ``to_host`` as it runs, so that a checker
can read when the host took a device's results back (``recording_to_host``): notebook 11's
exercise asks for every device's kernel to be launched before any result is copied back.
"""

import contextlib
import ctypes
from typing import NamedTuple

import numpy as np

from ..errors import LogicError
from . import devices, hostmem, memory, streams
from .allocations import address as _address, mem_alloc


class ToHost(NamedTuple):
    """A copy from device memory into host memory: the device whose memory it read, and the
    device whose work it was ordered with (the context current for a synchronous copy, the
    stream's device for a queued one): only that device's kernels had surely run."""
    device: int | None
    after: int


_recordings: list[list] = []  # the lists recording_to_host has handed out, open now


@contextlib.contextmanager
def recording_to_host():
    """A list of the copies into host memory (ToHost) that run in the ``with`` block, in the
    order they ran: a queued one when its stream reached it."""
    copies: list[ToHost] = []
    _recordings.append(copies)
    try:
        yield copies
    finally:
        _recordings.remove(copies)


def to_host(address, after: int) -> None:
    """Note that the device memory at ``address`` has just been copied into host memory, in
    order with device ``after``'s work."""
    if _recordings:
        copy = ToHost(devices.device_of(address), after)
        for copies in list(_recordings):
            copies.append(copy)


def host_buffer(array, what):
    if not isinstance(array, np.ndarray):
        array = np.frombuffer(memoryview(array).cast("B"), np.uint8)
    if array.dtype.hasobject:
        raise TypeError(f"{what}: the host array holds Python objects (dtype {array.dtype}), "
                        "whose bytes are addresses in this process, not numbers: convert it "
                        "first, e.g. np.asarray(a, dtype=np.float32)")
    if not array.flags.c_contiguous and not array.flags.f_contiguous:
        raise ValueError(f"{what}: the host array must be contiguous (use np.ascontiguousarray)")
    return array


def _device_range(ptr, nbytes, call):
    """The address ptr stands for, once [address, address + nbytes) is checked to lie in one live
    allocation: LogicError otherwise, "invalid argument" as CUDA says (the H200 said it of memory
    freed with its context too)."""
    try:
        address = _address(ptr)
    except LogicError as err:  # a freed DeviceAllocation, which names itself
        raise LogicError(f"{call} failed: invalid argument ({err})") from None
    if nbytes and not memory.check_range(address, nbytes):
        freed = memory.fault_facts(address)["kind"] == "use after free"
        raise LogicError(
            f"{call} failed: invalid argument: {nbytes} bytes at 0x{address:x} do not fit inside "
            f"one allocation ({memory.describe_address(address)})"
            + ("" if freed else "; is the array larger than the device buffer?"))
    return address


def memcpy_htod(dest, src):
    streams.wait_default()
    src = host_buffer(src, "memcpy_htod")
    address = _device_range(dest, src.nbytes, "cuMemcpyHtoD")
    memory.write(address, src.ctypes.data, src.nbytes)


def memcpy_dtoh(dest, src):
    streams.wait_default()
    dest = host_buffer(dest, "memcpy_dtoh")
    if not dest.flags.writeable:
        raise ValueError("memcpy_dtoh: the destination array is read-only")
    address = _device_range(src, dest.nbytes, "cuMemcpyDtoH")
    memory.write(dest.ctypes.data, address, dest.nbytes)
    to_host(address, devices.current_device())


def memcpy_dtod(dest, src, size):
    streams.wait_default()
    d, s = _device_range(dest, size, "cuMemcpyDtoD"), _device_range(src, size, "cuMemcpyDtoD")
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
    src = host_buffer(src, "memcpy_htod_async")
    address = _device_range(dest, src.nbytes, "cuMemcpyHtoDAsync")
    if not hostmem.is_pinned(src):
        src = src.copy()
    streams.submit(stream, lambda: memory.write(address, src.ctypes.data, src.nbytes),
                   "memcpy_htod_async", touches=_blocks(address))


def memcpy_dtoh_async(dest, src, stream=None):
    """Queue a copy from the device on stream. Into page-locked memory it is written when the
    copy runs; into pageable memory the call returns when the copy is done, as CUDA's does."""
    dest = host_buffer(dest, "memcpy_dtoh_async")
    if not dest.flags.writeable:
        raise ValueError("memcpy_dtoh_async: the destination array is read-only")
    address = _device_range(src, dest.nbytes, "cuMemcpyDtoHAsync")
    after = streams.device_of(stream)

    def run():
        memory.write(dest.ctypes.data, address, dest.nbytes)
        to_host(address, after)

    op = streams.submit(stream, run, "memcpy_dtoh_async", touches=_blocks(address))
    if not hostmem.is_pinned(dest):
        streams.synchronize([op])


def memcpy_dtod_async(dest, src, size, stream=None):
    d = _device_range(dest, size, "cuMemcpyDtoDAsync")
    s = _device_range(src, size, "cuMemcpyDtoDAsync")
    streams.submit(stream, lambda: memory.write(d, s, size), "memcpy_dtod_async",
                   touches=_blocks(d, s))


def _memset(dest, value, count, dtype, call):
    """Fill count elements in place (no host array as large as the device memory)."""
    streams.wait_default()
    dtype = np.dtype(dtype)
    address = _device_range(dest, count * dtype.itemsize, call)
    fill_rows(address, 0, count * dtype.itemsize, 1, value, dtype)


def fill_rows(address, pitch, row, height, value, dtype):
    """Fill height rows of row bytes, pitch bytes apart from address, with value as dtype (in
    place: no host array as large as the device memory), and note them written."""
    fill = np.array(value).astype(dtype)
    for y in range(height if row else 0):
        at = address + y * pitch
        np.frombuffer((ctypes.c_char * row).from_address(at), dtype)[...] = fill
        memory.note_written(at, row)


def memset_d8(dest, data, count):
    _memset(dest, data, count, np.uint8, "cuMemsetD8")


def memset_d16(dest, data, count):
    _memset(dest, data, count, np.uint16, "cuMemsetD16")


def memset_d32(dest, data, count):
    _memset(dest, data, count, np.uint32, "cuMemsetD32")
