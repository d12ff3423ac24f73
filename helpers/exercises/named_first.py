"""A launch's mistakes with an exercise's own ahead of them: for a kernel whose crash, named from
the error alone, looks like another mistake's, where the kernel's words or a launch of its own
on the simulator tell them apart (histogram_rgb's barrier in a loop, reverse_blocks' length of
the larger block)."""

from __future__ import annotations

from helpers.exercises.kernel import traced_back


def named_first(exercise, kernels, launch, ahead, mistakes):
    """What ``exercise.run`` of ``launch`` yields, ``ahead()``'s before its first mistake (a
    crash's, say); then, where the launch finished, ``mistakes(run)``, traced back to where
    each wrong element came from (``kernel.traced_back``)."""
    found = exercise.run(kernels, launch)
    try:
        first = next(found)
    except StopIteration as stop:
        run = stop.value
    else:
        yield from ahead()
        yield first
        run = yield from found
    if run is not None:
        yield from traced_back(kernels, launch, mistakes(run))
