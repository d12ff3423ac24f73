"""The simulator's exceptions: PyCUDA's own classes, with the facts behind each message.

PyCUDA's classes (`pycuda.driver.Error` and its subclasses) keep their names and bases, so code
that catches `drv.LogicError` or `drv.MemoryError` behaves the same on both backends (and
`MemoryError`, Python's built-in too, `except MemoryError:`). The two errors for what the
simulator lacks (`NotProvided`, `NeedsGPU`) are unsupported.py's.
"""

import builtins
import dataclasses

from .distances import distance_words, element_words

class Error(Exception):
    pass


class LogicError(Error):
    pass


class InvalidPointerError(LogicError):
    """A pointer argument that points into no live allocation: ``kind`` ("use after free",
    "wild pointer", or "out of bounds" just outside one), ``parameter`` (its index, 0-based),
    ``kernel``; for one out of bounds, ``allocation`` and ``offset`` as OutOfBoundsError's."""

    def __init__(self, msg, *, kind, parameter, kernel, allocation=None, offset=None):
        super().__init__(msg)
        self.kind, self.parameter, self.kernel = kind, parameter, kernel
        self.allocation, self.offset = allocation, offset


class LaunchError(Error):
    """pycuda.driver.LaunchError. The simulator's also carry the facts behind the message, for
    checkers and tools to read (never the text): ``kind`` ("out of bounds", "use after free", "wild
    pointer", "misaligned address", "misaligned or impossible address" (refused by the CPU, its
    address unknown), "return address overwritten" (by a local array's overrun), "no peer access",
    "assert", "divergent barrier", "warp mask", "division by zero", "stack overflow", "abort",
    "array bounds", "resources", "launch bounds", "warp matrix", "race", "uninitialised read", "time limit",
    "conversion", "shift" or "failed"), ``kernel``, ``block`` and ``thread`` ((x, y, z)), ``line``
    ("file.cu:12"), ``array`` and ``element`` (the parameter or __shared__ array, and the index, as
    the learner named them), ``address``; each None where the simulator does not know it. PyCUDA's
    own LaunchError has none of them: ``getattr(err, "kind", None)`` reads both."""

    def __init__(self, msg="", *, kind=None, kernel=None, block=None, thread=None, line=None,
                 array=None, element=None, address=None):
        super().__init__(msg)
        self.kind, self.kernel, self.block, self.thread = kind, kernel, block, thread
        self.line, self.array, self.element, self.address = line, array, element, address


class OutOfBoundsError(LaunchError):
    """An access outside every array a kernel may touch: ``allocation`` (its start and size in
    bytes) is the nearest live one, ``offset`` the access's distance in bytes from its start
    (negative before it, ``size`` or more past its end), ``is_write`` True, False or None. Where
    the bounds check of the instrumented build found it (include/sim_bounds.h), also ``size``
    (the bytes the access took), ``space`` ("global" or "shared") and ``length`` (the elements
    of the array, None where not known); in shared memory ``allocation`` is None and ``offset``
    counts from the start of the array, ``array``[``element``]. Where a plain launch's guard
    pages or canaries around the dynamic shared memory (the ``extern __shared__`` array) found
    it, ``space`` is "shared" and ``offset`` counts from the start of that memory: negative
    before it, else past the end of the launch's shared= bytes (``element`` and ``length`` None:
    the array's type is not known there). ``wrapped`` True where the index went below 0 as an
    unsigned int (s[threadIdx.x - 1] for thread 0): ``element`` is -k, ``index`` 2^32 - k."""

    def __init__(self, msg, *, allocation=None, offset=None, is_write=None, size=None, space=None,
                 length=None, wrapped=False, index=None, **facts):
        super().__init__(msg, **facts)
        self.allocation, self.offset, self.is_write = allocation, offset, is_write
        self.size, self.space, self.length = size, space, length
        self.wrapped, self.index = wrapped, index

    @property
    def relative(self):
        """Where the access fell, in words from the facts: as the learner indexes the array
        (element_words) where it is known, else against the allocation (distance_words), else
        its kind."""
        if self.length is not None and self.element is not None:
            return f"{self.array}[{self.element}], {element_words(self.element, self.length)}"
        if self.allocation is not None:
            words, end = distance_words(self.offset, self.allocation[1]), self.allocation[1]
            if self.size and 0 <= self.offset < end < self.offset + self.size:
                words += f", {self.size} bytes wide: past its end"
            return words
        return self.array or self.kind


