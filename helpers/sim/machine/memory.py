"""Simulated device memory: host memory fenced so that a kernel's overrun is caught and named.

Every allocation gets pages of its own, between two pages that may not be touched (PROT_NONE):

    [guard page][ before-slack | the array ... | end-slack ][guard page]
                 ^data pages    ^address        ^address + size

A kernel that runs off either side of an array faults on a guard page, the runtime turns the
fault into a Python exception, and `describe_address` names the allocation nearest to the address
(as compute-sanitizer's memcheck does) with how far past its end or before its start it lies.

Where the array sits in its pages is a trade-off. A GPU's cudaMalloc returns 256-byte-aligned
memory, and kernels rely on it: notebook 04's fast grayscale kernel loads 16 bytes at a time
(uint4), which on a CPU compiles to instructions that fault on an address that is not 16-byte
aligned. A page fault happens only at a page boundary, so an array can touch its guard page at the
end, or at the start, but at both only when its size is a whole number of pages. Writing one
element past the end is the most common mistake by far (a missing `if (i < n)`), so the END goes
against the guard page, the start is aligned to the largest power of two up to 256 that divides
the size, and at least 16. When the size is a multiple of 16 (float arrays of a multiple of 4
elements, most images) the first byte past the end faults. Otherwise up to 15 bytes lie between
the end and the guard page (the end-slack), and the bytes from the start of the first page to the
array's start (the before-slack, less than a page) are unguarded too.

Both slacks are filled with a canary (bytes that read as NaN as a float or a double, and as an
unlikely integer) and checked after every launch for the allocations the kernel was given. A write
into them is reported as the fault it would be under memcheck: the launch is run a second time,
one thread at a time, with the slacks' pages read-only on x86-64 Linux, so that the write faults
and names its thread and line (include/sim_signals.h), and the canary checked after each thread
stops, which names the thread elsewhere (launch.py).
What the slacks cannot catch are reads: a kernel that reads a few bytes past the end of an array
whose size is not a multiple of 16, or before its start within the same page, reads the canary
(NaN) instead of faulting. A byte-exact check of reads needs every load instrumented, which
would cost every kernel; this costs nothing until something goes wrong. The instrumented build
(a trace, the race check, the init check) has every load instrumented anyway, and checks each
access against its array exactly, slacks and guard pages included (include/sim_bounds.h, with
the pages that ranges() gives).

Freed memory stays inaccessible for a while (up to QUARANTINE_BYTES and QUARANTINE_BLOCKS), so a
use after free faults too.

The pages lie in the device's address space (arena.py), a range reserved for arrays alone, where
every page that is not an array's is PROT_NONE: a write far off any array faults too, and is
reported against the nearest array as memcheck reports it, instead of landing in the process's
own memory. Each allocation costs the process two memory mappings (its data pages split the
arena's one), and Linux allows 65,530 (vm.max_map_count). Allocations stop, with a MemoryError
that says so, while enough mappings are left for a launch to start its threads and their stacks
(mappings.py).

The device has a size (settings.device_memory): each allocation's data pages are charged against
it (budget.py), and one that does not fit raises drv.MemoryError, as cuMemAlloc's out-of-memory
error does.
"""

import collections
import ctypes

from .. import errors
from . import arena, budget, mappings, written
from ..distances import distance_words
from ..settings import settings
from .mappings import PAGE
from .table_lock import AddressTable

