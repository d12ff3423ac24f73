"""Simulated device memory: host memory that ends against a guard page.

Every allocation gets pages of its own, placed so that its last byte is followed by a page that may
not be touched (PROT_NONE). A kernel that runs off the end of an array faults on that page, the
runtime turns the fault into a Python exception, and `describe_address` says which allocation the
address belonged to. Freed memory stays inaccessible for a while (up to QUARANTINE_BYTES),
so a use after free faults too.

The device has a size (settings.device_memory): each allocation's pages are charged against it,
and one that does not fit raises drv.MemoryError, as cuMemAlloc's out-of-memory error does.
"""

import bisect
import collections
import ctypes
import ctypes.util
import mmap
import threading

from . import errors
from .settings import settings

PAGE = mmap.PAGESIZE
_PROT_NONE, _PROT_RW = 0, mmap.PROT_READ | mmap.PROT_WRITE

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_MAP_FAILED = ctypes.c_void_p(-1).value


class Block:
    """One allocation: `address` is what a kernel sees; `size` bytes end just before a guard page."""

    __slots__ = ("address", "size", "base", "length", "__weakref__")

    def __init__(self, address, size, base, length):
        self.address, self.size, self.base, self.length = address, size, base, length


# Re-entrant: DeviceAllocation.__del__ frees memory, and a garbage collection can run it while
# this thread already holds the lock.
_lock = threading.RLock()
_starts = []  # sorted base addresses of live mappings
_blocks = {}  # base -> Block
_charged = 0  # bytes of device memory the live allocations take


def usage():
    """(bytes in use, bytes the simulated device has)."""
    return _charged, settings.device_memory


def _charge(nbytes, asked):
    global _charged
    with _lock:
        if _charged + nbytes > settings.device_memory:
            total = settings.device_memory
            raise errors.MemoryError(
                f"cuMemAlloc failed: out of memory: {asked:,} bytes asked for, and the simulated "
                f"device has {total - _charged:,} of its {total:,} bytes free. Free arrays you no "
                "longer need (del, or .gpudata.free()), or give the simulator more memory with "
                "CUDA_SIM_MEMORY (e.g. CUDA_SIM_MEMORY=8G).")
        _charged += nbytes


def _alignment(nbytes):
    """The largest power of two up to 256 that divides nbytes, at least 16: cudaMalloc aligns to
    256, but keeping the end against the guard page matters more for catching overruns."""
    align = 256
    while align > 16 and nbytes % align:
        align //= 2
    return align


def allocate(nbytes):
    """Map fresh zeroed pages for nbytes (at least 1) followed by a guard page; returns a Block."""
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError("cannot allocate a negative number of bytes")
    size = max(nbytes, 1)
    align = _alignment(size)
    span = -(-size // align) * align  # size rounded up to the alignment
    data_pages = -(-span // PAGE)
    length = (data_pages + 1) * PAGE
    _charge(data_pages * PAGE, nbytes)
    base = _libc.mmap(None, length, _PROT_RW, mmap.MAP_PRIVATE | mmap.MAP_ANON, -1, 0)
    if base in (None, _MAP_FAILED):
        _refund(length - PAGE)
        raise errors.MemoryError(f"cuMemAlloc failed: out of memory: the machine could not map "
                                 f"{length:,} bytes for the simulated device")
    guard = base + data_pages * PAGE
    if _libc.mprotect(guard, PAGE, _PROT_NONE) != 0:
        _libc.munmap(base, length)
        _refund(length - PAGE)
        raise OSError(ctypes.get_errno(), "mprotect failed for a guard page")
    block = Block(guard - span, nbytes, base, length)
    with _lock:
        i = bisect.bisect(_starts, base)
        _starts.insert(i, base)
        _blocks[base] = block
    return block


# Freed memory is not unmapped at once: its pages stay reserved and inaccessible for a while
# (their RAM is given back), so that a use after free faults instead of landing in whatever the
# next mapping puts there.
QUARANTINE_BYTES = 1 << 30
_MADV_DONTNEED = 4
_quarantine = collections.deque()  # freed Blocks, oldest first
_quarantined_bytes = 0


def _refund(nbytes):
    global _charged
    with _lock:
        _charged -= nbytes


def release(block):
    global _quarantined_bytes
    with _lock:
        if _blocks.pop(block.base, None) is None:
            return
        _starts.remove(block.base)
        _refund(block.length - PAGE)
        _libc.mprotect(block.base, block.length, _PROT_NONE)
        _libc.madvise(block.base, block.length, _MADV_DONTNEED)
        _quarantine.append(block)
        _quarantined_bytes += block.length
        while _quarantined_bytes > QUARANTINE_BYTES:
            old = _quarantine.popleft()
            _quarantined_bytes -= old.length
            _libc.munmap(old.base, old.length)


def _freed(address):
    with _lock:
        return any(b.base <= address < b.base + b.length for b in _quarantine)


def register_global(address, size):
    """Let copies reach a module's __device__/__constant__ variable (no guard page: it is the
    compiler's memory, not ours)."""
    with _lock:
        if address not in _blocks:
            bisect.insort(_starts, address)
            _blocks[address] = Block(address, size, address, size)


def find(address):
    """The live Block whose mapping (guard page included) holds address, or None."""
    with _lock:
        i = bisect.bisect(_starts, address) - 1
        if i < 0:
            return None
        block = _blocks[_starts[i]]
    return block if address < block.base + block.length else None


def check_range(address, nbytes):
    """True if [address, address + nbytes) lies inside one live allocation."""
    block = find(address)
    return block is not None and block.address <= address and address + nbytes <= (
        block.address + block.size)


def describe_address(address):
    """Words for where a faulting address lies, relative to the allocations the course made."""
    block = find(address)
    if block is None:
        if _freed(address):
            return "in an allocation that has been freed (a use after free)"
        return "which is not in any allocation made with mem_alloc or gpuarray (a wild pointer)"
    end = block.address + block.size
    if address >= end:
        return (f"{address - end} bytes past the end of a {block.size}-byte allocation "
                f"(index bounds: is a guard like `if (i < n)` missing?)")
    if address < block.address:
        return f"{block.address - address} bytes before the start of a {block.size}-byte allocation"
    return f"at offset {address - block.address} of a {block.size}-byte allocation"


def read(address, nbytes):
    return ctypes.string_at(address, nbytes)


def write(address, buffer, nbytes):
    ctypes.memmove(address, buffer, nbytes)
