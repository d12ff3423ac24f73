"""Checkers for the course's exercises.

Each exercise has a module here named after it, with one function ``check_<name>()`` that compiles
the learner's kernel from ``cuda_src/exercises/<name>.cu``, runs it on awkward sizes, prints a
verdict, ``PASS: ...`` or ``NOT YET: <what is wrong>. Hint: <what to look at>``, and returns it as
a ``Verdict`` (``verdict.passed``, ``verdict.problem``, ``verdict.hint``; true in an ``if`` when it
passed). A checker never raises because the learner's work is wrong: a missing file, a compile
error, a wrong signature, a crash or (on the simulator) an endless loop is a verdict too.

In a notebook::

    from helpers.exercises.scale_vector import check_scale_vector
    check_scale_vector();

- ``verdict``: the Verdict, and the loop every checker shares (mistake detectors written as
  generators: the first mistake a detector yields is the verdict);
- ``kernel``: ``KernelExercise``, what every ``.cu`` exercise checks before its cases (the file,
  the compile, the kernel's name and signature);
- ``common``: output buffers with a guard zone, and launches that report instead of raising;
- ``function``: what the exercises whose work is a Python function share (05, 11);
- ``catalog``: every exercise, where its work lives, its stub as shipped;
- ``progress``: ``status()`` and ``reset(name)``, imported here.
"""

from helpers.exercises.progress import reset, status  # noqa: E402,F401 - the learner's two calls
