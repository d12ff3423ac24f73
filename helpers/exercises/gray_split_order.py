"""What ``helpers.exercises.gray_split`` needs to see an array freed under a running kernel: a
launch's arguments noted without a reference to the learner's gpuarrays (``kept``), so that one
the learner lets go of is freed then (a launch keeps no reference either, on a GPU or the
simulator, and the free waits for the kernels that use it, as cuMemFree does), and the devices'
taking turns that such a free caused (``freed_while_running``)."""

from __future__ import annotations

import ast
import weakref
from collections import namedtuple

from helpers.exercises.learner_code import code_of

Array = namedtuple("Array", "shape size dtype")
"""What the checker keeps of a gpuarray a launch was given (keeping the array itself would keep
it from being freed)."""

ROLES = ("input", "output")  # the kernel's first two arguments: rgb_k, grey_k


def kept(k, args, launches, freed, order):
    """The arguments of device k's launch as the checker keeps them, each gpuarray as an
    ``Array``; its freeing before device k's kernels had run (``order.seen``: the devices whose
    kernels had) noted in ``freed``: (k, its place among the arguments, how many ``launches``
    there were). The note holds ``order`` weakly: it reaches the copies' records, which hold the
    arrays, and a finalizer's callback that reaches its array keeps it alive for good (its
    memory with it)."""
    order = weakref.ref(order) if order is not None else lambda: None

    def note(place):
        if k not in (order().seen(None)[0] if order() is not None else ()):
            freed.append((k, place, len(launches)))

    noted = []
    for place, arg in enumerate(args):
        if hasattr(arg, "gpudata") and hasattr(arg, "shape"):
            weakref.finalize(arg, note, place)
            arg = Array(arg.shape, arg.size, arg.dtype)
        noted.append(arg)
    return tuple(noted)


def freed_while_running(fn, launches, freed, j, i, work="kernel"):
    """(problem, hint) where device ``i``'s kernel, which the host waited for before launch
    ``j`` (``launches[j]``), had an array of its freed before that launch (``freed``: kept's
    notes): the learner's name for it and the list its results are collected from, with that
    name added, taken from ``fn``'s code where known; else None. ``work``: what the learner
    calls what was launched (a kernel, a sum)."""
    first = next(m for m, launch in enumerate(launches) if launch.device == i)
    place = next((p for k, p, made in freed if k == i and first < made <= j), None)
    if place is None:
        return None
    code, name, keep = code_of(fn), None, "put it in the list you collect the results from"
    if code is not None:
        calls = [c for c in ast.walk(code.tree) if isinstance(c, ast.Call)]
        name = next((ast.unparse(c.args[place]) for c in calls if isinstance(c.func, ast.Subscript)
                     and len(c.args) > place), None)
        put = next((c for c in calls if getattr(c.func, "attr", "") == "append" and c.args
                    and isinstance(c.args[0], ast.Tuple) and name and name not in
                    {ast.unparse(e) for e in c.args[0].elts}), None)
        if put is not None:
            elts = ", ".join([ast.unparse(e) for e in put.args[0].elts] + [name])
            keep = f"{ast.unparse(put.func)}(({elts})), and unpack it in the collecting loop"
    said = f"{name} (the {work}'s {ROLES[place]})" if name and place < 2 else (
        f"the {work}'s argument {place}")
    return (f"the result is right, but device {i}'s {said} was freed before device "
            f"{launches[j].device}'s {work} was launched, once nothing held it (binding "
            f"{name or 'its name'} to the next device's array lets go of the one it held), and "
            f"freeing device memory waits for the {work} that uses it, so the devices took turns",
            "keep every device's arrays until its "
            f"results are copied back: {keep}")
