"""The runner every ``.cu`` exercise shares: what it checks before the learner's kernel runs,
the launch of each case, and the loop over the cases.

``KernelExercise`` holds one exercise. ``check_file(path)`` turns each thing that can go wrong
before a launch into a verdict, in this order: the file is missing, it does not compile, its
module does not load (its __device__ arrays are too big), it has no kernel of that name, the
kernel's parameters are not the stub's (and, for an exercise that looks at the kernel on the
simulator, the simulator cannot compile it). Then ``check_kernel`` runs the cases through
``verdict.check_cases`` (the exercise's own and, given a seed, ``hidden=``, the grader's, those
its ``draw`` rule draws: ``helpers.exercises.hidden``). For each, the exercise's ``launch(case)``
says what to launch (a ``Launch``: inputs, poisoned outputs, block and grid); the runner makes
the arrays, launches, turns a crash into the first mistake, reads the outputs back (a ``Run``)
and hands them to ``mistakes(case, run)``, an ordered generator of mistakes. Both print the
verdict's line and return it.

The signature is compared as text (``helpers.exercises.signature``). On the simulator every
launch gets a time limit, so that an endless loop is a verdict, not a hang. (On a GPU a kernel
cannot be stopped from Python: there the grading command's per-process time limit stands in.)
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from helpers import course
from helpers.exercises import compile_errors, extern_c, failure, held, origin, unset as unset_reads
from helpers.exercises import hidden as hidden_cases, unsigned_tests
from helpers.exercises.common import (Input, Output, device_arguments, failed, launch_failure,
                                      named_arrays, time_limit)
from helpers.exercises.signature import parameters, signature_mistake
from helpers.exercises.verdict import (COMPILE_HINT, Verdict, check_cases, compiler_output,
                                       first_error, first_mistake, not_loaded, not_yet, rated)

ROOM_TRIES, ROOM_GROWTH = 3, 8
"""A read past an input on the simulator is run again with room after the input: as much as the
input holds, then ROOM_GROWTH times more, ROOM_TRIES launches at most (a row stride up to 64 K)."""


@dataclasses.dataclass(frozen=True)
class Launch:
    """One launch of a case: the kernel's ``args`` (``common.Input``, ``common.Output``, NumPy
    arrays and scalars: see ``common.device_arguments``), its ``block`` and ``grid``,
    ``model``, whatever the exercise's detectors compare the outputs with (NumPy's result, the
    inputs), and ``shared``, the bytes of dynamic shared memory (``extern __shared__``).
    ``in_order``: the simulator runs its blocks in order, so that where a wrong kernel's blocks
    store over each other's results the same lands last whatever the machine's load."""

    args: tuple
    block: tuple
    grid: tuple
    model: object = None
    shared: int = 0
    in_order: bool = False

    @property
    def outputs(self) -> list:
        return [a for a in self.args if isinstance(a, Output)]


@dataclasses.dataclass(frozen=True)
class Run:
    """A launch that finished: the ``Launch``, ``outs``, a ``common.Result`` for each of its
    outputs in order (``out``: the first), and the ``kernel`` that ran (``Kernels`` for an
    exercise that looks at it on the simulator too)."""

    launch: Launch
    outs: list
    kernel: object

    @property
    def out(self):
        return self.outs[0]

    @property
    def model(self):
        return self.launch.model


@dataclasses.dataclass
class Kernels:
    """The learner's kernel twice: ``device`` as the notebook's backend compiled it, and
    ``simulated``, the same source on the simulator (the same object when the backend is the
    simulator), for the checks only the simulator makes (``helpers.exercises.microscope``).
    ``seen``: what those found (each launch runs there once); ``exact``: ``microscope.exact``."""

    device: object
    simulated: object
    seen: dict = dataclasses.field(default_factory=dict)
    exact: bool = False


class KernelExercise:
    """One ``.cu`` exercise: see the module's docstring.

    ``launch(case)`` gives the case's ``Launch``; ``mistakes(case, run)`` yields the mistakes
    its ``Run`` shows, the most telling first. A launch that crashed gets the hint for its kind
    (``helpers.exercises.failure``): the first that ``refine(failure)`` yields (the exercise's
    own, for its arrays), else the general one, with ``crash_hint`` for an access outside every
    array (and for PyCUDA's errors, which do not say what happened). An exercise whose cases are
    not one launch each gives ``detect(kernel, case)`` instead, a generator that may use
    ``run``. ``simulated`` (what the simulator's launches look for, in words) makes the
    detectors get ``Kernels``. A case marked to be observed (``on_simulator``) is launched on
    the simulator only, whatever the backend (``microscope.observe``): its mistakes are
    ``observed(kernels, case)``'s (``microscope.observed_launch`` for what the race check and
    the crashes show), and the verdict calls it "a launch on the simulator,
    ``observed_as``" (or just that, with ``observed_as=""``). ``before(kernel)`` gives a verdict
    before the cases (or None to go on), ``after(kernel, passed)`` one after they all passed,
    given that PASS (the checks of an exercise on a size only a GPU can run).
    ``read_past(run, name)`` names what a kernel that read past the end of input ``name`` did
    (a row stride too large, say), from a ``Run`` of the same launch with room after it, which
    only the simulator gives: its mistakes come before the crash's (``run``). ``array_hints``
    ({parameter: hint}) gives the hint for an access past the array a parameter points to (its
    load's or store's right form), after ``refine``'s and before the general one. ``where(case)``
    describes the case for the verdict (by default ``case.where()``); ``success`` is the PASS
    text. ``draw(rng)`` gives the hidden cases, in the form of ``cases``, that a seed adds
    (``helpers.exercises.hidden``). ``no_extern_c``: the stub is C++ (mma.h) with its kernel
    ``extern "C"``, never wrapped in ``extern "C" { }`` (``helpers.exercises.extern_c``). A kernel
    that passed but reads a local before anything is stored in it is NOT YET
    (``helpers.exercises.unset``; ``unset``: its words; ``compared``: its own words for two
    comparisons written as one, or a ! on a comparison's left side).

    ``fast(kernel)``, for a chapter about speed, rates a kernel that passed: a generator that
    yields ``(what is missing, hint)`` when the kernel misses the chapter's target (the PASS
    then says so) and otherwise returns the figures it measured, for the FAST verdict. It
    measures on a GPU with events, against the copy or the FMA ceiling, and on the simulator
    through the trace (``helpers.exercises.microscope``), never by the CPU's clock:
    ``speed.rule(timed, traced)`` makes it from the two. Without it a right kernel gets a plain
    PASS.
    """

    def __init__(self, stub, kernel, signature, cases, success, *, draw, where=None, launch=None,
                 mistakes=None, crash_hint="", detect=None, simulated="", before=None,
                 after=None, refine=None, fast=None, no_extern_c=False, observed=None,
                 observed_as="race-checked and traced", read_past=None, array_hints=None,
                 unset=None, compared=None):
        self.stub, self.kernel, self.signature = stub, kernel, signature
        self.cases, self.success, self.where = cases, success, where or (lambda c: c.where())
        self.draw = draw
        self.launch, self.mistakes, self.crash_hint = launch, mistakes, crash_hint
        self.detect = detect or self._launch_and_detect
        self.simulated, self.before, self.after = simulated, before, after
        self.refine, self.fast, self.no_extern_c = refine, fast, no_extern_c
        self.observed, self.observed_as = observed, observed_as
        self.read_past, self.array_hints, self.unset = read_past, array_hints or {}, unset
        self.compared = compared
        if observed is None and any(map(on_simulator, cases)):
            raise ValueError("a case marked to be launched on the simulator needs observed=, "
                             "its detectors (microscope.observed_launch, say)")

    def check_file(self, path: str | None = None, hidden: int | None = None) -> Verdict:
        """Compile ``cuda_src/<path>`` (the stub by default), check it (with the cases drawn
        from the seed ``hidden`` too, when given); print and return the verdict."""
        path = path or self.stub
        kernel = self._load(path)
        if isinstance(kernel, Verdict):
            return kernel.report()
        return self.check_kernel(kernel, hidden=hidden)

    def check_kernel(self, kernel, simulated=None, hidden: int | None = None) -> Verdict:
        """Run the cases on an already compiled kernel; print and return the verdict. For an
        exercise that looks at the kernel on the simulator, ``simulated`` is the same source
        compiled by the simulator (needed on a GPU only); ``hidden`` as for ``check_file``."""
        from helpers.backend import BACKEND

        if self.simulated and not isinstance(kernel, Kernels):
            if simulated is None and BACKEND != "simulator":
                raise ValueError("on a GPU, give the kernel compiled by the simulator too")
            kernel = Kernels(kernel, kernel if simulated is None else simulated)
        cases = hidden_cases.cases(self.cases, self.draw, hidden)
        if BACKEND == "simulator":
            from helpers.sim.settings import settings

            with settings.changed(time_limit=time_limit()):
                verdict = self._run_cases(kernel, cases)
        else:
            verdict = self._run_cases(kernel, cases)
        return verdict.report()

    def _run_cases(self, kernel, cases) -> Verdict:
        verdict = self.before(kernel) if self.before else None
        if verdict is None:
            verdict = check_cases(cases, lambda c: self._detect_case(kernel, c), self._where_case,
                                  hidden_cases.success(self.success, self.cases, cases))
        verdict = unsigned_tests.checked(kernel, verdict)  # b >= 0 for an unsigned b: a NOT YET's
        verdict = unset_reads.checked(kernel, verdict, self.unset, self.compared)  # planted too
        if verdict and self.after:
            verdict = self.after(kernel, verdict)
        return self._rate(kernel, verdict) if verdict and self.fast else verdict

    def _rate(self, kernel, verdict: Verdict) -> Verdict:
        """The PASS ``verdict`` rated by the ``fast`` rule; a launch of the rule's that fails
        is a mistake, as in the cases."""
        outcome = {}

        def measure():
            rule = self.fast(kernel)
            try:
                outcome["slow"] = next(rule)
            except StopIteration as stop:
                outcome["figures"] = stop.value or ""
            return ()

        mistake = first_mistake(measure)
        if mistake is not None:
            return not_yet(f"{mistake[0].rstrip().rstrip('.')} (a launch that measured its "
                           "speed)", mistake[1])
        return rated(verdict, outcome.get("slow"), outcome.get("figures", ""))

    def _detect_case(self, kernel, case):
        if on_simulator(case) and isinstance(kernel, Kernels):
            kernel.exact = True   # the other cases passed: the simulator's inputs without junk
        return (self.observed if on_simulator(case) else self.detect)(kernel, case)

    def _where_case(self, case) -> str:
        where = self.where(case)
        if not on_simulator(case):
            return where
        checks = f", {self.observed_as}" if self.observed_as else ""
        return f"a launch on the simulator{checks}: {where}"

    def _launch_and_detect(self, kernel, case):
        launch = self.launch(case)
        run = yield from self.run(kernel, launch)
        if run is not None:
            yield from traced_back(kernel, launch, self.mistakes(case, run))

    def _held(self, kernel, launch: Launch, run: Run):
        """For an output that came back holding its poison (``held.suspect``): the mistakes
        ``held`` names in the same launch with it filled with 0, 1000, then 2000 (a kernel that
        adds to it)."""
        names, j = [name for _, name in parameters(self.signature)], -1
        for place, spec in enumerate(launch.args):
            j += isinstance(spec, Output)
            if not isinstance(spec, Output) or not held.suspect(spec, run.outs[j]):
                continue
            args = (*launch.args[:place], held.filled(spec), *launch.args[place + 1:])
            again, _, _ = self._launched(kernel, dataclasses.replace(launch, args=args))
            if again is not None:
                yield from held.mistakes(again.outs[j], names[place], spec)

    def run(self, kernel, launch: Launch):
        """Launch ``kernel`` as ``launch`` says, once per poison of its outputs (a generator:
        yields the mistake of a launch that crashed, after those ``read_past`` names, or of one
        that added to an output, ``held``'s; returns the ``Run``, or None after a crash)."""
        run, error, arrays = self._launched(kernel, launch)
        if error:
            yield from self._read_past(kernel, launch, error, arrays)
            yield self.failure(failed(error, arrays), error, launch.block, arrays, launch, kernel)
        else:
            yield from self._held(kernel, launch, run)
        return run

    def _launched(self, kernel, launch: Launch):
        """``(Run, None, arrays)`` of ``launch``, or ``(None, error, arrays)`` when a launch
        crashed (``arrays``: the launch's device arrays named as the kernel's parameters)."""
        gpuarray, given = _gpuarray(), kernel
        kernel = kernel.device if isinstance(kernel, Kernels) else kernel
        runs = max([len(o.poisons) for o in launch.outputs] or [1])
        inputs = device_arguments([a for a in launch.args if not isinstance(a, Output)], gpuarray)
        hosts, names = [], [name for _, name in parameters(self.signature)]
        for k in range(runs):
            each = iter(inputs)
            args = [a.device(gpuarray, k) if isinstance(a, Output) else next(each)
                    for a in launch.args]
            error = launch_failure(lambda: kernel(*args, block=launch.block, grid=launch.grid,
                                                  shared=launch.shared), launch.in_order)
            if error:
                return None, error, named_arrays(args, names)
            hosts.append([spec.fetch(a) for a, spec in zip(args, launch.args)
                          if isinstance(spec, Output)])
        return (Run(launch, [o.read([h[i] for h in hosts]) for i, o in enumerate(launch.outputs)],
                    given), None, {})

    def _read_past(self, kernel, launch: Launch, error, arrays):
        """On the simulator, for a read past the end of a float input: the mistakes
        ``read_past(run, name)`` names in the ``Run`` of the same launch with room after that
        input (filled with NaN; grown ROOM_GROWTH times while the reads still run past it), and
        after each other float input the launch then reads past (k and v staged side by side)."""
        from helpers.backend import BACKEND

        names = [name for _, name in parameters(self.signature)]
        name = arrays.get((getattr(error, "allocation", None) or (None,))[0])
        if self.read_past is None or BACKEND != "simulator" or name not in names or \
                getattr(error, "is_write", None) is not False:
            return
        first, args = name, list(launch.args)
        for _ in range(ROOM_TRIES + len(names)):
            place = names.index(name)
            spec = args[place]
            values = spec.values if isinstance(spec, Input) else spec
            if isinstance(spec, Output) or not np.issubdtype(values.dtype, np.floating):
                return
            room = getattr(spec, "after", 0) * ROOM_GROWTH if isinstance(spec, Input) and \
                spec is not launch.args[place] else values.size
            if room > values.size * ROOM_GROWTH ** (ROOM_TRIES - 1):
                return
            args[place] = Input(values, room, np.nan, getattr(spec, "before", 0))
            run, error, arrays = self._launched(kernel, dataclasses.replace(launch, args=tuple(args)))
            if run is not None:
                yield from self.read_past(run, first)
                return
            name = arrays.get((getattr(error, "allocation", None) or (None,))[0])
            if name not in names or getattr(error, "is_write", None) is not False:
                return

    def failure(self, problem: str, error, block=None, arrays=None, launch=None, kernel=None):
        """``(problem, hint)`` for a launch of this exercise (``launch``, of ``kernel``, where
        known) that failed with ``error``; for an access past the array a parameter points to
        (``arrays``: {start: name}), that array's hint (``array_hints``) when the exercise's
        ``refine`` has none."""
        name = (arrays or {}).get((getattr(error, "allocation", None) or (None,))[0])
        refine, own = self.refine, self.array_hints.get(name)
        if own:
            refine = lambda f: itertools.chain(self.refine(f) if self.refine else (), [own])  # noqa: E731
        return failure.mistake(problem, error, block=block, refine=refine,
                               guard_hint=self.crash_hint, launch=launch, kernel=kernel)

    def _load(self, path: str):
        """The compiled kernel (with its simulator twin, for an exercise that needs it), or the
        verdict that says why there is none."""
        from helpers.backend import BACKEND, compile_cu, drv

        file = course.cuda_src() / path
        if not file.is_file():
            return not_yet(f"cannot find {path} (looked for {file})",
                           "check the name: paths are relative to cuda_src/, as in "
                           f"\"{self.stub}\"; restore the stub with "
                           "helpers.exercises.reset(...) if it is gone")
        source = file.read_text(errors="replace")
        unwrapped = extern_c.as_it_stands(source, self.no_extern_c)
        try:
            module = compile_cu(path, no_extern_c=unwrapped)
        except drv.CompileError as err:
            output = compiler_output(err, drv.CompileError)
            print(output)
            found = compile_errors.diagnosed(err, path, unwrapped)
            return compile_errors.verdict(path, output, found, source)
        except (drv.MemoryError, OSError) as err:  # built, but its module did not load
            return not_loaded(path, err)
        try:
            kernel = module.get_function(self.kernel)
        except drv.LogicError as err:
            linkage = 'extern "C" ' if unwrapped else ""
            return not_yet(f"{path} has no kernel called {self.kernel} ({err})",
                           f"keep the signature given in the file: {linkage}__global__ void "
                           f"{self.kernel}({self.signature})")
        if mistake := signature_mistake(source, self.kernel, self.signature):
            return not_yet(*mistake)
        if not self.simulated or BACKEND == "simulator":
            return kernel
        return self._simulated_twin(path, kernel, unwrapped)

    def _simulated_twin(self, path, kernel, unwrapped):
        """``Kernels`` of ``kernel`` and the same file compiled by the simulator, or the verdict
        that says why the simulator has none."""
        from helpers.backend import read_cu
        from helpers.sim import driver
        from helpers.sim.compiler import SourceModule

        try:
            return Kernels(kernel, SourceModule(read_cu(path), no_extern_c=unwrapped)
                           .get_function(self.kernel))
        except (driver.CompileError, driver.LogicError) as err:
            output = compiler_output(err, driver.CompileError)
            print(output)
            return not_yet(f"{path} compiles with nvcc, but not on the simulator, which "
                           f"{self.simulated}", COMPILE_HINT, first_error(output))


def traced_back(kernel, launch: Launch, mistakes):
    """``mistakes`` as they come, each ``origin.Wrong`` with where its element came from in
    ``launch`` on the simulator (``origin.traced``; on a GPU, the twin's, where there is one)."""
    from helpers.backend import BACKEND

    if not isinstance(kernel, Kernels) and BACKEND == "simulator":
        kernel = Kernels(kernel, kernel)
    for mistake in mistakes:
        if isinstance(mistake, origin.Wrong) and isinstance(kernel, Kernels):
            mistake = origin.traced(kernel, launch, mistake)
        yield mistake


def on_simulator(case) -> bool:
    """Whether ``case`` is marked to be launched on the simulator only (``KernelExercise``): a
    dict with ``observe=True``, a tuple whose last element is ``"observe"``, or an object whose
    ``observe`` is true (``coverage.Grid``)."""
    if isinstance(case, dict):
        return bool(case.get("observe"))
    if isinstance(case, tuple):
        return case[-1:] == ("observe",)
    return bool(getattr(case, "observe", False))


def _gpuarray():
    from helpers.backend import gpuarray

    return gpuarray
