"""Checkers for the course's exercises.

Each exercise has a module here named after it, with one function ``check_<name>()`` that compiles
the learner's kernel from ``cuda_src/exercises/<name>.cu``, runs it on awkward sizes, prints a
verdict, ``PASS: ...`` or ``NOT YET: <what is wrong>. Hint: <what to look at>``, and returns it as
a ``Verdict`` (``verdict.passed``, ``verdict.problem``, ``verdict.hint``; true in an ``if`` when it
passed). In the chapters about speed a right kernel is rated once more: ``FAST: ...`` when it also
reaches the chapter's target, else a PASS that says what is missing (``verdict.level``,
``verdict.fast``, ``verdict.slow``). A checker never raises because the learner's work is wrong: a missing file, a compile
error, a wrong signature, a crash or (on the simulator) an endless loop is a verdict too.

In a notebook::

    from helpers.exercises.scale_vector import check_scale_vector
    check_scale_vector();

- ``verdict``: the Verdict, and the loop every checker shares (mistake detectors written as
  generators: the first mistake a detector yields is the verdict);
- ``kernel``: ``KernelExercise``, the runner every ``.cu`` exercise shares: the file, the
  compile, the kernel's name and signature, then each case launched, a crash named, the outputs
  read back for the exercise's detectors (and, on the simulator, a read past an input run again
  with room after it: ``read_past=``, and an output that came back holding its poison launched
  again holding 0, 1000, then 2000: ``held``), (where asked) a verdict before the cases or after
  them, and the speed tier (``fast=``: FAST or PASS);
- ``held``: a kernel that adds to its output (``out[i] += v``) or reads it before writing it,
  named from those launches;
- ``near``: near misses every checker looks for before its last word (a factor, an offset, a
  transpose, a shift, only the first p of each block right);
- ``origin``: a detector's last word, "N elements are wrong (the first ...)", yielded as a
  ``Wrong`` that names the element: the runner adds which thread stored it, at which line, and
  what that thread loaded (the case run again on the simulator, traced; on a GPU, on the
  simulator's twin where the exercise has one);
- ``unset``: what the simulator's compiler warned about the learner's code, as its records' fields
  (a local read before anything is stored in it: a PASS becomes NOT YET; an ``if`` whose body is
  a lone semicolon: named first, whatever the cases said);
- ``signature``: the kernel's parameters read as text from the learner's source, compared with
  the stub's;
- ``speed``: the speed tier's measures on a GPU, events against the copy or the FMA ceiling (on
  the simulator the exercises read the trace instead);
- ``failure``: what a failed launch was, read from the error's fields (an overrun of a declared
  array, a race between lanes, warps or blocks, a read-modify-write, a warp function's mask, a
  barrier not reached, the time limit), and the hint for its kind, which an exercise may refine
  (``refine=``: a generator of its own hints, most specific first);
- ``common``: a launch's ``Input`` (junk around it), ``Output`` (poison and a guard zone after
  it) and ``Result``, and launches that report instead of raising;
- ``coverage``: the detectors of index and guard mistakes every 2-D exercise shares;
- ``function``: what the exercises whose work is a Python function share (05, 11);
- ``learner_code``: a learner's Python read: the line an error was raised at, the code parsed
  and numbered as the learner sees it;
- ``escape``: notebook 03's escape-time loop in NumPy, the model its Julia and Mandelbrot share;
- ``microscope``: the same launch on the simulator, race-checked and traced, on either backend;
- ``catalog``: every exercise, where its work lives, its stub as shipped;
- ``progress``: ``status()`` and ``reset(name)``, imported here.

A new kernel exercise is one module of at most 120 lines (``add_constant`` is the shortest):
its cases (awkward sizes), ``_launch(case)`` giving a ``kernel.Launch`` (the arguments, with
``Input``s and ``Output``s, the block and grid, and the NumPy model), ``_mistakes(case, run)``
yielding ``(problem, hint)`` for each mistake the ``Run`` shows, most specific first, and one
``KernelExercise(...)`` whose ``check_file`` and ``check_kernel`` are its ``check_<name>`` and
``check_<name>_kernel``. It writes no launch, no poison, no crash handling and no loop over the
cases: the runner does those. An exercise with a check only the simulator makes passes
``simulated=`` and calls ``microscope.observe`` from its detectors (or marks a case
``observe=True``: the runner launches it on the simulator alone). Its stub differs from its
solution only on the stub's TODO lines (``tests/exercises/test_skeletons.py`` says how exactly).
"""

from helpers.exercises.progress import reset, status  # noqa: E402,F401 - the learner's two calls
