"""Which line of the learner's source an instruction of a plain build belongs to.

A fault (an access to a guard page, a division by zero) stops the kernel at one instruction, and
the signal handler keeps its address (include/sim_signals.h). The plain build has no line tables
(they cost compile time on every build: compile/builder.py), so the line is read from its twin
built with them (builder.build(lines=True)), made only when a fault needs it and cached like any
module. GCC's code does not depend on -g: the twin's instructions are the plain build's, byte for
byte, at the same addresses, when both read the prelude the same way (precompiled, or parsed as
the first build with given flags does: g++ 13's code differed between the two). That is checked
(the two .text sections must be equal) before an address is looked up, so a compiler that broke
the rule gives no line rather than a wrong one.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from . import sites

PARSED = "parsed"
"""builder.build(lines=PARSED): the twin of a plain build that parsed the prelude instead of
reading it precompiled."""


def _section(library, wanted):
    """The bytes of a 64-bit ELF file's section ``wanted`` (b".text"); b"" where it has none."""
    data = Path(library).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return b""
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    sections = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_at = sections[shstrndx][4]
    for name, _, _, _, offset, size in sections:
        if data[names_at + name:].startswith(wanted + b"\0"):
            return data[offset:offset + size]
    return b""


def has_line_tables(library):
    """True for a build made with line tables (an instrumented one: compile/builder.py)."""
    return bool(_section(library, b".debug_line"))


def same_code(plain, twin):
    """True when the two libraries' instructions are the same, byte for byte."""
    return _section(plain, b".text") == _section(twin, b".text")


def place(plain, with_lines, vaddr):
    """"file.cu:12": the learner's line that the instruction at ``vaddr`` (as the plain library
    ``plain`` numbers its addresses) was compiled from, read from ``with_lines``, its twin with
    line tables (or itself, where it has them); through inlined functions, the innermost frame in the learner's code (a
    __device__ function's line, not its caller's). None where the instruction is the runtime's
    own, or the two builds differ."""
    if plain != with_lines and not same_code(plain, with_lines):
        return None
    chain, = sites.inline_chains(with_lines, [vaddr])
    frame = sites.learner_frame(chain, "block")
    if frame is None or not frame[2]:
        return None
    return f"{os.path.basename(frame[1])}:{frame[2]}"
