"""The runner notebook 12's OpenCL exercises share: ``kernel.KernelExercise``'s for a ``.cl`` file.

``OpenCLExercise`` holds one exercise: its stub (relative to ``cuda_src/opencl/``), kernel and
signature, its cases and the rule ``draw`` of the grader's hidden ones, ``launch(case)`` giving a
``kernel.Launch`` (``block`` is the local size, ``grid`` the number of work-groups, as a CUDA
launch gives them; the global size is their product) and ``mistakes(case, run, reports)``, the
ordered detectors of a ``kernel.Run``, which yield Oclgrind's ``reports`` where they belong
among their own. ``check_file`` builds the file (a build error is a verdict that names CUDA's
words where OpenCL C has others: ``build``), then launches each case once per poison of its
outputs; a launch the platform refuses or that fails is a verdict too.

On Oclgrind the reports are what Oclgrind saw: an access outside a buffer (which Oclgrind reports
and does not do), and, for an exercise made with ``races=True``, a data race (Oclgrind's race
check is on in that exercise's context). A GPU says nothing of either: there the outputs are all
the checker sees.
"""

from __future__ import annotations

import re

import numpy as np

from helpers.exercises import hidden as hidden_cases
from helpers.exercises.common import Output, device_arguments, time_limit
from helpers.exercises.coverage import diagonal
from helpers.exercises.failure import LOOP_HINT
from helpers.exercises.kernel import Run
from helpers.exercises.verdict import COMPILE_HINT, Verdict, check_cases, first_error, not_yet
from helpers.sim.compile.source import without_comments

# CUDA's words, which OpenCL C does not know, and what OpenCL C says instead.
CUDA_WORDS = [(r"\bthreadIdx\.([xyz])", "threadIdx.{0}", "get_local_id({1})"),
              (r"\bblockIdx\.([xyz])", "blockIdx.{0}", "get_group_id({1})"),
              (r"\bblockDim\.([xyz])", "blockDim.{0}", "get_local_size({1})"),
              (r"\bgridDim\.([xyz])", "gridDim.{0}", "get_num_groups({1})"),
              (r"\b__global__(\s)", "__global__", "__kernel"),
              (r"\b__syncthreads\b()", "__syncthreads()", "barrier(CLK_LOCAL_MEM_FENCE)"),
              (r"\b__shared__\b()", "__shared__", "__local"),
              (r"\bfminf\b()", "fminf", "fmin"), (r"\bfmaxf\b()", "fmaxf", "fmax")]