# Four bytes that read as NaN whether taken as a float or (twice) as a double; repeated with the
# period of the address, so that any aligned element of a slack holds the same value.
CANARY = bytes([0xA5, 0xFE, 0xFF, 0xFF])
_PATTERN = CANARY * (2 * PAGE // 4 + 1)


class Block:
    """One allocation: `address` is what a kernel sees, `size` its bytes; `base`, `length` the
    whole mapping, guard pages included; `slacks`, the unguarded bytes before and after the
    array, as (start, the canary they hold); `written`, the init check's shadow (written.py);
    `freed_at`, once it is freed, where in the program (words, or None when not known), and
    `with_context`, whether it went with its context (freed_at: where that was destroyed)."""

    __slots__ = ("address", "size", "base", "length", "slacks", "written", "freed_at",
                 "with_context", "__weakref__")

    def __init__(self, address, size, base, length):
        self.address, self.size, self.base, self.length = address, size, base, length
        self.slacks, self.written, self.freed_at, self.with_context = (), None, None, False
        if length != size:  # not a module's global (the compiler's memory, no guard pages)
            data_end = base + length - PAGE
            self.slacks = tuple((s, _canary(s, e - s)) for s, e in
                                ((base + PAGE, address), (address + size, data_end)) if e > s)

    @property
    def end(self):
        return self.address + self.size


# A DeviceAllocation's __del__ frees memory, and a garbage collection can run it while this thread
# is in the middle of a lookup: such a free waits until the thread leaves the tables (table_lock.py).
_table = AddressTable()  # base -> Block, of every live mapping
_lock = _table.lock
def _alignment(nbytes):
    """The largest power of two up to 256 that divides nbytes, at least 16 (see the docstring)."""
    align = 256
    while align > 16 and nbytes % align:
        align //= 2
    return align


def _canary(start, nbytes):
    """The canary bytes for [start, start + nbytes)."""
    return _PATTERN[start % 4:start % 4 + nbytes]


def allocate(nbytes):
    """Place fresh zeroed pages for nbytes (at least 1) between two guard pages in the device's
    address space (arena.py); returns a Block."""
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError("cannot allocate a negative number of bytes")
    size = max(nbytes, 1)
    align = _alignment(size)
    span = -(-size // align) * align  # size rounded up to the alignment
    data_pages = -(-span // PAGE)
    length = (data_pages + 2) * PAGE
    budget.charge(data_pages * PAGE, nbytes)
    try:
        base = _place(length)
    except BaseException:
        budget.refund(data_pages * PAGE)
        raise
    block = Block(base + (data_pages + 1) * PAGE - span, nbytes, base, length)
    rearm(block)
    with _lock:
        if settings.initcheck:
            written.track(block)
        _table.add(base, block)
    return block


def _place(length):
    """The base of length bytes placed in the device's address space; MemoryError when the
    system's mappings or the address space have no room for them."""
    with _lock:
        if not mappings.room_for(2, keep=mappings.LAUNCH_RESERVE):
            raise errors.MemoryError(_too_many_mappings())
        base = arena.place(length)
        if base is None:  # no free range fits it: let the quarantined ones be placed again
            _empty_quarantine()
            base = arena.place(length)
    if base is None:
        raise errors.MemoryError(f"cuMemAlloc failed: out of memory: the machine could not map "
                                 f"{length:,} bytes for the simulated device ({len(_table)} "
                                 "arrays are alive)")
    return base


def _too_many_mappings():
    return (f"the simulator cannot place another array: {len(_table)} arrays are alive, each "
            f"with guard pages of its own, and the system allows a process {mappings.limit()} "
            "memory mappings (vm.max_map_count). Free the arrays you no longer need (del a, or "
            "a.gpudata.free()), or use fewer, larger arrays.")


# ---- freeing -------------------------------------------------------------------------------------
# Freed memory is not placed again at once: its pages are dropped and made inaccessible, and its
# range stays out of use for a while, so that a use after free faults instead of landing in
# whatever array is placed there next.
QUARANTINE_BYTES = 1 << 30
QUARANTINE_BLOCKS = 4096
_quarantine = collections.deque()  # freed Blocks, oldest first
_quarantined_bytes = 0


def release(block, freed_at=None, with_context=False, host_keeps=False):
    """Free block (freed_at: where in the program, for the messages about a use after free;
    with_context: it goes with its context, which was destroyed there; host_keeps: an array of
    the host's still reads its pages, which stay mapped until unmap)."""
    _lock.change(_release, block, freed_at, with_context, host_keeps)


def _release(block, freed_at, with_context, host_keeps):
    if _table.pop(block.base) is None:
        return
    block.freed_at, block.with_context = freed_at, with_context
    written.untrack(block)
    budget.refund(block.length - 2 * PAGE)  # the data pages, without the two guard pages
    if not host_keeps:
        _retire(block)


def unmap(block):
    """Give back the pages of a block that release() left to the host (host_keeps)."""
    _lock.change(_unmap, block)


def _unmap(block):
    _release(block, None, False, True)
    _retire(block)


def _retire(block):
    """Drop a freed block's pages and keep its range out of use for a while."""
    global _quarantined_bytes
    arena.clear(block.base, block.length)
    _quarantine.append(block)
    _quarantined_bytes += block.length
    while _quarantined_bytes > QUARANTINE_BYTES or len(_quarantine) > QUARANTINE_BLOCKS:
        _give_back_oldest()


def _give_back_oldest():
    global _quarantined_bytes
    old = _quarantine.popleft()
    _quarantined_bytes -= old.length
    arena.give_back(old.base, old.length)


def _empty_quarantine():
    with _lock:
        while _quarantine:
            _give_back_oldest()


def _freed(address):
    """The freed Block that address lies in, or None."""
    with _lock:
        return next((b for b in _quarantine if b.base <= address < b.base + b.length), None)


def block_words(block):
    """'an allocation of 4,096 bytes at 0x...': which allocation it is."""
    return f"an allocation of {block.size:,} bytes at 0x{block.address:x}"


def freed_words(block):
    """'an allocation of 4,096 bytes at 0x..., freed at line 3 of a notebook cell': which it
    was, and where and how it was freed."""
    at = f" at {block.freed_at}" if block.freed_at else ""
    if block.with_context:
        return (f"{block_words(block)}, freed with its context, which Context.detach(){at} "
                "destroyed (a context's memory ends with it: allocate it again with a live "
                "context current)")
    return f"{block_words(block)}, freed{at}"


def register_global(address, size):
    """Let copies and kernels reach memory that is not ours, so has no guard page: a module's
    __device__/__constant__ variable (the compiler's), or mapped host memory (hostmem.py)."""
    with _lock:
        if address not in _table:
            _table.add(address, Block(address, size, address, size))


def unregister(address):
    """Forget mapped host memory that register_global made known (it was freed or unregistered):
    a kernel given its address is refused again."""
    _table.forget(address)


# ---- looking addresses up ------------------------------------------------------------------------
def find(address):
    """The live Block whose mapping (guard pages included) holds address, or None."""
    block = _table.at_or_below(address)
    return block if block is not None and address < block.base + block.length else None


def ranges():
    """(address, size, base, length) of every live allocation, sorted by address (for the memory
    trace and the bounds check): the array, and its pages with the guard pages."""
    return sorted((b.address, b.size, b.base, b.length) for b in _table.values())


def check_range(address, nbytes):
    """True if [address, address + nbytes) lies inside one live allocation."""
    block = find(address)
    return block is not None and block.address <= address and address + nbytes <= block.end


def _relative(address, block, by_a_kernel):
    """As memcheck counts (distances.distance_words), with, for a kernel's access, the likely cause
    (a copy's or a pointer argument's is the caller's to name)."""
    offset = address - block.address
    cause = (" (index bounds: is a guard like `if (i < n)` missing?)" if offset >= block.size
             else " (an index that went below 0?)" if offset < 0 else "")
    return distance_words(offset, block.size) + (cause if by_a_kernel else "")


def _nearest(address):
    """The allocation a faulting address belongs to, as memcheck counts: the nearest of the
    arrays around it (the one whose pages hold it, and those below and above), whether it lies in
    a guard page or anywhere else in the device's address space (arena.py) but a freed array's
    pages; None outside it and every allocation."""
    around = _table.around(address)
    inside = [b for b in around if b.base <= address < b.base + b.length]
    if not inside and (not arena.holds(address) or _freed(address)):
        return None
    near = [b for b in around if b in inside or arena.holds(b.base)]
    return min(near, key=lambda b: abs(_distance(address, b)), default=None)


def fault_facts(address):
    """What a faulting address is, as LaunchError fields: ``kind`` ("out of bounds", "use after
    free" or "wild pointer"), ``allocation`` ((start, bytes) of the nearest allocation) and
    ``offset`` (the address's distance from its start)."""
    block = _nearest(address)
    if block is None:
        return {"kind": "use after free" if _freed(address) else "wild pointer"}
    return {"kind": "out of bounds", "allocation": (block.address, block.size),
            "offset": address - block.address}


def describe_address(address, by_a_kernel=False):
    """Words for where a faulting address lies: relative to the nearest allocation, as memcheck
    says it, and where a kernel's access reached it (``by_a_kernel``), the index's likely
    mistake."""
    block = _nearest(address)
    if block is None:
        freed = _freed(address)
        if freed is not None:
            return f"in {freed_words(freed)} (a use after free)"
        return "which is not in any allocation made with mem_alloc or gpuarray (a wild pointer)"
    return _relative(address, block, by_a_kernel)


def alignment_rule(alignment):
    """What an access of ``alignment`` bytes needs, in the learner's words."""
    if alignment == 16:
        return "a uint4 or float4 load or store needs an address that is a multiple of 16 bytes"
    return (f"a load or store of {alignment} bytes needs an address that is a multiple of "
            f"{alignment}")


def _distance(address, block):
    return address - block.end + 1 if address >= block.end else block.address - address


def check_pointer(address):
    """None if a kernel may be given address (0, or inside or just past a live allocation or a
    module's variable); otherwise words for what it is."""
    if address == 0:
        return None
    block = find(address)
    if block is not None and block.address <= address <= block.end:
        return None
    return describe_address(address)


# ---- the canaries in the slacks ------------------------------------------------------------------
def damaged_slacks(block):
    """[(start, nbytes)] of the slacks of block whose canary a kernel overwrote."""
    return [(start, len(canary)) for start, canary in block.slacks
            if ctypes.string_at(start, len(canary)) != canary]


def first_damaged_byte(start, nbytes):
    data, canary = ctypes.string_at(start, nbytes), _canary(start, nbytes)
    return start + next(i for i in range(nbytes) if data[i] != canary[i])


def rearm(block):
    """Put the canary back into the slacks of block."""
    for start, canary in block.slacks:
        ctypes.memmove(start, canary, len(canary))


def read(address, nbytes):
    return ctypes.string_at(address, nbytes)


def write(address, buffer, nbytes):
    ctypes.memmove(address, buffer, nbytes)
    note_written(address, nbytes)


def note_written(address, nbytes):
    """The host wrote [address, address + nbytes): for the init check (written.py)."""
    if written.tracking():
        written.mark(find(address), address, nbytes)
