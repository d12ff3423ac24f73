"""Where the learner's loads and stores are: the site table of an instrumented module.

In the instrumented build (builder.build(instrument=...)) the compiler puts a call before every
load and store (`__tsan_read4`, `__tsan_write1`, ...), turns every atomic operation into a call
(`__tsan_atomic32_fetch_add`) and, in the "blocks" build, calls `__sanitizer_cov_trace_pc` at the
start of every basic block. The runtime (include/sim_trace.h) sees only the call's return address.
This module reads the built library once, with binutils' `objdump` (to find the calls) and
`addr2line` (to map each call to its file, line and function, through inlined functions), and
keeps the calls that belong to the learner's code: each becomes a *site* (one memory instruction,
atomic or basic block), numbered from 1. The other loads and stores (the runtime's own code) are
patched out of the library before it is first loaded (a no-op over each call: 5 bytes on x86-64,
4 on Arm64), so that the runtime runs at full speed; atomics stay calls, since the callback does
the operation.

The table is kept as JSON next to the library (written atomically).
"""

from __future__ import annotations

import functools
import json
import os
import re
import struct
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from . import toolchain
from .source import INCLUDE_DIR, INCLUDE_IN_LINE_TABLES

TABLE_VERSION = 8
_CALL = re.compile(r"^\s*([0-9a-f]+):\s+(?:call|callq|bl)\s+[0-9a-f]+\s+<(__tsan_\w+|"
                   r"__sanitizer_cov_trace_pc)>")
_ACCESS = re.compile(r"__tsan_(?:unaligned_)?(read|write)(\d+|_range)$")
_ATOMIC = re.compile(r"__tsan_atomic(\d+)_(\w+)$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\s")


@dataclass
class Site:
    """One call of the instrumented code: kind 'load', 'store', 'atomic' or 'block' (a basic
    block), size in bytes (0: given at run time), and where it is in the learner's source."""
    vaddr: int  # the call's return address, as the library numbers its addresses
    kind: str
    size: int
    file: str
    line: int
    function: str

    @property
    def where(self):
        return f"{os.path.basename(self.file)}:{self.line}"


def _tool(name):
    return toolchain.binutils(name, "the simulator's memory trace and race check")


