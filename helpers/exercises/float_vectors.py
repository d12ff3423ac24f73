"""The float vector types (float2, float4) a kernel's body takes its elements through, read from
its words (``microscope.body_words``), for the checkers of exercises of one float at a time: a
float4 holds 4 elements, so a kernel that loads and stores float4s covers whole groups of 4 only
(the last n % 4 elements of an n that is no multiple of 4 in none), and in a launch of one thread
per element its threads reach 4 times as far as there are elements."""

from __future__ import annotations

import numpy as np

from helpers.exercises.microscope import body_words

WIDTHS = {"float2": 2, "float4": 4}
"""The float vector types, with the floats each holds."""


def vector_of(kernels):
    """(the first float vector type the kernel's body names, the floats it holds), as
    ("float4", 4) for a reinterpret_cast<const float4 *>(x); None where it names none."""
    return next(((word, WIDTHS[word]) for word in body_words(kernels) if word in WIDTHS), None)


def groups_without_tail(kernels, done, array: str, verb: str):
    """(the problem, the vector type, the floats it holds) where the elements ``done`` (a bool
    for each of the n elements of ``array``) are exactly the first w * (n / w), n no multiple of
    w, and the kernel's body names a vector type of w floats: its vectors cover whole groups of
    w, and the last n % w elements are in none. None otherwise. ``verb`` says what the elements
    left out never were ("written", "added to")."""
    n, vector = done.size, vector_of(kernels)
    if vector is None or not n % vector[1]:
        return None
    name, width = vector
    covered, left = width * (n // width), n % width
    if not np.array_equal(done, np.arange(n) < covered):
        return None
    elements = (f"{array}[{covered}], the last element of n = {n}, was" if left == 1 else
                f"{array}[{covered}] to {array}[{n - 1}], the last {left} elements of n = {n}, "
                "were")
    return (f"{elements} never {verb}: each thread took {width} elements at once with a {name}, "
            f"and {name}s cover whole groups of {width} only, the first {width} * (n / {width}) = "
            f"{covered} elements; n % {width} = {left} {'is' if left == 1 else 'are'} left over, "
            f"in no {name}", name, width)
