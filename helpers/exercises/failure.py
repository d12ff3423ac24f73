"""What a failed launch was, read from the error's fields, and the hint that fits its kind.

A kernel fails in a handful of ways, and each wants its own hint: an index past the size a
``__shared__`` array was declared with wants the declaration looked at, not the bounds guard; a
read-modify-write race on a shared accumulator wants ``atomicAdd`` on that accumulator, not
advice about another array; a race between the lanes of one warp wants a shuffle, one between
warps a ``__syncthreads()``, one between blocks something else again (blocks cannot wait for each
other). The simulator's errors (``helpers.sim.errors``) carry the facts: ``kind``; for a race both
accesses (thread, block, line), the memory space and the hazard; for an access outside every
array the allocation and the offset. ``Failure`` adds what the launch knows (its block's shape,
which says whether two threads are in one warp), and ``hint(failure)`` picks the hint by kind.
``describe(error, arrays)`` says what happened in words made from the same fields: who, the
line, and, given the launch's arrays by their start address, the one an access ran past ("a read
of Bt at matmul_bt.cu:20, 1 byte past the end of its 8192 bytes").

An exercise knows more: which of its arrays is the accumulator, how large its tile must be. Its
``refine(failure)`` is a generator of hints, most specific first (the ``julia._wrong_answers``
pattern): ``mistake(problem, error, ...)`` takes the first it yields, else the hint by kind.
Checkers read the fields, never the English, so a reworded message changes no verdict.

PyCUDA's errors carry no facts (a GPU says "an illegal memory access was encountered"): there,
and for an access outside every array on the simulator, the exercise's ``guard_hint`` (the
``crash_hint`` of ``KernelExercise``) is the hint.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable

GUARD_HINT = ("a thread read or wrote outside its array: check each index against its array's "
              "size, and the bounds guard (threads past the end must not read or write)")

WRAPPED_HINT = ("threadIdx.x (and blockIdx.x, blockDim.x) are unsigned: threadIdx.x - 1 for thread 0 "
                "wraps to 4294967295; test the thread before subtracting (if (threadIdx.x > 0)), "
                "or compute the index in an int first: int t = threadIdx.x;")
"""The hint for an index that went below 0 as an unsigned int (the error's ``wrapped`` field)."""

LOOP_HINT = ("a loop whose condition never becomes false: check that each loop's variable moves "
             "towards its end, every time round")


@dataclasses.dataclass(frozen=True)
class Failure:
    """A launch's ``error`` (the simulator's, with fields, or PyCUDA's, without), the launch's
    ``block`` shape and the ``launch`` itself (a ``kernel.Launch``: its arguments, for a hint
    that needs the sizes), and the ``kernel`` launched (its ``Kernels``, for a hint that reads
    its words), where they are known."""

    error: BaseException
    block: tuple | None = None
    launch: object = None
    kernel: object = None

    @property
    def kind(self) -> str | None:
        return getattr(self.error, "kind", None)

    @property
    def place(self) -> str:
        """The element the error is about, as the learner wrote its array: "warp_sums[3]"."""
        err = self.error
        return f"{err.array}[{err.element}]" if getattr(err, "array", None) else "it"

    @property
    def update(self) -> bool:
        """A race of a read-modify-write (x += v, x++): both accesses on one line, one of them a
        read. (Two plain stores on one line are a write-after-write.)"""
        return (self.kind == "race" and self.error.same_line
                and self.error.hazard != "write-after-write")

    @property
    def between(self) -> str | None:
        """For a race: "blocks", "warps" (of one block) or "lanes" (of one warp). "lanes" only
        where every hazard of the launch lies within one warp (``within_warps``): a first pair of
        lanes beside hazards between warps needs the barrier, not a warp's remedy."""
        if self.kind != "race":
            return None
        first, second = self.error.first, self.error.second
        if first.block != second.block:
            return "blocks"
        one_warp = self.warp(first.thread) == self.warp(second.thread)
        return "lanes" if one_warp and self.error.within_warps else "warps"

    def warp(self, thread) -> int:
        """The warp of ``thread`` ((x, y, z)) in its block: its rank in the block over 32."""
        bx, by = (self.block or (1 << 30, 1))[:2]
        x, y, z = thread
        return (x + bx * (y + by * z)) // 32


def line_number(where) -> int:
    """The line of a place as an error names it, "file.cu:12" (an Access's ``line``, an error's
    ``line`` or ``barrier``): 12."""
    return int(str(where).rsplit(":", 1)[1])


def describe(error, arrays=None) -> str:
    """What happened, who did it and where, in words made from ``error``'s fields (for
    PyCUDA's errors, which have none, their own message). ``arrays``: the launch's arrays by
    their start address ({address: the parameter's name}), to name the one an access outside
    its allocation ran past."""
    from helpers.sim.distances import distance_words, element_words
    from helpers.sim.errors import xyz as _xyz

    kind, err = getattr(error, "kind", None), error
    who = (f"thread {_xyz(err.thread)} of block {_xyz(err.block)}"
           if getattr(err, "thread", None) and getattr(err, "block", None) else "a thread")
    if kind == "race":
        return (f"a data race on {err.place}: {err.first.who} {err.first.does} at "
                f"{err.first.line}, and {err.second.who} {err.second.does} at {err.second.line}")
    if kind == "uninitialised read":
        return (f"{err.array}[{err.element}] is read before anything wrote it: {who} reads it at "
                f"{os.path.basename(err.line or '?')}")
    if kind == "out of bounds" and err.block is not None:
        who = f"thread {_xyz(err.thread)}" if err.thread else "one of its threads"
        access = {True: "a write", False: "a read"}.get(err.is_write, "an access")
        at, start = f" at {os.path.basename(err.line)}" if err.line else "", \
            (err.allocation or (None,))[0]
        if getattr(err, "wrapped", False):   # below 0 as an unsigned int: named as it held it
            from helpers.sim.run.wrapped import index_words
            what = f" of {err.array}[{err.index}]{at}: {index_words(err.element, err.index)}"
        elif err.length is not None and err.element is not None:     # as the learner indexed it
            what = (f" of {err.array}[{err.element}]{at}, "
                    f"{element_words(err.element, err.length)}")
        elif (arrays or {}).get(start):   # an address in the allocation a parameter points to
            size = err.allocation[1]
            what = f" of {arrays[start]}{at}, " + distance_words(err.offset, size).replace(
                f"a {size}-byte allocation", f"its {size} bytes")
        else:
            what = f"{at}, {err.relative}"
        return f"block {_xyz(err.block)}, {who}: {access}{what}"
    if kind == "warp mask" and getattr(err, "rule", None) in MASK_RULES and err.line:
        return (f"{who} {MASK_RULES[err.rule][0].format(mask=err.mask or 0, lane=err.lane)} at "
                f"{os.path.basename(err.line)}")
    if kind == "warp matrix" and getattr(err, "rule", None) == "arguments differ":
        return f"{who}: {matrix_words(err, arrays)}"
    if kind == "local array overrun" and getattr(err, "thread", None):  # caught before it
        access = {True: "wrote", False: "read"}.get(getattr(err, "is_write", None), "went")
        at = f" at {os.path.basename(err.line)}" if err.line else ""
        return f"{who} {access} past the end of a local array{at}, through a pointer into it"
    if kind == "local array overrun":   # the thread's record was written over: no thread
        return (f"in block {_xyz(err.block)} a thread wrote past the end of a local array, up its "
                "stack over the record where the simulator keeps its threadIdx and blockIdx "
                "(so which thread is not known)")
    if kind in DESCRIPTIONS and err.line:
        index = f" (index {err.element})" if kind == "array bounds" and err.element is not None \
            else ""
        what = DESCRIPTIONS[kind] if not _below_zero(err) else "indexed an array before its start"
        if kind == "array bounds" and getattr(err, "wrapped", False):
            from helpers.sim.run.wrapped import index_words
            return (f"{who} indexed an array at {err.index} at {os.path.basename(err.line)}: "
                    f"{index_words(err.index - (1 << 32), err.index)}")
        return f"{who} {what}{index} at {os.path.basename(err.line)}"
    return str(err).removeprefix("cuLaunchKernel failed: ")


def matrix_words(err, arrays=None) -> str:
    """What a WarpMatrixError's lanes passed to load_matrix_sync: "load_matrix_sync at k.cu:15
    was given a pointer that differs between lanes (lane 0: A, lane 1: A + 1)", each pointer by
    the array a parameter points to and its element where ``arrays`` names it."""
    at = f" at {os.path.basename(err.line)}" if err.line else ""
    if err.pointers[0] == err.pointers[1]:
        what, values = "a leading dimension", err.ldms
    else:
        what, values = "a pointer", [_pointer(err, i, arrays) for i in (0, 1)]
    lanes = ", ".join(f"lane {lane}: {value}" for lane, value in zip(err.lanes, values))
    return f"load_matrix_sync{at} was given {what} that differs between lanes ({lanes})"


def _pointer(err, i, arrays):
    """The ``i``th pointer of a WarpMatrixError as the learner wrote it: "A + 24"."""
    name = (arrays or {}).get((err.allocations[i] or (None,))[0])
    if name is None:
        return f"0x{err.pointers[i]:x}"
    step, rest = divmod(err.offsets[i], err.element_size or 1)
    bytes_ = f" (+ {rest} bytes)" if rest else ""
    return f"{name} + {step}{bytes_}" if step else f"{name}{bytes_}"


MATRIX_HINT = ("load_matrix_sync is a warp-wide call: every lane passes the same pointer (the "
               "tile's first element) and the same leading dimension, and the call gives each lane "
               "the elements it holds")
"""The hint for a WarpMatrixError whose lanes passed different arguments."""


DESCRIPTIONS = {
    "array bounds": "indexed an array past the size it was declared with",
    "warp mask": "called a warp function whose mask names lanes that never call it there",
    "divergent barrier": "waits at a __syncthreads() that other threads of its block never reach",
    "division by zero": "divided an integer by zero",
    "return address overwritten": "wrote past the end of a local array (the overrun reached the "
                                  "return address kept beside it on the thread's stack, and the "
                                  "function's return crashed)",
}
"""What a thread did, for the kinds of error whose facts are the thread and the line."""

MASK_RULES = {  # a warp mask error's rule (its field): (what the thread did, the hint)
    "leaves out the caller": (
        "called a warp function whose mask, 0x{mask:08x}, leaves out its own lane {lane}",
        "every lane that calls a warp function must be in its mask, and every lane the mask "
        "names must call it there too: 0xffffffff names all 32"),
    "names an exited lane": (
        "called a warp function whose mask, 0x{mask:08x}, names lane {lane}, which had returned",
        "a lane that has returned can take part in no warp function: keep every lane the mask "
        "names until the call (let a lane with nothing to add bring 0), or leave it out of the "
        "mask"),
    "lanes never arrive": (
        "called a warp function whose mask names lanes that never call it there", None),
}


def hint(failure: Failure, guard_hint: str = "") -> str:
    """The hint for ``failure``'s kind, from its fields."""
    kind = failure.kind
    if kind == "race":
        return race_hint(failure)
    if getattr(failure.error, "wrapped", False):
        return WRAPPED_HINT
    if kind == "array bounds" and _below_zero(failure.error):
        return ("an index into an array declared with a fixed size came out below 0: check how "
                "it is worked out (a subtraction, or a thread's number where its place in the "
                "array is meant)")
    if kind == "array bounds":
        return ("an array declared with a fixed size (a __shared__ array, say) is indexed past "
                "its end: declare it one larger than the largest index that reaches it (a "
                "size counts the elements, indices 0 to size - 1: count the elements the "
                "biggest block needs), or keep the index below the size")
    if kind == "warp mask" and (MASK_RULES.get(getattr(failure.error, "rule", None)) or
                                (0, None))[1]:
        return MASK_RULES[failure.error.rule][1]
    if kind == "warp mask":
        return ("a warp function's mask (0xffffffff names all 32 lanes) must name only lanes "
                "that call it there together, and lanes that took the other way at an if, or "
                "had returned, never do: call it outside the if, from every lane the mask "
                "names, and let a lane with nothing to add bring 0")
    if kind == "warp matrix" and getattr(failure.error, "rule", None) == "arguments differ":
        return MATRIX_HINT
    if kind == "divergent barrier":
        return ("every thread of the block that has not returned must reach the same "
                "__syncthreads(): keep barriers out of an if that only some threads enter, and "
                "let threads return only after the last barrier")
    if kind == "uninitialised read":
        return uninitialised_hint(failure)
    if kind == "time limit":
        return LOOP_HINT
    if kind in ("return address overwritten", "local array overrun"):
        return ("a local array (declared in the kernel, or in a function it passes it to) is "
                "indexed past its end: check each loop that reads or writes one against the size "
                "it was declared with")
    if kind == "division by zero":
        return "check what the divisor can be before dividing by it"
    err = failure.error
    if kind == "out of bounds" and getattr(err, "length", None) and getattr(err, "array", None):
        check = guard_hint or "a guard like if (i < n), or the size the array is declared with"
        return (f"{err.array} has {err.length} elements, {err.array}[0] to "
                f"{err.array}[{err.length - 1}]: check that index against that size ({check})")
    return guard_hint or GUARD_HINT


def race_hint(failure: Failure) -> str:
    """The hint for a race, by what the two accesses were and who made them."""
    err, place, between = failure.error, failure.place, failure.between
    if failure.update:
        apart = (" (threads of different blocks cannot wait for each other)"
                 if between == "blocks" else "")
        return (f"{place} is updated by several threads at once{apart}: x += v is a read, an add "
                "and a write, and updates are lost when threads meet there: update it with "
                "atomicAdd(&x, v), which no other thread can split")
    if err.first.atomic != err.second.atomic:
        return (f"an atomic is safe only against other atomics: {place} is also stored or read "
                "plainly by another thread, which nothing orders with the atomics (blocks cannot "
                "wait for each other): give it its start value before the launch (from the host), "
                "and only update it atomically in the kernel")
    if err.hazard == "write-after-write":
        what, how = ("shared array", "loaded") if err.space == "shared" else ("array", "stored")
        return (f"two threads store into the same element of the {what}: each element must be "
                f"{how} by one thread, so check its indices and the loops' steps")
    if between == "blocks":
        return ("the two threads are in different blocks, and blocks cannot wait for each other "
                "within a launch: let a block read only what its own threads wrote (or what an "
                "earlier launch wrote)")
    barrier = (f"put a __syncthreads() between the write and the read ({err.first.line} and "
               f"{err.second.line}), where every thread of the block reaches it (not inside an "
               "if, and before any thread returns)")
    if getattr(err, "fenced", False):
        return ("a fence is not a barrier: __threadfence() and __threadfence_block() order the "
                "calling thread's own reads and writes, and no other thread waits there: "
                + barrier.replace("put a __syncthreads()", "put a __syncthreads() in its place,", 1))
    if between == "lanes":
        return ("the two threads are lanes of one warp, and even those are not kept in step "
                "(not since Volta): " + barrier)
    return barrier


def shared_by_the_block(failure: Failure):
    """``(problem, hint)`` for a race on a ``__shared__`` variable of one element (a scalar) that
    two threads stored into plainly: a value each thread needs its own copy of (an index, a
    counter, a running sum) declared ``__shared__``, one for the whole block. For the exercises
    whose kernels keep no value for the whole block in shared memory (a ``refine``)."""
    err = failure.error
    if failure.kind != "race" or err.space != "shared" or getattr(err, "length", None) != 1 or \
            not (err.first.writes and err.second.writes):
        return
    name = err.array
    yield (f"{name} is declared __shared__: one {name} for the whole block, not one for each "
           f"thread, so the block's threads all write and read the same {name} (the race check "
           f"on the simulator: {err.first.who} wrote it at {err.first.line}, and "
           f"{err.second.who} at {err.second.line}, with no barrier between the two)",
           f"declare {name} without __shared__, a plain local each thread keeps in its own "
           "register")


def extern_without_bytes(failure: Failure) -> bool:
    """Whether ``failure`` is an access to the kernel's ``extern __shared__`` array (the dynamic
    shared memory: ``space`` "shared", its ``offset`` from that memory's start, no ``length``) in a
    launch that gives it no bytes (``Launch.shared`` 0): an array declared extern whose size the
    exercise's launch never gives, so its first element already lies outside it."""
    err = failure.error
    return (failure.kind == "out of bounds" and getattr(err, "space", None) == "shared"
            and getattr(err, "length", None) is None and getattr(err, "offset", None) is not None
            and getattr(failure.launch, "shared", None) == 0)


def uninitialised_hint(failure: Failure) -> str:
    err = failure.error
    if err.space == "shared":
        return (f"by then its block had stored {err.written_words}: a thread may read a shared "
                "element only once it stored it itself, or once another thread of its block "
                "stored it with a __syncthreads() between the two")
    return (f"nothing wrote {failure.place} before it was read (gpuarray.empty is not zeroed): "
            "write it before reading it, or add up in a local variable that starts at 0.0f")


Refine = Callable[[Failure], Iterable[str | tuple[str, str]]]
"""An exercise's hints for a failure, most specific first (a generator); nothing when it has
none better than the hint by kind. A ``(problem, hint)`` pair instead names the mistake itself,
where the error's fields show it (the problem then replaces the crash's words)."""


def mistake(problem: str, error: BaseException, *, block: tuple | None = None,
            refine: Refine | None = None, guard_hint: str = "", launch=None,
            kernel=None) -> tuple[str, str]:
    """``(problem, hint)`` for a launch (``launch``, of ``kernel``, where known) that failed
    with ``error``: the first hint the exercise's ``refine`` yields for it (or its ``(problem,
    hint)``), else the hint by kind (``guard_hint`` for an access outside every array, and for
    PyCUDA's errors, which carry no kind)."""
    failure = Failure(error, block, launch, kernel)
    if (over := past_launch_bounds(failure)) is not None:   # the kernel never ran
        return over
    refined = next(iter(refine(failure)), None) if refine else None
    if isinstance(refined, tuple):   # the exercise named the mistake from the error's fields
        return refined
    return problem, refined or hint(failure, guard_hint)


def past_launch_bounds(failure: Failure) -> tuple[str, str] | None:
    """``(problem, hint)`` for a launch refused because its block has more threads than the
    kernel's ``__launch_bounds__`` allows: from the simulator's error's fields (``max_threads``,
    ``threads``, ``block_dim``); for PyCUDA's LaunchError, which has none, from the simulated
    twin's MAX_THREADS_PER_BLOCK (its bound) and the launch's block. None for any other."""
    err = failure.error
    if failure.kind == "launch bounds":
        bound, threads, shape = err.max_threads, err.threads, err.block_dim
    else:
        bound, shape = _twins_bound(failure), failure.block
        threads = shape[0] * shape[1] * shape[2] if shape else 0
        if bound is None or threads <= bound:
            return None
    return (f"your kernel's __launch_bounds__({bound}) allows at most {bound} threads a block, "
            f"but the exercise launches blocks of {threads} threads, {tuple(shape)}: a GPU "
            "refuses that launch (too many resources requested for launch), and the kernel "
            "never runs",
            f"__launch_bounds__(N) promises the compiler that no block has more than N threads: "
            f"make N at least the threads of every block the kernel is launched with ({threads} "
            "here), or drop __launch_bounds__")


def _twins_bound(failure: Failure) -> int | None:
    """For PyCUDA's LaunchError (no kind): the threads a block of the kernel may have, as its
    simulated twin (``Kernels.simulated``) has them from its __launch_bounds__; else None."""
    from helpers.backend import drv

    twin = getattr(failure.kernel, "simulated", None)
    if failure.kind is not None or not isinstance(failure.error, drv.LaunchError):
        return None
    return getattr(twin, "max_threads_per_block", None)


def _below_zero(err) -> bool:
    """Whether an array-bounds error's index is negative (as the learner's signed index holds it)."""
    return getattr(err, "kind", None) == "array bounds" and (getattr(err, "element", None) or 0) < 0
