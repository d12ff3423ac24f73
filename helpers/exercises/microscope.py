"""What the simulator sees in a learner's kernel, on either backend: races and atomics.

A missing ``__syncthreads()`` or a plain ``bins[v]++`` where several threads meet often gives the
right answer by luck: on a GPU when the threads happen not to collide, on the simulator because
it runs a block's threads one after another. A checker that only compares results lets such a
kernel pass. The simulator's race check (``helpers.sim.settings``' ``racecheck``) finds the
race whatever order the threads ran in, and its memory trace (``helpers.sim.microscope.trace``) counts the
kernel's atomics, global and shared, as Nsight Compute would. The simulator ships with the
course, so a checker can run the learner's file there even when the notebook runs on a GPU.

``MicroscopeExercise`` is a ``KernelExercise`` whose detectors get ``Kernels``: the kernel as
the notebook's backend compiled it (for the results) and the same file on the simulator (for
``observe``). ``observe`` runs one launch race-checked and traced, once per check.
"""

from __future__ import annotations

import dataclasses

from helpers.exercises.kernel import LAUNCH_TIME_LIMIT, KernelExercise
from helpers.exercises.verdict import Verdict


@dataclasses.dataclass
class Kernels:
    """The learner's kernel twice: ``device`` as the notebook's backend compiled it, and
    ``simulated``, the same source on the simulator (the same object when the backend is the
    simulator; None when the simulator could not compile it). ``seen`` keeps what ``observe``
    found, so that a check runs it once."""

    device: object
    simulated: object
    seen: dict = dataclasses.field(default_factory=dict)


def simulated_kernel(path: str, name: str, device_kernel):
    """The kernel ``name`` of ``cuda_src/<path>`` compiled by the simulator (or None)."""
    from helpers.backend import BACKEND, read_cu

    if BACKEND == "simulator":
        return device_kernel
    from helpers.sim import driver
    from helpers.sim.compiler import SourceModule

    try:
        return SourceModule(read_cu(path)).get_function(name)
    except (driver.CompileError, driver.LogicError):
        return None


class MicroscopeExercise(KernelExercise):
    """A KernelExercise whose detectors get ``Kernels`` instead of one kernel."""

    def _load(self, path: str):
        kernel = super()._load(path)
        if isinstance(kernel, Verdict):
            return kernel
        return Kernels(kernel, simulated_kernel(path, self.kernel, kernel))

    def check_kernel(self, kernel, simulated=None) -> Verdict:
        """Run the cases on a compiled kernel (``simulated``: the same source compiled by the
        simulator; by default the kernel itself when the backend is the simulator)."""
        if not isinstance(kernel, Kernels):
            from helpers.backend import BACKEND

            if simulated is None and BACKEND == "simulator":
                simulated = kernel
            kernel = Kernels(kernel, simulated)
        return super().check_kernel(kernel)


@dataclasses.dataclass(frozen=True)
class Observed:
    """One launch on the simulator: ``race``, the race check's RaceError (None when there was
    no race), ``crash`` (the error of a launch that failed otherwise, or None), ``stats``
    (helpers.sim.microscope.trace.KernelStats: the atomics, global and shared), the launch's
    ``blocks`` and the ``args`` it was given (its outputs: what the simulator computed)."""

    race: object | None
    crash: str | None
    stats: object
    blocks: int
    args: tuple = ()


def observe(kernels: Kernels, make_args, block: tuple, grid: tuple) -> Observed | None:
    """Launch ``kernels.simulated`` once on the simulator, race-checked and traced;
    ``make_args(gpuarray)`` builds its arguments with the simulator's gpuarray. Once per check
    (kept in ``kernels.seen``); None when the simulator has no build of the kernel."""
    if "observed" in kernels.seen:
        return kernels.seen["observed"]
    kernel = kernels.simulated
    if kernel is None:
        return None
    from helpers.sim import driver, gpuarray
    from helpers.sim.settings import settings
    from helpers.sim.microscope.trace import trace

    race = crash = None
    limit = min(LAUNCH_TIME_LIMIT, settings.time_limit or LAUNCH_TIME_LIMIT)
    args = make_args(gpuarray)
    with settings.changed(racecheck=True, time_limit=limit), trace(accesses=0) as t:
        try:
            kernel(*args, block=block, grid=grid)
        except driver.Error as err:
            if getattr(err, "kind", None) == "race":
                race = err
            else:
                crash = f"{type(err).__name__}: {err}"
    stats = t[kernel.name] if t.launches else None
    found = Observed(race, crash, stats, grid[0] * grid[1], tuple(args))
    kernels.seen["observed"] = found
    return found


def race_mistake(observed: Observed | None, barrier_hint: str, atomic_hint: str,
                 wrong: str = ""):
    """What the simulator found, as a mistake: a launch that failed there; a race, with
    ``atomic_hint`` for a read-modify-write (both accesses on one line, as in x++), else
    ``barrier_hint``. ``wrong``: what was wrong in the case at hand, which the simulator's
    launch explains. Yields nothing when it found neither."""
    if observed is None:
        return
    failed, race = ((f"{wrong}, and on the simulator the kernel failed",
                     f"{wrong}, and on the simulator the race check found a data race") if wrong
                    else ("the kernel failed on the simulator",
                          "the simulator's race check found a data race"))
    if observed.crash:
        yield (f"{failed}: {observed.crash}",
               "a thread read or wrote outside its array: check every index against its "
               "array's size")
    if observed.race:
        yield (f"{race}: {observed.race.summary}",
               atomic_hint if observed.race.same_line else barrier_hint)
