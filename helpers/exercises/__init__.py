"""Checkers for the course's exercises.

Each exercise has a module here named after it, with one function ``check_<name>()`` that compiles
the learner's kernel from ``cuda_src/exercises/<name>.cu``, runs it on awkward sizes and prints a
verdict: ``PASS: ...`` or ``NOT YET: <what is wrong>. Hint: <what to look at>``. A checker returns
``True`` or ``False`` and never raises because a kernel is wrong.

In a notebook::

    from helpers.exercises.scale_vector import check_scale_vector
    check_scale_vector()

``helpers.exercises.common`` holds the small pieces the checkers share.
"""
