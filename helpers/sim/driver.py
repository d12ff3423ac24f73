"""`pycuda.driver`, for the CPU simulator: the names the course uses, with PyCUDA's arguments,
return values and errors. Anything else raises NotImplementedError naming the missing call.

The simulator runs every operation when it is called, in order. Streams and asynchronous copies
keep their meaning (their results are right), but nothing overlaps; events read the host clock.
"""

import os
import time

import numpy as np

from . import memory
from .settings import settings


# ---- errors: the classes of pycuda.driver ----------------------------------------------------------
class Error(Exception):
    pass


class LogicError(Error):
    pass


class LaunchError(Error):
    pass


class RuntimeError(Error):  # noqa: A001 - the name PyCUDA uses
    pass


class MemoryError(Error):  # noqa: A001
    pass


class CompileError(Error):
    """pycuda.driver.CompileError: msg, the command line, and the compiler's output."""

    def __init__(self, msg, command_line, stdout=None, stderr=None):
        super().__init__(msg)
        self.msg, self.command_line, self.stdout, self.stderr = msg, command_line, stdout, stderr

    def __str__(self):
        result = self.msg
        if self.command_line:
            result += "\n[command: %s]" % " ".join(map(str, self.command_line))
        if self.stderr:
            result += "\n[stderr:\n%s]" % self.stderr
        return result


# ---- the device ------------------------------------------------------------------------------------
def init(flags=0):
    pass


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "Model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine()


class device_attribute:  # noqa: N801 - PyCUDA's name
    """The attributes the course queries, valued as on a GPU so that launch limits match."""
    MAX_THREADS_PER_BLOCK = "MAX_THREADS_PER_BLOCK"
    MAX_BLOCK_DIM_X = "MAX_BLOCK_DIM_X"
    MAX_BLOCK_DIM_Y = "MAX_BLOCK_DIM_Y"
    MAX_BLOCK_DIM_Z = "MAX_BLOCK_DIM_Z"
    MAX_GRID_DIM_X = "MAX_GRID_DIM_X"
    MAX_GRID_DIM_Y = "MAX_GRID_DIM_Y"
    MAX_GRID_DIM_Z = "MAX_GRID_DIM_Z"
    MAX_SHARED_MEMORY_PER_BLOCK = "MAX_SHARED_MEMORY_PER_BLOCK"
    WARP_SIZE = "WARP_SIZE"
    MULTIPROCESSOR_COUNT = "MULTIPROCESSOR_COUNT"
    MAX_THREADS_PER_MULTIPROCESSOR = "MAX_THREADS_PER_MULTIPROCESSOR"
    MAX_BLOCKS_PER_MULTIPROCESSOR = "MAX_BLOCKS_PER_MULTIPROCESSOR"
    CLOCK_RATE = "CLOCK_RATE"
    MEMORY_CLOCK_RATE = "MEMORY_CLOCK_RATE"
    GLOBAL_MEMORY_BUS_WIDTH = "GLOBAL_MEMORY_BUS_WIDTH"
    L2_CACHE_SIZE = "L2_CACHE_SIZE"
    TOTAL_CONSTANT_MEMORY = "TOTAL_CONSTANT_MEMORY"
    MAX_REGISTERS_PER_BLOCK = "MAX_REGISTERS_PER_BLOCK"
    ASYNC_ENGINE_COUNT = "ASYNC_ENGINE_COUNT"
    CONCURRENT_KERNELS = "CONCURRENT_KERNELS"
    COMPUTE_CAPABILITY_MAJOR = "COMPUTE_CAPABILITY_MAJOR"
    COMPUTE_CAPABILITY_MINOR = "COMPUTE_CAPABILITY_MINOR"
    UNIFIED_ADDRESSING = "UNIFIED_ADDRESSING"


LIMITS = {
    "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
    "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535,
    "MAX_GRID_DIM_Z": 65535, "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024, "WARP_SIZE": 32,
    "MAX_THREADS_PER_MULTIPROCESSOR": 2048, "MAX_BLOCKS_PER_MULTIPROCESSOR": 32,
    "TOTAL_CONSTANT_MEMORY": 64 * 1024,
    "MAX_REGISTERS_PER_BLOCK": 65536, "ASYNC_ENGINE_COUNT": 0, "CONCURRENT_KERNELS": 0,
    "COMPUTE_CAPABILITY_MAJOR": 0, "COMPUTE_CAPABILITY_MINOR": 0, "UNIFIED_ADDRESSING": 1,
    "CLOCK_RATE": 0, "MEMORY_CLOCK_RATE": 0, "GLOBAL_MEMORY_BUS_WIDTH": 0, "L2_CACHE_SIZE": 0,
}


class Device:
    """The simulated device: the CPU. Its multiprocessors are the worker threads."""

    def __init__(self, number=0):
        if number != 0:
            raise LogicError(f"cuDeviceGet failed: invalid device ordinal {number} "
                             "(the simulator has one device, number 0)")

    @staticmethod
    def count():
        return 1

    def name(self):
        return f"CPU simulator ({_cpu_name()})"

    def compute_capability(self):
        return (0, 0)

    def total_memory(self):
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            return 0

    def get_attribute(self, attr):
        if attr == device_attribute.MULTIPROCESSOR_COUNT:
            return settings.workers
        try:
            return LIMITS[attr]
        except KeyError:
            raise NotImplementedError(f"device attribute {attr} on the CPU simulator") from None

    def get_attributes(self):
        return {a: self.get_attribute(a) for a in [*LIMITS, "MULTIPROCESSOR_COUNT"]}

    def pci_bus_id(self):
        return "cpu"

    def make_context(self, flags=0):
        return Context()

    def __eq__(self, other):
        return isinstance(other, Device)

    def __hash__(self):
        return 0