def _calls(library):
    """(call address, return address, hook name) of every instrumentation call in the library."""
    out = subprocess.run([_tool("objdump"), "-d", "--no-show-raw-insn", str(library)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    calls = []
    for i, line in enumerate(out):
        m = _CALL.match(line)
        if not m:
            continue
        for nxt in out[i + 1:i + 4]:
            n = _INSN.match(nxt)
            if n:
                calls.append((int(m.group(1), 16), int(n.group(1), 16), m.group(2)))
                break
    return calls


def inline_chains(library, addresses):
    """For each address, its (function, file, line) frames, innermost first (addr2line -i)."""
    if not addresses:
        return []
    text = "\n".join(hex(a) for a in addresses) + "\n"
    out = subprocess.run([_tool("addr2line"), "-e", str(library), "-a", "-f", "-i", "-C"],
                         input=text, capture_output=True, text=True, check=True).stdout.splitlines()
    chains, current = [], None
    i = 0
    while i < len(out):
        if out[i].startswith("0x"):
            current = []
            chains.append(current)
            i += 1
            continue
        function, place = out[i], out[i + 1] if i + 1 < len(out) else "??:0"
        file, _, line = place.rpartition(":")
        line = re.match(r"\d*", line).group(0)
        current.append((function, file, int(line) if line else 0))
        i += 2
    return chains


def _is_runtime(file):
    """The simulator's headers (as the line tables name them: source.INCLUDE_IN_LINE_TABLES), a
    file the prelude ships, never a name a #line made up; or the generated unit (builder.py
    compiles it in a temporary folder: code the compiler makes there, as std::thread's, is named
    after it)."""
    shipped = file.startswith(f"{INCLUDE_IN_LINE_TABLES}/") and ".." not in Path(file).parts \
        and (INCLUDE_DIR / file[len(INCLUDE_IN_LINE_TABLES) + 1:]).is_file()
    return shipped or re.search(r"/cuda-sim-[^/]*/module\.cpp$", file) is not None


def _is_system(file):
    return file.startswith(("/usr/", "/opt/")) or file in ("??", "")


_CACHE_HINTED = re.compile(r"\b__(ld(g|cg|ca|cs|lu|cv)|st(wb|cg|cs|wt))\s*\(")
# A line of a header that loads or stores for its caller, and every line that leads to it
# (cooperative_groups/memcpy_async.h's copy), says so in a comment.
CALLERS_ACCESS = "// the caller's access"


@functools.lru_cache(maxsize=None)
def _pass_through():
    """(file, line) of the prelude functions that load or store on the caller's behalf (__ldg,
    __stcs and the other cache-hinted loads and stores; the lines marked CALLERS_ACCESS), whose
    accesses are the caller's. (addr2line's names for such inlined functions are not reliable:
    their lines are.)"""
    found = set()
    for header in INCLUDE_DIR.rglob("*.h"):
        for n, text in enumerate(header.read_text().splitlines(), 1):
            if (_CACHE_HINTED.search(text) and "{" in text) or text.endswith(CALLERS_ACCESS):
                found.add((f"{INCLUDE_IN_LINE_TABLES}/{header.relative_to(INCLUDE_DIR)}", n))
    return found


def learner_frame(chain, kind="load"):
    """The frame of the learner's code an access belongs to, or None (the runtime's own).
    Library code (std::, memcpy) belongs to the learner's line that called it; of the prelude,
    only the cache-hinted loads and stores (__ldg, __stcs, ...) and the lines marked as the
    caller's access (mma.h's, memcpy_async's) do. A basic block or an atomic belongs to the
    learner's line it runs for, even inside an inlined function of the prelude (atomicAdd,
    reading threadIdx, a barrier)."""
    for function, file, line in chain:
        if _is_runtime(file):
            if kind not in ("block", "atomic") and (os.path.normpath(file), line) not in _pass_through():
                return None
        elif not _is_system(file):
            return function, file, line
    return None


def _kind(hook):
    """(kind, size) of a callback, or None for atomics that are no site of their own (an atomic
    load or store: in the prelude, the first step of a compare-and-swap loop)."""
    m = _ACCESS.match(hook)
    if m:
        return ("load" if m.group(1) == "read" else "store"), (0 if m.group(2) == "_range"
                                                               else int(m.group(2)))
    m = _ATOMIC.match(hook)
    if m:
        return None if m.group(2) in ("load", "store") else ("atomic", int(m.group(1)) // 8)
    return "block", 0


def _classify(library):
    """(the learner's sites, the other load and store calls as (address, length))."""
    calls = _calls(library)
    chains = inline_chains(library, [c for c, _, _ in calls])
    sites, others = [], []
    for (call, ret, hook), chain in zip(calls, chains):
        kind = _kind(hook)
        frame = learner_frame(chain, kind[0]) if kind else None
        if frame is None:
            if not hook.startswith("__tsan_atomic"):  # an atomic's call does the operation
                others.append((call, ret - call))
            continue
        function, file, line = frame
        sites.append(Site(ret, kind[0], kind[1], file, line, function))
    return sites, others


def extract(library):
    """The learner's sites in an instrumented library, in address order."""
    return _classify(library)[0]


_NOPS = {62: (5, b"\xe8", b"\x0f\x1f\x44\x00\x00"),  # x86-64: call rel32 -> 5-byte nop
         183: (4, None, b"\x1f\x20\x03\xd5")}           # Arm64: bl -> nop


def _patch_out(library, calls):
    """Overwrite the instrumentation calls that are not the learner's with no-ops, in the file:
    the runtime's own code (and the prelude's atomics) then runs at full speed."""
    with open(library, "r+b") as f:
        data = bytearray(f.read())
        machine, = struct.unpack_from("<H", data, 18)
        if machine not in _NOPS or data[:4] != b"\x7fELF" or data[4] != 2:
            return
        length, opcode, nop = _NOPS[machine]
        phoff, = struct.unpack_from("<Q", data, 32)
        phentsize, phnum = struct.unpack_from("<HH", data, 54)
        loads = []
        for i in range(phnum):
            kind, _, offset, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
            if kind == 1:  # PT_LOAD
                loads.append((vaddr, filesz, offset))
        for address, size in calls:
            at = next((off + address - va for va, n, off in loads if va <= address < va + n), None)
            if size != length or at is None:
                continue
            if opcode is not None and data[at:at + 1] != opcode:
                continue
            if opcode is None and data[at + 3] & 0xFC != 0x94:  # Arm64 bl: 100101 in bits 31..26
                continue
            data[at:at + length] = nop
        f.seek(0)
        f.write(data)


def _save(sites, table):
    fd, partial = tempfile.mkstemp(dir=table.parent, prefix=f".{table.stem}-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump({"version": TABLE_VERSION, "sites": [asdict(s) for s in sites]}, f)
    os.replace(partial, table)  # atomic, as the libraries themselves


def table_path(library):
    return Path(library).with_suffix(".sites.json")


def prepare(library, target):
    """Called by builder.build on a freshly linked instrumented library, before it is published
    as target: its site table is saved for target, and the other calls are patched out."""
    sites, others = _classify(library)
    _patch_out(library, others)
    _save(sites, table_path(target))


def load(library):
    """The site table of an instrumented library: from its JSON file, else made and saved."""
    table = table_path(library)
    try:
        data = json.loads(table.read_text())
        if data.get("version") == TABLE_VERSION:
            return [Site(**s) for s in data["sites"]]
    except (OSError, ValueError, TypeError, KeyError):
        pass
    sites = extract(library)
    _save(sites, table)
    return sites
