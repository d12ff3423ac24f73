"""The process's memory mappings: made through the C library (libc), and counted against Linux's
limit (vm.max_map_count, 65,530 on Debian).

Every device array costs the simulator two mappings (its data pages split the device's address
space: arena.py), every simulated thread's stack two, and each worker's pool of stacks one more
(stacks.py). Past the limit, mmap fails wherever it is called next, in the middle of a launch
too; so the simulator counts its mappings, and refuses an array while too few would be left for
a launch to start its threads (LAUNCH_RESERVE).
"""

import ctypes
import ctypes.util
import mmap
import threading

PAGE = mmap.PAGESIZE
PROT_NONE, PROT_RW = 0, mmap.PROT_READ | mmap.PROT_WRITE
libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MAP_FAILED = ctypes.c_void_p(-1).value
# Linux's flags (the same on x86-64 and arm64), which Python's mmap module does not all name:
# address space with no memory set aside for it (RAM comes only where a page is used), and a
# mapping placed exactly where asked, over what was there.
MAP_NORESERVE, MAP_FIXED = 0x4000, 0x10
RESERVE = mmap.MAP_PRIVATE | mmap.MAP_ANON | MAP_NORESERVE

_lock = threading.Lock()
LAUNCH_RESERVE = 4096  # mappings kept free for a launch: worker threads, their stacks, the rest


def _read_int(path):
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


class _Budget:
    """The process's memory mappings against Linux's limit. Counting them (reading
    /proc/self/maps) is slow when there are many, so it is done only when the mappings made since
    the last count could have reached the limit."""

    def __init__(self):
        self.limit = _read_int("/proc/sys/vm/max_map_count")
        self.counted, self.used = 0, 0  # at the last count; made since (an upper bound)

    def count(self):
        try:
            with open("/proc/self/maps", "rb") as f:
                self.counted = f.read().count(b"\n")
        except OSError:
            self.limit = None
        self.used = 0


_budget = _Budget()


def room_for(n, keep=0):
    """True if n more mappings leave at least `keep` (plus a margin) of the system's limit."""
    with _lock:
        if _budget.limit is None:
            return True
        margin = 256
        if _budget.counted + _budget.used + n + keep + margin <= _budget.limit:
            return True
        _budget.count()
        return _budget.counted + n + keep + margin <= _budget.limit


def limit():
    """The most memory mappings the system allows this process, or None where it is not known."""
    return _budget.limit


def note(n):
    """The simulator (arena.py, stacks.py) made n mappings."""
    with _lock:
        _budget.used += max(n, 0)
