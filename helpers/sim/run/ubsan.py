"""What GCC's checks (UBSan, without its runtime: include/sim_grid.h's handlers) hand the runtime:
a type descriptor (u16 kind, u16 info, then the quoted name) and a value in a pointer-sized word,
read here for run/operators.py (conversions and shifts) and run/report.py (an index past a
fixed-size array)."""

import ctypes
import struct


def type_of(address):
    """(C type, bits, signed) from GCC's UBSan type descriptor at ``address``: for an integer,
    info is log2(bits) << 1 | signed; for a float (kind 1), its bits; for anything else (an
    array's type, say) only the name means something."""
    kind, info = struct.unpack("<HH", ctypes.string_at(address, 4))
    name = ctypes.string_at(address + 4).decode(errors="replace").strip("'")
    return (name, info, True) if kind == 1 else (name, 1 << (info >> 1), bool(info & 1))


def as_signed(bits, width, signed):
    """``bits`` as an integer of ``width`` bits."""
    bits &= (1 << width) - 1
    return bits - (1 << width) if signed and bits >> (width - 1) else bits