class OpenCLExercise:
    """One ``.cl`` exercise: see the module's docstring. ``crash_hint``: the hint for a launch
    that failed and for an access Oclgrind saw outside a buffer; ``race_hint`` (with
    ``races=True``) for a data race; ``uninitialized=True`` turns on Oclgrind's check of values
    used before anything wrote them too (an exercise's ``reports`` names what it sees).
    ``reports(messages, case, code)``, where given, says what
    Oclgrind's messages of a launch of ``case`` show in the exercise's own words, in place of
    ``OpenCLExercise.reports`` (``code``: the kernel's source, its comments blanked and its lines
    kept, as Oclgrind numbers them). ``text(code)``, where given, names a mistake that the
    kernel's code shows before it runs, as ``(problem, hint)``, or None: one that some platforms
    forgive. ``endless(case, code)``, where given, yields what a launch of ``case`` that ran
    past the time limit shows (on Oclgrind), before the verdict that it did not finish."""

    def __init__(self, stub, kernel, signature, cases, success, *, draw, where, launch,
                 mistakes, crash_hint, races=False, race_hint="", reports=None, text=None,
                 uninitialized=False, endless=None):
        self.stub, self.kernel, self.signature = stub, kernel, signature
        self.cases, self.success, self.draw, self.where = cases, success, draw, where
        self.launch, self.mistakes, self.crash_hint = launch, mistakes, crash_hint
        self.races, self.race_hint, self.uninitialized = races, race_hint, uninitialized
        self.oclgrind_reports = reports or (lambda messages, case, code: self.reports(messages))
        self.text, self.endless = text, endless

    def context(self):
        """A context on the course's platform (on Oclgrind with its race check and its check of
        uninitialized values, if asked)."""
        from helpers.ch12 import oclgrind, opencl

        platform, _ = opencl.choose_platform()
        if (self.races or self.uninitialized) and opencl.is_oclgrind(platform):
            return oclgrind.context(data_races=self.races, uninitialized=self.uninitialized)
        return opencl.context(platform)

    def check_file(self, path: str | None = None, hidden: int | None = None) -> Verdict:
        """Build ``cuda_src/opencl/<path>`` (the stub by default) and check it (with the cases
        the seed ``hidden`` draws too, when given); print and return the verdict."""
        kernel = build(self.context(), path or self.stub, self.kernel, self.signature)
        if isinstance(kernel, Verdict):
            return kernel.report()
        return self.check_kernel(kernel, hidden)

    def check_kernel(self, kernel, hidden: int | None = None) -> Verdict:
        """The checks of ``check_file`` on a built kernel (a ``cl.Kernel``)."""
        if self.text and (mistake := self.text(kernel_code(kernel))):
            return not_yet(*mistake).report()
        cases = hidden_cases.cases(self.cases, self.draw, hidden)
        return check_cases(cases, lambda case: self._detect(kernel, case), self.where,
                           hidden_cases.success(self.success, self.cases, cases)).report()

    def _detect(self, kernel, case):
        from helpers.ch12 import oclgrind, opencl

        try:
            run, messages = self.run(kernel, self.launch(case))
        except (opencl.cl.Error, oclgrind.Failed) as err:
            yield f"the kernel failed: {err}", self.crash_hint
            return
        except oclgrind.Stopped as stopped:
            if self.endless:
                yield from self.endless(case, kernel_code(kernel))
            yield (f"the kernel did not finish: Oclgrind's launch of {self.kernel} ran past "
                   f"{stopped.seconds:g} s, the checker's time limit, and was stopped (an endless "
                   "loop?)", LOOP_HINT)
            return
        yield from self.mistakes(case, run, self.oclgrind_reports(messages, case, kernel_code(kernel)))

    def reports(self, messages):
        """The mistakes Oclgrind's ``messages`` show (accesses outside a buffer, races, a barrier
        that only some work-items reached), which an exercise's detectors yield where they belong
        among their own (none on a GPU)."""
        for kind, what, hint in (("invalid", "accesses outside a buffer", self.crash_hint),
                                 ("data race", "data races", self.race_hint)):
            found = [m for m in messages if kind in m.kind.lower()]
            if found:
                m = min(found, key=lambda m: m.work_items)
                yield (f"Oclgrind reported {len(found)} {what}, the first: {m.kind.lower()} by "
                       f"work-item {m.work_items[0][:2]} at {m.where or 'an unknown line'}", hint)
        for m in [m for m in messages if "divergence" in m.kind.lower()][:1]:
            only = next((d.strip() for d in m.details if d.strip().startswith("Only ")), "")
            yield (f"a barrier that not every work-item of a work-group reached, at "
                   f"{m.where or 'an unknown line'} (Oclgrind: {only or m.kind})",
                   "every work-item of a work-group must reach each barrier(): keep it out of "
                   "code that only some of them run (after the if, not inside it)")

    def run(self, kernel, launch):
        """Launch ``kernel`` once per poison of its outputs; return (the ``Run``, Oclgrind's
        messages). On Oclgrind each launch runs in a process of its own, stopped at the time
        limit (``common.time_limit()``): ``oclgrind.Stopped``."""
        import types

        import pyopencl.array as cla

        from helpers.ch12 import oclgrind, opencl

        queue = opencl.cl.CommandQueue(kernel.context)
        device = types.SimpleNamespace(to_gpu=lambda host: cla.to_device(queue, host))
        local = list(launch.block[:len(launch.grid)])   # a CUDA block's (x, y, 1) on a 2-D grid
        sizes = [b * g for b, g in zip(local, launch.grid)], local
        runs = max(len(o.poisons) for o in launch.outputs)
        inputs = device_arguments([a for a in launch.args if not isinstance(a, Output)], device)
        hosts, messages = [], []
        for k in range(runs):
            def go(k=k):
                each, outs = iter(inputs), [o.device(device, k) for o in launch.outputs]
                made = iter(outs)
                args = [next(made) if isinstance(a, Output) else next(each) for a in launch.args]
                kernel(queue, *sizes, *[a.data if isinstance(a, cla.Array) else a for a in args])
                queue.finish()
                return [o.get() for o in outs]
            if opencl.is_oclgrind(queue.device.platform):   # stopped at the time limit
                host, said = oclgrind.limited(go, time_limit())
                hosts, messages = [*hosts, host], messages + said
            else:
                hosts.append(go())
        reads = [o.read([h[i] for h in hosts]) for i, o in enumerate(launch.outputs)]
        return Run(launch, reads, kernel), messages


