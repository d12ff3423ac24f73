"""The simulated device's address space: one range of the process's addresses, reserved at the
first allocation and never touched by anything else, that every device array is placed in.

An array mapped wherever mmap puts it lies next to the process's other memory: a kernel's write a
megabyte before such an array landed in OpenBLAS's data, one a megabyte past it in the Python
heap, and the learner's Jupyter kernel went on with its memory overwritten, or died later for no
reason it could see. Inside the arena every byte that is not an array's is PROT_NONE, so such a
write faults and is reported. The arrays take the middle of the range and leave an eighth of it
untouched at each end (128 GiB of 1 TiB): an int index, even one gone negative or wrapped round
(2**32 elements of up to 16 bytes, 64 GiB), cannot reach past the arena from any array.

The arena is address space only (MAP_NORESERVE, PROT_NONE): it costs no memory, and one mapping.
An array's pages are made readable and writable (mprotect) when it is placed, which splits the
arena's mapping: two more mappings an array. When it is freed its pages are mapped over afresh
(PROT_NONE), which drops them and merges them into the arena's mapping again; memory.py keeps
them out of use for a while (its quarantine), then gives the range back here.

Where the address space is limited (ulimit -v), a smaller arena is reserved, down to twice the
simulated device's size.
"""

import bisect
import sys

from .. import errors
from ..settings import settings
from . import mappings
from .mappings import MAP_FAILED, MAP_FIXED, PAGE, PROT_NONE, PROT_RW, RESERVE, libc

SIZE = 1 << 40                  # the arena asked for first: 1 TiB of addresses
MARGIN_FRACTION = 8             # an eighth of it untouched at each end (128 GiB of 1 TiB)

# On Linux a mapping of 2 MiB or more asks for transparent huge pages (given where
# /sys/kernel/mm/transparent_hugepage/enabled says "madvise" or "always"), as NumPy asks for its
# arrays: vector_add on 2^22 floats ran in 1.64 ms with them, 2.08 without (bench/RESULTS.md).
# Such an array's pages start on a huge page's boundary; its guard pages stay pages of their own.
HUGE_PAGE = 2 << 20 if sys.platform.startswith("linux") else None
_MADV_HUGEPAGE = 14


class _Arena:
    """The reserved range [start, end) and its free extents: sorted, disjoint (start, end)
    pairs between start + margin and end - margin."""

    def __init__(self, start, size):
        self.start, self.end = start, start + size
        margin = size // MARGIN_FRACTION
        self.free = [(start + margin, self.end - margin)]

    def take(self, length, align):
        """A free range of length bytes whose start + PAGE is a multiple of align, taken out of
        the free extents: from the last (the rest of the arena, above every array placed so far)
        while it has room, so that a freed range is not placed again for a long while and the
        search is one step; then the lowest that fits. None when none is left."""
        for i in [len(self.free) - 1, *range(len(self.free) - 1)]:
            lo, hi = self.free[i]
            base = -(-(lo + PAGE) // align) * align - PAGE
            if base + length <= hi:
                self.free[i:i + 1] = [(a, b) for a, b in ((lo, base), (base + length, hi))
                                      if b > a]
                return base
        return None

    def give(self, base, length):
        """Put [base, base + length) back among the free extents, merged with its neighbours."""
        lo, hi = base, base + length
        i = bisect.bisect(self.free, (lo, hi))
        if i < len(self.free) and self.free[i][0] == hi:
            hi = self.free.pop(i)[1]
        if i > 0 and self.free[i - 1][1] == lo:
            lo = self.free.pop(i - 1)[0]
            i -= 1
        self.free.insert(i, (lo, hi))


_arena = None


def _reserve():
    """The arena, reserved at the first call: SIZE of addresses, or half as much again and again
    where the process may not have them, down to twice the device's size."""
    global _arena
    if _arena is None:
        size, least = SIZE, 2 * settings.device_memory
        while size >= least:
            start = libc.mmap(None, size, PROT_NONE, RESERVE, -1, 0)
            if start not in (None, MAP_FAILED):
                mappings.note(1)
                _arena = _Arena(start, size)
                break
            size //= 2
        else:
            raise errors.MemoryError(
                f"cuMemAlloc failed: out of memory: the simulator could not reserve {least:,} "
                "bytes of addresses for the simulated device's memory (is `ulimit -v` set?). "
                "Give the device less memory with CUDA_SIM_MEMORY (e.g. CUDA_SIM_MEMORY=1G).")
    return _arena


def holds(address):
    """Whether address lies in the arena (in an array, its guard pages, or between arrays)."""
    return _arena is not None and _arena.start <= address < _arena.end


def place(length):
    """length bytes of the arena whose first and last pages stay PROT_NONE and whose others are
    readable and writable (zeros); their base, or None when the arena or the system's mappings
    have no room for them. The caller holds memory.py's lock."""
    arena = _reserve()
    data = length - 2 * PAGE
    huge = HUGE_PAGE and data >= HUGE_PAGE
    base = arena.take(length, HUGE_PAGE if huge else PAGE)
    if base is None:
        return None
    if libc.mprotect(base + PAGE, data, PROT_RW) != 0:
        arena.give(base, length)
        return None
    if huge:
        libc.madvise(base + PAGE, data, _MADV_HUGEPAGE)
    mappings.note(2)
    return base


def clear(base, length):
    """Make [base, base + length) inaccessible again and give its memory back (its range stays
    out of use until give_back)."""
    if libc.mmap(base, length, PROT_NONE, RESERVE | MAP_FIXED, -1, 0) != base:
        libc.mprotect(base, length, PROT_NONE)  # no mapping could be made: keep the pages out


def give_back(base, length):
    """Let a cleared range be placed again."""
    _arena.give(base, length)
