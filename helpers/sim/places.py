"""Names for the addresses a kernel touched: which parameter's array, or which `__shared__` array,
and which element, as the learner wrote them.

Global memory: the kernel's pointer arguments are the arrays it knows; an address is placed in
the allocation it falls in and named after the parameter that points into it (its name is read
from the kernel's signature in the source, else "parameter #i"). Shared memory: the `__shared__`
arrays are thread-local variables of the module (see module.py), found by their offset in the
thread-local block; dynamic shared memory is the `extern __shared__` array.
"""

from __future__ import annotations

import re

from . import memory
from .module import elf_symbols

_POINTEE_SIZES = {"char": 1, "unsigned char": 1, "signed char": 1, "short": 2, "unsigned short": 2,
                  "int": 4, "unsigned int": 4, "unsigned": 4, "float": 4, "long": 8,
                  "unsigned long": 8, "long long": 8, "unsigned long long": 8, "double": 8,
                  "uchar3": 1, "uchar4": 4, "float2": 8, "float3": 4, "float4": 16, "int2": 8,
                  "int4": 16, "uint4": 16, "double2": 16}


def element_size(type_name):
    """Bytes of the element a `T *` parameter points to (1 when unknown)."""
    name = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b|\*", " ", type_name)
    return _POINTEE_SIZES.get(" ".join(name.split()), 1)


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

    def __init__(self, library, kernel, source=None, args=()):
        self.shared = sorted((value, size, _demangle_static(name))
                             for name, kind, value, size, _ in elf_symbols(library)
                             if kind == 6 and size and not name.startswith(("_ZN", "_ZZN", "_ZZSt")))
        names = parameter_names(source, kernel.name)
        self.arrays = []  # (address, size, label, element size)
        for i, (param, arg) in enumerate(zip(kernel.params, args)):
            if param.kind != "P":
                continue
            address = _address_of(arg)
            block = memory.find(address) if address is not None else None
            if block is None:
                continue
            label = names[i] if i < len(names) and names[i] else f"parameter #{i}"
            self.arrays.append((block.address, block.size, label, element_size(param.type_name),
                                address - block.address))

    def global_place(self, address):
        """(array label, element index, element size) of a global address, or None."""
        for start, size, label, elem, view in self.arrays:
            if start <= address < start + size:
                return label, (address - start - view) // elem, elem
        return None

    def shared_place(self, offset, dynamic=False, size=4):
        """(array name, element index, element size) of a shared-memory offset."""
        if dynamic:
            return "extern __shared__ array", offset // max(size, 1), max(size, 1)
        for start, nbytes, name in self.shared:
            if start <= offset < start + nbytes:
                return name, (offset - start) // max(size, 1), max(size, 1)
        return "__shared__ memory", offset // max(size, 1), max(size, 1)


def _address_of(arg):
    from .launch import _pointer_value  # the same reading of an argument as the launch's
    return _pointer_value(arg)
