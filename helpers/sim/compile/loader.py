"""Loading a built module's library: its `__device__` and `__constant__` arrays are checked
against the simulated device's memory first, since the loader maps them (zero-filled) as it
loads, and one larger than the machine made it fail with an OSError, a traceback ("cannot map
zero-fill pages"), where CUDA raises its out-of-memory error naming the array. Both are that
error now (`drv.MemoryError`); `devices.adopt_module` charges the arrays once the module is
loaded."""

import ctypes
import re

from .. import errors
from ..machine import budget

# What glibc's loader says when it cannot map a library's zero-filled data
_NO_ROOM = re.compile(r"cannot map zero-fill pages|failed to map segment|cannot allocate memory",
                      re.I)


def load(path, arrays):
    """The library at ``path``, loaded; ``arrays``: its (name, bytes) largest first. MemoryError
    naming the largest where they do not fit in the device's memory, or the machine could not map
    them; the OSError of a damaged file stays one (compiler.py builds it again)."""
    budget.charge_module(arrays)()  # raises where they do not fit; adopt_module charges them
    try:
        return ctypes.CDLL(str(path))
    except OSError as err:
        if not arrays or not _NO_ROOM.search(str(err)):
            raise
        name, size = arrays[0]
        why = str(err).rsplit(": ", 1)[-1]  # the loader's words, without the cache's path
        raise errors.MemoryError(
            f"cuModuleLoadDataEx failed: out of memory: the module's __device__ array {name!r} "
            f"takes {size:,} bytes, more than this machine could map ({why}). Make it smaller, or "
            "allocate it when the program runs (mem_alloc, gpuarray), where it can be "
            "freed") from None