class MisalignedAddressError(LaunchError):
    """CUDA's "misaligned address": an access ``misalignment`` bytes past a multiple of its
    ``alignment`` (16 for a uint4); ``address`` (None in shared), the rest OutOfBoundsError's."""

    def __init__(self, msg, *, alignment, misalignment, address=None, size=None, is_write=None,
                 allocation=None, offset=None, space=None, **facts):
        super().__init__(msg, kind="misaligned address", address=address, **facts)
        self.alignment, self.misalignment, self.size = alignment, misalignment, size
        self.is_write, self.allocation, self.offset, self.space = is_write, allocation, offset, space


@dataclasses.dataclass(frozen=True)
class Access:
    """One side of a race: the thread and block ((x, y, z)), its line, and what it ``does``:
    "reads it", "writes it" or "updates it atomically" (``atomic``)."""
    thread: tuple
    block: tuple
    line: str
    does: str
    atomic: bool = False

    @property
    def who(self):
        return f"thread {xyz(self.thread)} of block {xyz(self.block)}"

    # what a checker reads, never ``does``' words: a plain write (not an atomic update), a read
    writes, reads = property(lambda a: a.does == "writes it"), property(lambda a: a.does == "reads it")


def xyz(t):
    """(x, y, z) as CUDA's messages write a thread's or block's index: "(3, 0, 0)"."""
    return "(" + ", ".join(map(str, t)) + ")"


class RaceError(LaunchError):
    """A data race the race check found: ``first`` and ``second`` (Access), ``space`` ("shared"
    or "global"), ``hazard`` ("read-after-write", "write-after-read" or "write-after-write"),
    ``count`` (the hazards of the launch), ``within_warps`` (every one of them between lanes of
    one warp, where __syncwarp() is enough), ``fenced`` (only a fence lies between the two in
    the code), with ``array`` and ``element`` where it is known, and for a ``__shared__`` array
    ``length``, its elements (1 for a scalar; None where not known)."""

    def __init__(self, msg, *, first, second, space, hazard, count, within_warps, fenced=False,
                 length=None, **facts):
        super().__init__(msg, kind="race", line=second.line, **facts)
        self.first, self.second, self.space = first, second, space
        self.hazard, self.count, self.within_warps = hazard, count, within_warps
        self.fenced, self.length = fenced, length

    @property
    def same_line(self):
        """Both accesses on one line (a read-modify-write such as x += v)."""
        return self.first.line == self.second.line

    @property
    def place(self):
        if self.array is None:
            return f"{self.space} address 0x{self.address:x}"
        return f"{self.array}[{self.element}] ({self.space} memory)"

    @property
    def summary(self):
        """The race in one sentence, from the facts."""
        more = self.count - 1
        count = f" ({more} more hazard{'s' * (more != 1)} in this launch)" if more else ""
        fence = ", only a fence, at which no thread waits" if self.fenced else ""
        return (f"kernel '{self.kernel}' has a data race on {self.place}: {self.first.who} "
                f"{self.first.does} at {self.first.line}, and {self.second.who} "
                f"{self.second.does} at {self.second.line}, with no barrier between the two"
                f"{fence} (a {self.hazard} hazard){count}")


class UninitialisedReadError(LaunchError):
    """A read of memory that nothing wrote, which the init check found (kind "uninitialised
    read"): ``space`` ("global": since the array was allocated; "shared": by any thread of the
    block in this launch), ``size`` (the bytes the read took), ``count`` (such reads in the
    launch); for shared memory ``length``, the elements of the array (None where it is not
    known), and ``written``, the indices of those its block had written by the last
    __syncthreads() before the read, or its start (a tuple): what the read could count on; for
    global memory ``allocation`` (its start and size in bytes) and ``offset`` (the read's
    distance in bytes from its start), None where the address is in no allocation."""

    def __init__(self, msg, *, space, size, count, length=None, written=None, allocation=None,
                 offset=None, **facts):
        super().__init__(msg, kind="uninitialised read", **facts)
        self.space, self.size, self.count = space, size, count
        self.length, self.written = length, written
        self.allocation, self.offset = allocation, offset

    @property
    def who(self):
        return f"thread {xyz(self.thread)} of block {xyz(self.block)}"

    # what a checker reads, never ``does``' words: a plain write (not an atomic update), a read
    writes, reads = property(lambda a: a.does == "writes it"), property(lambda a: a.does == "reads it")

    @property
    def more(self):
        """" (3 more such reads in this launch)", or "" for the only one."""
        others = self.count - 1
        return f" ({others} more such read{'s' * (others != 1)} in this launch)" if others else ""

    @property
    def written_words(self):
        """What the block had written of a shared array, in words from the facts: "only
        warp_sums[0] to warp_sums[7] of its 32 elements"."""
        if not self.written:
            return "none of its elements" if self.length is None else \
                f"none of its {self.length} elements"
        runs, start = [], self.written[0]
        for prev, index in zip(self.written, [*self.written[1:], None]):
            if index != prev + 1:
                runs.append(f"{self.array}[{start}]" + (f" to {self.array}[{prev}]" if prev != start
                                                        else ""))
                start = index
        more = len(runs) - 3
        shown = ", ".join(runs[:3]) + (f" and {more} more run{'s' * (more != 1)}" if more > 0 else "")
        of = f" of its {self.length} elements" if self.length is not None else ""
        return f"only {shown}{of}"


