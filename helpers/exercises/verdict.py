"""The contract every exercise checker keeps: it returns a ``Verdict`` and never raises because
the learner's work is wrong.

A checker's job is to name the learner's mistake, not only to say "wrong". It does so with
*mistake detectors*: a generator that looks at what the learner's work did and yields
``(problem, hint)`` for each mistake it recognises, most specific first. The first one yielded is
the verdict; when it yields nothing, the work is right. Because a generator is lazy, a detector
further down the list (one that builds an expensive model of a wrong kernel, say) runs only when
the ones before it found nothing. ``julia._wrong_answers`` is the pattern; ``matches`` runs a
table of known mistakes, each with what a kernel that makes it gives.

One loop, ``first_mistake`` inside ``check_cases``, runs every checker's detectors over its
cases, and turns what a wrong kernel can do to the process (a launch error, an argument the
kernel does not take, a launch that runs past the time limit on the simulator) into a verdict
too. ``KernelExercise`` (in ``helpers.exercises.kernel``) adds what comes before the cases for a
``.cu`` exercise: the missing file, the compile error, the missing kernel, the wrong signature.

A verdict prints as one line, the text the notebooks show::

    PASS: <what was checked>
    NOT YET: <problem>. Hint: <hint>

An exercise that asks for speed (``KernelExercise``'s ``fast=``) rates a right kernel once more:
FAST when it also reaches the chapter's target, else a PASS that says what is missing::

    FAST: <what was checked, and the figures>
    PASS: <what was checked>; not yet FAST: <what is missing>. Hint: <hint>
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable

from helpers.exercises.failure import describe, mistake


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What a checker found: ``passed``, and ``problem`` (what is wrong; on a pass, what was
    checked) with a ``hint`` (what to look at). True in an ``if`` when it passed.

    ``error``, for work that does not compile, is the compiler's first error line. A notebook
    prints the compiler's whole output above the verdict's line, so the line itself leaves it
    out; a grader's feedback, read away from that output, shows it (``tools/feedback.py``).

    ``fast``: right and fast enough (the level FAST, above PASS). ``slow``, on a PASS of an
    exercise that asks for speed, is what keeps it from FAST (a figure and its target), and
    ``hint`` then says how to get there."""

    passed: bool
    problem: str
    hint: str = ""
    error: str = ""
    fast: bool = False
    slow: str = ""

    def __bool__(self) -> bool:
        return self.passed

    @property
    def level(self) -> str:
        """"FAST", "PASS" or "NOT YET": how the line starts."""
        return "FAST" if self.fast else "PASS" if self.passed else "NOT YET"

    def __str__(self) -> str:
        if self.fast:
            return f"FAST: {self.problem}"
        if self.passed and not self.slow:
            return f"PASS: {self.problem}"
        text = (f"PASS: {self.problem.rstrip().rstrip('.')}; not yet FAST: "
                f"{self.slow.rstrip().rstrip('.')}." if self.passed else
                f"NOT YET: {self.problem.rstrip().rstrip('.')}.")
        return text + (f" Hint: {self.hint}" if self.hint else "")

    def report(self) -> Verdict:
        """Print the verdict's line and return the verdict."""
        print(self, flush=True)
        return self


def listed(items) -> str:
    """Items in a verdict's words: "a", "a and b", "a, b and c"."""
    items = [str(i) for i in items]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def passed(what: str) -> Verdict:
    """The verdict for right work; ``what`` says what was checked."""
    return Verdict(True, what)


def rated(verdict: Verdict, slow: Mistake | None, figures: str = "") -> Verdict:
    """The PASS ``verdict`` rated for speed: ``slow``, ``(what is missing, hint)`` from the
    exercise's speed rule, or None for FAST; ``figures`` (what was measured) joins what was
    checked."""
    what = f"{verdict.problem}; {figures}" if figures else verdict.problem
    if slow is None:
        return Verdict(True, what, fast=True)
    return Verdict(True, what, slow[1], slow=slow[0])


def not_yet(problem: str, hint: str = "", error: str = "") -> Verdict:
    """The verdict for a mistake: what is wrong, and what to look at (and for work that does not
    compile, the compiler's first ``error``: see ``first_error``)."""
    return Verdict(False, problem, hint, error)


COMPILE_HINT = "read the compiler's first error: it names the file and line"
"""The hint for work that does not compile (the error is above the verdict in a notebook, and
beside it in a grader's feedback)."""