def one_global_id(written, right):
    """Only the image's diagonal x == y written (``written``: the pixels written, rows by
    columns), and right there (``right``): x and y took the same global id (y =
    get_global_id(0), copied from x's line, or x = get_global_id(1))."""
    y, x = np.indices(written.shape)
    diagonal = x == y
    if np.array_equal(written, diagonal) and right[diagonal].all():
        yield (f"only the {int(diagonal.sum())} pixels on the diagonal x == y were written: x and "
               "y took the same global id (y = get_global_id(0), as x, or x = get_global_id(1), "
               "as y), so the row moved with the column", "each takes its own dimension of the "
               "range: x = get_global_id(0) (the column), y = get_global_id(1) (the row)")


def sides_swapped(case, unwritten, right, code, out_param):
    """The kernel's width and height the host's other way round (int height, int width in its
    signature, or the two names swapped throughout): the pixels written (``unwritten``: those
    never written, rows by columns) exactly those of the work-items with x < height and y < width,
    each pixel y * height + x, and right there (``right``, a flat mask of the pixels holding what
    such a kernel stores). ``out_param``: the output's declaration, for the hint."""
    width, height = case.height, case.width   # as the kernel sees them
    y, x = np.indices((min(height, case.threads[1]), min(width, case.threads[0])))
    index = (y * width + x).ravel()
    if width == height or index.max() >= unwritten.size:
        return
    written = np.zeros(unwritten.size, bool)
    written[index] = True
    if not np.array_equal(~unwritten.ravel(), written) or not right[written].all():
        return
    declared = re.search(r"\bint\s+height\s*,\s*int\s+width\s*\)", code)
    fy, fx = np.argwhere(unwritten)[0] if unwritten.any() else (None, None)
    missed = (f"; {int(unwritten.sum())} of {unwritten.size} pixels were never written (the "
              f"first is x = {fx}, y = {fy})" if fy is not None else "")
    yield (("the kernel declares its int parameters as int height, int width, where the host "
            "passes the image's width first" if declared else "the kernel's width and height "
            "are swapped: it used height as a row's length and width as the rows' count") +
           f": inside the kernel width = {width} and height = {height}, so each row was taken as "
           f"{width} pixels long, where the image's rows are {case.width}{missed}",
           f"declare them in the host's order: {out_param}, int width, int height"
           if declared else "width is the row's length (x < width, y * width) and height the "
           "number of rows (y < height)")


def one_local_id(written, right, grid, code):
    """One diagonal line of each work-group written (``written``: the pixels written, rows by
    columns, on ``grid``, a ``coverage.Grid``), and right there (``right``): x and y took the same
    local id (get_local_id(0) in both, or get_local_id(1) in both), so they move together. Named
    as the code writes the line whose local id is the other dimension's, where it shows one."""
    fits = [np.array_equal(written, diagonal(grid, side)) for side in grid.block[:2]]
    if written.all() or not any(fits) or not right[written].all():
        return
    lead = (f"only {int(written.sum())} of {written.size} pixels were written, one diagonal line "
            "in each work-group")
    found = [(name, d, re.search(rf"\b{name}\s*=(?!=)([^;]*\bget_local_id\s*\(\s*{1 - d}\s*"
                                 r"\)[^;]*);", code)) for d, name in enumerate("xy")]
    lines = [line for line in found if line[2]]
    if not lines and fits != [True, True]:   # the block's sides differ: the pixels tell which
        lines = [("y", 1, None)] if fits[0] else [("x", 0, None)]
    if len(lines) != 1:
        yield (f"{lead}: x and y took the same local id (get_local_id(0) in both, or "
               "get_local_id(1) in both), so they move together", "each takes its own dimension "
               "of the range: x = get_global_id(0) (the column), y = get_global_id(1) (the row)")
        return
    name, d, m = lines[0]
    other = "yx"[d]
    said = (f"{name} = {' '.join(m[1].split())} (line {code_line(code, m.start())}) takes "
            if m else f"{name} took ")
    yield (f"{lead}: {said}get_local_id({1 - d}), the work-item's place along dimension {1 - d}, "
           f"as {other} does, so {name} moves with {other}, and the work-items that differ only "
           f"in get_local_id({d}) wrote the same pixel", f"{name} takes its own dimension: "
           f"{name} = get_group_id({d}) * get_local_size({d}) + get_local_id({d}), or simply "
           f"{name} = get_global_id({d}) (the {('column', 'row')[d]})")


