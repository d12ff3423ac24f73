"""The warp-synchronous idiom, which the simulator cannot run as a GPU does: said at compile time.

Older material (Mark Harris's reduction #6, the first editions of PMPP) unrolls a reduction's last
warp on a `volatile` shared array with no barrier, counting on the warp's 32 lanes running in step:
`s[t] += s[t + 16]; s[t] += s[t + 8]; ...`. Since Volta (compute capability 7.0) a GPU schedules
the lanes independently and CUDA calls this a data race, but in practice the lanes still run in
step there and the sums come out right. The simulator runs a block's threads one after another
between two barriers, so lane 0 reads s[16] before lane 16 has added into it: a different sum.
Running the lanes in step would need a hook at every volatile access, which C++ does not give (a
prelude cannot change how `volatile` reads and writes). So SourceModule warns, at the line, with
the race check's advice; the race check itself keeps reporting the race.

What is looked for: a `volatile` pointer or array, one of whose elements is assigned from another
of its elements (`v[t] += v[t + 16]`, `v[t] = min(v[t], v[t + 8])`), in a source that declares
`__shared__` memory and never calls `__syncwarp()` (a source that does orders its lanes itself,
and runs the same here). A volatile flag that one thread sets and another waits for is left alone.
"""

import re
import warnings

from ..errors import WarpSynchronousWarning
from .source import numbered_lines, without_comments

# a volatile pointer's or array's name: `volatile float *v`, `float volatile s[64]`
_VOLATILE_POINTER = re.compile(r"\bvolatile\b[^;{}()=,]*?(?:\*\s*(\w+)|(\w+)\s*\[)")
def idiom_lines(source):
    """The lines ("kernel.cu:44") that declare a volatile pointer or array, where the source uses
    shared memory and no __syncwarp(); [] elsewhere."""
    code = without_comments(source)
    if "__shared__" not in code or re.search(r"\b__syncwarp\s*\(", code):
        return []
    return [f"{file}:{line}" for file, line, text in numbered_lines(code)
            if any(_updated_from_itself(code, m.group(1) or m.group(2))
                   for m in _VOLATILE_POINTER.finditer(text))]


def _updated_from_itself(code, name):
    """Whether an element of ``name`` is assigned from another of its elements."""
    element = rf"\b{re.escape(name)}\s*\["
    return re.search(rf"{element}[^\]]*\]\s*[-+*/|&^]?=[^;]*{element}", code) is not None


def warn(source, stacklevel=3):
    """A WarpSynchronousWarning for the first line of the idiom in ``source``, if it has one."""
    lines = idiom_lines(source)
    if lines:
        warnings.warn(WarpSynchronousWarning(lines), stacklevel=stacklevel)