def not_loaded(path: str, err: BaseException) -> Verdict:
    """The verdict for work that compiles but whose module does not load: its __device__ arrays
    take more memory than the GPU has (the backend's MemoryError names the largest), or the
    loader refused the library (an OSError, on the simulator)."""
    if isinstance(err, OSError):
        return not_yet(f"{path} compiles, but the compiled module could not be loaded ({err})",
                       "run the check again; if it fails the same way, restart the kernel")
    return not_yet(f"{path} compiles, but its module does not fit in the GPU's memory: {err}",
                   "make the __device__ arrays smaller: allocate big arrays when the program "
                   "runs (gpuarray.zeros, mem_alloc) and pass the kernel a pointer to them")


def first_error(output: str) -> str:
    """The first line of a compiler's ``output`` that reports an error (g++, nvcc and Clang all
    write ``error:`` there), else its first line that is not blank; "" for no output."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return next((line for line in lines if re.search(r"\berror\b:", line, re.I)),
                lines[0] if lines else "")[:500]


def compiler_output(err, base) -> str:
    """What the compiler said about ``err`` (a CompileError), as the learner reads it: the
    message of an error the simulator words itself (a subclass of the backend's CompileError,
    ``base``: a host function, a math call's types), whose compiler output names the simulator's
    own macros; else the compiler's output. Either ``shown``."""
    if type(err) is not base and getattr(err, "msg", None):
        return shown(err.msg)
    return shown(str(getattr(err, "stderr", None) or err))


def shown(output: str) -> str:
    """A compiler's ``output`` with the simulator's headers named as a kernel includes them
    (``mma.h``, ``cuda_sim.h``), not by their folder on this machine."""
    from helpers.sim.compile.source import INCLUDE_DIR

    return output.replace(f"{INCLUDE_DIR}/", "")


class KernelArgumentError(Exception):
    """The kernel does not take the arguments the checker passes (raised by
    ``common.launch_failure`` and ``microscope.observe`` from the simulator's argument check)."""


Mistake = tuple[str, str]
"""``(problem, hint)``: what a detector yields for a mistake it recognises."""


def first_mistake(detect: Callable[..., Iterable[Mistake]], *args) -> Mistake | None:
    """The first mistake ``detect(*args)`` yields, or None when it yields none.

    The errors a wrong kernel causes while ``detect`` runs it become mistakes: an argument the
    kernel does not take (``KernelArgumentError``), and a launch that failed or crashed
    (``drv.Error``; on the simulator also one stopped at the time limit), with the hint for its
    kind (``helpers.exercises.failure``). Any other exception is a bug in the checker and is
    raised.
    """
    from helpers.backend import drv

    try:
        return next(iter(detect(*args)), None)
    except KernelArgumentError as err:
        return (f"the kernel could not be launched with the checker's arguments: {err}",
                "keep the kernel's signature as the stub gives it")
    except drv.Error as err:
        if getattr(err, "kind", None) == "time limit":  # the simulator stopped it
            return mistake(did_not_finish(err), err)
        return mistake(f"the kernel failed: {describe(err)}", err)


def did_not_finish(err) -> str:
    """The problem for a launch the simulator stopped at its time limit (a TimeLimitError)."""
    return (f"the kernel did not finish: the simulator stopped kernel '{err.kernel}' after "
            f"{err.seconds:g} s, its time limit (an endless loop?)")


def matches(got, models: Iterable, same: Callable[..., bool]) -> Iterable[Mistake]:
    """The ``(problem, hint)`` of each known mistake ``(model, problem, hint)`` in ``models``,
    in order, whose ``model`` (what a kernel with that mistake gives) ``same(got, model)`` finds
    equal to ``got``."""
    for model, problem, hint in models:
        if same(got, model):
            yield problem, hint


def check_cases(cases: Iterable, detect: Callable[..., Iterable[Mistake]],
                where: Callable[..., str], success: str) -> Verdict:
    """The loop every checker shares: ``detect(case)`` for each case in turn; the first mistake
    found, with ``where(case)`` added to its problem, is the verdict; none at all is a pass."""
    for case in cases:
        mistake = first_mistake(detect, case)
        if mistake is not None:
            problem, hint = mistake
            return not_yet(f"{problem.rstrip().rstrip('.')} ({where(case)})", hint)
    return passed(success)