def one_index_split(written, right, across, code):
    """Only the first ``across`` pixels in memory order written (``written``: rows by columns),
    and right there (``right``), where ``across`` is the global size's first number: the pixel
    was taken from get_global_id(0) alone and split into a column and a row (x = i % width,
    y = i / width, as in a 1D kernel), so dimension 1 of the range only repeats those pixels."""
    height, width = written.shape
    first = np.zeros(written.size, bool)
    first[:across] = True
    if across >= written.size or not np.array_equal(written.ravel(), first) or \
            not right[written].all():
        return
    rows, rest = divmod(across, width)
    region = (f"x = 0 to {across - 1} of row 0" if not rows else
              ("row 0" if rows == 1 else f"rows 0 to {rows - 1}")
              + (f" and x = 0 to {rest - 1} of row {rows}" if rest else ""))
    split = re.search(r"\b(\w+)\s*=\s*(\w+)\s*%\s*width\b", code)
    row = split and re.search(rf"\b(\w+)\s*=\s*{split[2]}\s*/\s*width\b", code)
    said = (f"split as {split[1]} = {split[2]} % width, {row[1]} = {split[2]} / width" if row else
            "split into a column and a row")
    yield (f"only the first {across} pixels in memory order were written ({region}; "
           f"{written.size - across} of {written.size} never written): the pixel was taken from "
           f"get_global_id(0) alone, {said}, as in a 1D kernel; on this 2D range dimension 0 "
           f"counts only {across} work-items (the global size's first number), and the other "
           "rows of work-items wrote those same pixels again", "on a 2D range each dimension "
           "gives one coordinate: x = get_global_id(0) (the column), y = get_global_id(1) (the "
           "row), with no index to split (i % width and i / width belong to a 1D range)")


def buffers_out_first(code, kernel, signature):
    """The kernel's two buffer parameters declared out first (as memcpy's dst, src), where the
    host's ``signature`` passes its input image first: the host's input arrives as out, its
    output buffer as the input (for a caller that saw out never written)."""
    m = re.search(rf"__kernel\s+void\s+{kernel}\s*\(([^()]*)\)", code)
    buffers = [p for p in (m[1].split(",") if m else []) if "*" in p]
    names = [re.findall(r"\w+", p)[-1] for p in buffers]
    host = [re.findall(r"\w+", p)[-1] for p in signature.split(",") if "*" in p]
    if len(host) == 2 and host[1] == "out" and names[:2] == host[::-1]:
        declared = ", ".join(" ".join(p.split()) for p in buffers[:2])
        yield (f"the kernel declares its buffers out first ({declared}), where the host passes "
               f"the input image first: out was the host's input buffer, and {host[0]} its output "
               "buffer, so the stores went into the input's buffer and the output kept its poison",
               f"declare them in the host's order: __kernel void {kernel}({signature})")


def kernel_code(kernel):
    """The source a built kernel's program was made from, its comments blanked (each line kept
    where it was)."""
    from helpers.ch12 import opencl

    source = kernel.program.get_info(opencl.cl.program_info.SOURCE)
    return without_comments(source)


def code_line(code: str, pos: int) -> int:
    """The line of ``kernel_code``'s text at offset ``pos``, numbered from 1 as Oclgrind and the
    compiler number the kernel's lines (``kernel_code`` keeps every line where it was)."""
    return code.count("\n", 0, pos) + 1


