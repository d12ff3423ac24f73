"""An index that went below 0 as an unsigned int, named as the array it was meant for.

``threadIdx.x`` is unsigned: ``s[threadIdx.x - 1]`` for thread 0 reads s[4294967295], 16 GiB
past s, which is in no allocation (compute-sanitizer too reports only an invalid address). An
address that lies exactly (2^32 - k) elements past the start of an array the launch knows (a
pointer argument, a ``__shared__`` array, the ``extern __shared__`` array), k small, is that
array's element -k wrapped around: ``find`` names it. Only a fault being explained asks, so a
launch that runs pays nothing.
"""

from __future__ import annotations

import dataclasses

from ..compile.module import elf_symbols
from ..microscope.places import Places

WRAP = 1 << 32
LIMIT = 4096
"""The largest k (i - k at i = 0) named as a wrapped index."""
SIZES = (16, 8, 4, 2, 1)
"""Element sizes tried where the array's is not known (1: a char array, offsets in bytes)."""


@dataclasses.dataclass(frozen=True)
class Wrapped:
    """The access: ``array`` (as the learner named it), ``space`` ("global" or "shared"),
    ``element`` (-k), ``index`` (2^32 - k, what the unsigned index held), ``start`` (the array's
    first byte), ``elem`` (its element's bytes), ``length`` (its elements, None where unknown)."""
    array: str
    space: str
    element: int
    index: int
    start: int
    elem: int
    length: int | None


def wrapped_k(distance, elem=None):
    """(k, elem) where ``distance`` bytes are (2^32 - k) elements of ``elem`` bytes (or, with
    ``elem`` known, a byte inside that element), 1 <= k <= LIMIT; None otherwise."""
    for size in ((elem,) if elem else ()) + SIZES:
        q, r = divmod(distance, size)
        if WRAP - LIMIT <= q < WRAP and (r == 0 or size == elem):
            return WRAP - q, size
    return None


def unsigned_wrap(index):
    """-k where ``index`` (an unsigned one, as GCC's bounds check hands it over) is 2^32 - k,
    1 <= k <= LIMIT; None otherwise."""
    return index - WRAP if WRAP - LIMIT <= index < WRAP else None


def find(address, arrays):
    """The Wrapped access at ``address``, from ``arrays`` ((start, name, space, element bytes or
    None, bytes or None) of each array the launch knows); None where no array's start lies a
    wrapped index before it."""
    for start, name, space, elem, nbytes in arrays:
        found = wrapped_k(address - start, elem)
        if found:
            k, size = found
            return Wrapped(name, space, -k, WRAP - k, start, size,
                           nbytes // size if nbytes is not None else None)
    return None


def global_arrays(places):
    """The pointer arguments of ``places`` (a Places), as ``find`` takes them."""
    return [(start + view, label, "global", elem, size - view)
            for start, size, label, elem, view in places.arrays]


def launch_arrays(record, err):
    """The arrays of a plain launch (a run.arguments.LaunchRecord) that ended with the runtime's
    ErrorReport ``err``: its pointer arguments, the failing thread's ``__shared__`` arrays (at
    their offsets from its sim::worker) and its block's dynamic shared memory, as ``find`` takes
    them."""
    library = record.module.path
    places, arrays = Places(library, record), []
    anchor = next((value for name, kind, value, _, _ in elf_symbols(library)
                   if kind == 6 and name == "_ZN3sim6workerE"), None)
    if err.worker_anchor and anchor is not None:
        arrays += [(err.worker_anchor + value - anchor, name, "shared",
                    places.element_bytes(name, None), size) for value, size, name in places.shared]
    if err.dynamic_shared_base:
        name, nbytes = places.dynamic
        arrays.append((err.dynamic_shared_base, name, "shared", places.element_bytes(name, None),
                       nbytes))
    return global_arrays(places) + arrays


def index_words(element, index):
    """Words for an unsigned index that held ``index``, ``element`` (-k) wrapped around."""
    k = -element
    example = ("threadIdx.x - 1 for thread 0, like any unsigned i - 1 at i = 0," if k == 1
               else f"an unsigned i - {k} at i = 0")
    return (f"the index is {element} wrapped around as an unsigned int ({example} is {index}, "
            f"not {element})")


def access_words(found, access):
    """The end of a fault's message for the Wrapped access ``found`` (``access``: "a read of",
    ...)."""
    far = found.index * found.elem / (1 << 30)
    return (f"{access} {found.array}[{found.index}] ({found.space} memory): "
            f"{index_words(found.element, found.index)}, about {far:.0f} GiB past the start of "
            f"{found.array}, where no array is")
