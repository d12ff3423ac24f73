"""Every exercise of the course, where the learner's work for it lives, and how to check it.

An exercise is a kernel in a stub under ``cuda_src/exercises/`` (``.cu``; OpenCL's ``.cl`` under
``cuda_src/opencl/exercises/``), or a Python function: in a notebook cell (notebooks 05 and 11's
gray_split), or in a ``.py`` file of ``cuda_src/exercises/`` whose checker, like a kernel's, takes
the file (notebook 11's small exercises: its stored two-GPU run takes no new cells).
``check(exercise, root)`` checks the work found under ``root``, a copy of the course: the learner's
own (``status()``) or a student's submission (``tools/grade.py``). ``as_shipped(exercise)`` is the
stub as the course hands it out, kept in ``helpers/exercises/as_shipped/`` so that a reset can put
it back and ``status()`` can tell an exercise not yet started (a test keeps those copies equal to
the course's stubs).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from pathlib import Path

from helpers.exercises.verdict import Verdict, not_yet

AS_SHIPPED = Path(__file__).resolve().parent / "as_shipped"


@dataclasses.dataclass(frozen=True)
class Exercise:
    """An exercise, its checker ``helpers.exercises.<name>.check_<name>`` (or ``checker``). The
    learner edits ``work``, relative to the course's root: by default the kernel stub
    ``cuda_src/exercises/<name>.cu``, or for a Python exercise (``function``: what the learner's
    cell defines) the notebook. ``points``: what passing it is worth to a grader
    (``tools/grade.py``; an instructor's points file overrides it)."""

    name: str
    notebook: str       # the notebook whose exercise it is, in notebooks/
    work: str = ""
    function: str = ""
    checker: str = ""
    points: float = 1

    def __post_init__(self):
        if not self.work:
            work = f"notebooks/{self.notebook}" if self.function else \
                f"cuda_src/exercises/{self.name}.cu"
            object.__setattr__(self, "work", work)

    @property
    def is_kernel(self) -> bool:
        """True where the work is a file of its own: a kernel stub, or one of notebook 11's
        Python files (whose checker, like a kernel's, takes the file's path)."""
        return self.work.endswith((".cu", ".cl", ".py"))


EXERCISES = [
    Exercise("add_constant", "01_hello_cuda.ipynb"),
    Exercise("multiply_vectors", "01_hello_cuda.ipynb"),
    Exercise("scale_vector", "01_hello_cuda.ipynb"),
    Exercise("scale_slices", "02_threads_and_blocks.ipynb"),
    Exercise("add_into", "02_threads_and_blocks.ipynb"),
    Exercise("matrix_index", "02_threads_and_blocks.ipynb"),
    Exercise("escape_steps", "03_mandelbrot.ipynb"),
    Exercise("mandelbrot_rows", "03_mandelbrot.ipynb"),
    Exercise("julia", "03_mandelbrot.ipynb"),
    Exercise("gray_coalesced", "04_grayscale.ipynb"),
    Exercise("sepia", "04_grayscale.ipynb"),
    Exercise("sepia_x16", "04_grayscale.ipynb"),
    Exercise("copy_bandwidth", "05_pinned_memory_and_streams.ipynb", function="my_copy_gbs"),
    Exercise("staging_upload", "05_pinned_memory_and_streams.ipynb", function="my_upload"),
    Exercise("pipeline", "05_pinned_memory_and_streams.ipynb", function="my_pipeline"),
    Exercise("reverse_blocks", "06_shared_memory.ipynb"),
    Exercise("gradient", "06_shared_memory.ipynb"),
    Exercise("box_blur", "06_shared_memory.ipynb"),
    Exercise("warp_vote", "07_reductions_and_atomics.ipynb"),
    Exercise("dot_product", "07_reductions_and_atomics.ipynb", checker="check_dot"),
    Exercise("histogram_rgb", "07_reductions_and_atomics.ipynb"),
    Exercise("matvec_warp", "08_matrix_multiply.ipynb"),
    Exercise("matmul_wide", "08_matrix_multiply.ipynb"),
    Exercise("matmul_bt", "08_matrix_multiply.ipynb"),
    Exercise("column_means", "09_debugging_and_profiling.ipynb"),
    Exercise("reverse_chunks", "09_debugging_and_profiling.ipynb"),
    Exercise("block_mean", "09_debugging_and_profiling.ipynb"),
    Exercise("compact_points", "10_depth_to_point_cloud.ipynb"),
    Exercise("depth_range", "10_depth_to_point_cloud.ipynb"),
    Exercise("backproject_range", "10_depth_to_point_cloud.ipynb"),
    Exercise("halo_exchange", "11_multiple_gpus.ipynb", work="cuda_src/exercises/halo_exchange.py"),
    Exercise("split_sum", "11_multiple_gpus.ipynb", work="cuda_src/exercises/split_sum.py"),
    Exercise("gray_split", "11_multiple_gpus.ipynb", function="my_gray_split"),
    Exercise("mirror_opencl", "12_opencl.ipynb", work="cuda_src/opencl/exercises/mirror.cl"),
    Exercise("group_sum_opencl", "12_opencl.ipynb",
             work="cuda_src/opencl/exercises/group_sum.cl"),
    Exercise("sepia_opencl", "12_opencl.ipynb", work="cuda_src/opencl/exercises/sepia.cl"),
    Exercise("wmma_tile", "13_tensor_cores.ipynb"),
    Exercise("wmma_gemm", "13_tensor_cores.ipynb"),
    Exercise("wmma_partial_k", "13_tensor_cores.ipynb"),
    Exercise("causal_softmax", "14_softmax_and_attention.ipynb"),
    Exercise("online_softmax", "14_softmax_and_attention.ipynb"),
    Exercise("attention_tiles", "14_softmax_and_attention.ipynb"),
]


def find(name: str) -> Exercise:
    """The exercise called ``name``; a clear error listing them when there is none."""
    for exercise in EXERCISES:
        if exercise.name == name:
            return exercise
    raise ValueError(f"no exercise called {name!r}; the exercises are: "
                     + ", ".join(e.name for e in EXERCISES))


def as_shipped(exercise: Exercise) -> str:
    """The exercise's stub as the course hands it out (for a Python exercise: the function's
    cell)."""
    suffix = Path(exercise.work).suffix if exercise.is_kernel else ".py"
    return (AS_SHIPPED / f"{exercise.name}{suffix}").read_text()


def learner_work(exercise: Exercise, root: Path) -> str | None:
    """The learner's version of the stub under ``root`` (for a Python exercise, the code cell
    that starts with ``def <function>(``, as last saved), or None when it is missing."""
    path = Path(root) / exercise.work
    if exercise.is_kernel:
        return path.read_text(errors="replace") if path.is_file() else None
    sources = (_source(c) for c in notebook_cells(path) or () if c.get("cell_type") == "code")
    return next((s for s in sources if s.startswith(f"def {exercise.function}(")), None)


def notebook_cells(path: Path) -> list[dict] | None:
    """The cells of the notebook at ``path``, or None when it is missing or not a notebook (JSON
    of any other shape than a dict whose ``cells`` is a list of dicts, or nested too deep to
    read): a handed-in file is read as it comes, so nothing in it may raise."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if isinstance(cells, list) and all(isinstance(cell, dict) for cell in cells):
        return cells
    return None


def _source(cell: dict) -> str:
    """A cell's source as one text ("" when it is neither a text nor a list of texts)."""
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else ""


def started(exercise: Exercise, root: Path) -> bool:
    """False while the learner's stub is still as shipped (or missing)."""
    work = learner_work(exercise, root)
    return work is not None and work.strip() != as_shipped(exercise).strip()


def check(exercise: Exercise, root: Path, hidden: int | None = None) -> Verdict:
    """Run the exercise's checker on the work under ``root`` (with the cases it draws from the
    seed ``hidden`` too, when given: ``helpers.exercises.hidden``); print and return the
    verdict."""
    checker = getattr(importlib.import_module(f"helpers.exercises.{exercise.name}"),
                      exercise.checker or f"check_{exercise.name}")
    if exercise.is_kernel:
        return checker(str((Path(root) / exercise.work).resolve()), hidden=hidden)
    if not (Path(root) / exercise.work).is_file():
        return not_yet(f"{exercise.work} is missing: the notebook was not handed in",
                       f"hand in {exercise.work} with your cell def {exercise.function}(...) "
                       "in it, saved").report()
    source = learner_work(exercise, root)
    if source is None:
        return not_yet(f"no cell defining {exercise.function} in {exercise.work}",
                       f"keep the exercise's cell, def {exercise.function}(...), in the "
                       "notebook, and save it").report()
    return checker(define_function(source, exercise.function), hidden=hidden)


def define_function(source: str, name: str, filename: str = ""):
    """Run a notebook cell's ``source`` as the notebook would and return the function ``name``
    it defines (a cell that does not run gives a function that raises its error), or, where
    ``python_screen`` refuses any of the source, module level too, the verdict that says what,
    none of it run. Its code is named ``filename`` (a file's path), or ``<name>`` for a cell,
    whose lines a traceback then shows (``learner_code.learner_line``)."""
    import linecache

    import numpy as np

    from helpers.backend import drv, gpuarray
    from helpers.ch11.multigpu import using
    from helpers.exercises.learner_code import code_in
    from helpers.exercises.python_screen import refusal

    filename = filename or f"<{name}>"
    code = code_in(source, filename)
    if code and (refused := refusal(code)):
        return not_yet(*refused)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"drv": drv, "np": np, "gpuarray": gpuarray, "using": using}
    try:
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the learner's cell
        function = namespace[name]
    except Exception as err:  # noqa: BLE001 - reported by the checker, which calls the function
        def function(*args, error=err, **kwargs):
            raise error
    return function
