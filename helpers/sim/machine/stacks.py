"""The stacks that simulated threads run on, shared by every module and launch.

In a module that uses barriers or warp functions each kernel runs each thread of a block as a
fiber, on a stack of its own (include/sim_switch.h), but for a kernel that compile/split.py
rewrote, which runs a block as a loop, as every kernel of a module without them does, on one
stack per worker. Mapping stacks and their guard pages costs more than a small launch, so they
are made once, for worker i and as many threads as the largest block seen so far, and handed to
every launch (launches run one at a time, include/sim_grid.h).

Each stack is a slot of STACK_BYTES (aligned to it: a thread finds its threadIdx at the top of its
slot). Only the top STACK_USABLE bytes are usable: 512 KiB of local arrays, what a GPU allows a
thread, plus room for calls. The rest of the slot stays PROT_NONE, so a thread whose local arrays
are too large faults there, and the runtime reports a stack overflow; a write past the end of a
local array that runs up past the top of a stack faults in the slot above, and the runtime reports
a local array overrun.

Every stack costs two memory mappings. On a machine with many cores, the workers times the
threads of a block can ask for more than the system allows (vm.max_map_count, see mappings.py):
then a launch runs on as many workers as half the mappings give stacks to (the other half is
for arrays).
"""

import ctypes

from . import mappings
from .mappings import MAP_FAILED, PROT_NONE, PROT_RW, RESERVE, libc

STACK_BYTES = 1 << 20   # must match kStackSize in include/sim_types.h (checked in module.py)
STACK_USABLE = 576 << 10  # kStackUsable


class _Pool:
    """count stacks for one worker: STACK_BYTES-aligned slots in one mapping."""

    def __init__(self, count):
        # two slots more: one to align the first, and one above the last, whose untouchable part
        # a write running up past the last stack's top faults in as it would above any other
        self.length = (count + 2) * STACK_BYTES
        self.base = libc.mmap(None, self.length, PROT_NONE, RESERVE, -1, 0)
        if self.base in (None, MAP_FAILED):
            raise MemoryError("could not reserve address space for thread stacks")
        self.count = 0
        self.first = -(-self.base // STACK_BYTES) * STACK_BYTES
        mappings.note(1)
        for i in range(count):
            top = self.first + (i + 1) * STACK_BYTES
            if libc.mprotect(top - STACK_USABLE, STACK_USABLE, PROT_RW) != 0:
                self.free()
                raise MemoryError("could not map thread stacks")
            mappings.note(2)
            self.count += 1

    def free(self):
        libc.munmap(self.base, self.length)
        self.count = 0


_pools = []  # _pools[i]: worker i's stacks
_handed_out = {}  # (workers, count) -> what for_launch returned, while the pools stay the same


def _ensure(worker, count):
    """True if worker has at least count stacks (mapping them if it can)."""
    if worker < len(_pools) and _pools[worker].count >= count:
        return True
    if not mappings.room_for(2 * count + 1, keep=256):
        return False
    try:
        pool = _Pool(count)
    except MemoryError:
        return False
    _handed_out.clear()
    if worker < len(_pools):
        _pools[worker].free()
        _pools[worker] = pool
    else:
        _pools.append(pool)
    return True


def for_launch(workers, count):
    """(a ctypes array of each worker's first stack, how many workers got count stacks each).

    Stacks take at most half of the system's memory mappings, so that arrays keep the other half:
    fewer workers than asked when the workers' stacks would take more. A MemoryError when not
    even one worker can have its stacks."""
    if (workers, count) in _handed_out:
        return _handed_out[workers, count]
    limit = mappings.limit()
    cap = workers if limit is None else max(1, min(workers, limit // 2 // (2 * count + 1)))
    if any(i >= len(_pools) or _pools[i].count < count for i in range(cap)):
        _handed_out.clear()
        for pool in _pools[cap:]:  # make room for the stacks that must grow
            pool.free()
        del _pools[cap:]
    granted = 0
    while granted < cap and _ensure(granted, count):
        granted += 1
    if granted == 0:
        raise MemoryError(
            f"the simulator could not map {count} thread stacks for the launch: the process is "
            "out of memory mappings (vm.max_map_count). Free device arrays you no longer need.")
    firsts = (ctypes.c_void_p * granted)(*(_pools[i].first for i in range(granted)))
    if granted == cap:
        _handed_out[workers, count] = firsts, granted
    return firsts, granted
