"""The simulated device: a GPU of a chosen compute capability, run by the CPU.

PyCUDA code asks the device what it is (`compute_capability()`, `get_attribute(...)`,
`total_memory()`) and branches on the answers, so the simulator answers as a real GPU of the
compute capability in `settings.compute_capability` (9.0 by default, an H200's). The limits that
follow from a compute capability come from the table "Technical Specifications per Compute
Capability" of NVIDIA's CUDA C++ Programming Guide; the board's own figures (clock rates, L2
cache, memory bus) from an H200. Three answers are the simulator's own, because code that reads
them must see what it will really get: MULTIPROCESSOR_COUNT is the number of worker threads that
run blocks, total_memory() is settings.device_memory (shared out equally when there are several
devices), and ASYNC_ENGINE_COUNT and CONCURRENT_KERNELS are 0 (nothing overlaps: queued work
runs one operation at a time, when the host waits for it).

There are settings.devices devices (CUDA_SIM_DEVICES, default 1). Contexts form a stack per
host thread as in CUDA (`make_context`, `push`, `pop`), and `detach` destroys one when its last
hold goes, with its memory, modules and streams; but the simulator does not need one: calls made
without a context go to device 0, where PyCUDA would raise LogicError. Which context is current,
what belongs to which, and what ends with a context, is kept in devices.py.
"""

import ctypes

from . import devices, streams
from .allocations import program_line
from ..errors import LogicError
from ..settings import settings

CUDA_VERSION = (13, 0, 0)  # the CUDA release the simulator stands in for, as get_version() says


def get_version():
    """The CUDA version PyCUDA was built for, as (major, minor, patch)."""
    return CUDA_VERSION


def get_driver_version():
    """The driver's CUDA version as one number: 13000 for 13.0."""
    return CUDA_VERSION[0] * 1000 + CUDA_VERSION[1] * 10


def init(flags=0):
    pass


# ---- attributes -----------------------------------------------------------------------------
# What every compute capability since 7.0 shares.
_COMMON = {
    "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
    "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535,
    "MAX_GRID_DIM_Z": 65535, "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024, "WARP_SIZE": 32,
    "TOTAL_CONSTANT_MEMORY": 64 * 1024, "MAX_REGISTERS_PER_BLOCK": 65536,
    "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536, "MAX_PITCH": 2**31 - 1,
    "TEXTURE_ALIGNMENT": 512, "UNIFIED_ADDRESSING": 1, "CAN_MAP_HOST_MEMORY": 1,
    "MANAGED_MEMORY": 1, "GLOBAL_L1_CACHE_SUPPORTED": 1, "LOCAL_L1_CACHE_SUPPORTED": 1,
    "STREAM_PRIORITIES_SUPPORTED": 1, "COOPERATIVE_LAUNCH": 1, "INTEGRATED": 0,
    "KERNEL_EXEC_TIMEOUT": 0, "COMPUTE_MODE": 0, "ECC_ENABLED": 0, "TCC_DRIVER": 0,
    "PCI_BUS_ID": 0, "PCI_DEVICE_ID": 0, "PCI_DOMAIN_ID": 0, "GPU_OVERLAP": 0,
    "ASYNC_ENGINE_COUNT": 0, "CONCURRENT_KERNELS": 0,
}

LIMITS = _COMMON  # the launch limits, the same for every compute capability

# Per compute capability: threads, blocks and shared memory a multiprocessor holds, the shared
# memory a block may opt in to, and what the runtime keeps of each block's shared memory.
_PER_CC = {  # (threads/SM, blocks/SM, smem/SM KiB, smem/block opt-in KiB, reserved/block B)
    (7, 0): (2048, 32, 96, 96, 0), (7, 5): (1024, 16, 64, 64, 0),
    (8, 0): (2048, 32, 164, 163, 1024), (8, 6): (1536, 16, 100, 99, 1024),
    (8, 7): (2048, 16, 164, 163, 1024), (8, 9): (1536, 24, 100, 99, 1024),
    (9, 0): (2048, 32, 228, 227, 1024), (10, 0): (2048, 32, 228, 227, 1024),
    (12, 0): (1536, 32, 100, 99, 1024),
}

