"""Words for an access out of bounds that the instrumented build found (include/sim_bounds.h).

A plain launch catches an overrun with guard pages (machine/memory.py): one element past the end
of most arrays faults, but a read of the few bytes of slack past an array whose size is not a
multiple of 16 gives NaN, and one `__shared__` array overrun through a pointer lands in the
next. Every launch on the instrumented build (a trace, the race check, the init check: trace.py)
checks instead each load, store and atomic of the learner's code, every byte of it, against the
array it falls in, and ends at the first that leaves it. That access is turned here into an
OutOfBoundsError whose fields and message name the thread and block, the line, what it did, the
array and element as the learner wrote them (a kernel parameter, a `__shared__` array, the
`extern __shared__` array), how far outside it fell, and what to do. An access of 2 to 16 bytes
at an address that is not a multiple of its size (a uint4 loaded from a pointer moved by a few
bytes), which the plain build's CPU mostly lets through and a GPU refuses, is stopped the same
way (include/sim_trace.h: misaligned_access), as a MisalignedAddressError.
"""

from __future__ import annotations

from ..distances import distance_words, element_words
from ..errors import MisalignedAddressError, OutOfBoundsError, xyz
from ..machine import memory
from .instrumented import GLOBAL, RaceReport
from .racecheck import position

_SPACE_WORDS = {"global": "global memory", "shared": "shared memory"}


def error(result, kernel, places):
    """The OutOfBoundsError for a launch that the bounds check ended (result.bounds)."""
    rep = result.bounds
    facts = dict(kernel=kernel.name, line=result.sites[rep.site - 1].where, size=rep.size,
                 is_write=bool(rep.is_write), thread=position(rep.thread, result.block),
                 block=position(rep.block, result.grid), kind="out of bounds")
    if rep.space == GLOBAL:
        err, advice = _global(rep, places, facts)
    else:
        err, advice = _shared(rep, places, result.build.shared_arrays[kernel.name], facts)
    if rep.misaligned:
        return _misaligned(rep, err)
    does = "writes" if err.is_write else "reads"
    if err.length is not None:
        where = (f"{err.array}[{err.element}] ({_SPACE_WORDS[err.space]}), "
                 f"{element_words(err.element, err.length)}")
    else:
        where = f"address 0x{err.address:x} ({_SPACE_WORDS[err.space]}), {err.relative}"
    err.args = (f"cuLaunchKernel failed: an illegal memory access was encountered: bounds check: "
                f"in kernel '{err.kernel}', thread {xyz(err.thread)} of block {xyz(err.block)} "
                f"{does} {err.size} byte{'s' * (err.size != 1)} at {where}, at {err.line}. "
                f"{advice}",)
    return err


_CAST_WORDS = (": a pointer moved by a few bytes and then cast, as (const uint4 *)(p + 4) with p "
               "an unsigned char *, points between two of them")


def _misaligned(rep, found):
    """The MisalignedAddressError of an access the check found at an address that is not a
    multiple of its size, placed as ``found`` (the OutOfBoundsError of the same access) places it."""
    facts = {name: getattr(found, name) for name in (
        "kernel", "line", "size", "is_write", "thread", "block", "space", "array", "element",
        "allocation", "offset")}
    err = MisalignedAddressError("", alignment=rep.size, misalignment=rep.misaligned,
                                 address=found.address if found.space == "global" else None,
                                 **facts)
    if err.array is not None and err.element is not None:
        where = f"{err.array}[{err.element}] ({_SPACE_WORDS[err.space]})"
    else:
        where = f"address 0x{err.address:x}" if err.address is not None else "shared memory"
    does = "writes" if err.is_write else "reads"
    err.args = (f"cuLaunchKernel failed: misaligned address: in kernel '{err.kernel}', thread "
                f"{xyz(err.thread)} of block {xyz(err.block)} {does} {err.size} bytes at {where}, "
                f"{err.misalignment} byte{'s' * (err.misalignment != 1)} past a multiple of "
                f"{err.size}, at {err.line}. {memory.alignment_rule(err.size).capitalize()}"
                f"{_CAST_WORDS if err.size == 16 else ''} (on a GPU: \"misaligned address\").",)
    return err


def _array_facts(offset, nbytes, elem, size):
    """(element, length) of an access at ``offset`` bytes from the start of an array of
    ``nbytes`` bytes and elements of ``elem`` (the access's size where not known)."""
    elem = elem or size or 1
    return offset // elem, nbytes // elem


def _global(rep, places, facts):
    address, size = rep.address, rep.size
    block = memory.find(address) or memory.find(address + max(size, 1) - 1)
    named = places.allocation_array(block.address) if block is not None else None
    facts.update(space="global", address=address,
                 allocation=(block.address, block.size) if block else None,
                 offset=address - block.address if block else None)
    if named is None:
        return (OutOfBoundsError("", **facts),
                "No parameter of the kernel points into this allocation: a pointer computed from "
                "another array ran off its end?")
    label, elem, view = named
    element, length = _array_facts(address - block.address - view, block.size - view, elem, size)
    past = address - block.address >= block.size or address + size > block.address + block.size
    advice = ("Is a guard like `if (i < n)` missing, or does an index run one too far (i + 1 "
              "at the last element)? The grid has more threads than elements whenever n is "
              "not a multiple of the block size." if past else
              "An index that went below 0 (i - 1 at the first element)?")
    return (OutOfBoundsError("", array=label, element=element, length=length, **facts),
            f"{advice} ({distance_words(address - block.address, block.size)}; on a GPU "
            f"compute-sanitizer --tool memcheck reports: Invalid __global__ "
            f"{'write' if rep.is_write else 'read'} of size {size} bytes.)")


def _shared(rep, places, table, facts):
    if rep.space == RaceReport.DYNAMIC_SHARED:
        name, start, nbytes = places.shared_array(0, dynamic=True)
        offset = rep.address - (1 << 64) if rep.address >= 1 << 63 else rep.address
        advice = (f"The launch gave {name} {nbytes} bytes (its shared= argument): ask for as "
                  "many bytes as the kernel uses (elements times the size of one), or check the "
                  "index against that many elements.")
    else:
        arrays = places.named(table)
        start, nbytes, name = min(arrays, key=lambda a: _distance(rep.address, a)) if arrays \
            else (0, 0, "__shared__ memory")
        offset = rep.address - start
        advice = (f"Check the index against the size {name} is declared with: an index such as "
                  "threadIdx.x + 1, or a loop that runs one step too far, reaches past the end; "
                  "a pointer into the array is bounded by the same size.")
    element, length = _array_facts(offset, nbytes, places.element_bytes(name, rep.size), rep.size)
    return (OutOfBoundsError("", space="shared", array=name, element=element, length=length,
                             offset=offset, **facts), advice)


def _distance(offset, array):
    """How far an offset lies outside an array (start, bytes, name): 0 inside it."""
    start, nbytes, _ = array
    return start - offset if offset < start else max(offset - (start + nbytes) + 1, 0)
