"""What the simulator sees in a learner's kernel, on either backend: races, crashes and the memory
trace.

A missing ``__syncthreads()`` or a plain ``bins[v]++`` where several threads meet often gives the
right answer by luck: on a GPU when the threads happen not to collide, on the simulator because
it runs a block's threads one after another. A checker that only compares results lets such a
kernel pass. The simulator's race check (``helpers.sim.settings``' ``racecheck``) remembers who
wrote and read every shared and global location since the last barrier, so it finds the race
whatever order the threads ran in; its memory trace (``helpers.sim.microscope.trace``) counts
the kernel's requests and atomics, as Nsight Compute would, so a checker can tell a kernel that
reads its neighbours from a shared tile from one that reads each from global memory. The
simulator ships with the course, so a checker runs the learner's file there even when the
notebook runs on a GPU.

An exercise that asks for this is a ``KernelExercise`` with ``simulated=`` set: its detectors get
``kernel.Kernels``, and ``observe`` runs one of its ``Launch``es on the simulator, race-checked
and traced, once per check. ``race_mistake`` and ``observed_mistakes`` turn what it saw into a
mistake whose hint fits its kind (``helpers.exercises.failure``), refined by the exercise;
``observed_launch`` makes of them the detectors of the cases the runner launches on the simulator
alone.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re

import numpy as np

from helpers.exercises import failure
from helpers.exercises.common import Input, Output, device_arguments, time_limit
from helpers.exercises.verdict import KernelArgumentError


@dataclasses.dataclass(frozen=True)
class Observed:
    """One launch on the simulator: ``error``, the simulator's error if it failed (a RaceError
    when the race check found a race), ``stats`` (helpers.sim.microscope.trace.KernelStats: the
    requests and atomics; None after an error), the launch's ``blocks`` (how many) and ``block``
    (its shape), ``outs``, a ``common.Result`` of each output (what the simulator computed),
    and ``trace``, the launch's ``KernelTrace``, where ``observe`` was asked to keep its first
    accesses (``accesses``: a record array with array, shared, write, ...); ``launch``: the
    ``kernel.Launch`` it ran."""

    error: object | None
    stats: object | None
    blocks: int
    outs: list
    block: tuple = (1, 1, 1)
    trace: object = None
    launch: object = None
    starts: tuple = ()

    @property
    def accesses(self):
        return None if self.trace is None else self.trace.accesses()

    @property
    def race(self):
        return self.error if getattr(self.error, "kind", None) == "race" else None

    @property
    def crash(self):
        return None if self.error is None or self.race else self.error


def observe(kernels, launch, key: str = "observed", accesses: int = 0,
            racecheck: bool = True) -> Observed:
    """Launch ``kernels.simulated`` (a ``kernel.Kernels``) as ``launch`` (a ``kernel.Launch``)
    says, on the simulator, race-checked (unless ``racecheck`` is false) and traced, keeping its
    first ``accesses`` accesses (a block's threads run one after another there); once per check
    for each ``key`` (kept in ``kernels.seen``)."""
    if key in kernels.seen:
        return kernels.seen[key]
    from helpers.sim import driver, gpuarray
    from helpers.sim.microscope.trace import trace
    from helpers.sim.settings import settings

    kernel, error, stats, kept = kernels.simulated, None, None, None
    args = device_arguments([exact(a) for a in launch.args] if kernels.exact else launch.args,
                            gpuarray)
    with settings.changed(racecheck=racecheck, time_limit=time_limit()), \
            trace(accesses=accesses) as t:
        try:
            kernel(*args, block=launch.block, grid=launch.grid, shared=launch.shared)
        except TypeError as err:  # the arguments the kernel does not take
            raise KernelArgumentError(str(err)) from err
        except driver.Error as err:
            error = err
    if error is None and t.launches:
        stats = t[kernel.name]
        kept = t.launches[-1] if accesses else None
    outs = [spec.read([spec.fetch(a)]) for a, spec in zip(args, launch.args)
            if isinstance(spec, Output)]
    grid = tuple(launch.grid) + (1,)
    starts = tuple(None if np.isscalar(a) else int(getattr(a, "gpudata", a)) for a in args)
    kernels.seen[key] = Observed(error, stats, grid[0] * grid[1], outs, tuple(launch.block), kept,
                                 launch, starts)
    return kernels.seen[key]


def exact(arg):
    """``arg``, an ``Input`` without the junk around it: on the simulator a read past an input's
    end (or before its start) is then an access out of bounds, found exactly, where the junk
    the cases put around it let a kernel that reads before its guard pass (the cases launched
    on the simulator alone, after every other case passed: ``Kernels.exact``)."""
    return dataclasses.replace(arg, before=0, after=0) if isinstance(arg, Input) else arg


def traced(kernels, launch):
    """The trace's figures of ``launch`` on the simulator, for a speed rule; a launch that failed
    there (a race of threads that write the same values, which the cases' outputs cannot show)
    raises its error, a mistake of the launch that rates the kernel (``KernelExercise``)."""
    seen = observe(kernels, launch)
    if seen.error is not None:
        raise seen.error
    return seen.stats


def race_mistake(error, array_hint: str, block=None, refine=None, launch=None):
    """``(problem, hint)`` for a launch (``launch``, where known) that failed on the simulator
    (its error, read by its fields: ``helpers.exercises.failure``), the hint fitting its kind,
    and for a race its memory space, hazard and threads. ``array_hint`` says what each thread
    should write, for two threads that stored into one element of global memory; ``block``, the
    launch's block shape; ``refine``, the exercise's own hints."""
    def hints(seen):
        if refine:
            yield from refine(seen)
        if seen.kind == "race" and seen.error.space == "global" and \
                seen.error.hazard == "write-after-write":
            yield array_hint

    if error.kind != "race":
        return failure.mistake(f"the kernel failed on the simulator: "
                               f"{failure.describe(error)}", error,
                               block=block, refine=hints, launch=launch)
    return failure.mistake(f"{error.summary}.", error, block=block, refine=hints, launch=launch)


def grid_for_block(seen, array: str, size: int, index: str = "i", things: str = "elements"):
    """Two threads of different blocks that stored one element of ``array`` (``size`` of them),
    each at ``index`` = blockIdx.x * gridDim.x + threadIdx.x (gridDim where blockDim belongs):
    the blocks overlap, and the elements past the last block's reach get no thread."""
    err, launch = seen.error, seen.launch
    if seen.kind != "race" or err.hazard != "write-after-write" or err.array != array or \
            launch is None:
        return
    grid, block = launch.grid[0], launch.block[0]
    first, second = err.first, err.second
    if grid == block or first.block == second.block or any(
            a.block[0] * grid + a.thread[0] != err.element for a in (first, second)):
        return
    reach = np.arange(grid)[:, None] * grid + np.arange(block)
    missed = np.flatnonzero(~np.isin(np.arange(size), reach))
    left = f", and {things} {missed[0]} to {size - 1} got no thread" if missed.size and \
        np.array_equal(missed, np.arange(missed[0], size)) else ""
    yield (f"{array}[{err.element}] was stored by {first.who} and by {second.who}: {index} = "
           f"blockIdx.x * gridDim.x + threadIdx.x starts block b's {things} at b * {grid} "
           f"(gridDim.x, the number of blocks), not b * {block} (blockDim.x, the threads in a "
           f"block): the blocks overlap{left}", f"blocks lie blockDim.x {things} apart (gridDim.x "
           f"is how many blocks there are): {index} = blockIdx.x * blockDim.x + threadIdx.x")


def accesses_of(kernels, launch, key: str, accesses: int):
    """The first ``accesses`` accesses a trace of ``launch`` on the simulator kept (``observe``,
    without the race check), as a record array; None where the launch failed there or the trace
    kept none."""
    seen = observe(kernels, launch, key=key, accesses=accesses, racecheck=False)
    return None if seen.error is not None else seen.accesses


def observed_mistakes(observed: Observed, refine=None, wrong: str = ""):
    """What the simulator found, as a mistake: a launch that failed there, a race among them,
    with the hint for its kind (``helpers.exercises.failure``; ``refine``: the exercise's own,
    most specific first). ``wrong``: what was wrong in the case at hand, which the simulator's
    launch explains. Yields nothing when it found nothing."""
    failed, race = ((f"{wrong}, and on the simulator the kernel failed",
                     f"{wrong}, and on the simulator the race check found a data race") if wrong
                    else ("the kernel failed on the simulator",
                          "the simulator's race check found a data race"))
    if observed.error is None:
        return
    problem = (f"{race}: {observed.race.summary}" if observed.race else
               f"{failed}: {failure.describe(observed.crash)}")
    yield failure.mistake(problem, observed.error, block=observed.block, refine=refine,
                          launch=observed.launch)


def observed_launch(launch, refine=None):
    """The ``observed`` of a ``KernelExercise`` whose cases marked to be launched on the simulator
    alone show what the race check and the crashes find there: ``observed_mistakes`` of the
    case's ``launch(case)`` (``refine``: the exercise's own hints)."""
    return lambda kernels, case: observed_mistakes(observe(kernels, launch(case)), refine)


def syncwarp_first(kernels, refine):
    """``refine`` (an exercise's reading of a crash or a race: failure -> mistakes), after
    ``syncwarp_between``: a race across a __syncwarp() is named as that first."""
    def refined(failure):
        yield from syncwarp_between(kernels, failure)
        yield from refine(failure)
    return refined


def syncwarp_between(kernels, failure):
    """(problem, hint) for a race between threads of two warps of a block (``failure``'s error,
    read by its fields) across a __syncwarp() on a line of the learner's source between the two
    accesses' lines (the simulated twin's source, numbered as the compiler numbers it): a barrier
    that waits for one warp alone. Nothing for another failure."""
    from helpers.sim.compile.source import numbered_lines

    err, source = failure.error, getattr(kernels.simulated, "source", None)
    if failure.between != "warps" or not source:
        return
    (file, a), (_, b) = (access.line.rsplit(":", 1) for access in (err.first, err.second))
    low, high = sorted((int(a), int(b)))
    lines = [number for name, number, text in numbered_lines(source)
             if os.path.basename(name) == os.path.basename(file) and low < number < high
             and re.search(r"\b__syncwarp\s*\(", text.split("//")[0])]
    if not lines:
        return
    place = f"{err.array}[{err.element}]" if err.array else "it"
    one, two = ((a.thread[0] if not any(a.thread[1:]) else a.thread, failure.warp(a.thread),
                 a.does, a.line)
                for a in (err.first, err.second))
    yield (f"the __syncwarp() at {file}:{lines[0]} waits only for the 32 threads of its own warp, "
           f"not for the block: thread {one[0]} (warp {one[1]}) {one[2].replace(' it', ' ' + place)}"
           f" at {one[3]}, and thread {two[0]} (warp {two[1]}) {two[2]} at {two[3]}, threads of "
           f"different warps, which a __syncwarp() does not hold back (a {err.hazard} hazard, "
           f"{err.count} in this launch)", "a barrier for the whole block: __syncthreads() in the "
           "__syncwarp()'s place, where every thread of the block reaches it (not inside an if)")


def written_by_two(race, hazards=("write-after-write",)) -> bool:
    """Whether ``race`` (an observed launch's, or None) is two threads that wrote one element of
    global memory, a race of one of ``hazards``."""
    return race is not None and race.space == "global" and race.hazard in hazards


def written_twice(kernels, launch, hint, did="wrote", hazards=("write-after-write",),
                  items="elements", refine=None, key="observed"):
    """The mistakes of ``launch`` on the simulator, race-checked (``observe``, under ``key``):
    first, two threads that ``did`` (wrote) one element of global memory, a race of one of
    ``hazards`` (every thread did the whole loop, or the threads' ``items`` overlap), with
    ``hint``; then what else the simulator found (``observed_mistakes``, with ``refine``). The
    ``observed`` of the exercises where each thread has its own elements."""
    seen = observe(kernels, launch, key=key)
    race = seen.race
    if written_by_two(race, hazards):
        yield (f"two threads {did} {race.array}[{race.element}] ({race.first.who} and "
               f"{race.second.who}): every thread did the whole loop, or the threads' {items} "
               "overlap", hint)
    yield from observed_mistakes(seen, refine)


STOPPED_AFTER = 1.0
"""Seconds a launch that did not finish runs again, for what its outputs held when it stopped."""


def stopped(kernels, launch, key="stopped"):
    """The ``Observed`` of ``launch`` on the simulator stopped at its time limit
    (``STOPPED_AFTER``), its outputs as far as the threads got: what an endless loop did before
    the stop; None when it finished or failed in another way. ``key``: the launch's, with its
    block and grid, in ``kernels.seen``."""
    from helpers.sim.settings import settings

    with settings.changed(time_limit=STOPPED_AFTER):
        seen = observe(kernels, launch, key=f"{key} {launch.block} {launch.grid}")
    return seen if getattr(seen.error, "kind", None) == "time limit" else None


def with_time_limit_told(exercise, kernels, launch, endless):
    """The mistakes of ``exercise.run`` on ``launch`` (a generator that returns its ``Run``, or
    None after a crash); one stopped at the time limit raises its error, for ``first_mistake``,
    after the mistakes ``endless()`` names: which loop never ends, from launches of its own."""
    try:
        return (yield from exercise.run(kernels, launch))
    except Exception as err:  # re-raised: only a time limit's is looked at
        if getattr(err, "kind", None) != "time limit":
            raise
        yield from endless()
        raise


def with_stopped(exercise, kernels, launch, endless):
    """``with_time_limit_told``, the loop that never ends told by ``endless(observed, launch)``
    from the same launch stopped sooner (``stopped``): from what the outputs held at the stop."""
    def told():
        seen = stopped(kernels, launch)
        if seen is not None:
            yield from endless(seen, launch)
    return (yield from with_time_limit_told(exercise, kernels, launch, told))


def kernel_words(kernels):
    """(source, tokens, words, the body's "{", the index of its "}") of the kernel's text in
    its simulated twin's source, as its module was compiled; None where there is no twin, the
    twin has no source, or the text cannot be read. The tokens and words are shared by every
    kernel of one source (``_source_words``): read them, never change them."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    function = getattr(kernels, "simulated", None)
    source = getattr(function, "source", None)   # the simulator's Function has it
    if not source:
        return None
    try:
        tokens, words = _source_words(source)
        name = next(i for i, word in enumerate(words) if word == function.name and i >= 2
                    and words[i - 2:i] == ["__global__", "void"]) - 2
        body = words.index("{", closing(tokens, words.index("(", name)))
        return source, tokens, words, body, closing(tokens, body)
    except (Unreadable, StopIteration, ValueError, IndexError):
        return None


@functools.lru_cache(maxsize=4)
def _source_words(source):
    """(tokens, words) of a module's whole source, read once: the detectors of one check ask for
    them again and again, and a module of many kernels (a test's wrong variants compiled
    together) took 50 ms to read."""
    from helpers.sim.compile.kernel_text import read_tokens

    tokens = read_tokens(source, 0, len(source))
    return tokens, [t.text for t in tokens]


def body_words(kernels) -> list:
    """The words of the kernel's body, from its "{" up to its "}" (not included), in its
    simulated twin's source (``kernel_words``); [] where that has none."""
    text = kernel_words(kernels)
    return text[2][text[3]:text[4]] if text else []


def thread_axes(kernels) -> list:
    """The fields of threadIdx that the kernel's body reads (``body_words``), in order, as many
    times as it reads them: ["y"] for a body whose only one is threadIdx.y."""
    words = body_words(kernels)
    return [words[k + 2] for k in range(len(words) - 2) if words[k:k + 2] == ["threadIdx", "."]]


def _first_store(tokens, words, body, end, array):
    """(the index of the first store into ``array`` in the kernel body's ``words``, array[...] =
    or an update such as array[...] *=, and of its statement's ";"); None where there is none."""
    from helpers.sim.compile.kernel_text import closing

    for s in range(body + 1, end - 3):
        if words[s] == array and words[s - 1] in ("{", ";", "}", ")") and words[s + 1] == "[":
            close = closing(tokens, s + 1)
            if words[close + 1] in ("=", "*=", "+=", "-=", "/="):
                return s, words.index(";", close, end)
    return None


def guard_after_store(kernels, array, bounds):
    """(the guard, its line, the store, its line) where the kernel's body (its simulated twin's
    source) stores into ``array`` before its first if that tests one of ``bounds`` (the sizes a
    bounds guard compares with): the guard placed after the store it should keep the threads
    outside from; None where there is none or the text cannot be read."""
    from helpers.sim.compile.kernel_text import Unreadable, closing

    if (text := kernel_words(kernels)) is None:
        return None
    source, tokens, words, body, end = text
    try:
        store = _first_store(tokens, words, body, end, array)
        tested = [(k, closing(tokens, k + 1)) for k in range(body + 1, end - 1)
                  if words[k:k + 2] == ["if", "("]]
    except (Unreadable, ValueError):
        return None
    tested = [(k, close) for k, close in tested if set(bounds) & set(words[k + 2:close])]
    if store is None or not tested or tested[0][0] < store[1]:
        return None
    k, close = tested[0]
    guard = source[tokens[k].start:tokens[close].end] + (
        " return;" if words[close + 1:close + 3] == ["return", ";"] else "")
    return (guard, source_line(source, tokens[k].start),
            source[tokens[store[0]].start:tokens[store[1]].end],
            source_line(source, tokens[store[0]].start))


def source_line(source: str, offset: int) -> int:
    """The line of ``source`` at ``offset`` as a compiler names it (``#line`` directives
    counted, as the simulator's ``numbered_lines`` reads them)."""
    from helpers.sim.compile.source import numbered_lines

    before = source[:offset].split("\n")[:-1]     # the whole lines before the offset's
    directives = sum(1 for text in before if re.match(r"\s*#\s*line\s", text))
    return list(numbered_lines(source))[len(before) - directives][1]


def barrier_lines(kernels) -> list:
    """The lines of the kernel body's ``__syncthreads`` calls, as the compiler names them, in
    its simulated twin's source (``kernel_words``); [] where that has none."""
    if (text := kernel_words(kernels)) is None:
        return []
    source, tokens, words, body, end = text
    return [source_line(source, tokens[i].start) for i in range(body, end)
            if words[i] == "__syncthreads"]
