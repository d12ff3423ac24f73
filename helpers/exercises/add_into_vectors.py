"""Notebook 02's grid-stride loop (``cuda_src/exercises/add_into.cu``) taken a float4 (or a
float2) at a time with no tail: the loop runs over the n / 4 whole groups of 4, and where n is no
multiple of 4 the last n % 4 elements are never added to (``float_vectors.groups_without_tail``)."""

from __future__ import annotations

from helpers.exercises.float_vectors import groups_without_tail


def float_vectors_without_tail(kernels, visits):
    """(problem, hint) where each of the first 4 * (n / 4) elements was added to once and the
    others never (``visits``: how many times x[i] was added into y[i]), and the kernel's body
    takes its elements through a float4 (or a float2)."""
    found = groups_without_tail(kernels, visits == 1, "y", "added to")
    if found is None or visits.max() > 1:
        return
    problem, name, width = found
    yield problem, (f"after the {name} loop, add the last n % {width} elements one float at a "
                    f"time: for (int i = {width} * (n / {width}) + blockIdx.x * blockDim.x + "
                    "threadIdx.x; i < n; i += stride) y[i] += x[i]; (or take one float a step: "
                    "y[i] += x[i] in the loop over i < n)")