class ConversionError(LaunchError):
    """A float-to-integer conversion whose result C++ leaves undefined (NaN, or a value outside
    the integer type's range) and a GPU gives differently from this CPU (kind "conversion"):
    ``value`` (the float or double, as a Python float), ``from_type`` and ``to_type`` (C types:
    "float", "unsigned char"), ``gpu`` and ``cpu`` (the integers each gives)."""

    def __init__(self, msg, *, value, from_type, to_type, gpu, cpu, **facts):
        super().__init__(msg, kind="conversion", **facts)
        self.value, self.from_type, self.to_type, self.gpu, self.cpu = value, from_type, to_type, gpu, cpu


class ShiftError(LaunchError):
    """A shift by the operand's width or more, or by a negative count, which C++ leaves undefined
    (kind "shift"): ``operand`` and ``operand_type`` (the value shifted, as an integer, and its C
    type), ``count`` and ``count_type``, ``operator`` ("<<" or ">>"; None where the source line
    does not tell) and ``gpu``, what a GPU gives (None where the operator is not known and the
    two would differ)."""

    def __init__(self, msg, *, operand, operand_type, count, count_type, operator, gpu, **facts):
        super().__init__(msg, kind="shift", **facts)
        self.operand, self.operand_type, self.count, self.count_type = operand, operand_type, count, count_type
        self.operator, self.gpu = operator, gpu


class WarpMaskError(LaunchError):
    """A warp function called against its mask's rules (kind "warp mask"): ``rule`` ("leaves out
    the caller": the calling lane is not in the mask; "names an exited lane"; or "lanes never
    arrive": lanes the mask names never call it there), ``mask`` and ``lane`` (the lane the rule
    is about: the caller, or the exited one; None for the third), and for the third
    ``waiting``, the threads of the block (their places in the block's order: 32 w + lane for
    lane of warp w) that wait in a warp function, and ``barrier``, the line of the
    __syncthreads() where other threads wait ("file.cu:12"; None when none do)."""

    def __init__(self, msg, *, rule, mask, lane, waiting=None, barrier=None, **facts):
        super().__init__(msg, kind="warp mask", **facts)
        self.rule, self.mask, self.lane, self.waiting = rule, mask, lane, waiting
        self.barrier = barrier


class ArrayBoundsError(LaunchError):
    """An index past the size an array was declared with (kind "array bounds"), as GCC's bounds
    check hands it over: ``element`` (the index), ``declared`` (the array's declared type,
    "float [12][36]"), ``length`` (the size of the dimension the index ran past: 12 there);
    ``wrapped`` True where it is an unsigned int that went below 0, 2^32 - k (``index`` too)."""

    def __init__(self, msg, *, declared, length, wrapped=False, index=None, **facts):
        super().__init__(msg, **facts)
        self.declared, self.length, self.wrapped, self.index = declared, length, wrapped, index


class TimeLimitError(LaunchError):
    """A launch stopped at the simulator's time limit (settings.time_limit): ``seconds``."""

    def __init__(self, msg, *, seconds, **facts):
        super().__init__(msg, kind="time limit", **facts)
        self.seconds = seconds


class LaunchBoundsError(LaunchError):
    """A block of more threads than the first number of the kernel's ``__launch_bounds__``, which
    a GPU refuses to launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested
    for launch"; kind "launch bounds"): ``max_threads`` (that number), ``threads`` (the block's)
    and ``block_dim`` (its shape, (x, y, z)), with ``kernel``. ``block`` and ``thread`` are None:
    no thread ran."""

    def __init__(self, msg, *, max_threads, threads, block_dim, **facts):
        super().__init__(msg, kind="launch bounds", **facts)
        self.max_threads, self.threads, self.block_dim = max_threads, threads, block_dim


