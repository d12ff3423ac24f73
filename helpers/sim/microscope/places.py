"""Names for the addresses a kernel touched: which parameter's array, or which `__shared__` array,
and which element, as the learner wrote them.

Global memory: the kernel's pointer arguments are the arrays it knows; an address is placed in
the allocation it falls in and named after the parameter that points into it (its name is read
from the kernel's signature in the source, else "parameter #i"). Shared memory: the `__shared__`
arrays are thread-local variables of the module (see module.py), found by their offset in the
thread-local block; dynamic shared memory is the `extern __shared__` array, named as the kernel
declares it.
"""

from __future__ import annotations

import functools
import re

from ..c_types import element_bytes
from ..machine import memory
from ..compile.module import elf_symbols
from ..compile.source import EXTERN_SHARED


def parameter_names(source, kernel):
    """The kernel's parameter names, from its definition in the source (empty when not found)."""
    if not source:
        return []
    m = re.search(rf"__global__[^;{{]*?\b{re.escape(kernel)}\s*\(([^)]*)\)", source, flags=re.S)
    if not m:
        return []
    names = []
    for param in m.group(1).split(","):
        words = re.findall(r"[A-Za-z_]\w*", param.split("[")[0])
        names.append(words[-1] if words else "")
    return names


@functools.lru_cache(maxsize=64)
def dynamic_shared_name(source, kernel):
    """The name of the kernel's `extern __shared__` array: the only one the source declares, else
    the one declared in the kernel's body; None when the source does not say. (Remembered: a
    launch the race check, init check or trace watches asks again for its module's source.)"""
    found = [(m.start(), m.group(2)) for m in EXTERN_SHARED.finditer(source or "")]
    if len({name for _, name in found}) == 1:
        return found[0][1]
    m = re.search(rf"__global__[^;{{]*?\b{re.escape(kernel)}\s*\(", source or "")
    if not m:
        return None
    end = source.find("__global__", m.end())
    inside = [name for at, name in found if m.end() <= at < (end if end >= 0 else len(source))]
    return inside[0] if inside else None


def _demangle_static(name):
    """`s` for a function's static `_ZZ6rotateE1s` (GCC's name for `__shared__ float s[]` in
    rotate); the name itself for file-scope ones."""
    m = re.match(r"_ZZ(?:\d+\w+?|N.*?)E(\d+)(\w+)", name)
    if m:
        return m.group(2)[:int(m.group(1))]
    m = re.match(r"_ZL(\d+)(\w+)", name)
    return m.group(2)[:int(m.group(1))] if m else name


class Places:
    """Where a kernel's addresses are, for one launch."""

    def __init__(self, library, record):
        """library: the built module whose `__shared__` arrays are read; record: the launch (a
        run.arguments.LaunchRecord), whose pointer arguments are the global arrays."""
        kernel = record.kernel
        self.source = record.module.source
        self.shared = sorted((value, size, _demangle_static(name))
                             for name, kind, value, size, _ in elf_symbols(library)
                             if kind == 6 and size and not name.startswith(("_ZN", "_ZZN", "_ZZSt")))
        names = parameter_names(record.module.source, kernel.name)
        self.dynamic = (dynamic_shared_name(record.module.source, kernel.name)
                        or "extern __shared__ array", record.shared)  # (name, bytes)
        self.arrays = []  # (address, size, label, element size, the parameter's offset in it)
        for i, (param, address) in enumerate(zip(kernel.params, record.addresses)):
            block = memory.find(address) if address is not None else None
            if block is None:
                continue
            label = names[i] if i < len(names) and names[i] else f"parameter #{i}"
            self.arrays.append((block.address, block.size, label, element_bytes(param.type_name),
                                address - block.address))

    def global_place(self, address):
        """(array label, element index, element size) of a global address, or None."""
        for start, size, label, elem, view in self.arrays:
            if start <= address < start + size:
                return label, (address - start - view) // elem, elem
        return None

    def shared_array(self, offset, dynamic=False):
        """(array name, its first byte, its bytes) of the shared array that holds an offset in
        the `__shared__` arrays (dynamic: in the dynamic shared memory); bytes None where the
        array is not known."""
        if dynamic:
            return self.dynamic[0], 0, self.dynamic[1]
        for start, nbytes, name in self.shared:
            if start <= offset < start + nbytes:
                return name, start, nbytes
        return "__shared__ memory", 0, None

    def allocation_array(self, start):
        """(label, element size, offset of the parameter's pointer from the start) of the
        parameter that points into the allocation starting at ``start``, or None."""
        return next(((label, elem, view) for address, _, label, elem, view in self.arrays
                     if address == start), None)

    @staticmethod
    def named(table):
        """(start, bytes, name) of each thread-local of table (rows of (offset, bytes, symbol)),
        named as the learner declared it."""
        return [(start, nbytes, _demangle_static(symbol)) for start, nbytes, symbol in table]

    def element_bytes(self, name, default):
        """Bytes of an element of the `__shared__` (or `extern __shared__`) array ``name`` as the
        source declares it; ``default`` where it does not say."""
        m = re.search(rf"\b__shared__\s+([^;{{}}()\[\]=]*?)\s*\b{re.escape(name)}\s*\[",
                      self.source or "")
        return element_bytes(f"{m.group(1)} *") if m else default

    def shared_place(self, offset, dynamic=False, size=4):
        """(array name, element index, element size) of a shared-memory offset."""
        name, start, _ = self.shared_array(offset, dynamic)
        return name, (offset - start) // max(size, 1), max(size, 1)

