"""PyCUDA's prepared calls: `func.prepare(types)` declares the C types of a kernel's arguments
once, and `prepared_call` converts each argument to its declared type, as PyCUDA packs them
with Python's `struct` module ("P" a pointer, "i" an int, "f" a float, "12s" 12 bytes, ...).

A Python int for a "P" is an address (PyCUDA's tests pass `int(a_gpu) + 4`); a number for
"f" becomes a float32, as struct.pack("f", x) makes it.
"""

import re

import numpy as np

_FORMAT_ITEM = re.compile(r"\s*(\d*)([xcbB?hHiIlLqQnNefdsP])")
_SPECIAL = {"n": np.dtype(np.intp), "N": np.dtype(np.uintp), "c": np.dtype(np.int8)}


def format_of(arg_types):
    """The struct format string for what prepare() was given: a string, or a list of numpy
    types, dtypes, format strings or anything else (a pointer), as PyCUDA reads it."""
    if isinstance(arg_types, str):
        return arg_types
    parts = []
    for t in arg_types:
        if isinstance(t, str):
            parts.append(t)
        elif isinstance(t, type) and issubclass(t, np.generic) or isinstance(t, np.dtype):
            dtype = np.dtype(t)
            parts.append(f"{dtype.itemsize}s" if dtype.char == "V" else dtype.char)
        else:
            parts.append("P")
    return "".join(parts)


def parse(fmt):
    """[(code, count)] for each argument the struct format takes; 'x' (padding) takes none."""
    items, pos = [], 0
    fmt = fmt.lstrip("@=<>!")
    while pos < len(fmt.rstrip()):
        m = _FORMAT_ITEM.match(fmt, pos)
        if not m:
            raise ValueError(f"prepare: cannot read the argument format {fmt!r} at "
                             f"{fmt[pos:]!r}; use struct codes such as 'P', 'i', 'f', '12s'")
        count, code = int(m.group(1) or 1), m.group(2)
        if code == "s":
            items.append(("s", count))
        elif code != "x":
            items.extend([(code, 1)] * count)
        pos = m.end()
    return items


def convert(items, args, address_of):
    """The arguments as the kernel launcher takes them: each converted to its declared type."""
    if len(args) != len(items):
        raise TypeError(f"prepared call: the prepared format takes {len(items)} arguments, "
                        f"got {len(args)}")
    result = []
    for (code, count), arg in zip(items, args):
        if code == "P":
            result.append(np.uintp(address_of(arg)))
        elif code == "s":
            data = arg if isinstance(arg, np.ndarray) else np.frombuffer(bytes(arg), np.uint8)
            if data.nbytes != count:
                raise TypeError(f"prepared call: a {count}s argument needs {count} bytes, "
                                f"got {data.nbytes}")
            result.append(data)
        else:
            result.append(_SPECIAL.get(code, np.dtype(code)).type(arg))
    return result
