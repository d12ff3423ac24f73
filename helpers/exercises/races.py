"""Checks of a learner's kernel that run on the simulator whatever the notebook's backend: the
race check and the memory trace.

A kernel that forgets a ``__syncthreads()`` often gives the right answer anyway, on a GPU as on
the simulator, because its threads happened to run in a lucky order; a checker that only compares
results passes it. The simulator's race check (``helpers.sim.settings.settings.racecheck``)
remembers who wrote and read every shared and global location since the last barrier, so it finds
the missing barrier whatever the order. The trace counts the requests a kernel's warps make, so a
checker can tell a kernel that reads its neighbours from a shared tile from one that reads each
of them from global memory. On a GPU the learner's file is compiled a second time, by the
simulator, for these runs.

``RaceCheckedExercise`` is a ``KernelExercise`` whose detectors receive ``Kernels``: the kernel
on the notebook's backend (``run``) and the same source on the simulator (``sim``).
``checked_run`` launches ``sim`` once under both; ``race_mistake`` turns the race check's report
into a mistake whose hint fits the hazard.
"""

from __future__ import annotations

import dataclasses

from helpers.exercises.kernel import LAUNCH_TIME_LIMIT, KernelExercise
from helpers.exercises.verdict import Verdict, not_yet


@dataclasses.dataclass(frozen=True)
class Kernels:
    """One learner's kernel twice: ``run`` on the notebook's backend, ``sim`` on the simulator
    (the same object when the backend is the simulator)."""

    run: object
    sim: object


class RaceCheckedExercise(KernelExercise):
    """A ``KernelExercise`` whose detectors get ``Kernels`` instead of a kernel."""

    def _load(self, path: str):
        kernel = super()._load(path)
        if isinstance(kernel, Verdict):
            return kernel
        return self.pair(kernel, path)

    def pair(self, kernel, path: str | None = None, sim=None):
        """``Kernels`` for ``kernel``: its simulator twin is ``sim``, or compiled from ``path``
        (on a GPU), or ``kernel`` itself (on the simulator). A Verdict when the simulator cannot
        compile the file."""
        from helpers.backend import BACKEND, read_cu
        from helpers.sim.compiler import SourceModule
        from helpers.sim.errors import CompileError

        if sim is None and BACKEND == "simulator":
            sim = kernel
        if sim is None:
            if path is None:
                raise ValueError("on a GPU, give the kernel compiled by the simulator too (sim=)")
            try:
                sim = SourceModule(read_cu(path)).get_function(self.kernel)
            except CompileError as err:
                print(getattr(err, "stderr", None) or err)
                return not_yet(f"{path} compiles with nvcc, but not on the simulator, which runs "
                               "the race check", "read the error above: it names the line")
        return Kernels(kernel, sim)

    def check_kernel(self, kernel, sim=None) -> Verdict:
        """Run the cases on a compiled kernel (and its simulator twin, ``sim``, on a GPU)."""
        if not isinstance(kernel, Kernels):
            kernel = self.pair(kernel, sim=sim)
        return super().check_kernel(kernel)


def checked_run(sim_kernel, args, block, grid):
    """Launch ``sim_kernel`` (a simulator kernel, arguments in simulator arrays) once under the
    race check and the trace. Returns ``(None, stats)`` with the launch's trace counters
    (``helpers.sim.microscope.trace.KernelStats``), or ``(error, None)`` when the launch failed: the race
    check's RaceError, or the simulator's other LaunchError."""
    from helpers.sim.errors import LaunchError
    from helpers.sim.settings import settings
    from helpers.sim.microscope.trace import trace

    with settings.changed(racecheck=True, time_limit=LAUNCH_TIME_LIMIT), trace(accesses=0) as t:
        try:
            sim_kernel(*args, block=block, grid=grid)
        except LaunchError as err:
            return err, None
    return None, t.launches[-1].stats


def race_mistake(error, array_hint: str):
    """``(problem, hint)`` for a failed checked run (its LaunchError, read by its fields).
    ``array_hint`` says what each thread should write, for a race on global memory."""
    if error.kind != "race":
        return (f"the kernel failed on the simulator: {error}",
                "a thread read or wrote outside an array: check the indices and the guards")
    what = f"{error.summary}."
    if error.space == "shared" and error.hazard != "write-after-write":
        return (what, "a thread read shared memory that another thread writes, with no barrier "
                      "between the two: put __syncthreads() after the loads into shared memory "
                      "and before the reads from it, where every thread of the block reaches it "
                      "(before any thread returns)")
    if error.space == "shared":
        return (what, "two threads store into the same element of the shared array: each element "
                      "must be loaded by one thread, so check its indices and the loops' steps")
    return (what, array_hint)