def build(ctx, path: str, kernel: str, signature: str):
    """The kernel ``kernel`` of ``cuda_src/opencl/<path>`` built for ``ctx``, or the verdict that
    says why there is none."""
    from helpers.ch12 import opencl

    cl = opencl.cl
    try:
        source = opencl.read_cl(path)
    except FileNotFoundError as err:
        return not_yet(f"cannot find {path}: {err}",
                       f'paths are relative to cuda_src/opencl/, as in "exercises/{kernel}.cl"')
    try:
        # build_source: what the compiler says of a file that builds is printed as text (raw,
        # PyOpenCL warns, naming a path of its installation: NVIDIA's compiler warns of a stub)
        return cl.Kernel(opencl.build_source(ctx, source), kernel)
    except cl.RuntimeError as err:             # the build failed: print the compiler's log
        log = str(err).split("Build on", 1)[-1].split(":", 1)[-1].strip()
        # Oclgrind's name for the file, and NVIDIA's (which keeps #line's numbers, not its name)
        log = re.sub(r"^(input\.cl|<kernel>):", f"{path}:", log, flags=re.M)
        print(log)
        return not_yet(*_build_mistake(path, source), first_error(log))
    except cl.Error as err:                    # INVALID_KERNEL_NAME
        return not_yet(f"{path} has no kernel called {kernel} ({err})",
                       f"keep the signature given in the file: __kernel void {kernel}("
                       f"{signature})")


def _cuda_words(source):
    """``{CUDA's word: OpenCL's}`` for each of CUDA's words in ``source``, in order."""
    found = {}
    for pattern, cuda, opencl_word in CUDA_WORDS:
        for m in re.finditer(pattern, source):
            axis = m.group(1)
            found.setdefault(cuda.format(axis), opencl_word.format(axis, "xyz".find(axis)))
    return found


def _build_mistake(path, source):
    """(problem, hint) for a build error: CUDA's words in OpenCL C, or a pointer parameter
    without an address space, the mistakes a port from CUDA makes most; else the compiler's
    first message."""
    source = without_comments(source)   # every line kept where it was
    cuda = _cuda_words(source)
    if not cuda:
        return _const_stored(path, source) or (f"{path} does not build", _build_hint(source))
    hint = ", ".join(f"{c} is {o}" for c, o in cuda.items())
    if {"threadIdx.x", "blockIdx.x", "blockDim.x"} <= set(cuda):
        hint = ("a work-item's global index is get_global_id(0) (get_global_id(1) for y), what "
                "blockIdx.x * blockDim.x + threadIdx.x computes in CUDA; " + hint)
    return (f"{path} does not build: it uses CUDA's {', '.join(cuda)}, which OpenCL C does not "
            "know", "in OpenCL C, " + hint)


def _const_stored(path, source):
    """(problem, hint) of a store into a pointer parameter declared const (``name[...] =``, or
    ``+=`` and the like), the output declared as the input is: a build error; None if none."""
    m = re.search(r"__kernel\s+void\s+\w+\s*\(([^)]*)\)", source)
    for param in m.group(1).split(",") if m else []:
        words = re.findall(r"\w+", param)
        if "*" not in param or "const" not in words:
            continue
        name, decl = words[-1], " ".join(param.split())
        store = re.compile(rf"\b{name}\s*\[[^;=]*\]\s*([-+*/%&|^]?=)(?!=)").search(source,
                                                                                   m.end())
        if store:
            target = " ".join(store.group()[:store.start(1) - store.start()].split())
            return (f"{path} does not build: line {code_line(source, store.start())} stores into "
                    f"{name} ({target} {store.group(1)} ...), but {name} is declared {decl}: const "
                    "is for a buffer the kernel only reads", "declare the output without const: "
                    + re.sub(r"\bconst\s+", "", decl))
    return None


def _build_hint(source):
    """The hint for a build error of a source (comments removed) without CUDA's words: a pointer
    parameter without an address space, else the compiler's first message."""
    m = re.search(r"__kernel\s+void\s+\w+\s*\(([^)]*)\)", source)
    bare = [p.strip() for p in (m.group(1).split(",") if m else [])
            if "*" in p and not re.search(r"\b(__)?(global|constant|local)\b", p)]
    if bare:
        return (f"the parameter '{' '.join(bare[0].split())}' has no address space: every "
                "pointer a __kernel takes says where it points, __global for a buffer "
                "(CUDA needs no such word)")
    return COMPILE_HINT