# The board: an H200's (SXM, 141 GB). Left at these values for every compute capability.
_BOARD = {"CLOCK_RATE": 1980000, "MEMORY_CLOCK_RATE": 3201000,
          "GLOBAL_MEMORY_BUS_WIDTH": 6144, "L2_CACHE_SIZE": 50 * 1024 * 1024}


def attributes(cc=None):
    """{attribute name: value} for the simulated device of compute capability cc."""
    cc = cc or settings.compute_capability
    if cc not in _PER_CC:
        known = ", ".join("%d.%d" % k for k in sorted(_PER_CC))
        raise ValueError(f"the simulator knows the limits of compute capabilities {known}; "
                         f"{cc[0]}.{cc[1]} is not one of them (CUDA_SIM_COMPUTE_CAPABILITY)")
    threads, blocks, smem_sm, smem_optin, reserved = _PER_CC[cc]
    values = dict(_COMMON, **_BOARD)
    values.update({
        "COMPUTE_CAPABILITY_MAJOR": cc[0], "COMPUTE_CAPABILITY_MINOR": cc[1],
        "MAX_THREADS_PER_MULTIPROCESSOR": threads, "MAX_BLOCKS_PER_MULTIPROCESSOR": blocks,
        "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": smem_sm * 1024,
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": smem_optin * 1024,
        "RESERVED_SHARED_MEMORY_PER_BLOCK": reserved,
        "MULTIPROCESSOR_COUNT": settings.workers,
    })
    return values


class device_attribute:  # noqa: N801 - PyCUDA's name
    """PyCUDA's enumeration of attributes: each is its own name, as str() of PyCUDA's shows."""


for _name in attributes((9, 0)):
    setattr(device_attribute, _name, _name)


def limit(name):
    """One attribute of the simulated device (launch.py checks launches against them)."""
    return attributes()[name]


class Device:
    """A simulated device; there are settings.devices of them, numbered from 0."""

    def __init__(self, number=0):
        self._ordinal = devices.check_number(number)

    @staticmethod
    def count():
        return devices.count()

    def name(self):
        return f"CPU simulator ({_cpu_name()})"

    def compute_capability(self):
        return settings.compute_capability

    def total_memory(self):
        return devices.memory_info(self._ordinal)[1]

    def get_attribute(self, attr):
        values = attributes()
        if attr not in values:
            raise LogicError(f"cuDeviceGetAttribute failed: the simulator has no attribute "
                             f"{attr!r} (it knows {', '.join(sorted(values))})")
        return values[attr]

    def get_attributes(self):
        return dict(attributes())

    def __getattr__(self, name):  # dev.max_threads_per_block, as PyCUDA allows
        if name.startswith("_") or name.upper() not in attributes():
            raise AttributeError(f"'Device' object has no attribute {name!r}", name=name)
        return attributes()[name.upper()]

    def pci_bus_id(self):
        return f"0000:{self._ordinal:02x}:00.0"

    def make_context(self, flags=0):
        """A new context of this device, held once and pushed (PyCUDA's: its detach() destroys
        it)."""
        context = Context(devices.create(self._ordinal))
        context.push()
        return context

    def retain_primary_context(self):
        """This device's primary context, held once more: a new Context object each call, as
        PyCUDA's, equal to the others (it is not pushed)."""
        return Context(devices.retain_primary(self._ordinal))

    def can_access_peer(self, other):
        return devices.can_access_peer(self._ordinal, other._ordinal)

    def __eq__(self, other):
        return isinstance(other, Device) and other._ordinal == self._ordinal

    def __hash__(self):
        return self._ordinal

    def __repr__(self):
        return f"<Device {self._ordinal}: {self.name()}>"


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


