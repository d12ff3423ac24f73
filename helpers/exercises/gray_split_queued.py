"""What ``helpers.exercises.gray_split`` needs to see copies back that were still queued when the
learner's function returned: the result as it was then (``at_return``), every device's queued
work waited for after it, and the images that arrived only then (``arrived_after_return``)."""

from __future__ import annotations

import numpy as np


def at_return(result, contexts):
    """A copy of ``result``, the learner's function's (where it is an array), as it was at its
    return; then every device's queued work waited for, each in its context, so that copies back
    still queued on a stream land in ``result``, as on a GPU they would some time later."""
    from helpers.backend import drv
    from helpers.ch11.multigpu import using

    returned = np.array(result) if isinstance(result, np.ndarray) else None
    for context in contexts:
        with using(context):
            drv.Context.synchronize()
    return returned


def arrived_after_return(returned, result):
    """(problem, hint) where images of ``result`` arrived only after the function returned
    (``returned``: ``at_return``'s copy): copies back queued on streams, never waited for."""
    if returned is None or returned.shape != getattr(result, "shape", None) or \
            np.array_equal(returned, result):
        return
    late = np.flatnonzero((returned != result).reshape(len(result), -1).any(axis=1))
    listed = ", ".join(str(i) for i in late[:8]) + (", ..." if late.size > 8 else "")
    count = len(result)
    which = (f"none of the {count} grey images had arrived in it" if late.size == count else
             f"{late.size} of the {count} grey images (images {listed}) had not arrived in it")
    yield (f"when your function returned, {which} "
           "yet: their copies back were queued on streams (asynchronous) and nothing waited "
           "for them, so the array was read before they ran (waited for afterwards, they fill "
           "it)", "before returning, wait for each device's stream in its own context: with "
           "using(contexts[k]): stream.synchronize(), in a loop after the one that queues the "
           "work, so that the devices still work at the same time")