class WarpSynchronousWarning(UserWarning):
    """A source whose warps count on their lanes running in step (a volatile shared array, no
    __syncwarp()), which the simulator runs one lane after another: ``lines`` ("kernel.cu:44",
    each volatile pointer or array)."""

    def __init__(self, lines):
        super().__init__(
            f"{lines[0]}: a volatile shared array read and written by the lanes of a warp with no "
            "__syncwarp() between the steps (the warp-synchronous idiom). A GPU runs the lanes in "
            "step in practice; the simulator runs them one after another, so its results here "
            "differ from a GPU's. By CUDA's rules since Volta this is a data race (the race check, "
            "CUDA_SIM_RACECHECK=1, reports it): add __syncwarp() between the steps, or use "
            "__shfl_down_sync.")
        self.lines = lines


class RuntimeError(Error):  # noqa: A001 - the name PyCUDA uses
    pass


class MemoryError(Error, builtins.MemoryError):  # noqa: A001
    pass


class CompileError(Error):
    """pycuda.driver.CompileError: msg, the command line, and the compiler's output."""
    diagnostics = ()  # the simulator's: g++'s errors in the learner's file (compile/diagnosed.py)

    def __init__(self, msg, command_line, stdout=None, stderr=None):
        super().__init__(msg)
        self.msg, self.command_line, self.stdout, self.stderr = msg, command_line, stdout, stderr

    def __str__(self):
        result = self.msg
        if self.command_line:
            result += "\n[command: %s]" % " ".join(map(str, self.command_line))
        if self.stderr:
            result += "\n[stderr:\n%s]" % self.stderr
        return result


class HostFunctionError(CompileError):
    """Device code calls a function that only the host has (nvcc: "calling a __host__ function
    from a __global__ function is not allowed"): ``function`` as the learner wrote it, and the
    ``file`` and ``line`` of its first call (None where the compiler kept no line)."""

    def __init__(self, msg, function, file=None, line=None, command_line=None):
        super().__init__(msg, command_line)
        self.function, self.file, self.line = function, file, line


class MathArgumentError(CompileError):
    """Device code calls a math function on argument types CUDA has no device version for (sqrt
    of an int, fmin of a float and an int, min of an int and a float), which nvcc refuses:
    ``function``, the ``arguments``' C types as the compiler named them, and the ``file`` and
    ``line`` of the call (None where the compiler kept no line)."""

    def __init__(self, msg, function, arguments, file=None, line=None, command_line=None):
        super().__init__(msg, command_line)
        self.function, self.arguments = function, tuple(arguments)
        self.file, self.line = file, line


class NotSimulatedError(CompileError):
    """Device code calls a CUDA function that the simulator leaves out
    (compile/not_simulated.py): ``function`` and its ``feature``, the ``file`` and ``line`` of
    the first call, and ``calls``, every such call as (function, feature, file, line)."""

    def __init__(self, msg, function, feature, file, line, calls, command_line=None):
        super().__init__(msg, command_line)
        self.function, self.feature, self.file, self.line = function, feature, file, line
        self.calls = calls


class NeedsNewerGPUError(CompileError):
    """Device code uses what GPUs of the simulated compute capability do not have
    (compile/capabilities.py): a function (nvcc: 'identifier ... is undefined'), or a warp matrix
    fragment (nvcc: 'incomplete type ... is not allowed'; a bfloat16 or TF32 one before 8.0).
    ``function`` is the function's name, or ``wmma::fragment``; the capability it ``needs`` and
    the ``device``'s, as (major, minor); the ``file`` and ``line`` of the call or declaration."""

    def __init__(self, msg, function, needs, device, file, line, command_line=None):
        super().__init__(msg, command_line)
        self.function, self.needs, self.device = function, needs, device
        self.file, self.line = file, line


class ExternCError(CompileError):
    """A C++ header (``header``: cooperative_groups.h, ...) included at ``file``, ``line`` inside
    SourceModule's extern "C" { }: nvcc refuses it too, and no_extern_c=True is the cure."""

    def __init__(self, msg, header, file=None, line=None, command_line=None):
        super().__init__(msg, command_line)
        self.header, self.file, self.line = header, file, line
