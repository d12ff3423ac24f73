"""Every exercise of the course, where the learner's work for it lives, and how to check it.

An exercise is a kernel in a ``.cu`` stub under ``cuda_src/exercises/``, or (notebooks 05 and
11) a Python function the learner writes in a notebook cell. ``check(exercise, root)`` checks the work
found under ``root``, a copy of the course: the learner's own (``status()``) or a student's
submission (``tools/grade.py``). ``as_shipped(exercise)`` is the stub as the course hands it out,
kept in ``helpers/exercises/as_shipped/`` so that a reset can put it back and ``status()`` can
tell an exercise not yet started (a test keeps those copies equal to the course's stubs).
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
    name: str
    notebook: str       # the notebook whose exercise it is, in notebooks/
    work: str           # the file the learner edits, relative to the course's root
    checker: str        # "module:function" in helpers.exercises
    function: str = ""  # for a Python exercise: the function the learner's cell defines

    @property
    def is_kernel(self) -> bool:
        return self.work.endswith((".cu", ".cl"))


EXERCISES = [
    Exercise("scale_vector", "01_hello_cuda.ipynb", "cuda_src/exercises/scale_vector.cu",
             "scale_vector:check_scale_vector"),
    Exercise("matrix_index", "02_threads_and_blocks.ipynb", "cuda_src/exercises/matrix_index.cu",
             "matrix_index:check_matrix_index"),
    Exercise("julia", "03_mandelbrot.ipynb", "cuda_src/exercises/julia.cu", "julia:check_julia"),
    Exercise("sepia", "04_grayscale.ipynb", "cuda_src/exercises/sepia.cu", "sepia:check_sepia"),
    Exercise("sepia_x16", "04_grayscale.ipynb", "cuda_src/exercises/sepia_x16.cu",
             "sepia_x16:check_sepia_x16"),
    Exercise("pipeline", "05_pinned_memory_and_streams.ipynb",
             "notebooks/05_pinned_memory_and_streams.ipynb", "pipeline:check_pipeline",
             "my_pipeline"),
    Exercise("box_blur", "06_shared_memory.ipynb", "cuda_src/exercises/box_blur.cu",
             "box_blur:check_box_blur"),
    Exercise("dot_product", "07_reductions_and_atomics.ipynb", "cuda_src/exercises/dot_product.cu",
             "dot_product:check_dot"),
    Exercise("histogram_rgb", "07_reductions_and_atomics.ipynb",
             "cuda_src/exercises/histogram_rgb.cu", "histogram_rgb:check_histogram_rgb"),
    Exercise("matmul_bt", "08_matrix_multiply.ipynb", "cuda_src/exercises/matmul_bt.cu",
             "matmul_bt:check_matmul_bt"),
    Exercise("block_mean", "09_debugging_and_profiling.ipynb",
             "cuda_src/exercises/block_mean.cu", "block_mean:check_block_mean"),
    Exercise("backproject_range", "10_depth_to_point_cloud.ipynb",
             "cuda_src/exercises/backproject_range.cu",
             "backproject_range:check_backproject_range"),
    Exercise("gray_split", "11_multiple_gpus.ipynb", "notebooks/11_multiple_gpus.ipynb",
             "gray_split:check_gray_split", "my_gray_split"),
    Exercise("sepia_opencl", "12_opencl.ipynb", "cuda_src/opencl/exercises/sepia.cl",
             "sepia_opencl:check_sepia_opencl"),
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
    """The learner's version of the stub under ``root``, or None when it is missing."""
    path = Path(root) / exercise.work
    if not path.is_file():
        return None
    if exercise.is_kernel:
        return path.read_text(errors="replace")
    return notebook_function(path, exercise.function)


def notebook_function(notebook: Path, name: str) -> str | None:
    """The source of the code cell that starts with ``def name(``, as saved in ``notebook``."""
    try:
        cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    for cell in cells:
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "code" and source.startswith(f"def {name}("):
            return source
    return None


def started(exercise: Exercise, root: Path) -> bool:
    """False while the learner's stub is still as shipped (or missing)."""
    work = learner_work(exercise, root)
    return work is not None and work.strip() != as_shipped(exercise).strip()


def check(exercise: Exercise, root: Path) -> Verdict:
    """Run the exercise's checker on the work under ``root``; print and return the verdict."""
    module, function = exercise.checker.split(":")
    checker = getattr(importlib.import_module(f"helpers.exercises.{module}"), function)
    if exercise.is_kernel:
        return checker(str((Path(root) / exercise.work).resolve()))
    source = learner_work(exercise, root)
    if source is None:
        return not_yet(f"no cell defining {exercise.function} in {exercise.work}",
                       f"keep the exercise's cell, def {exercise.function}(...), in the "
                       "notebook, and save it").report()
    return checker(define_function(source, exercise.function))


def define_function(source: str, name: str):
    """Run a notebook cell's ``source`` as the notebook would and return the function ``name``
    it defines (a cell that does not run gives a function that raises its error)."""
    import numpy as np

    from helpers.backend import drv, gpuarray
    from helpers.ch11.multigpu import using

    namespace = {"drv": drv, "np": np, "gpuarray": gpuarray, "using": using}
    try:
        exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102 - the learner's cell
        function = namespace[name]
    except Exception as err:  # noqa: BLE001 - reported by the checker, which calls the function
        def function(*args, error=err, **kwargs):
            raise error
    return function
