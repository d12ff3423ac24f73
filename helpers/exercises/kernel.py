"""What every ``.cu`` exercise checks before it runs the learner's kernel, and the loop after.

``KernelExercise`` holds one exercise: its stub, its kernel's name and signature, its cases and
its mistake detectors. ``check_file(path)`` turns each thing that can go wrong before a launch
into a verdict, in this order: the file is missing, it does not compile, it has no kernel of that
name, the kernel's parameters are not the stub's. Then ``check_kernel`` runs the cases through
``verdict.check_cases``. Both print the verdict's line and return it.

The signature is compared as text, from the learner's source, so that the verdict is the same on
both backends (PyCUDA would pass a ``float`` to a ``double`` parameter without a word, and the
kernel would read garbage). Types are compared without ``const``, ``volatile`` and
``__restrict__``, which do not change what the checker passes; names may differ.

On the simulator every launch gets a time limit, so that an endless loop is a verdict, not a
hang. (On a GPU a kernel cannot be stopped from Python: there the grading command's per-process
time limit stands in.)
"""

from __future__ import annotations

import re

from helpers.exercises.verdict import Verdict, check_cases, not_yet

LAUNCH_TIME_LIMIT = 10.0
"""Seconds a single launch may run on the simulator before it counts as an endless loop (the
checkers' launches take milliseconds). A shorter CUDA_SIM_TIME_LIMIT wins."""

_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|restrict)\b")


def parameters(signature: str) -> list[tuple[str, str]]:
    """``[(type, name), ...]`` of a C parameter list: ``"const float *x, int n"`` gives
    ``[("float*", "x"), ("int", "n")]`` (qualifiers dropped, pointers written ``T*``)."""
    found = []
    for part in filter(None, (p.strip() for p in signature.split(","))):
        match = re.fullmatch(r"(.*?)(\w+)\s*(\[\s*\])?", part, flags=re.S)
        if not match or not match.group(1).strip():
            found.append((" ".join(part.split()), ""))  # a type alone, or something odder
            continue
        ctype = _QUALIFIERS.sub(" ", match.group(1)) + ("*" if match.group(3) else "")
        ctype = re.sub(r"\s*\*\s*", "*", " ".join(ctype.split())).strip()
        found.append((ctype, match.group(2)))
    return found


def kernel_parameters(source: str, kernel: str) -> str | None:
    """The parameter list of ``__global__ void kernel(...)`` in ``source``, comments and
    preprocessor lines removed; None where it cannot be read as text (made by a macro, say)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    match = re.search(r"__global__\s+void\s+" + re.escape(kernel) + r"\s*\(([^()]*)\)", text)
    return match.group(1) if match else None


def signature_mistake(source: str, kernel: str, expected: str):
    """``(problem, hint)`` naming the first parameter of ``kernel`` in ``source`` whose type is
    not the one in ``expected`` (a parameter list), or None when they agree."""
    found_text = kernel_parameters(source, kernel)
    if found_text is None:
        return None
    want, got = parameters(expected), parameters(found_text)
    hint = f"keep the signature the stub gives: __global__ void {kernel}({expected})"
    for i, ((want_type, want_name), (got_type, got_name)) in enumerate(zip(want, got)):
        if want_type != got_type:
            return (f"parameter {i + 1} of {kernel}, {got_name or got_type}, is declared "
                    f"'{got_type}', but the checker passes '{want_type}' there (for "
                    f"{want_name}): the kernel would read the wrong bytes", hint)
    if len(got) != len(want):
        return (f"{kernel} takes {len(got)} parameters, but the checker passes {len(want)} "
                f"({expected})", hint)
    return None


class KernelExercise:
    """One ``.cu`` exercise: see the module's docstring.

    ``detect(kernel, case)`` yields the mistakes it sees in one case (a generator);
    ``where(case)`` describes the case for the verdict; ``success`` is the PASS text.
    """

    def __init__(self, stub, kernel, signature, cases, detect, where, success):
        self.stub, self.kernel, self.signature = stub, kernel, signature
        self.cases, self.detect, self.where, self.success = cases, detect, where, success

    def check_file(self, path: str | None = None) -> Verdict:
        """Compile ``cuda_src/<path>`` (the stub by default), check it; print and return the
        verdict."""
        path = path or self.stub
        kernel = self._load(path)
        if isinstance(kernel, Verdict):
            return kernel.report()
        return self.check_kernel(kernel)

    def check_kernel(self, kernel) -> Verdict:
        """Run the cases on an already compiled kernel; print and return the verdict."""
        from helpers.backend import BACKEND

        if BACKEND == "simulator":
            from helpers.sim.settings import settings

            limit = min(LAUNCH_TIME_LIMIT, settings.time_limit or LAUNCH_TIME_LIMIT)
            with settings.changed(time_limit=limit):
                verdict = self._run_cases(kernel)
        else:
            verdict = self._run_cases(kernel)
        return verdict.report()

    def _run_cases(self, kernel) -> Verdict:
        return check_cases(self.cases, lambda case: self.detect(kernel, case), self.where,
                           self.success)

    def _load(self, path: str):
        """The compiled kernel, or the verdict that says why there is none."""
        from helpers.backend import CUDA_SRC, compile_cu, drv

        file = CUDA_SRC / path
        if not file.is_file():
            return not_yet(f"cannot find {path} (looked for {file})",
                           "check the name: paths are relative to cuda_src/, as in "
                           f"\"{self.stub}\"; restore the stub with "
                           "helpers.exercises.reset(...) if it is gone")
        source = file.read_text(errors="replace")
        try:
            module = compile_cu(path)
        except drv.CompileError as err:
            print(getattr(err, "stderr", None) or err)
            return not_yet(f"{path} does not compile",
                           "read the first error above: it names the file and line")
        try:
            kernel = module.get_function(self.kernel)
        except drv.LogicError as err:
            return not_yet(f"{path} has no kernel called {self.kernel} ({err})",
                           f"keep the signature given in the file: __global__ void "
                           f"{self.kernel}({self.signature})")
        mistake = signature_mistake(source, self.kernel, self.signature)
        return not_yet(*mistake) if mistake else kernel

