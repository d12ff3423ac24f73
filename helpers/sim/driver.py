"""`pycuda.driver`, for the CPU simulator: PyCUDA's calls, with its arguments, return values and
errors. A name PyCUDA has and the simulator lacks raises NotProvided (an AttributeError saying what
to do); a feature only a GPU has (textures, OpenGL, IPC) raises NeedsGPU naming it.

Synchronous calls run when they are called. Work queued on a stream (kernels launched with
stream=, asynchronous copies to and from page-locked memory) runs later, when the host waits
for it, as on a GPU; nothing overlaps (streams.py says exactly when what runs).
"""

from .machine import device as _device, streams
from .machine.allocations import (  # noqa: F401 - pycuda.driver's names
    DeviceAllocation, ManagedAllocation, PointerHolderBase, managed_empty, managed_empty_like,
    managed_zeros, managed_zeros_like, mem_alloc, mem_alloc_like, mem_attach_flags,
    mem_get_address_range)
from .machine.copies import (  # noqa: F401 - pycuda.driver's names
    from_device, from_device_like, memcpy_dtod, memcpy_dtod_async, memcpy_dtoh, memcpy_dtoh_async,
    memcpy_htod, memcpy_htod_async, memcpy_peer, memcpy_peer_async, memset_d8, memset_d16,
    memset_d32, to_device)
from .machine.pitched import (  # noqa: F401 - pycuda.driver's names
    Memcpy2D, Memcpy3D, mem_alloc_pitch, memory_type, memset_d2d8, memset_d2d8_async, memset_d2d16,
    memset_d2d16_async, memset_d2d32, memset_d2d32_async, memset_d8_async, memset_d16_async,
    memset_d32_async)
from .machine.device import (  # noqa: F401 - pycuda.driver's names
    CUDA_VERSION, Context, Device, LIMITS, device_attribute, get_driver_version, get_version, init,
    mem_get_info)
from .errors import (  # noqa: F401 - pycuda.driver's names
    CompileError, Error, LaunchError, LogicError, MemoryError, RuntimeError)
from .unsupported import (  # noqa: F401 - pycuda.driver's names
    DRIVER_FEATURES, NeedsGPU, NotProvided, gpu_only, module_getattr)
from .machine.hostmem import (  # noqa: F401 - pycuda.driver's names
    AlignedHostAllocation, HostAllocation, HostPointer, PagelockedHostAllocation,
    RegisteredHostMemory, aligned_empty, aligned_empty_like, aligned_zeros, aligned_zeros_like,
    host_alloc_flags, mem_host_register_flags, pagelocked_empty, pagelocked_empty_like,
    pagelocked_zeros, pagelocked_zeros_like, register_host_memory)
from .run.arguments import ArgumentHandler, In, InOut, Out  # noqa: F401 - pycuda.driver's names


# ---- flags and enumerations that code passes around ------------------------------------------
class ctx_flags:  # noqa: N801
    SCHED_AUTO, SCHED_SPIN, SCHED_YIELD, SCHED_BLOCKING_SYNC, MAP_HOST, LMEM_RESIZE_TO_MAX = (
        0, 1, 2, 4, 8, 16)


class limit:  # noqa: N801
    STACK_SIZE, PRINTF_FIFO_SIZE, DEV_RUNTIME_SYNC_DEPTH = 0, 1, 3
    MALLOC_HEAP_SIZE = _device.MALLOC_HEAP_SIZE


class func_cache:  # noqa: N801
    PREFER_NONE, PREFER_SHARED, PREFER_L1, PREFER_EQUAL = 0, 1, 2, 3


class function_attribute:  # noqa: N801
    """PyCUDA's enumeration of a kernel's attributes (Function.get_attribute, set_attribute): each
    is its own name, as str() of PyCUDA's shows."""
    (MAX_THREADS_PER_BLOCK, SHARED_SIZE_BYTES, CONST_SIZE_BYTES, LOCAL_SIZE_BYTES, NUM_REGS,
     PTX_VERSION, BINARY_VERSION, CACHE_MODE_CA, MAX_DYNAMIC_SHARED_SIZE_BYTES,
     PREFERRED_SHARED_MEMORY_CARVEOUT) = (
        "MAX_THREADS_PER_BLOCK", "SHARED_SIZE_BYTES", "CONST_SIZE_BYTES", "LOCAL_SIZE_BYTES",
        "NUM_REGS", "PTX_VERSION", "BINARY_VERSION", "CACHE_MODE_CA",
        "MAX_DYNAMIC_SHARED_SIZE_BYTES", "PREFERRED_SHARED_MEMORY_CARVEOUT")


class compute_mode:  # noqa: N801
    DEFAULT, PROHIBITED, EXCLUSIVE_PROCESS = 0, 2, 3


# ---- streams and events: queued work, run when the host waits for it (streams.py) -------------
Stream, Event, event_flags = streams.Stream, streams.Event, streams.event_flags


# ---- GPU-only features: textures, OpenGL, IPC, ... -------------------------------------------
for _name, _feature in DRIVER_FEATURES.items():
    globals()[_name] = gpu_only(_feature, f"pycuda.driver.{_name}")

__getattr__ = module_getattr("pycuda.driver")
