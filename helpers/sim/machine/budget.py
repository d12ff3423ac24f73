"""The simulated device's size (settings.device_memory, CUDA_SIM_MEMORY) and what is charged
against it: each allocation's data pages (memory.py) and each loaded module's __device__ and
__constant__ variables (devices.adopt_module), as a GPU holds both in its memory. What does not
fit raises drv.MemoryError, as CUDA's out-of-memory error does, never the machine's
out-of-memory killer."""

import threading

from .. import errors
from ..settings import settings

# Re-entrant: a garbage collection while this thread holds it can free an allocation (refund).
_lock = threading.RLock()
_charged = 0  # bytes of device memory taken
_MORE_MEMORY = "give the simulator more memory with CUDA_SIM_MEMORY (e.g. CUDA_SIM_MEMORY=8G)"


def usage():
    """(bytes in use, bytes the simulated device has)."""
    return _charged, settings.device_memory


def charge(nbytes, asked, call="cuMemAlloc", what=None, advice=None):
    """Charge nbytes against the device's size; MemoryError saying what asked for them (``what``:
    words, else "{asked} bytes asked for") and what to do when they do not fit."""
    global _charged
    with _lock:
        if _charged + nbytes > settings.device_memory:
            total = settings.device_memory
            raise errors.MemoryError(
                f"{call} failed: out of memory: {what or f'{asked:,} bytes asked for'}, and the "
                f"simulated device has {total - _charged:,} of its {total:,} bytes free. "
                + (advice or "Free arrays you no longer need (del, or .gpudata.free()), or "
                   f"{_MORE_MEMORY}."))
        _charged += nbytes


def refund(nbytes):
    global _charged
    with _lock:
        _charged -= nbytes


def charge_module(arrays):
    """Charge a module's __device__ arrays ((name, bytes), largest first) against the device's
    size, as a GPU holds them in its memory from the module's load; MemoryError naming the
    largest when they do not fit. Returns a function that gives them back."""
    nbytes = sum(size for _, size in arrays)
    if nbytes:
        name, size = arrays[0]
        more = f" (and {len(arrays) - 1} more, {nbytes:,} bytes in all)" if len(arrays) > 1 else ""
        charge(nbytes, nbytes, "cuModuleLoadDataEx",
               f"the module's __device__ array {name!r} takes {size:,} bytes{more}",
               "Make it smaller, or allocate it when the program runs (mem_alloc, gpuarray), "
               f"where it can be freed; or {_MORE_MEMORY}.")
    return lambda: refund(nbytes)