class Context:
    @staticmethod
    def synchronize():
        pass  # every operation has finished when its call returns

    @staticmethod
    def get_device():
        return Device(0)

    @staticmethod
    def get_current():
        return Context()

    def push(self):
        pass

    @staticmethod
    def pop():
        pass

    def detach(self):
        pass


def mem_get_info():
    """(free, total) bytes: the machine's memory stands in for the device's."""
    total = Device().total_memory()
    try:
        free = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        free = total
    return free, total


# ---- memory ----------------------------------------------------------------------------------------
class DeviceAllocation:
    """What mem_alloc returns: int() of it is the address a kernel receives."""

    def __init__(self, nbytes):
        self._block = memory.allocate(nbytes)

    def __int__(self):
        return self._block.address

    __index__ = __int__

    def __repr__(self):
        return f"<DeviceAllocation of {self._block.size} bytes at 0x{int(self):x} (simulated)>"

    def free(self):
        if self._block is not None:
            memory.release(self._block)
            self._block = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


def mem_alloc(nbytes):
    return DeviceAllocation(nbytes)


def _address(ptr):
    if isinstance(ptr, DeviceAllocation):
        if ptr._block is None:
            raise LogicError("this allocation has been freed")
        return int(ptr)
    if hasattr(ptr, "gpudata"):
        return _address(ptr.gpudata)
    if isinstance(ptr, (int, np.integer)):
        return int(ptr)
    raise TypeError(f"expected a device pointer (DeviceAllocation or int), got {type(ptr).__name__}")


def _host_buffer(array, what):
    if not isinstance(array, np.ndarray):
        array = np.asarray(array)
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
    src = _host_buffer(src, "memcpy_htod")
    address = _address(dest)
    _check_device_range(address, src.nbytes, "cuMemcpyHtoD")
    memory.write(address, src.ctypes.data, src.nbytes)


def memcpy_dtoh(dest, src):
    dest = _host_buffer(dest, "memcpy_dtoh")
    if not dest.flags.writeable:
        raise ValueError("memcpy_dtoh: the destination array is read-only")
    address = _address(src)
    _check_device_range(address, dest.nbytes, "cuMemcpyDtoH")
    memory.write(dest.ctypes.data, address, dest.nbytes)


def memcpy_dtod(dest, src, size):
    d, s = _address(dest), _address(src)
    _check_device_range(d, size, "cuMemcpyDtoD")
    _check_device_range(s, size, "cuMemcpyDtoD")
    memory.write(d, s, size)


def memcpy_htod_async(dest, src, stream=None):
    memcpy_htod(dest, src)


def memcpy_dtoh_async(dest, src, stream=None):
    memcpy_dtoh(dest, src)


def memcpy_dtod_async(dest, src, size, stream=None):
    memcpy_dtod(dest, src, size)


def _memset(dest, value, count, dtype, call):
    address = _address(dest)
    nbytes = count * np.dtype(dtype).itemsize
    _check_device_range(address, nbytes, call)
    fill = np.full(count, value, dtype=dtype)
    memory.write(address, fill.ctypes.data, nbytes)


def memset_d8(dest, data, count):
    _memset(dest, data, count, np.uint8, "cuMemsetD8")


def memset_d16(dest, data, count):
    _memset(dest, data, count, np.uint16, "cuMemsetD16")


def memset_d32(dest, data, count):
    _memset(dest, data, count, np.uint32, "cuMemsetD32")


# ---- page-locked host memory: ordinary NumPy arrays here ----------------------------------------
class host_alloc_flags:  # noqa: N801
    PORTABLE, DEVICEMAP, WRITECOMBINED = 1, 2, 4


def pagelocked_empty(shape, dtype, order="C", mem_flags=0):
    return np.empty(shape, dtype, order=order)


def pagelocked_zeros(shape, dtype, order="C", mem_flags=0):
    return np.zeros(shape, dtype, order=order)


def pagelocked_empty_like(array, mem_flags=0):
    return np.empty_like(array)


def pagelocked_zeros_like(array, mem_flags=0):
    return np.zeros_like(array)


# ---- streams and events ----------------------------------------------------------------------
class Stream:
    """A stream: work given to it has already run when the call returns, so it is always done."""

    def __init__(self, flags=0):
        pass

    def synchronize(self):
        pass

    def is_done(self):
        return True

    def wait_for_event(self, event):
        pass


class event_flags:  # noqa: N801
    DEFAULT, BLOCKING_SYNC, DISABLE_TIMING, INTERPROCESS = 0, 1, 2, 4


class Event:
    """An event: record() reads the host clock, since the work before it has already run."""

    def __init__(self, flags=0):
        self._t = None

    def record(self, stream=None):
        self._t = time.perf_counter()
        return self

    def synchronize(self):
        return self

    def query(self):
        return True

    def _time(self):
        if self._t is None:
            raise LogicError("cuEventElapsedTime failed: invalid resource handle "
                             "(the event was never recorded)")
        return self._t

    def time_since(self, event):
        """Milliseconds from event to this one."""
        return (self._time() - event._time()) * 1e3

    def time_till(self, event):
        """Milliseconds from this event to event."""
        return (event._time() - self._time()) * 1e3


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


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(
        f"pycuda.driver.{name} is not provided by the course's CPU simulator. Run on a GPU with "
        "CUDA_COURSE_BACKEND=pycuda, or use the calls the notebooks use.")