# ---- contexts ---------------------------------------------------------------------------------
# cudaLimitMallocHeapSize's default, and the limit's number in pycuda.driver.limit
DEFAULT_HEAP_BYTES, MALLOC_HEAP_SIZE = 8 << 20, 2
# id(devices.Handle) (None: no context) -> ([limit, bytes in use], the Handle), kept for good
_heaps = {}


def heap(handle):
    """The device-side malloc heap of a context (its devices.Handle): two counters the grid
    runner updates (its limit and the bytes in use, include/sim_grid.h). Never freed: a block
    malloc'ed in a kernel points to its heap until it is freed."""
    key = None if handle is None else id(handle)
    if key not in _heaps:
        _heaps[key] = ((ctypes.c_uint64 * 2)(DEFAULT_HEAP_BYTES, 0), handle)
    return _heaps[key][0]


class Context:
    """PyCUDA's wrapper of a context of one simulated device (what CUDA keeps of it is a
    devices.Handle, which several wrappers may hold). devices.py keeps which contexts are
    current, in each thread; every call works with or without one."""

    def __init__(self, handle=None):
        self._handle = devices.create(0) if handle is None else handle
        self._valid = True

    @property
    def _device_number(self):
        return self._handle.device

    @staticmethod
    def synchronize():
        streams.synchronize()  # the work queued on this device's streams runs now (streams.py)

    @staticmethod
    def get_device():
        return Device(devices.current_device())

    @staticmethod
    def get_current():
        return devices.current()

    def push(self):
        devices.push(self)

    @staticmethod
    def pop():
        devices.pop()

    def detach(self):
        """Let go of this context; the last hold destroys it (devices.detach), once the work
        queued on its streams has run, as cuCtxDestroy waits for the device."""
        self._detach(program_line())

    def _detach(self, where):
        if self._valid and self._handle.users == 1:
            streams.finish(self._handle)
        devices.detach(self, where)

    def __del__(self):
        """A Context that was never detached lets go of its hold when the last reference to it
        goes, as PyCUDA's destructor (~context) calls detach(). What was made while it was
        current (memory, streams, events, modules) refers to it (their _ward), as PyCUDA's
        context_dependent objects hold their context, so it goes only after them; a context on
        a thread's stack is referred to by the stack. No line of the program did it: where=None."""
        try:
            if self._valid:
                self._detach(None)
        except Exception:  # noqa: BLE001 - a destructor cannot raise (at exit, modules are gone)
            pass

    @staticmethod
    def enable_peer_access(peer, flags=0):
        devices.enable_peer_access(peer._device_number)

    @staticmethod
    def disable_peer_access(peer):
        devices.disable_peer_access(peer._device_number)

    @staticmethod
    def set_limit(limit, value):
        """MALLOC_HEAP_SIZE sets the bytes a kernel's malloc may take in the current context's
        heap; the other limits mean nothing on a CPU and are ignored."""
        if int(limit) == MALLOC_HEAP_SIZE:
            heap(devices.current_handle())[0] = int(value)

    @staticmethod
    def get_limit(limit):
        return int(heap(devices.current_handle())[0]) if int(limit) == MALLOC_HEAP_SIZE else 0

    @staticmethod
    def set_cache_config(config):
        pass

    @staticmethod
    def get_cache_config():
        return 0

    def __eq__(self, other):  # PyCUDA's: the same context, whichever wrapper holds it
        return isinstance(other, Context) and other._handle is self._handle

    def __hash__(self):
        return id(self._handle)

    def get_api_version(self):
        return get_driver_version()

    def __repr__(self):
        return f"<Context of simulated device {self._device_number} at 0x{id(self):x}>"


def mem_get_info():
    """(free, total) bytes of the current simulated device's memory."""
    return devices.memory_info(devices.current_device())
