"""Pitched memory, as pycuda.driver has it: rows of a 2-D array padded to a pitch
(``mem_alloc_pitch``), 2-D and 3-D copies between host and device memory with offsets and
pitches of their own (``Memcpy2D``, ``Memcpy3D``), 2-D fills (``memset_d2d8/16/32``) and the
fills queued on a stream (``memset_d*_async``).

Every row a copy or a fill touches is checked first: on the device it must lie inside one
allocation, on the host inside the buffer given, so that a wrong pitch or offset is an error that
says which, never a write into the Python process's own memory.
"""

import functools

import numpy as np

from ..errors import LogicError
from ..unsupported import NeedsGPU
from ..unsupported import TEXTURES
from . import memory, streams
from .allocations import address, mem_alloc
from .copies import fill_rows, host_buffer, to_host

PITCH_ALIGNMENT = 512
"""The bytes cuMemAllocPitch rounds a row up to on an H200 (measured: pitch 512 for rows of 1 to
512 bytes, 1024 for 513)."""


class memory_type:  # noqa: N801 - pycuda.driver's name
    HOST, DEVICE, ARRAY, UNIFIED = 1, 2, 3, 4


def mem_alloc_pitch(width, height, access_size):
    """(DeviceAllocation, pitch): height rows of width bytes, each starting pitch bytes after
    the one before; access_size (4, 8 or 16) is the bytes a kernel reads at a time."""
    if access_size not in (4, 8, 16) or width < 1 or height < 1:
        raise LogicError(f"cuMemAllocPitch failed: invalid argument (width={width}, height="
                         f"{height}, access_size={access_size}: access_size is 4, 8 or 16 and "
                         "the sizes at least 1)")
    pitch = -(-width // PITCH_ALIGNMENT) * PITCH_ALIGNMENT
    return mem_alloc(pitch * height), pitch


# ---- 2-D fills ----------------------------------------------------------------------------------
def _memset_2d(dest, pitch, value, width, height, dtype, call, stream=None, queued=False):
    dtype = np.dtype(dtype)
    row = width * dtype.itemsize
    start = address(dest)
    if row > pitch and height > 1:
        raise LogicError(f"{call} failed: invalid argument (a row of {width} elements is "
                         f"{row} bytes, more than the pitch of {pitch})")
    _check_device(start, pitch, row, height, 1, 0, call)

    def run():
        fill_rows(start, pitch, row, height, value, dtype)

    if queued:
        streams.submit(stream, run, call, touches=[memory.find(start)])
    else:
        streams.wait_default()
        run()


def memset_d2d8(dest, pitch, data, width, height):
    _memset_2d(dest, pitch, data, width, height, np.uint8, "cuMemsetD2D8")


def memset_d2d16(dest, pitch, data, width, height):
    _memset_2d(dest, pitch, data, width, height, np.uint16, "cuMemsetD2D16")


def memset_d2d32(dest, pitch, data, width, height):
    _memset_2d(dest, pitch, data, width, height, np.uint32, "cuMemsetD2D32")


def memset_d2d8_async(dest, pitch, data, width, height, stream=None):
    _memset_2d(dest, pitch, data, width, height, np.uint8, "cuMemsetD2D8Async", stream, True)


def memset_d2d16_async(dest, pitch, data, width, height, stream=None):
    _memset_2d(dest, pitch, data, width, height, np.uint16, "cuMemsetD2D16Async", stream, True)


def memset_d2d32_async(dest, pitch, data, width, height, stream=None):
    _memset_2d(dest, pitch, data, width, height, np.uint32, "cuMemsetD2D32Async", stream, True)


def memset_d8_async(dest, data, size, stream=None):
    _memset_2d(dest, size, data, size, 1, np.uint8, "cuMemsetD8Async", stream, True)


def memset_d16_async(dest, data, size, stream=None):
    _memset_2d(dest, 2 * size, data, size, 1, np.uint16, "cuMemsetD16Async", stream, True)


def memset_d32_async(dest, data, size, stream=None):
    _memset_2d(dest, 4 * size, data, size, 1, np.uint32, "cuMemsetD32Async", stream, True)


# ---- 2-D and 3-D copies -------------------------------------------------------------------------
def _check_device(start, pitch, row, height, depth, layer, call):
    """Every row of a region of device memory lies inside the allocation of its first byte."""
    last = start + (depth - 1) * layer + (height - 1) * pitch
    if not (memory.check_range(start, row) and memory.check_range(last, row)
            and memory.find(start) is memory.find(last)):
        raise LogicError(f"{call} failed: invalid argument: {height * depth} rows of {row} bytes, "
                         f"{pitch} bytes apart, from 0x{start:x} do not fit inside one allocation "
                         f"({memory.describe_address(last)}); check the pitch, the offsets and "
                         "the height")


class _Side:
    """One end of a copy: host memory (a buffer, kept alive here) or device memory."""

    def __init__(self, kind, buffer=None, device=0):
        self.kind, self.buffer, self.device = kind, buffer, device


class Memcpy2D:
    """pycuda.driver.Memcpy2D: width_in_bytes x height from the source to the destination, each
    with its own pitch and x (bytes) and y offsets. ``copy(aligned=False)`` copies now;
    ``copy(stream)`` queues the copy on the stream."""
    _call = "cuMemcpy2D"

    def __init__(self):
        self.src_x_in_bytes = self.src_y = self.src_pitch = 0
        self.dst_x_in_bytes = self.dst_y = self.dst_pitch = 0
        self.width_in_bytes = self.height = 0
        self._src = self._dst = None

    def set_src_host(self, buf):
        self._src = _Side(memory_type.HOST, host_buffer(buf, "Memcpy2D.set_src_host"))

    def set_dst_host(self, buf):
        buffer = host_buffer(buf, "Memcpy2D.set_dst_host")
        if not buffer.flags.writeable:
            raise ValueError("Memcpy2D.set_dst_host: the destination array is read-only")
        self._dst = _Side(memory_type.HOST, buffer)

    def set_src_device(self, devptr):
        self._src = _Side(memory_type.DEVICE, device=address(devptr))

    def set_dst_device(self, devptr):
        self._dst = _Side(memory_type.DEVICE, device=address(devptr))

    set_src_unified, set_dst_unified = set_src_host, set_dst_host

    def set_src_array(self, ary):
        raise NeedsGPU(TEXTURES, f"{type(self).__name__}.set_src_array")

    set_dst_array = set_src_array

    @property
    def src_memory_type(self):
        return self._src.kind if self._src else 0

    @property
    def dst_memory_type(self):
        return self._dst.kind if self._dst else 0

    def _depth(self):
        return 1, 0, 0  # (layers, bytes between the source's layers, the destination's)

    def _starts(self):
        depth, src_layer, dst_layer = self._depth()
        return (self._start(self._src, self.src_x_in_bytes, self.src_y, self.src_pitch,
                            getattr(self, "src_z", 0) * src_layer, src_layer, "source"),
                self._start(self._dst, self.dst_x_in_bytes, self.dst_y, self.dst_pitch,
                            getattr(self, "dst_z", 0) * dst_layer, dst_layer, "destination"))

    def _start(self, side, x, y, pitch, z_offset, layer, which):
        """The address of the region's first byte, after checking every row of it."""
        call, row, depth = self._call, self.width_in_bytes, self._depth()[0]
        if side is None:
            raise LogicError(f"{call} failed: invalid argument (no {which}: call set_"
                             f"{which[:3]}_host or set_{which[:3]}_device first)")
        if row > pitch and self.height > 1:
            raise LogicError(f"{call} failed: invalid argument (width_in_bytes={row} is more "
                             f"than the {which}'s pitch of {pitch})")
        offset = z_offset + y * pitch + x
        if side.kind == memory_type.DEVICE:
            _check_device(side.device + offset, pitch, row, self.height, depth, layer, call)
            return side.device + offset
        end = offset + (depth - 1) * layer + (self.height - 1) * pitch + row
        if end > side.buffer.nbytes:
            raise ValueError(f"{call}: the {which} host buffer holds {side.buffer.nbytes} bytes, "
                             f"and the copy reaches byte {end} of it: check the pitch, the "
                             "offsets and the height")
        return side.buffer.ctypes.data + offset

    def _run(self, after):
        """The copy, in order with device ``after``'s work (copies.to_host notes it)."""
        (src, dst), (depth, src_layer, dst_layer) = self._starts(), self._depth()
        for z in range(depth):
            for y in range(self.height):
                memory.write(dst + z * dst_layer + y * self.dst_pitch,
                             src + z * src_layer + y * self.src_pitch, self.width_in_bytes)
        if self._src.kind == memory_type.DEVICE and self._dst.kind != memory_type.DEVICE:
            to_host(src, after)

    def __call__(self, stream_or_aligned=False):
        if isinstance(stream_or_aligned, streams.Stream):
            self._starts()  # checked when queued, as the call's arguments are on a GPU
            touches = [b for s in (self._src, self._dst) if s.kind == memory_type.DEVICE
                       for b in [memory.find(s.device)] if b is not None]
            streams.submit(stream_or_aligned, functools.partial(self._run,
                                                                stream_or_aligned.device),
                           self._call + "Async", touches=touches)
        else:
            streams.wait_default()
            self._run(streams.device_of(None))


class Memcpy3D(Memcpy2D):
    """pycuda.driver.Memcpy3D: a Memcpy2D over ``depth`` layers, src_height and dst_height rows
    apart, from layer src_z and to layer dst_z."""
    _call = "cuMemcpy3D"

    def __init__(self):
        super().__init__()
        self.src_z = self.dst_z = self.src_lod = self.dst_lod = 0
        self.src_height = self.dst_height = 0
        self.depth = 1

    def _depth(self):
        return (max(self.depth, 1), self.src_pitch * (self.src_height or self.height),
                self.dst_pitch * (self.dst_height or self.height))
