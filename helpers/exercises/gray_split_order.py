"""What ``helpers.exercises.gray_split`` needs to see an array freed under a running kernel: a
launch's arguments noted without a reference to the learner's gpuarrays (``kept``), so that one
the learner lets go of is freed then (a launch keeps no reference either, on a GPU or the
simulator, and the free waits for the kernels that use it, as cuMemFree does), and the devices'
taking turns that such a free caused (``freed_while_running``)."""

from __future__ import annotations

import ast
import copy
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
    notes): the learner's name for it (or the expression that made it inside the call) and the
    list its results are collected from, with that name added, taken from ``fn``'s code where
    known; else None. ``work``: what the learner calls what was launched (a kernel, a sum)."""
    first = next(m for m, launch in enumerate(launches) if launch.device == i)
    place = next((p for k, p, made in freed if k == i and first < made <= j), None)
    if place is None:
        return None
    arg, put = _argument_and_list(code_of(fn), place)
    later = f"device {launches[j].device}'s {work} was launched"
    took_turns = f"freeing device memory waits for the {work} that uses it, so the devices took turns"
    if arg is not None and not isinstance(arg, ast.Name):
        return _made_inside_the_call(arg, put, place, work, f"device {i}", later, took_turns)
    name, keep = arg and ast.unparse(arg), "put it in the list you collect the results from"
    if put is not None and name and name not in {ast.unparse(e) for e in put.args[0].elts}:
        elts = ", ".join([ast.unparse(e) for e in put.args[0].elts] + [name])
        keep = f"{ast.unparse(put.func)}(({elts})), and unpack it in the collecting loop"
    said = f"{name} (the {work}'s {ROLES[place]})" if name and place < 2 else (
        f"the {work}'s argument {place}")
    return (f"the result is right, but device {i}'s {said} was freed before {later}, once "
            f"nothing held it (binding {name or 'its name'} to the next device's array lets go "
            f"of the one it held), and {took_turns}",
            f"keep every device's arrays until its results are copied back: {keep}")


def _argument_and_list(code, place):
    """In the learner's ``code`` (None where unknown): the argument at ``place`` of the first
    call of a subscripted name (sums[k](...)), and the first append of a tuple (the list the
    results are collected from); None for either not found."""
    calls = [c for c in ast.walk(code.tree) if isinstance(c, ast.Call)] if code else []
    arg = next((c.args[place] for c in calls if isinstance(c.func, ast.Subscript)
                and len(c.args) > place), None)
    put = next((c for c in calls if getattr(c.func, "attr", "") == "append" and c.args
                and isinstance(c.args[0], ast.Tuple)), None)
    return arg, put


def _made_inside_the_call(arg, put, place, work, device, later, took_turns):
    """(problem, hint) where the freed array was made inside the launch's call (``arg``, not a
    name), so that nothing held it once the call returned: the hint names it first and keeps
    that name in ``put``'s tuple (in a None's place, or added to it)."""
    made, named = ast.unparse(arg), "share" if work == "sum" else f"d_{ROLES[min(place, 1)]}"
    what = "share" if work == "sum" else ROLES[min(place, 1)]
    keep = f"put {named} in the list you collect the results from"
    if put is not None:
        kept_as = _Renamed(ast.dump(arg), named).visit(copy.deepcopy(put))
        elts = kept_as.args[0].elts
        empty = next((k for k, e in enumerate(elts) if isinstance(e, ast.Constant)
                      and e.value is None), None)
        if empty is None:
            elts.append(ast.Name(named))
        else:
            elts[empty] = ast.Name(named)
        keep = ast.unparse(kept_as) + ("" if empty is not None else
                                       ", and unpack it in the collecting loop")
    return (f"the result is right, but {device}'s {what}, {made} made inside the {work}'s call, "
            f"was freed before {later}: no name held it once the call returned, and "
            f"{took_turns}", f"keep every device's arrays until its results are copied back: "
            f"give it a name before the call, {named} = {made}, then {keep}")


class _Renamed(ast.NodeTransformer):
    """An expression (by its ``ast.dump``) replaced by a name."""

    def __init__(self, dumped, name):
        self.dumped, self.name = dumped, name

    def visit(self, node):
        return ast.Name(self.name) if ast.dump(node) == self.dumped else super().visit(node)
